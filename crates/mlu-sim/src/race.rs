//! Race detection: accesses by different pipes (of one core or of two) to
//! overlapping bytes, at least one a write, that no sync or barrier orders.
//!
//! The rule is a happens-before order (L. Lamport, "Time, clocks, and the
//! ordering of events in a distributed system", CACM 21(7), 1978; listed
//! in `docs/references.md`), so what is reported does not depend on timing
//! or on the order cores are simulated in:
//! - one pipe's instructions are ordered (each pipe issues in order);
//! - scalar loads and stores finish before the next instruction issues,
//!   so they are ordered before everything the core issues later;
//! - `sync.P` orders everything pipe `P` issued before it before
//!   everything the core issues after it (`sync.all`: every pipe);
//! - a barrier drains its cores' pipes and orders everything each
//!   participant issued before it before everything any participant
//!   issues after it (transitively through later barriers).
//!
//! Implementation: per core and non-scalar pipe, the last in-flight read
//! and write of every byte of each memory the core reaches
//! ([`IntervalMap`], cleared by a sync of that pipe); per core, the last
//! read and write of every shared byte (SRAM, DRAM) tagged with the core's
//! barrier epoch, and per pair of cores the latest epoch of one the other
//! has seen through barriers (a vector clock over barrier epochs, after
//! C. J. Fidge, 1988, and F. Mattern, 1989). An access by core `c` collides
//! with core `d`'s recorded access of epoch `e` unless `seen[c][d] > e`.
//! Keeping only the last access per byte loses nothing: a later access from
//! the same pipe (or core) is unordered whenever the earlier one is.
//! `oracle` checks this against the vector-clock definition (one clock per
//! core and pipe) on every access.
//!
//! Accesses are checked and recorded one at a time, in the instruction's
//! order, and are handed over as an iterator: a strided copy of 10^8 rows
//! is never materialized as a list (issue 30). That equals checking all
//! of an instruction's accesses before recording any, because a check
//! reads only other pipes' in-flight maps and other cores' shared maps,
//! and recording writes only this pipe's and this core's.
//!
//! The interval maps are the detector's only storage that grows with the
//! program: their intervals are counted ([`RaceDetector::intervals`]) and
//! charged against the host memory budget at
//! [`INTERVAL_BYTES`] each; an access that would keep more than
//! [`RaceDetector::max_intervals`] stops the instruction with
//! [`OverBudget`] (the machine turns it into a trap). The oracle's log
//! ([`RaceDetector::log`], tests only) is not charged.
//!
//! Invariants: an instruction never races itself (above); syncs and
//! barriers only ever clear state; `intervals` is the sum of every map's
//! length; the detector never panics on any core or pipe id the grid
//! has.

use crate::intervals::IntervalMap;
use crate::planted::{Bug, Plants};
use mlu_isa::{Pipe, Space, SyncKind};

/// What to do about a hazard.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum RaceMode {
    /// Stop the run with a [`TrapKind::Hazard`](crate::TrapKind::Hazard) trap.
    #[default]
    Error,
    /// Report every hazard (deduplicated by instruction pair) and go on.
    Warn,
    /// Do not detect races.
    Off,
}

/// One memory access of an instruction.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct MemAccess {
    pub space: Space,
    pub start: u64,
    pub end: u64,
    pub write: bool,
}

/// A hazard before its instructions are named: (core, pipe, pc, write) for
/// each side.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct RawHazard {
    pub space: Space,
    pub instance: u32,
    pub bytes: (u64, u64),
    pub first: (u32, Pipe, u32, bool),
    pub second: (u32, Pipe, u32, bool),
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Shared {
    pc: u32,
    pipe: u8,
    epoch: u32,
}

/// Host memory one recorded interval is charged (a `BTreeMap` entry of a
/// start, an end and a value, with the B-tree's node overhead at half-full
/// nodes, rounded up).
pub(crate) const INTERVAL_BYTES: u64 = 64;

/// The detector's interval maps would exceed
/// [`RaceDetector::max_intervals`]: `intervals` is the count that was
/// reached.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct OverBudget {
    pub intervals: u64,
}

/// Non-scalar pipes, in the order of the in-flight table.
const ASYNC_PIPES: [Pipe; 3] = [Pipe::Compute, Pipe::Io, Pipe::Move];

fn async_index(p: Pipe) -> Option<usize> {
    match p {
        Pipe::Scalar => None,
        Pipe::Compute => Some(0),
        Pipe::Io => Some(1),
        Pipe::Move => Some(2),
    }
}

/// `[space][0 = reads, 1 = writes]` of one pipe of one core.
type PipeMaps = [[IntervalMap<u32>; 2]; 4];

