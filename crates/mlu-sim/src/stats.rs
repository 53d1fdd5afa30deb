//! Statistics of a run: cycles, per-core and per-pipe busy, stall and idle
//! cycles with stall reasons, bytes per copy route, and the achieved
//! fraction of each roofline; as text or JSON.
//!
//! Rooflines (the roofline model of S. Williams, A. Waterman and
//! D. Patterson, "Roofline: an insightful visual performance model for
//! multicore architectures", CACM 52(4), 2009; listed in
//! `docs/references.md`): for each resource, the cycles the run's work
//! needs at that resource's full rate (`bound`), and `bound / cycles`.
//! `dma` is the largest of the copy bounds (DRAM, SRAM, each core's IO-DMA
//! and Move-DMA engines); a kernel at 100% of it moves bytes as fast as the
//! machine can.
//!
//! Invariant: for every core and pipe, `busy + stalls + idle` equals the
//! run's cycles (cycle mode); output is deterministic (reasons sorted).

use crate::trap::CoreRef;
use mlu_isa::{Pipe, Route};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Why a pipe waited.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum StallReason {
    /// The front end waited for a register a slower instruction writes.
    Register,
    /// The front end waited for room in a pipe's queue.
    QueueFull(Pipe),
    /// The front end waited at `sync.io`.
    SyncIo,
    /// The front end waited at `sync.move`.
    SyncMove,
    /// The front end waited at `sync.compute`.
    SyncCompute,
    /// The front end waited at `sync.all`.
    SyncAll,
    /// The front end waited at a barrier (draining its pipes, then for the
    /// other cores).
    Barrier,
    /// A copy pipe waited for its next copy's startup latency.
    DmaLatency,
    /// A copy ran slower than its engine because others shared its bandwidth.
    Bandwidth,
}

impl StallReason {
    /// A short name.
    pub fn name(self) -> String {
        match self {
            StallReason::Register => "register".into(),
            StallReason::QueueFull(p) => format!("queue full ({p})"),
            StallReason::SyncIo => "sync.io".into(),
            StallReason::SyncMove => "sync.move".into(),
            StallReason::SyncCompute => "sync.compute".into(),
            StallReason::SyncAll => "sync.all".into(),
            StallReason::Barrier => "barrier".into(),
            StallReason::DmaLatency => "dma latency".into(),
            StallReason::Bandwidth => "bandwidth contention".into(),
        }
    }
}

/// One pipe of one core.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct PipeStats {
    /// Cycles doing work.
    pub busy: u64,
    /// Cycles waiting, by reason.
    pub stalls: BTreeMap<StallReason, u64>,
    /// The rest of the run.
    pub idle: u64,
}

impl PipeStats {
    /// All stall cycles.
    pub fn stalled(&self) -> u64 {
        self.stalls.values().sum()
    }

    pub(crate) fn stall(&mut self, r: StallReason, cycles: u64) {
        if cycles > 0 {
            *self.stalls.entry(r).or_insert(0) += cycles;
        }
    }
}

/// One core.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CoreStats {
    /// Which core.
    pub core: CoreRef,
    /// Instructions it issued.
    pub instructions: u64,
    /// The cycle it finished (its pipes drained after `exit`).
    pub finish: u64,
    /// Per pipe, in [`Pipe::ALL`] order.
    pub pipes: [PipeStats; 4],
}

/// Copies along one route.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RouteStats {
    /// The direction.
    pub route: Route,
    /// Copies issued.
    pub copies: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Bytes charged (DRAM granules and read-modify-writes included).
    pub charged: u64,
}

/// One roofline.
#[derive(Clone, PartialEq, Debug)]
pub struct Roofline {
    /// The resource (`dma`, `dram`, `sram`, `io-dma`, `move-dma`, `vector`, `matrix`).
    pub name: &'static str,
    /// Cycles the work needs at the resource's full rate.
    pub bound: u64,
    /// `bound / cycles` (0 in functional mode).
    pub fraction: f64,
}

