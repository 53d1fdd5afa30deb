//! `mlu-sim`: a deterministic simulator for the `mlu-isa` ISA,
//! functional and cycle-level. It depends on the ISA crate alone (and
//! `serde_json` for traces), so running MLU programs needs no Keel
//! compiler crate; `target-mlu` compiles Keel IR for it and, with its `sim`
//! feature, compares its runs with Keel's interpreter.
//!
//! - **Functional execution, bit-exact**: every instruction computes what
//!   `mlu_isa::semantics` (Keel IR's semantics) says, through
//!   type-specialized kernels checked against it; every run has fuel.
//! - **SPMD**: `clusters` clusters of up to `cores_per_cluster` cores run the
//!   same program with their own special registers; NRAM and WRAM are per
//!   core, SRAM per cluster, DRAM global; barriers are exact.
//! - **Traps** name the core, the instruction and the cycle: misalignment,
//!   capacity overflow, out of bounds, unknown copy direction, deadlocked
//!   barriers, arithmetic faults, fuel, and races in error mode.
//! - **Cycle model** ([`Mode::Cycle`]): decoupled scalar, compute, IO-DMA
//!   and Move-DMA pipes per core issuing in order; copies in flight until a
//!   sync; DRAM and SRAM bandwidth shared by max-min fairness (module
//!   `flows`: water-filling, after D. Bertsekas and R. Gallager, *Data
//!   Networks*, 2nd ed., 1992); costs from the [`MachineConfig`]. Integer
//!   time, total tie-breaking: the same program and inputs give the same
//!   cycles, statistics and outputs on every run and machine.
//! - **Race detection**: a read or write of a range by one pipe while
//!   another pipe (of the same core or another) has an unordered access
//!   overlapping it, one of them a write, is a hazard, reported with both
//!   instructions as a trap ([`RaceMode::Error`], the default) or as a
//!   warning ([`RaceMode::Warn`]). The order is happens-before (syncs and
//!   barriers; L. Lamport, "Time, clocks, and the ordering of events in a
//!   distributed system", CACM 21(7), 1978), so detection does not depend
//!   on timing; `oracle` (feature `fuzzing`) checks it against the
//!   vector-clock definition of that order (C. J. Fidge, 1988; F. Mattern,
//!   1989).
//! - **Statistics** ([`Stats`]): cycles, per-pipe busy and stall cycles
//!   with reasons, bytes per copy route, achieved fraction of each
//!   roofline (the roofline model of S. Williams, A. Waterman and
//!   D. Patterson, CACM 52(4), 2009); **traces** in Chrome's trace-event
//!   format ([`Trace`]).
//!
//! `docs/references.md` lists these works in full.
//!
//! Choices where issue 16 (the MLU ISA and simulator) was silent: a copy
//! takes effect when issued (race-free programs cannot tell); the memory
//! core is a DMA engine, so barrier counts name IPU cores; a run launches
//! 1 cluster unless [`SimOptions::clusters`] says more (like a Union1
//! task); trap cycles in functional mode count the core's issued
//! instructions.
//!
//! # Bad input
//!
//! [`Simulator::new`] refuses what cannot run at all (an invalid
//! configuration, a cluster count the machine does not have, ids or
//! registers the program does not have, objects that do not fit, more
//! host memory than allowed) with a [`LoadError`] naming the
//! configuration, instruction or object and the sizes involved;
//! [`Simulator::write`] refuses values with a [`WriteError`]. Everything
//! else an unverified program can do wrong is a [`Trap`] when it happens,
//! never a panic; [`Simulator::run`] always terminates (fuel, charged for
//! a copy before any per-row work), and its host memory stays within
//! [`SimOptions::max_memory`]: nothing it keeps grows with a copy's
//! rows × bytes beyond that budget. Object names are indexed once at load,
//! so finding an object by name is O(1) and loading, writing and reading
//! objects is linear in their number (issue 30).
//!
//! # Example
//!
//! Four cores each add their quarter of two vectors:
//!
//! ```
//! use mlu_sim::{Instance, Mode, SimOptions, Simulator};
//! use mlu_isa::{MachineConfig, text};
//!
//! let src = "\
//! .mem @x: f32[256] dram
//! .mem @y: f32[256] dram
//! .mem @a: f32[64] nram
//! .mem @b: f32[64] nram
//!     sreg %r0, %coreid
//!     mul.i64 %r0, %r0, 256          ; byte offset of this core's quarter
//!     dma nram[@a], dram[@x + %r0], 256
//!     dma nram[@b], dram[@y + %r0], 256
//!     sync.io
//!     vadd.f32 nram[@a], nram[@a], nram[@b], 64
//!     sync.compute
//!     dma dram[@x + %r0], nram[@a], 256
//!     exit
//! ";
//! let (program, _) = text::parse(src).unwrap();
//! let config = MachineConfig::mlu370();
//! let mut sim = Simulator::new(&program, &config, SimOptions { mode: Mode::Cycle, ..SimOptions::default() }).unwrap();
//! let ones: Vec<u64> = (0..256).map(|_| u64::from(1.0f32.to_bits())).collect();
//! sim.write("x", &ones).unwrap();
//! sim.write("y", &ones).unwrap();
//! let outcome = sim.run().unwrap();
//! let x = sim.read("x", Instance::Global).unwrap();
//! assert!(x.iter().all(|&v| f32::from_bits(v as u32) == 2.0));
//! assert!(outcome.stats.cycles > 0);
//! ```

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod barrier;
mod error;
mod faults;
mod flows;
mod functional;
mod intervals;
mod machine;
mod memory;
#[cfg(feature = "fuzzing")]
pub mod oracle;
mod planted;
mod race;
mod stats;
mod timing;
mod trace;
mod trap;
mod vector;

