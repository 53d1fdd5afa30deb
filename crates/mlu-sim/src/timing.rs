//! The cycle model: decoupled pipes per core, copies sharing bandwidth,
//! barriers, all in integer cycles.
//!
//! Per core, the front end issues one instruction per cycle in program
//! order, after the registers it reads are ready and when its pipe's queue
//! has room (`queue_depth`). Scalar instructions run on the scalar pipe
//! (loads and stores hold the front end for their latency; other results
//! are ready after their latency). Compute instructions run in order on the
//! compute pipe for their cost. Copies go to the IO-DMA or Move-DMA FIFO
//! and run there in order, sharing bandwidth (`flows`), in flight until a
//! `sync` drains their pipe. A barrier drains the core's pipes, waits for
//! its count of cores, and releases them `barrier_*_latency` cycles after
//! the last arrival. `exit` drains the pipes; the core finishes then.
//!
//! Scheduling is discrete-event: the core with the earliest front-end time
//! issues next (ties: lowest core), and copy events at a cycle are
//! processed before issues at that cycle. Instructions take effect on the
//! functional state when issued, so a race-free program computes what the
//! functional scheduler computes (the tests compare them).
//!
//! Invariants: deterministic (integer time, total tie-breaking); every
//! core either exits or the run ends with a trap (deadlock when cores wait
//! at a barrier no one else can reach); per core and pipe, busy + stalls +
//! idle = cycles.