/// What a run did.
#[derive(Clone, PartialEq, Debug)]
pub struct Stats {
    /// Cycles (0 in functional mode).
    pub cycles: u64,
    /// Instructions issued by all cores.
    pub instructions: u64,
    /// The clock, to turn cycles into time.
    pub clock_mhz: u32,
    /// Per core.
    pub cores: Vec<CoreStats>,
    /// Per route with at least one copy, in [`Route::ALL`] order.
    pub routes: Vec<RouteStats>,
    /// The rooflines.
    pub rooflines: Vec<Roofline>,
    /// Hazards counted (in warning mode; deduplicated ones included).
    pub hazards: u64,
}

impl Stats {
    /// A roofline by name.
    pub fn roofline(&self, name: &str) -> Option<&Roofline> {
        self.rooflines.iter().find(|r| r.name == name)
    }

    /// Per pipe, summed over cores.
    pub fn pipe_totals(&self) -> [PipeStats; 4] {
        let mut t: [PipeStats; 4] = Default::default();
        for c in &self.cores {
            for (i, p) in c.pipes.iter().enumerate() {
                t[i].busy += p.busy;
                t[i].idle += p.idle;
                for (&r, &v) in &p.stalls {
                    t[i].stall(r, v);
                }
            }
        }
        t
    }

    /// Human-readable statistics.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let us = self.cycles as f64 / f64::from(self.clock_mhz.max(1));
        writeln!(out, "cycles: {} ({us:.3} us at {} MHz)", self.cycles, self.clock_mhz)?;
        writeln!(out, "instructions: {} on {} cores", self.instructions, self.cores.len())?;
        writeln!(out, "pipes (all cores):")?;
        let totals = self.pipe_totals();
        for (p, s) in Pipe::ALL.iter().zip(&totals) {
            let reasons: Vec<String> = s.stalls.iter().map(|(r, v)| format!("{} {v}", r.name())).collect();
            let stalls = if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join(", ")) };
            writeln!(
                out,
                "  {:<8} busy {:>12}  stall {:>12}{stalls}  idle {:>12}",
                p.name(),
                s.busy,
                s.stalled(),
                s.idle
            )?;
        }
        if !self.routes.is_empty() {
            writeln!(out, "copies:")?;
            for r in &self.routes {
                writeln!(
                    out,
                    "  {:<12} {:>8} copies {:>14} bytes {:>14} charged",
                    r.route.bang_name(),
                    r.copies,
                    r.bytes,
                    r.charged
                )?;
            }
        }
        writeln!(out, "rooflines (bound cycles, achieved fraction):")?;
        for r in &self.rooflines {
            writeln!(out, "  {:<9} {:>12}  {:>6.1}%", r.name, r.bound, 100.0 * r.fraction)?;
        }
        if self.hazards > 0 {
            writeln!(out, "hazards: {}", self.hazards)?;
        }
        Ok(())
    }

    /// The statistics as JSON.
    pub fn to_json(&self) -> Value {
        let pipe = |s: &PipeStats| {
            let stalls: serde_json::Map<String, Value> = s.stalls.iter().map(|(r, v)| (r.name(), json!(v))).collect();
            json!({ "busy": s.busy, "stall": s.stalled(), "stalls": stalls, "idle": s.idle })
        };
        let cores: Vec<Value> = self
            .cores
            .iter()
            .map(|c| {
                let pipes: serde_json::Map<String, Value> =
                    Pipe::ALL.iter().zip(&c.pipes).map(|(p, s)| (p.name().to_string(), pipe(s))).collect();
                json!({
                    "task": c.core.task, "cluster": c.core.cluster, "core": c.core.core,
                    "instructions": c.instructions, "finish": c.finish, "pipes": pipes,
                })
            })
            .collect();
        let routes: Vec<Value> = self
            .routes
            .iter()
            .map(
                |r| json!({ "route": r.route.bang_name(), "copies": r.copies, "bytes": r.bytes, "charged": r.charged }),
            )
            .collect();
        let roof: Vec<Value> = self
            .rooflines
            .iter()
            .map(|r| json!({ "name": r.name, "bound": r.bound, "fraction": r.fraction }))
            .collect();
        json!({
            "cycles": self.cycles,
            "instructions": self.instructions,
            "clock_mhz": self.clock_mhz,
            "cores": cores,
            "routes": routes,
            "rooflines": roof,
            "hazards": self.hazards,
        })
    }
}