#[cfg(feature = "fuzzing")]
pub mod fuzzing;

pub use error::{LoadError, Missing, WriteError};
pub use memory::{Instance, Memory};
pub use race::{LogEvent, RaceMode};
pub use stats::{CoreStats, PipeStats, Roofline, RouteStats, StallReason, Stats};
pub use trace::{Trace, TraceEvent};
pub use trap::{Access, CoreRef, Hazard, Trap, TrapKind};

use machine::Machine;
use mlu_isa::{MachineConfig, MemDecl, Names, Pipe, Program, Route, Space};
use planted::Plants;

/// Functional only, or with the cycle model.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Mode {
    /// Results only (cores run to their barriers in turn); fastest.
    Functional,
    /// Results, cycles, statistics and traces.
    #[default]
    Cycle,
}

/// How to run.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SimOptions {
    /// Clusters launched (1 to the configuration's `clusters`).
    pub clusters: u32,
    /// Cores launched per cluster (`%coredim`; 1 to the configuration's
    /// `cores_per_cluster`; `None`: all of them). One core is BANG's Block
    /// task; all of a cluster's cores, a Union task.
    pub cores: Option<u32>,
    /// Functional or cycle-level.
    pub mode: Mode,
    /// Work allowed: one unit per instruction, plus one per vector element,
    /// per multiply-accumulate, per 64 bytes and per row copied.
    pub fuel: u64,
    /// What a race does.
    pub races: RaceMode,
    /// Record a trace of at most this many slices (cycle mode).
    pub trace: Option<usize>,
    /// Keep the race detector's access log and verdicts for the oracle
    /// (`oracle::racy_accesses`; slow, for tests).
    pub record_races: bool,
    /// Host memory a run may take, in bytes (default 2 GiB). The simulated
    /// memories (the DRAM objects plus every core's NRAM and WRAM and every
    /// cluster's SRAM) are charged at load: a program that needs more is
    /// refused by [`Simulator::new`] with the figure, before anything is
    /// allocated. What is left bounds what grows during the run: the race
    /// detector's record of in-flight byte ranges (64 bytes each, charged
    /// as they are recorded) and the staging buffer of a copy whose source
    /// overlaps its destination (charged before it is taken); passing it is
    /// a [`TrapKind::HostMemory`] trap.
    pub max_memory: u64,
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            clusters: 1,
            cores: None,
            mode: Mode::Cycle,
            fuel: 100_000_000,
            races: RaceMode::Error,
            trace: None,
            record_races: false,
            max_memory: 2 << 30,
        }
    }
}