use crate::barrier::{Arrival, Barriers, describe_deadlock};
use crate::flows::{Done, Flows, Transfer};
use crate::machine::{Machine, Status, Step};
use crate::stats::{PipeStats, StallReason};
use crate::trace::{Trace, TraceEvent};
use crate::trap::{Trap, TrapKind};
use mlu_isa::cost::{self, Resource};
use mlu_isa::{Pipe, Route, Scope, SyncKind};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Then {
    Sync(SyncKind),
    Barrier { scope: Scope, id: u64, count: u64, pc: u32 },
    Exit,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Wait {
    /// Issuing.
    No,
    /// For room in a copy FIFO (0: IO, 1: Move).
    Room(usize),
    /// For pipes to drain; `since` is when the front end got there.
    Drain { io: bool, mv: bool, compute: bool, then: Then, since: u64 },
    /// At a barrier since `since`.
    Barrier { since: u64 },
    /// Done.
    Exited,
}

struct CoreT {
    t: u64,
    reg_ready: Vec<u64>,
    compute_free: u64,
    compute_ends: VecDeque<u64>,
    wait: Wait,
    finish: u64,
    pipes: [PipeStats; 4],
}

/// What the cycle model produced.
pub(crate) struct Timed {
    pub cycles: u64,
    pub pipes: Vec<([PipeStats; 4], u64)>,
    pub trace: Option<Trace>,
}

struct Engine {
    cores: Vec<CoreT>,
    flows: Flows,
    barriers: Barriers,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    trace: Option<Trace>,
    depth: usize,
}

pub(crate) fn run(m: &mut Machine<'_>, trace_limit: Option<usize>) -> Result<Timed, Trap> {
    let n = m.cores.len();
    let mut bw = vec![m.cfg.dram_bytes_per_cycle];
    bw.extend(std::iter::repeat_n(m.cfg.sram_bytes_per_cycle, m.clusters as usize));
    let mut e = Engine {
        cores: (0..n)
            .map(|_| CoreT {
                t: 0,
                reg_ready: vec![0; m.cfg.gprs as usize],
                compute_free: 0,
                compute_ends: VecDeque::new(),
                wait: Wait::No,
                finish: 0,
                pipes: Default::default(),
            })
            .collect(),
        flows: Flows::new(2 * n, bw),
        barriers: Barriers::default(),
        heap: (0..n as u32).map(|c| Reverse((0, c))).collect(),
        trace: trace_limit.map(|l| Trace::new(n, l)),
        depth: m.cfg.queue_depth as usize,
    };
    loop {
        let tf = e.flows.next_event();
        let top = e.heap.peek().map(|r| r.0);
        let flow_first = match (tf, top) {
            (Some(f), Some((tc, _))) => f <= tc,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if flow_first {
            let t = tf.unwrap_or(0);
            for d in e.flows.advance_to(t) {
                e.finished(m, d)?;
            }
            continue;
        }
        let Some(Reverse((_, c))) = e.heap.pop() else { break };
        e.run_core(m, c as usize)?;
    }
    if let Some(c) = (0..n).find(|&c| e.cores[c].wait != Wait::Exited) {
        let since = match e.cores[c].wait {
            Wait::Barrier { since } => since,
            _ => e.cores[c].t,
        };
        let (msg, pc) = match e.barriers.waiting_for(c as u32) {
            Some((key, p)) => {
                (describe_deadlock(key, p), p.arrived.iter().find(|a| a.0 == c as u32).map_or(0, |a| a.1))
            }
            None => ("no core can make progress".to_string(), m.cores[c].pc),
        };
        let mut t = m.trap(c, pc, TrapKind::Deadlock, msg);
        t.cycle = since;
        return Err(t);
    }
    let cycles = e.cores.iter().map(|c| c.finish).max().unwrap_or(0).max(e.flows.now);
    let mut pipes = Vec::with_capacity(n);
    for c in &mut e.cores {
        for p in &mut c.pipes {
            p.idle = cycles.saturating_sub(p.busy + p.stalled());
        }
        pipes.push((std::mem::take(&mut c.pipes), c.finish));
    }
    if let Some(tr) = &mut e.trace {
        tr.finish();
    }
    Ok(Timed { cycles, pipes, trace: e.trace })
}

fn sync_reason(k: SyncKind) -> StallReason {
    match k {
        SyncKind::Io => StallReason::SyncIo,
        SyncKind::Move => StallReason::SyncMove,
        SyncKind::Compute => StallReason::SyncCompute,
        SyncKind::All => StallReason::SyncAll,
    }
}

impl Engine {
    fn stall_span(&mut self, c: usize, reason: StallReason, from: u64, to: u64) {
        if to <= from {
            return;
        }
        self.cores[c].pipes[Pipe::Scalar.index()].stall(reason, to - from);
        if let Some(tr) = &mut self.trace {
            tr.push(TraceEvent {
                core: c as u32,
                pipe: Pipe::Scalar,
                name: format!("stall: {}", reason.name()),
                start: from,
                dur: to - from,
                pc: None,
            });
        }
    }

    fn scalar_busy(&mut self, c: usize, from: u64, cycles: u64) {
        self.cores[c].pipes[Pipe::Scalar.index()].busy += cycles;
        if let Some(tr) = &mut self.trace {
            tr.scalar(c as u32, from, from + cycles);
        }
    }

    /// Issues core `c`'s instructions while it is the earliest.
    fn run_core(&mut self, m: &mut Machine<'_>, c: usize) -> Result<(), Trap> {
        loop {
            let t = self.cores[c].t;
            let next_flow = self.flows.next_event();
            let next_core = self.heap.peek().map(|r| r.0);
            let behind_flow = next_flow.is_some_and(|f| f <= t);
            let behind_core = next_core.is_some_and(|(tc, cc)| (tc, cc) < (t, c as u32));
            if behind_flow || behind_core {
                self.heap.push(Reverse((t, c as u32)));
                return Ok(());
            }
            if !self.issue(m, c)? {
                return Ok(());
            }
        }
    }

    /// Issues one instruction; false if the core now waits.
    fn issue(&mut self, m: &mut Machine<'_>, c: usize) -> Result<bool, Trap> {
        let pc = m.cores[c].pc;
        let t0 = self.cores[c].t;
        let mut t = t0;
        let pipe = match m.p.insts.get(pc as usize) {
            Some(inst) => {
                for r in inst.uses().as_slice() {
                    t = t.max(self.cores[c].reg_ready[r.index()]);
                }
                inst.pipe()
            }
            None => Pipe::Scalar,
        };
        self.stall_span(c, StallReason::Register, t0, t);
        match pipe {
            Pipe::Compute => {
                let ct = &mut self.cores[c];
                while ct.compute_ends.front().is_some_and(|&f| f <= t) {
                    ct.compute_ends.pop_front();
                }
                if ct.compute_ends.len() >= self.depth
                    && let Some(f) = ct.compute_ends.pop_front()
                {
                    self.stall_span(c, StallReason::QueueFull(Pipe::Compute), t, f);
                    t = t.max(f);
                }
            }
            Pipe::Io | Pipe::Move => {
                let f = 2 * c + usize::from(pipe == Pipe::Move);
                if self.flows.queued(f) >= self.depth {
                    self.cores[c].t = t;
                    self.cores[c].wait = Wait::Room(usize::from(pipe == Pipe::Move));
                    return Ok(false);
                }
            }
            Pipe::Scalar => {}
        }
        self.cores[c].t = t;
        let step = m.step(c).map_err(|mut e| {
            e.cycle = t;
            e
        })?;
        match step {
            Step::Scalar { latency, blocking, def } => {
                let lat = u64::from(latency);
                if let Some(d) = def {
                    self.cores[c].reg_ready[d.index()] = t + lat;
                }
                let cost = if blocking { lat.max(1) } else { 1 };
                self.scalar_busy(c, t, cost);
                self.cores[c].t = t + cost;
            }
            Step::Compute { cycles, def } => {
                let ct = &mut self.cores[c];
                let start = t.max(ct.compute_free);
                let end = start + cycles;
                ct.compute_free = end;
                ct.compute_ends.push_back(end);
                if let Some(d) = def {
                    ct.reg_ready[d.index()] = end;
                }
                ct.pipes[Pipe::Compute.index()].busy += cycles;
                if let Some(tr) = &mut self.trace {
                    let name = m.p.insts.get(pc as usize).map_or_else(String::new, |i| i.mnemonic());
                    tr.push(TraceEvent { core: c as u32, pipe: Pipe::Compute, name, start, dur: cycles, pc: Some(pc) });
                }
                self.scalar_busy(c, t, 1);
                self.cores[c].t = t + 1;
            }
            Step::Copy { route, charged } => {
                self.push_copy(m, c, pc, t, route, charged);
                self.scalar_busy(c, t, 1);
                self.cores[c].t = t + 1;
            }
            Step::Sync(kind) => {
                let io = kind.covers(Pipe::Io);
                let mv = kind.covers(Pipe::Move);
                let compute = kind.covers(Pipe::Compute);
                return self.drain(m, c, t, io, mv, compute, Then::Sync(kind));
            }
            Step::Barrier { scope, id, count } => {
                return self.drain(m, c, t, true, true, true, Then::Barrier { scope, id, count, pc });
            }
            Step::Exit => return self.drain(m, c, t, true, true, true, Then::Exit),
        }
        Ok(true)
    }

    fn push_copy(&mut self, m: &Machine<'_>, c: usize, pc: u32, t: u64, route: Route, charged: u64) {
        let cfg = &m.cfg;
        let res = match cost::resource(route) {
            Resource::Dram => Some(0),
            Resource::Sram => Some(1 + m.cores[c].id.cluster as usize),
            Resource::Private => None,
        };
        let f = 2 * c + usize::from(route.pipe() == Pipe::Move);
        let tr = Transfer::new(
            c as u32,
            f % 2,
            pc,
            t,
            u64::from(cost::copy_latency(cfg, route)),
            charged,
            cost::copy_rate(cfg, route),
            res,
            cost::copy_cycles_alone(cfg, route, charged),
            route.index().unwrap_or(0),
        );
        self.flows.push(f, tr);
    }

    /// Waits for the given pipes to drain, then does `then`; false if the
    /// core now waits.
    #[allow(clippy::too_many_arguments)]
    fn drain(
        &mut self,
        m: &mut Machine<'_>,
        c: usize,
        t: u64,
        io: bool,
        mv: bool,
        compute: bool,
        then: Then,
    ) -> Result<bool, Trap> {
        let io = io && self.flows.queued(2 * c) > 0;
        let mv = mv && self.flows.queued(2 * c + 1) > 0;
        if io || mv {
            self.cores[c].t = t;
            self.cores[c].wait = Wait::Drain { io, mv, compute, then, since: t };
            return Ok(false);
        }
        self.drained(m, c, t, compute, then)
    }

    /// The pipes drained; `since` is when the front end started waiting.
    fn drained(&mut self, m: &mut Machine<'_>, c: usize, since: u64, compute: bool, then: Then) -> Result<bool, Trap> {
        let mut done = since.max(self.flows.last_end(2 * c)).max(self.flows.last_end(2 * c + 1));
        if compute {
            done = done.max(self.cores[c].compute_free);
        }
        match then {
            Then::Sync(kind) => {
                self.stall_span(c, sync_reason(kind), since, done);
                self.scalar_busy(c, done, 1);
                self.cores[c].t = done + 1;
                self.cores[c].wait = Wait::No;
                Ok(true)
            }
            Then::Exit => {
                let ct = &mut self.cores[c];
                ct.finish = done.max(ct.compute_free);
                ct.t = ct.finish;
                ct.wait = Wait::Exited;
                m.cores[c].status = Status::Exited;
                Ok(false)
            }
            Then::Barrier { scope, id, count, pc } => {
                let key = Barriers::key(scope, m.cores[c].id.cluster, id);
                self.cores[c].wait = Wait::Barrier { since };
                m.cores[c].status = Status::AtBarrier;
                match self.barriers.arrive(key, count, c as u32, pc, done) {
                    Arrival::Wait => Ok(false),
                    Arrival::Mismatch(first) => {
                        let mut t = m.trap(
                            c,
                            pc,
                            TrapKind::BarrierMismatch,
                            format!("this core gives the count {count}; the first core at this barrier gave {first}"),
                        );
                        t.cycle = done;
                        Err(t)
                    }
                    Arrival::Complete { cores, last } => {
                        let lat = match scope {
                            Scope::Local => m.cfg.barrier_local_latency,
                            Scope::Global => m.cfg.barrier_global_latency,
                        };
                        let release = last + u64::from(lat);
                        m.race.barrier(&cores);
                        for &d in &cores {
                            let d = d as usize;
                            let from = match self.cores[d].wait {
                                Wait::Barrier { since } => since,
                                _ => release,
                            };
                            self.stall_span(d, StallReason::Barrier, from, release);
                            self.scalar_busy(d, release, 1);
                            self.cores[d].t = release + 1;
                            self.cores[d].wait = Wait::No;
                            m.cores[d].status = Status::Running;
                            if d != c {
                                self.heap.push(Reverse((release + 1, d as u32)));
                            }
                        }
                        Ok(true)
                    }
                }
            }
        }
    }

    /// A copy finished: account for it and wake its core if it waited.
    fn finished(&mut self, m: &mut Machine<'_>, d: Done) -> Result<(), Trap> {
        let c = d.t.core as usize;
        let pipe = if d.t.pipe == 0 { Pipe::Io } else { Pipe::Move };
        let ps = &mut self.cores[c].pipes[pipe.index()];
        ps.busy += d.t.alone;
        ps.stall(StallReason::Bandwidth, (d.end - d.start).saturating_sub(d.t.alone));
        ps.stall(StallReason::DmaLatency, d.start.saturating_sub(d.free));
        if let Some(tr) = &mut self.trace {
            let r = Route::ALL[d.t.route];
            let name = format!("dma {} {}B", r.bang_name(), d.t.charged);
            tr.push(TraceEvent { core: c as u32, pipe, name, start: d.start, dur: d.end - d.start, pc: Some(d.t.pc) });
        }
        match self.cores[c].wait {
            Wait::Room(p) if p == d.t.pipe && self.flows.queued(2 * c + p) < self.depth => {
                let from = self.cores[c].t;
                self.stall_span(c, StallReason::QueueFull(pipe), from, d.end);
                self.cores[c].t = from.max(d.end);
                self.cores[c].wait = Wait::No;
                self.heap.push(Reverse((self.cores[c].t, c as u32)));
            }
            Wait::Drain { io, mv, compute, then, since } => {
                let io_done = !io || self.flows.queued(2 * c) == 0;
                let mv_done = !mv || self.flows.queued(2 * c + 1) == 0;
                if io_done && mv_done && self.drained(m, c, since, compute, then)? {
                    self.heap.push(Reverse((self.cores[c].t, c as u32)));
                }
            }
            _ => {}
        }
        Ok(())
    }
}