/// An event for the oracle (`oracle::check_log`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LogEvent {
    /// An access: core, pipe, memory instance id, bytes, write.
    Access {
        /// The core (task id).
        core: u32,
        /// The pipe.
        pipe: Pipe,
        /// The memory: NRAM `core`, WRAM `cores + core`, SRAM
        /// `2·cores + cluster`, DRAM `2·cores + clusters`.
        memory: u32,
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
        /// A write.
        write: bool,
    },
    /// A sync.
    Sync {
        /// The core.
        core: u32,
        /// What it waited for.
        kind: SyncKind,
    },
    /// A barrier completed with these participants.
    Barrier {
        /// The cores that arrived.
        cores: Vec<u32>,
    },
}

/// The detector's state for a grid.
#[derive(Debug)]
pub(crate) struct RaceDetector {
    pub mode: RaceMode,
    cores: usize,
    per_cluster: u32,
    inflight: Vec<[PipeMaps; 3]>,
    pipe_busy: Vec<[bool; 3]>,
    shared: Vec<[[IntervalMap<Shared>; 2]; 2]>,
    epoch: Vec<u32>,
    seen: Vec<Vec<u32>>,
    /// Events and per-access verdicts, when recording for the oracle.
    pub log: Option<(Vec<LogEvent>, Vec<bool>)>,
    /// Intervals held by all interval maps.
    pub intervals: u64,
    /// The most intervals the host memory budget allows (`u64::MAX`: no
    /// limit).
    pub max_intervals: u64,
    /// The bug planted for this run (tests only; see `planted.rs`).
    pub plants: Plants,
}

fn shared_index(s: Space) -> Option<usize> {
    match s {
        Space::Sram => Some(0),
        Space::Dram => Some(1),
        _ => None,
    }
}

impl RaceDetector {
    pub fn new(mode: RaceMode, cores: usize, per_cluster: u32, record: bool) -> RaceDetector {
        let on = mode != RaceMode::Off;
        let n = if on { cores } else { 0 };
        RaceDetector {
            mode,
            cores,
            per_cluster,
            inflight: (0..n).map(|_| Default::default()).collect(),
            pipe_busy: vec![[false; 3]; n],
            shared: (0..if cores > 1 { n } else { 0 }).map(|_| Default::default()).collect(),
            epoch: vec![0; n],
            seen: if cores > 1 { vec![vec![0; n]; n] } else { Vec::new() },
            log: if on && record { Some((Vec::new(), Vec::new())) } else { None },
            intervals: 0,
            max_intervals: u64::MAX,
            plants: Plants::default(),
        }
    }

    fn memory_id(&self, core: u32, space: Space) -> u32 {
        let n = self.cores as u32;
        match space {
            Space::Nram => core,
            Space::Wram => n + core,
            Space::Sram => 2 * n + core / self.per_cluster,
            Space::Dram => 2 * n + n.div_ceil(self.per_cluster),
        }
    }

    /// Checks and records an instruction's accesses, in order. Returns the
    /// first hazard found, or [`OverBudget`] as soon as the recorded
    /// intervals pass [`RaceDetector::max_intervals`].
    pub fn access(
        &mut self,
        core: u32,
        pipe: Pipe,
        pc: u32,
        accesses: impl IntoIterator<Item = MemAccess>,
    ) -> Result<Option<RawHazard>, OverBudget> {
        if self.mode == RaceMode::Off {
            return Ok(None);
        }
        let mut found = None;
        for a in accesses {
            let h = self.check_one(core, pipe, &a);
            let memory = self.memory_id(core, a.space);
            if let Some((events, verdicts)) = &mut self.log {
                events.push(LogEvent::Access { core, pipe, memory, start: a.start, end: a.end, write: a.write });
                verdicts.push(h.is_some());
            }
            if found.is_none()
                && let Some((first, bytes)) = h
            {
                found = Some(RawHazard {
                    space: a.space,
                    instance: memory,
                    bytes,
                    first,
                    second: (core, pipe, pc, a.write),
                });
            }
            self.record(core, pipe, pc, &a);
            if self.intervals > self.max_intervals {
                return Err(OverBudget { intervals: self.intervals });
            }
        }
        Ok(found)
    }

    /// Records one access of core `core`'s `pipe` (after its check).
    fn record(&mut self, core: u32, pipe: Pipe, pc: u32, a: &MemAccess) {
        if a.start >= a.end {
            return;
        }
        let c = core as usize;
        if let Some(p) = async_index(pipe) {
            let map = &mut self.inflight[c][p][a.space.index()][usize::from(a.write)];
            self.intervals = counted(self.intervals, map, |m| m.insert(a.start, a.end, pc));
            self.pipe_busy[c][p] = true;
        }
        if let Some(s) = shared_index(a.space)
            && self.cores > 1
        {
            let v = Shared { pc, pipe: pipe.index() as u8, epoch: self.epoch[c] };
            let map = &mut self.shared[c][s][usize::from(a.write)];
            self.intervals = counted(self.intervals, map, |m| m.insert(a.start, a.end, v));
        }
    }