/// What a finished run produced (memory stays in the [`Simulator`]).
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Statistics.
    pub stats: Stats,
    /// Hazards found in warning mode (deduplicated by instruction pair; at
    /// most 1000; `stats.hazards` counts all).
    pub hazards: Vec<Hazard>,
    /// The trace, if asked for.
    pub trace: Option<Trace>,
}

/// A program loaded on a machine, ready to run once.
pub struct Simulator<'p> {
    m: Machine<'p>,
    options: SimOptions,
    /// The program's object names, indexed once at load.
    names: Names,
}

impl core::fmt::Debug for Simulator<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Simulator").field("config", &self.m.cfg.name).field("options", &self.options).finish()
    }
}

impl<'p> Simulator<'p> {
    /// Loads `program` (initial values from its objects) on `config`.
    pub fn new(program: &'p Program, config: &MachineConfig, options: SimOptions) -> Result<Simulator<'p>, LoadError> {
        let per = options.cores.unwrap_or(config.cores_per_cluster);
        let cores = u64::from(options.clusters) * u64::from(per);
        let need = program
            .extent(Space::Dram)
            .saturating_add(cores.saturating_mul(config.nram_bytes.saturating_add(config.wram_bytes)))
            .saturating_add(u64::from(options.clusters).saturating_mul(config.sram_bytes));
        if need > options.max_memory {
            return Err(LoadError::HostMemory { need, limit: options.max_memory });
        }
        let mut m =
            Machine::new(program, config, options.clusters, per, options.races, options.record_races, options.fuel)?;
        m.timing = options.mode == Mode::Cycle;
        m.set_host_budget(need, options.max_memory);
        Ok(Simulator { m, options, names: Names::of(program) })
    }

    /// The declaration of object `name` (without `@`; O(1): names are
    /// indexed once at load).
    pub fn object(&self, name: &str) -> Option<&'p MemDecl> {
        let p: &'p Program = self.m.p;
        self.names.mem(name).and_then(|id| p.mem(id))
    }

    /// Sets the first elements of object `name` (without `@`), in every
    /// instance of its space, to `values` (bits of its type).
    pub fn write(&mut self, name: &str, values: &[u64]) -> Result<(), WriteError> {
        let decl = self.object(name).ok_or_else(|| WriteError::UnknownObject { name: name.to_string() })?;
        self.m.mem.write_object(decl, values)
    }

    /// The values (canonical bits) of object `name` in one instance.
    pub fn read(&self, name: &str, instance: Instance) -> Option<Vec<u64>> {
        self.read_range(name, instance, 0, usize::MAX)
    }

    /// At most `count` values of object `name` in one instance, from
    /// element `start` (fewer past its end).
    /// Looking an object up is O(1); [`Memory::read_object_range`] reads
    /// one by its declaration.
    pub fn read_range(&self, name: &str, instance: Instance, start: usize, count: usize) -> Option<Vec<u64>> {
        Some(self.m.mem.read_object_range(self.object(name)?, instance, start, count))
    }

    /// The memories.
    pub fn memory(&self) -> &Memory {
        &self.m.mem
    }

    /// A core's registers (by task id).
    pub fn registers(&self, core: u32) -> Option<&[u64]> {
        self.m.cores.get(core as usize).map(|c| c.regs.as_slice())
    }

    /// The race detector's access log and its verdict for each access, if
    /// [`SimOptions::record_races`] was set.
    pub fn race_log(&self) -> Option<(&[LogEvent], &[bool])> {
        self.m.race.log.as_ref().map(|(e, v)| (e.as_slice(), v.as_slice()))
    }

    /// Cores in the launched grid.
    pub fn cores(&self) -> usize {
        self.m.cores.len()
    }

