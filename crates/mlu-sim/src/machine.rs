//! The functional machine: cores' registers and program counters, the
//! memories, and [`Machine::step`], which executes one instruction of one
//! core and says what it was (for the schedulers and the cycle model).
//!
//! Invariants: `step` applies an instruction's whole effect or none of it
//! (every check, the race check included, comes before the first write);
//! it never panics whatever the program holds: ids and registers were
//! checked at load, and everything that depends on values (addresses,
//! counts, alignment, divisors) is checked at run time and becomes a
//! [`Trap`] naming the core, the instruction and the cycle. Copies take
//! effect when issued; the race detector reports every program whose
//! results could depend on when they really land. Copies are executed by
//! `machine/copy.rs` (row by row, fuel first); whatever grows during a run
//! is charged against the host memory budget ([`Machine::set_host_budget`]).

use crate::error::LoadError;
use crate::faults::{check_ids, static_fault};
use crate::memory::{Memory, load_bits, store_bits};
use crate::planted::{Bug, Plants};
use crate::race::{INTERVAL_BYTES, MemAccess, RaceDetector, RaceMode, RawHazard};
use crate::trap::{Access, CoreRef, Hazard, Trap, TrapKind};
use crate::vector::{self, Src};
use mlu_isa::cost::{self, RowShape};
use mlu_isa::semantics::{self, ArithError};
use mlu_isa::text::inst_text;
use mlu_isa::{Addr, Inst, MachineConfig, Operand, Pipe, Program, Reg, Route, Scope, Space, Sreg, SyncKind, Ty, VSrc};
use std::collections::BTreeSet;

mod copy;

/// Where a core is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Status {
    /// Issuing instructions.
    Running,
    /// Waiting at a barrier.
    AtBarrier,
    /// Done.
    Exited,
}

/// One core's architectural state.
#[derive(Clone, Debug)]
pub(crate) struct CoreState {
    pub regs: Vec<u64>,
    pub pc: u32,
    pub issued: u64,
    pub id: CoreRef,
    pub status: Status,
}

/// What an instruction was, for the schedulers and the cycle model.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Step {
    /// Scalar pipe: its latency (computed only with timing on), whether the
    /// front end waits for it (loads, stores), the register it defines.
    Scalar { latency: u32, blocking: bool, def: Option<Reg> },
    /// Compute pipe: its cycles (timing only), the register it defines.
    Compute { cycles: u64, def: Option<Reg> },
    /// A copy: its route, bytes moved and bytes charged (timing only).
    Copy { route: Route, charged: u64 },
    /// A sync.
    Sync(SyncKind),
    /// A barrier arrival.
    Barrier { scope: Scope, id: u64, count: u64 },
    /// `exit`.
    Exit,
}

/// Work counted during a run, for statistics and rooflines.
#[derive(Clone, Debug, Default)]
pub(crate) struct Counters {
    /// Per core: bytes the vector unit processed.
    pub vector_bytes: Vec<u64>,
    /// Per core: multiply-accumulates of the matrix unit.
    pub macs: Vec<u64>,
    /// Per route (index in `Route::ALL`): copies, bytes moved, bytes charged.
    pub routes: [(u64, u64, u64); 9],
    /// Per core and route: bytes charged.
    pub core_route_charged: Vec<[u64; 9]>,
}

pub(crate) struct Machine<'p> {
    pub p: &'p Program,
    pub cfg: MachineConfig,
    pub clusters: u32,
    /// Cores launched per cluster (`%coredim`).
    pub per_cluster: u32,
    pub mem: Memory,
    pub cores: Vec<CoreState>,
    pub race: RaceDetector,
    pub fuel: u64,
    pub timing: bool,
    pub counters: Counters,
    pub hazards: Vec<Hazard>,
    pub hazard_count: u64,
    hazard_pairs: BTreeSet<(u32, u32, u32, u32)>,
    labels: Vec<u32>,
    syms: Vec<u64>,
    faults: Vec<Option<(TrapKind, String)>>,
    scratch: Vec<u8>,
    acc: Vec<MemAccess>,
    /// Host memory the run may take, in bytes (`SimOptions::max_memory`).
    host_limit: u64,
    /// Host memory the simulated memories take (charged at load).
    host_memories: u64,
    /// The bug planted for this run (tests only; see `planted.rs`).
    pub plants: Plants,
}