    #[allow(clippy::type_complexity)]
    fn check_one(&self, core: u32, pipe: Pipe, a: &MemAccess) -> Option<((u32, Pipe, u32, bool), (u64, u64))> {
        if a.start >= a.end {
            return None;
        }
        let c = core as usize;
        let kinds: &[usize] = if a.write { &[1, 0] } else { &[1] };
        for (t, &other) in ASYNC_PIPES.iter().enumerate() {
            if other == pipe || !self.pipe_busy[c][t] {
                continue;
            }
            let maps = &self.inflight[c][t][a.space.index()];
            for &k in kinds {
                if let Some((s, e, pc)) = maps[k].first_overlap(a.start, a.end, |_| true) {
                    return Some(((core, other, pc, k == 1), (s, e)));
                }
            }
        }
        let si = shared_index(a.space)?;
        if self.cores <= 1 {
            return None;
        }
        let cluster = core / self.per_cluster;
        for d in 0..self.cores {
            if d == c || (a.space == Space::Sram && d as u32 / self.per_cluster != cluster) {
                continue;
            }
            let horizon = self.seen[c][d];
            for &k in kinds {
                if let Some((s, e, v)) = self.shared[d][si][k].first_overlap(a.start, a.end, |v| v.epoch >= horizon) {
                    return Some(((d as u32, Pipe::ALL[usize::from(v.pipe)], v.pc, k == 1), (s, e)));
                }
            }
        }
        None
    }

    /// A sync on `core`.
    pub fn sync(&mut self, core: u32, kind: SyncKind) {
        if self.mode == RaceMode::Off {
            return;
        }
        if let Some((events, _)) = &mut self.log {
            events.push(LogEvent::Sync { core, kind });
        }
        self.drain(core, kind);
    }

    /// Forgets what `core`'s pipes covered by `kind` have in flight.
    fn drain(&mut self, core: u32, kind: SyncKind) {
        let c = core as usize;
        for (t, &p) in ASYNC_PIPES.iter().enumerate() {
            let planted = self.plants.has(Bug::SyncIoForgetsCompute) && kind == SyncKind::Io && p == Pipe::Compute;
            if kind.covers(p) || planted {
                for space in &mut self.inflight[c][t] {
                    for map in space {
                        self.intervals = counted(self.intervals, map, IntervalMap::clear);
                    }
                }
                self.pipe_busy[c][t] = false;
            }
        }
    }

    /// A barrier completed with `cores` (distinct task ids); state every
    /// core that could touch it has now seen is pruned.
    pub fn barrier(&mut self, cores: &[u32]) {
        if self.mode == RaceMode::Off {
            return;
        }
        if let Some((events, _)) = &mut self.log {
            events.push(LogEvent::Barrier { cores: cores.to_vec() });
        }
        for &c in cores {
            self.drain(c, SyncKind::All);
        }
        if self.cores <= 1 {
            return;
        }
        for &c in cores {
            self.epoch[c as usize] += 1;
        }
        let mut joined = vec![0u32; self.cores];
        for &c in cores {
            for (j, &s) in joined.iter_mut().zip(&self.seen[c as usize]) {
                *j = (*j).max(s);
            }
        }
        for &c in cores {
            joined[c as usize] = self.epoch[c as usize];
        }
        for &c in cores {
            self.seen[c as usize].copy_from_slice(&joined);
        }
        // Prune what every core that could touch it has now seen.
        if cores.len() == self.cores {
            for maps in &mut self.shared {
                for m in maps.iter_mut().flatten() {
                    self.intervals = counted(self.intervals, m, IntervalMap::clear);
                }
            }
        } else {
            let clusters = self.cores.div_ceil(self.per_cluster as usize);
            for k in 0..clusters as u32 {
                let members =
                    (k * self.per_cluster..((k + 1) * self.per_cluster).min(self.cores as u32)).collect::<Vec<_>>();
                if members.iter().all(|m| cores.contains(m)) {
                    for &m in &members {
                        for map in &mut self.shared[m as usize][0] {
                            self.intervals = counted(self.intervals, map, IntervalMap::clear);
                        }
                    }
                }
            }
        }
    }
}

/// `total` (intervals over all maps) after `f` changes `map`.
fn counted<V: Copy + PartialEq>(total: u64, map: &mut IntervalMap<V>, f: impl FnOnce(&mut IntervalMap<V>)) -> u64 {
    let before = map.len() as u64;
    f(map);
    total - before + map.len() as u64
}