    /// Cores launched per cluster (for [`Trace::write_chrome`]).
    pub fn cores_per_cluster(&self) -> u32 {
        self.m.per_cluster
    }

    /// Runs the program to the end (every core exited) or to a trap.
    pub fn run(&mut self) -> Result<Outcome, Trap> {
        // A planted bug (tests only) is read once per run, not per step.
        let plants = Plants::read();
        self.m.plants = plants;
        self.m.race.plants = plants;
        let timed = match self.options.mode {
            Mode::Functional => {
                functional::run(&mut self.m)?;
                None
            }
            Mode::Cycle => Some(timing::run(&mut self.m, self.options.trace)?),
        };
        let stats = self.stats(timed.as_ref());
        Ok(Outcome { stats, hazards: std::mem::take(&mut self.m.hazards), trace: timed.and_then(|t| t.trace) })
    }

    fn stats(&self, timed: Option<&timing::Timed>) -> Stats {
        let m = &self.m;
        let cycles = timed.map_or(0, |t| t.cycles);
        let cores: Vec<CoreStats> = m
            .cores
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let (pipes, finish) = timed.map_or_else(|| (Default::default(), 0), |t| t.pipes[i].clone());
                CoreStats { core: c.id, instructions: c.issued, finish, pipes }
            })
            .collect();
        let routes = Route::ALL
            .iter()
            .zip(&m.counters.routes)
            .filter(|(_, r)| r.0 > 0)
            .map(|(&route, &(copies, bytes, charged))| RouteStats { route, copies, bytes, charged })
            .collect();
        let cfg = &m.cfg;
        let per_core = |f: &dyn Fn(usize) -> u64| (0..m.cores.len()).map(f).max().unwrap_or(0);
        let charged = |c: usize, pred: &dyn Fn(Route) -> bool| -> u64 {
            Route::ALL.iter().zip(&m.counters.core_route_charged[c]).filter(|(r, _)| pred(**r)).map(|(_, &b)| b).sum()
        };
        let touches = |r: Route, s: Space| r.src == s || r.dst == s;
        let dram: u64 = (0..m.cores.len()).map(|c| charged(c, &|r| touches(r, Space::Dram))).sum();
        let per = m.per_cluster as usize;
        let sram = (0..m.clusters as usize)
            .map(|k| {
                (k * per..(k + 1) * per)
                    .map(|c| charged(c, &|r| touches(r, Space::Sram) && !touches(r, Space::Dram)))
                    .sum::<u64>()
            })
            .max()
            .unwrap_or(0);
        let io = per_core(&|c| charged(c, &|r| r.pipe() == Pipe::Io).div_ceil(cfg.io_dma_bytes_per_cycle));
        let mv = per_core(&|c| charged(c, &|r| r.pipe() == Pipe::Move).div_ceil(cfg.move_dma_bytes_per_cycle));
        let dram_b = dram.div_ceil(cfg.dram_bytes_per_cycle);
        let sram_b = sram.div_ceil(cfg.sram_bytes_per_cycle);
        let vector = per_core(&|c| m.counters.vector_bytes[c].div_ceil(cfg.vector_bytes_per_cycle));
        let matrix = per_core(&|c| m.counters.macs[c].div_ceil(cfg.matmul_macs_per_cycle));
        let frac = |b: u64| if cycles == 0 { 0.0 } else { b as f64 / cycles as f64 };
        let roof = |name: &'static str, bound: u64| Roofline { name, bound, fraction: frac(bound) };
        let rooflines = vec![
            roof("dma", dram_b.max(sram_b).max(io).max(mv)),
            roof("dram", dram_b),
            roof("sram", sram_b),
            roof("io-dma", io),
            roof("move-dma", mv),
            roof("vector", vector),
            roof("matrix", matrix),
        ];
        Stats {
            cycles,
            instructions: m.cores.iter().map(|c| c.issued).sum(),
            clock_mhz: cfg.clock_mhz,
            cores,
            routes,
            rooflines,
            hazards: m.hazard_count,
        }
    }
}