/// The most hazards kept in warning mode (every one is counted).
pub(crate) const MAX_HAZARDS: usize = 1000;

impl<'p> Machine<'p> {
    /// Loads `p` on `clusters` clusters of `per` cores of `cfg`. Fails on
    /// ids or registers the program does not have, or objects that do not
    /// fit.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        p: &'p Program,
        cfg: &MachineConfig,
        clusters: u32,
        per: u32,
        race: RaceMode,
        record: bool,
        fuel: u64,
    ) -> Result<Machine<'p>, LoadError> {
        cfg.validate().map_err(|error| LoadError::Config { name: cfg.name.clone(), error })?;
        if clusters == 0 || clusters > cfg.clusters {
            return Err(LoadError::Clusters { config: cfg.name.clone(), max: cfg.clusters, asked: clusters });
        }
        if per == 0 || per > cfg.cores_per_cluster {
            return Err(LoadError::CoresPerCluster {
                config: cfg.name.clone(),
                max: cfg.cores_per_cluster,
                asked: per,
            });
        }
        check_ids(p, cfg)?;
        let mem = Memory::new(cfg, p, clusters, per)?;
        let n = clusters * per;
        let cores = (0..n)
            .map(|t| CoreState {
                regs: vec![0; cfg.gprs as usize],
                pc: 0,
                issued: 0,
                id: CoreRef { cluster: t / per, core: t % per, task: t },
                status: Status::Running,
            })
            .collect();
        let labels = p.labels.iter().map(|l| l.at).collect();
        let syms = p.mems.iter().map(|m| m.addr).collect();
        let faults = p.insts.iter().map(|i| static_fault(i, p)).collect();
        Ok(Machine {
            p,
            cfg: cfg.clone(),
            clusters,
            per_cluster: per,
            mem,
            cores,
            race: RaceDetector::new(race, n as usize, per, record),
            fuel,
            timing: false,
            counters: Counters {
                vector_bytes: vec![0; n as usize],
                macs: vec![0; n as usize],
                routes: [(0, 0, 0); 9],
                core_route_charged: vec![[0; 9]; n as usize],
            },
            hazards: Vec::new(),
            hazard_count: 0,
            hazard_pairs: BTreeSet::new(),
            labels,
            syms,
            faults,
            scratch: Vec::new(),
            acc: Vec::new(),
            host_limit: u64::MAX,
            host_memories: 0,
            plants: Plants::default(),
        })
    }

    /// Sets the host memory budget: `limit` bytes in all, of which the
    /// simulated memories take `memories`; the rest bounds the race
    /// detector's intervals and the staging of overlapping copies.
    pub fn set_host_budget(&mut self, memories: u64, limit: u64) {
        self.host_limit = limit;
        self.host_memories = memories;
        self.race.max_intervals = limit.saturating_sub(memories) / INTERVAL_BYTES;
    }

    /// The trap for `what`, which would take `bytes` more bytes of host
    /// memory than the budget leaves.
    fn host_memory_trap(&self, c: usize, pc: u32, what: &str, bytes: u64) -> Trap {
        let message = format!(
            "{what} would take about {bytes} bytes of host memory besides the {} bytes of the simulated \
             memories; the limit is {} bytes (SimOptions::max_memory, keel sim --max-memory)",
            self.host_memories, self.host_limit
        );
        self.trap(c, pc, TrapKind::HostMemory, message)
    }

    /// A trap raised by core `c` at instruction `pc`.
    pub fn trap(&self, c: usize, pc: u32, kind: TrapKind, message: String) -> Trap {
        Trap {
            kind,
            core: Some(self.cores[c].id),
            pc: Some(pc),
            inst: self.p.insts.get(pc as usize).map(|i| inst_text(self.p, i)),
            cycle: self.cores[c].issued,
            message,
            hazard: None,
        }
    }

    fn op(&self, c: usize, o: Operand) -> u64 {
        match o {
            Operand::Reg(r) => self.cores[c].regs[r.index()],
            Operand::Imm(v) => v,
        }
    }

    fn set(&mut self, c: usize, r: Reg, v: u64) {
        self.cores[c].regs[r.index()] = v;
    }

    fn ea(&self, c: usize, a: &Addr) -> u64 {
        let mut v = a.offset as u64;
        if let Some(m) = a.sym {
            v = v.wrapping_add(self.syms[m.index()]);
        }
        if let Some(r) = a.base {
            v = v.wrapping_add(self.cores[c].regs[r.index()]);
        }
        v
    }

    /// A count, size, stride or dimension: non-negative.
    fn count(&self, c: usize, pc: u32, o: Operand, what: &str) -> Result<u64, Trap> {
        let v = self.op(c, o) as i64;
        if v < 0 {
            return Err(self.trap(c, pc, TrapKind::BadCount, format!("{what} is negative ({v})")));
        }
        Ok(v as u64)
    }

    /// Checks `len` bytes at `a` (aligned to `align`) in the space core `c`
    /// reaches; returns the start offset.
    fn range(&self, c: usize, pc: u32, a: &Addr, len: u64, align: u64, what: &str) -> Result<usize, Trap> {
        let addr = self.ea(c, a);
        if (addr as i64) >= 0 && align > 1 && !addr.is_multiple_of(align) {
            return Err(self.trap(
                c,
                pc,
                TrapKind::Misaligned,
                format!("{what} at {} {addr} is not aligned to {align} bytes", a.space),
            ));
        }
        self.mem.check(a.space, c as u32, addr, len).map_err(|(k, m)| self.trap(c, pc, k, format!("{what}: {m}")))
    }

    fn vcount(&self, c: usize, pc: u32, o: Operand) -> Result<u64, Trap> {
        let n = self.count(c, pc, o, "the element count")?;
        if !n.is_multiple_of(self.cfg.count_multiple) {
            return Err(self.trap(
                c,
                pc,
                TrapKind::Misaligned,
                format!("the element count {n} is not a multiple of {} (`count_multiple`)", self.cfg.count_multiple),
            ));
        }
        Ok(n)
    }

    fn vrange(&self, c: usize, pc: u32, a: &Addr, n: u64, ty: Ty, what: &str) -> Result<usize, Trap> {
        self.range(c, pc, a, n.saturating_mul(ty.bytes()), self.cfg.vector_align, what)
    }

    fn burn(&mut self, c: usize, pc: u32, work: u64) -> Result<(), Trap> {
        if self.fuel < work {
            self.fuel = 0;
            return Err(self.trap(c, pc, TrapKind::Fuel, "the fuel ran out".into()));
        }
        self.fuel -= work;
        Ok(())
    }

    fn arith(&self, c: usize, pc: u32, e: ArithError) -> Trap {
        self.trap(c, pc, TrapKind::Arithmetic, e.to_string())
    }

    /// Race-checks the accesses in `self.acc` for core `c`'s `pipe`.
    fn race(&mut self, c: usize, pipe: Pipe, pc: u32) -> Result<(), Trap> {
        let acc = std::mem::take(&mut self.acc);
        let r = self.race_check(c, pipe, pc, acc.iter().copied());
        self.acc = acc;
        r
    }

    /// Race-checks (and records) `accesses` of core `c`'s `pipe`: a hazard
    /// in error mode, or more recorded intervals than the host memory
    /// budget allows, is a trap.
    pub(crate) fn race_check(
        &mut self,
        c: usize,
        pipe: Pipe,
        pc: u32,
        accesses: impl IntoIterator<Item = MemAccess>,
    ) -> Result<(), Trap> {
        if self.race.mode == RaceMode::Off {
            return Ok(());
        }
        let found = match self.race.access(c as u32, pipe, pc, accesses) {
            Ok(found) => found,
            Err(over) => {
                let what = format!("the race detector's record of {} in-flight byte ranges", over.intervals);
                return Err(self.host_memory_trap(c, pc, &what, over.intervals.saturating_mul(INTERVAL_BYTES)));
            }
        };
        let Some(raw) = found else { return Ok(()) };
        self.hazard_count += 1;
        let key = (raw.first.0, raw.first.2, raw.second.0, raw.second.2);
        let h = self.name_hazard(&raw);
        if self.race.mode == RaceMode::Error {
            let mut t = self.trap(c, pc, TrapKind::Hazard, h.to_string());
            t.hazard = Some(Box::new(h));
            return Err(t);
        }
        if self.hazards.len() < MAX_HAZARDS && self.hazard_pairs.insert(key) {
            self.hazards.push(h);
        }
        Ok(())
    }

    fn name_hazard(&self, raw: &RawHazard) -> Hazard {
        let side = |(core, pipe, pc, write): (u32, Pipe, u32, bool)| Access {
            core: self.cores[core as usize].id,
            pipe,
            pc,
            inst: self.p.insts.get(pc as usize).map_or_else(String::new, |i| inst_text(self.p, i)),
            write,
        };
        let n = self.cores.len() as u32;
        let memory = match raw.space {
            Space::Nram => format!("nram of core {}", raw.instance),
            Space::Wram => format!("wram of core {}", raw.instance - n),
            Space::Sram => format!("sram of cluster {}", raw.instance - 2 * n),
            Space::Dram => "dram".to_string(),
        };
        Hazard { memory, bytes: raw.bytes, first: side(raw.first), second: side(raw.second) }
    }

    fn special(&self, c: usize, s: Sreg) -> u64 {
        let id = self.cores[c].id;
        let per = self.per_cluster;
        u64::from(match s {
            Sreg::TaskId => id.task,
            Sreg::TaskDim => self.clusters * per,
            Sreg::CoreId => id.core,
            Sreg::CoreDim => per,
            Sreg::ClusterId => id.cluster,
            Sreg::ClusterDim => self.clusters,
        })
    }

    /// Race-checks a compute instruction's reads and write (`(space,
    /// start, bytes)`, `None` for a broadcast scalar), then burns `work`.
    fn compute_accesses(
        &mut self,
        c: usize,
        pc: u32,
        reads: &[Option<(Space, usize, u64)>],
        write: Option<(Space, usize, u64)>,
        work: u64,
    ) -> Result<(), Trap> {
        self.acc.clear();
        for &(space, at, len) in reads.iter().flatten() {
            self.access(space, at, len, false);
        }
        if let Some((space, at, len)) = write {
            self.access(space, at, len, true);
        }
        self.race(c, Pipe::Compute, pc)?;
        self.burn(c, pc, work)
    }

    fn access(&mut self, space: Space, start: usize, len: u64, write: bool) {
        let start = start as u64;
        self.acc.push(MemAccess { space, start, end: start + len, write });
    }

    /// Executes core `c`'s next instruction.
    pub fn step(&mut self, c: usize) -> Result<Step, Trap> {
        let pc = self.cores[c].pc;
        let p = self.p;
        let Some(inst) = p.insts.get(pc as usize) else {
            let mut t = self.trap(c, pc, TrapKind::FellOffEnd, format!("pc {pc} is past the last instruction"));
            t.inst = None;
            return Err(t);
        };
        if let Some((kind, why)) = &self.faults[pc as usize] {
            return Err(self.trap(c, pc, *kind, why.clone()));
        }
        self.burn(c, pc, 1)?;
        self.cores[c].issued += 1;
        let mut next = pc.wrapping_add(1);
        let scalar = Step::Scalar { latency: 0, blocking: false, def: inst.def() };
        let step = match *inst {
            Inst::Mov { ty, dst, src } => {
                let v = ty.canonical(self.op(c, src));
                self.set(c, dst, v);
                scalar
            }
            Inst::Unary { op, ty, dst, a } => {
                let v = semantics::unary(op, ty, self.op(c, a));
                self.set(c, dst, v);
                scalar
            }
            Inst::Binary { op, ty, dst, a, b } => {
                let v = semantics::binary(op, ty, self.op(c, a), self.op(c, b)).map_err(|e| self.arith(c, pc, e))?;
                self.set(c, dst, v);
                scalar
            }
            Inst::Setp { cc, ty, dst, a, b } => {
                let v = semantics::int_compare(cc, ty, self.op(c, a), self.op(c, b));
                self.set(c, dst, u64::from(v));
                scalar
            }
            Inst::Fsetp { cc, ty, dst, a, b } => {
                let v = semantics::float_compare(cc, ty, self.op(c, a), self.op(c, b));
                self.set(c, dst, u64::from(v));
                scalar
            }
            Inst::Select { ty, dst, cond, a, b } => {
                let pick = if self.cores[c].regs[cond.index()] != 0 { a } else { b };
                let v = ty.canonical(self.op(c, pick));
                self.set(c, dst, v);
                scalar
            }
            Inst::Convert { op, to, from, dst, src } => {
                let v = semantics::convert(op, to, from, from.canonical(self.op(c, src)))
                    .map_err(|e| self.arith(c, pc, e))?;
                self.set(c, dst, v);
                scalar
            }
            Inst::Load { ty, dst, addr } => {
                let at = self.range(c, pc, &addr, ty.bytes(), ty.bytes(), "the load")?;
                self.acc.clear();
                self.access(addr.space, at, ty.bytes(), false);
                self.race(c, Pipe::Scalar, pc)?;
                let v = load_bits(&self.mem.buf(addr.space, c as u32)[at..at + ty.bytes() as usize], ty);
                self.set(c, dst, v);
                Step::Scalar { latency: 0, blocking: true, def: Some(dst) }
            }
            Inst::Store { ty, addr, value } => {
                let at = self.range(c, pc, &addr, ty.bytes(), ty.bytes(), "the store")?;
                self.acc.clear();
                self.access(addr.space, at, ty.bytes(), true);
                self.race(c, Pipe::Scalar, pc)?;
                let v = ty.canonical(self.op(c, value));
                store_bits(&mut self.mem.buf_mut(addr.space, c as u32)[at..at + ty.bytes() as usize], ty, v);
                Step::Scalar { latency: 0, blocking: true, def: None }
            }
            Inst::ReadSreg { dst, sreg } => {
                let v = self.special(c, sreg);
                self.set(c, dst, v);
                scalar
            }
            Inst::Jump { target } => {
                next = self.labels[target.index()];
                scalar
            }
            Inst::Branch { on_zero, cond, target } => {
                if (self.cores[c].regs[cond.index()] == 0) == on_zero {
                    next = self.labels[target.index()];
                }
                scalar
            }
            Inst::Exit => {
                next = pc;
                Step::Exit
            }
            Inst::Trap => return Err(self.trap(c, pc, TrapKind::TrapInstruction, "a `trap` instruction".into())),
            Inst::Nop => scalar,
            Inst::Sync(kind) => {
                self.race.sync(c as u32, kind);
                Step::Sync(kind)
            }
            Inst::Barrier { scope, id, count } => {
                let id = self.count(c, pc, id, "the barrier id")?;
                let count = self.count(c, pc, count, "the barrier count")?;
                Step::Barrier { scope, id, count }
            }
            Inst::VUnary { op, ty, dst, src, n } => {
                let n = self.vcount(c, pc, n)?;
                let d = self.vrange(c, pc, &dst, n, ty, "the destination")?;
                let s = self.vrange(c, pc, &src, n, ty, "the source")?;
                let len = n * ty.bytes();
                self.compute_accesses(c, pc, &[Some((Space::Nram, s, len))], Some((Space::Nram, d, len)), n)?;
                let mut srcs = [Src::Buf(s)];
                let buf = self.mem.buf_mut(Space::Nram, c as u32);
                vector::stage(buf, &mut self.scratch, d, len as usize, &mut srcs);
                vector::unary(buf, &self.scratch, op, ty, d, srcs[0], n as usize);
                self.vector_step(c, len, op.slow(), None)
            }
            Inst::VBinary { op, ty, dst, a, b, n } => {
                let n = self.vcount(c, pc, n)?;
                let d = self.vrange(c, pc, &dst, n, ty, "the destination")?;
                let len = n * ty.bytes();
                let sa = self.vsrc(c, pc, &a, n, ty, "the first source")?;
                let sb = self.vsrc(c, pc, &b, n, ty, "the second source")?;
                let reads = [sa, sb].map(|s| nram_read(s, len));
                self.compute_accesses(c, pc, &reads, Some((Space::Nram, d, len)), n)?;
                let mut srcs = [sa, sb];
                let buf = self.mem.buf_mut(Space::Nram, c as u32);
                vector::stage(buf, &mut self.scratch, d, len as usize, &mut srcs);
                let r = vector::binary(buf, &self.scratch, op, ty, d, srcs, n as usize);
                r.map_err(|e| self.arith(c, pc, e))?;
                if self.plants.has(Bug::VaddUlp) && op == mlu_isa::VBinOp::Add && ty == Ty::F32 && n > 0 {
                    let buf = self.mem.buf_mut(Space::Nram, c as u32);
                    let v = u32::from_le_bytes(buf[d..d + 4].try_into().unwrap_or_default());
                    buf[d..d + 4].copy_from_slice(&v.wrapping_add(1).to_le_bytes());
                }
                self.vector_step(c, len, op.slow(), None)
            }
            Inst::VFma { ty, dst, a, b, c: addend, n } => {
                let n = self.vcount(c, pc, n)?;
                let d = self.vrange(c, pc, &dst, n, ty, "the destination")?;
                let len = n * ty.bytes();
                let sa = self.vsrc(c, pc, &a, n, ty, "the first source")?;
                let sb = self.vsrc(c, pc, &b, n, ty, "the second source")?;
                let sc = self.vsrc(c, pc, &addend, n, ty, "the third source")?;
                let reads = [sa, sb, sc].map(|s| nram_read(s, len));
                self.compute_accesses(c, pc, &reads, Some((Space::Nram, d, len)), n)?;
                let mut srcs = [sa, sb, sc];
                let buf = self.mem.buf_mut(Space::Nram, c as u32);
                vector::stage(buf, &mut self.scratch, d, len as usize, &mut srcs);
                vector::fma(buf, &self.scratch, ty, d, srcs, n as usize);
                self.vector_step(c, len, false, None)
            }
            Inst::VFill { ty, dst, value, n } => {
                let n = self.vcount(c, pc, n)?;
                let d = self.vrange(c, pc, &dst, n, ty, "the destination")?;
                let len = n * ty.bytes();
                self.compute_accesses(c, pc, &[], Some((Space::Nram, d, len)), n)?;
                let v = ty.canonical(self.op(c, value));
                vector::fill(self.mem.buf_mut(Space::Nram, c as u32), ty, d, v, n as usize);
                self.vector_step(c, len, false, None)
            }
            Inst::VConvert { op, to, from, dst, src, n } => {
                let n = self.vcount(c, pc, n)?;
                let d = self.vrange(c, pc, &dst, n, to, "the destination")?;
                let s = self.vrange(c, pc, &src, n, from, "the source")?;
                let (ld, ls) = (n * to.bytes(), n * from.bytes());
                self.compute_accesses(c, pc, &[Some((Space::Nram, s, ls))], Some((Space::Nram, d, ld)), n)?;
                let buf = self.mem.buf_mut(Space::Nram, c as u32);
                // Stage a source that overlaps the destination at all (sizes differ).
                let src_at = if s < d + ld as usize && d < s + ls as usize {
                    self.scratch.clear();
                    self.scratch.extend_from_slice(&buf[s..s + ls as usize]);
                    Src::Scratch(0)
                } else {
                    Src::Buf(s)
                };
                let r = vector::convert(buf, &self.scratch, (op, to, from), d, src_at, n as usize);
                r.map_err(|e| self.arith(c, pc, e))?;
                self.vector_step(c, ld.max(ls), false, None)
            }
            Inst::VReduce { op, ty, dst, src, n } => {
                let n = self.vcount(c, pc, n)?;
                let s = self.vrange(c, pc, &src, n, ty, "the source")?;
                let len = n * ty.bytes();
                self.compute_accesses(c, pc, &[Some((Space::Nram, s, len))], None, n)?;
                let v = vector::reduce(&self.mem.buf(Space::Nram, c as u32)[s..], op, ty, n as usize);
                self.set(c, dst, v);
                self.vector_step(c, len, false, Some(dst))
            }
            Inst::Matmul { ty, c: cm, a, b, m, k, n } => {
                let m = self.count(c, pc, m, "m")?;
                let k = self.count(c, pc, k, "k")?;
                let n = self.count(c, pc, n, "n")?;
                let w = ty.bytes();
                let sz = |x: u64, y: u64| x.saturating_mul(y).saturating_mul(w);
                let va = self.cfg.vector_align;
                let dc = self.range(c, pc, &cm, sz(m, n), va, "the result C")?;
                let da = self.range(c, pc, &a, sz(m, k), va, "the left operand A")?;
                let db = self.range(c, pc, &b, sz(k, n), self.cfg.wram_align, "the right operand B")?;
                let macs = m.saturating_mul(k).saturating_mul(n);
                let reads = [Some((Space::Nram, da, sz(m, k))), Some((Space::Wram, db, sz(k, n)))];
                let work = macs.saturating_add(m.saturating_mul(n));
                self.compute_accesses(c, pc, &reads, Some((Space::Nram, dc, sz(m, n))), work)?;
                let wbuf = std::mem::take(self.mem.buf_mut(Space::Wram, c as u32));
                let buf = self.mem.buf_mut(Space::Nram, c as u32);
                vector::matmul(buf, &wbuf, ty, dc, da, db, (m as usize, k as usize, n as usize));
                *self.mem.buf_mut(Space::Wram, c as u32) = wbuf;
                self.counters.macs[c] += macs;
                let cycles = if self.timing { cost::matmul_cycles(&self.cfg, m, k, n) } else { 0 };
                Step::Compute { cycles, def: None }
            }
            Inst::Dma { dst, src, bytes } => {
                let n = self.count(c, pc, bytes, "the byte count")?;
                self.copy(c, pc, dst, src, RowShape::flat(n))?
            }
            Inst::Dma2d { dst, src, bytes, dst_stride, src_stride, rows } => {
                let shape = RowShape {
                    bytes: self.count(c, pc, bytes, "the byte count")?,
                    rows: self.count(c, pc, rows, "the row count")?,
                    dst_stride: self.count(c, pc, dst_stride, "the destination stride")?,
                    src_stride: self.count(c, pc, src_stride, "the source stride")?,
                };
                self.copy(c, pc, dst, src, shape)?
            }
        };
        self.cores[c].pc = next;
        Ok(match step {
            Step::Scalar { blocking, def, .. } if self.timing => {
                Step::Scalar { latency: cost::scalar_latency(&self.cfg, inst), blocking, def }
            }
            s => s,
        })
    }

    fn vsrc(&self, c: usize, pc: u32, s: &VSrc, n: u64, ty: Ty, what: &str) -> Result<Src, Trap> {
        match s {
            VSrc::Mem(a) => self.vrange(c, pc, a, n, ty, what).map(Src::Buf),
            VSrc::Scalar(o) => Ok(Src::Scalar(ty.canonical(self.op(c, *o)))),
        }
    }

    fn vector_step(&mut self, c: usize, bytes: u64, slow: bool, def: Option<Reg>) -> Step {
        self.counters.vector_bytes[c] += bytes;
        let cycles = if self.timing { cost::vector_cycles(&self.cfg, bytes, slow) } else { 0 };
        Step::Compute { cycles, def }
    }
}

/// The NRAM read of a vector source, if it is a range.
fn nram_read(s: Src, len: u64) -> Option<(Space, usize, u64)> {
    match s {
        Src::Buf(o) => Some((Space::Nram, o, len)),
        Src::Scratch(_) | Src::Scalar(_) => None,
    }
}
