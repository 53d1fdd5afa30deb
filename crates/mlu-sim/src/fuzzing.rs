//! The simulator's fuzz property, shared by the `mlu_sim` fuzz target and
//! `tests/fuzz_smoke.rs` (feature `fuzzing`).
//!
//! [`program_from_bytes`] decodes any bytes into a program for a small
//! machine ([`fuzz_config`]): memory objects in every space, then scalar,
//! vector, matrix and copy instructions, syncs, barriers and forward
//! branches with operands that are mostly valid (aligned, in bounds,
//! counts that follow the rules) and sometimes not, plus a counted loop.
//! [`check`] then asserts, panicking on failure:
//! - the program prints and parses back to itself, and verifies or not
//!   without panicking;
//! - it runs in functional mode to a result or a trap, never a panic, with
//!   fuel; the race detector's verdict on every access equals the
//!   vector-clock oracle's;
//! - it runs in cycle mode too; when the functional run succeeded with no
//!   hazard, the cycle run succeeds with the same memories and registers,
//!   and every pipe's busy + stall + idle is the run's cycles; a
//!   one-core program traps in both modes at the same instruction;
//! - a second cycle run gives the same cycles and statistics.
//!
//! [`Bug`] lists the simulator's planted bugs; a test runs a simulation
//! under one with [`with_bug`] (Keel's one mechanism, `test-hooks`) to show
//! that an oracle notices.

pub use crate::planted::Bug;
pub use test_hooks::with_bug;

use crate::oracle::racy_accesses;
use crate::{Mode, RaceMode, SimOptions, Simulator};
use mlu_isa::{
    Addr, BinOp, ConvOp, FloatCC, Inst, IntCC, LabelId, MachineConfig, MemId, Operand, Program, RedOp, Reg, Scope,
    Space, Sreg, SyncKind, Ty, UnOp, VBinOp, VSrc, VUnOp, text,
};

/// The small machine fuzzed programs run on: two clusters of
/// `cores_per_cluster` cores, 16 registers, 64 KiB NRAM, 32 KiB WRAM,
/// 128 KiB SRAM.
pub fn fuzz_config(cores_per_cluster: u32) -> MachineConfig {
    MachineConfig {
        name: "fuzz".into(),
        clusters: 2,
        cores_per_cluster,
        gprs: 16,
        nram_bytes: 64 * 1024,
        wram_bytes: 32 * 1024,
        sram_bytes: 128 * 1024,
        dram_bytes: 1 << 20,
        ..MachineConfig::mlu370()
    }
}

/// Fuel for each fuzzed run.
pub const FUEL: u64 = 200_000;

/// Accesses above which the quadratic oracle is skipped.
pub const ORACLE_LIMIT: usize = 3000;

struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { usize::from(self.byte()) % n }
    }

    fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |acc, _| (acc << 8) | u64::from(self.byte()))
    }

    fn one_in(&mut self, n: u8) -> bool {
        self.byte().is_multiple_of(n)
    }

    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
}

const VTYPES: [Ty; 6] = [Ty::F32, Ty::I32, Ty::F64, Ty::I8, Ty::I16, Ty::I64];

/// A decoded program, with the grid to run it on.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The program.
    pub program: Program,
    /// Clusters to launch (1 or 2).
    pub clusters: u32,
    /// Cores per cluster (1 or 4).
    pub cores_per_cluster: u32,
}

struct Gen<'a> {
    b: Bytes<'a>,
    p: Program,
    /// (instruction, target position) for branches to patch.
    branches: Vec<(usize, usize)>,
    clusters: u32,
}

/// Decodes `data` into a program (see the module doc).
pub fn program_from_bytes(data: &[u8]) -> Generated {
    let mut g = Gen { b: Bytes { data, pos: 0 }, p: Program::new(), branches: Vec::new(), clusters: 1 };
    let (clusters, per) = [(1, 1), (1, 4), (2, 4)][g.b.below(3)];
    g.clusters = clusters;
    g.objects();
    g.body();
    g.finish();
    Generated { program: g.p, clusters, cores_per_cluster: per }
}

impl Gen<'_> {
    fn objects(&mut self) {
        let spaces = [(Space::Dram, 3), (Space::Nram, 4), (Space::Wram, 1), (Space::Sram, 2)];
        for (space, count) in spaces {
            for i in 0..count {
                let ty = VTYPES[self.b.below(VTYPES.len())];
                let len = 64 * (1 + self.b.below(8)) as u64 * (8 / ty.bytes());
                let init: Vec<u64> = (0..self.b.below(6)).map(|_| self.b.u64()).collect();
                let name = format!("{}{i}", space.name());
                let _ = self.p.add_mem(&name, ty, len, space, None, init);
            }
        }
    }

    fn reg(&mut self) -> Reg {
        Reg(4 + self.b.below(12) as u16)
    }

    fn obj(&mut self, space: Space) -> Option<(MemId, Ty, u64)> {
        let ids: Vec<usize> = (0..self.p.mems.len()).filter(|&i| self.p.mems[i].space == space).collect();
        let i = *ids.get(self.b.below(ids.len()))?;
        let m = &self.p.mems[i];
        Some((MemId(i as u32), m.ty, m.bytes()))
    }

    /// An aligned vector range in an NRAM object: (address, element count).
    fn vrange(&mut self, id: MemId, ty: Ty, bytes: u64) -> (Addr, u64) {
        let max_n = bytes / ty.bytes() / 64;
        let n = 64 * self.b.below(max_n as usize + 1) as u64;
        let room = (bytes - n * ty.bytes()) / 128;
        let off = 128 * self.b.below(room as usize + 1) as i64;
        (Addr::sym(Space::Nram, id, off), n)
    }

    fn imm(&mut self, ty: Ty) -> Operand {
        let v = match self.b.below(4) {
            0 => self.b.u64(),
            1 if ty.is_float() => {
                let x = f64::from(self.b.byte() as i8) / 4.0;
                if ty == Ty::F32 { u64::from((x as f32).to_bits()) } else { x.to_bits() }
            }
            _ => u64::from(self.b.byte()),
        };
        Operand::Imm(ty.canonical(v))
    }

    fn operand(&mut self, ty: Ty) -> Operand {
        if self.b.one_in(3) { self.imm(ty) } else { Operand::Reg(self.reg()) }
    }

    fn push(&mut self, i: Inst) {
        self.p.push(i);
    }

    fn body(&mut self) {
        self.push(Inst::ReadSreg { dst: Reg(0), sreg: Sreg::CoreId });
        self.push(Inst::ReadSreg { dst: Reg(1), sreg: Sreg::ClusterId });
        self.push(Inst::ReadSreg { dst: Reg(2), sreg: Sreg::TaskId });
        let trips = 1 + self.b.below(3) as i64;
        self.push(Inst::Mov { ty: Ty::I64, dst: Reg(3), src: Operand::int(trips) });
        let loop_start = self.p.insts.len();
        let budget = 4 + self.b.below(40);
        for _ in 0..budget {
            if self.b.done() {
                break;
            }
            self.one();
            if self.b.one_in(2) {
                self.push(Inst::Sync(SyncKind::All));
            }
        }
        // A counted loop around the body.
        self.push(Inst::Binary {
            op: BinOp::Sub,
            ty: Ty::I64,
            dst: Reg(3),
            a: Operand::Reg(Reg(3)),
            b: Operand::int(1),
        });
        let at = self.p.insts.len();
        self.push(Inst::Nop);
        self.branches.push((at, loop_start));
        self.push(Inst::Sync(SyncKind::All));
        self.push(Inst::Exit);
    }

    fn one(&mut self) {
        let kind = self.b.below(16);
        match kind {
            0 => {
                let op = BinOp::ALL[self.b.below(BinOp::ALL.len())];
                let tys: &[Ty] = if op.class() == mlu_isa::Class::Float {
                    &[Ty::F32, Ty::F64]
                } else {
                    &[Ty::I1, Ty::I8, Ty::I32, Ty::I64]
                };
                let ty = tys[self.b.below(tys.len())];
                let (a, b) = (self.operand(ty), self.operand(ty));
                let dst = self.reg();
                self.push(Inst::Binary { op, ty, dst, a, b });
            }
            1 => {
                let dst = self.reg();
                match self.b.below(5) {
                    0 => {
                        let op = UnOp::ALL[self.b.below(UnOp::ALL.len())];
                        let ty = if op.class() == mlu_isa::Class::Float { Ty::F32 } else { Ty::I16 };
                        let a = self.operand(ty);
                        self.push(Inst::Unary { op, ty, dst, a });
                    }
                    1 => {
                        let (op, to, from) = [
                            (ConvOp::Sext, Ty::I64, Ty::I8),
                            (ConvOp::Fptosi, Ty::I32, Ty::F32),
                            (ConvOp::FptouiSat, Ty::I8, Ty::F64),
                            (ConvOp::Sitofp, Ty::F32, Ty::I64),
                            (ConvOp::Bitcast, Ty::F64, Ty::I64),
                            (ConvOp::Trunc, Ty::I8, Ty::I32),
                        ][self.b.below(6)];
                        let src = self.operand(from);
                        self.push(Inst::Convert { op, to, from, dst, src });
                    }
                    2 => {
                        let (a, b) = (self.operand(Ty::I32), self.operand(Ty::I32));
                        let cc = IntCC::ALL[self.b.below(10)];
                        self.push(Inst::Setp { cc, ty: Ty::I32, dst, a, b });
                    }
                    3 => {
                        let (a, b) = (self.operand(Ty::F64), self.operand(Ty::F64));
                        let cc = FloatCC::ALL[self.b.below(8)];
                        self.push(Inst::Fsetp { cc, ty: Ty::F64, dst, a, b });
                    }
                    _ => {
                        let cond = self.reg();
                        let (a, b) = (self.operand(Ty::I64), self.operand(Ty::I64));
                        self.push(Inst::Select { ty: Ty::I64, dst, cond, a, b });
                    }
                }
            }
            2 => {
                let space = [Space::Nram, Space::Sram, Space::Dram][self.b.below(3)];
                let Some((id, ty, bytes)) = self.obj(space) else { return };
                let idx = self.b.below((bytes / ty.bytes()) as usize) as i64 * ty.bytes() as i64;
                let addr = Addr::sym(space, id, idx);
                let dst = self.reg();
                if self.b.one_in(2) {
                    self.push(Inst::Load { ty, dst, addr });
                } else {
                    let value = self.operand(ty);
                    self.push(Inst::Store { ty, addr, value });
                }
            }
            3 | 4 => {
                let Some((id, ty, bytes)) = self.obj(Space::Nram) else { return };
                let (dst, n) = self.vrange(id, ty, bytes);
                let src = |g: &mut Self| -> VSrc {
                    if g.b.one_in(4) {
                        VSrc::Scalar(g.imm(ty))
                    } else {
                        let (a, _) = g.vrange(id, ty, bytes);
                        // Same count: keep the source inside the object.
                        let room = (bytes - n * ty.bytes()) / 128 * 128;
                        VSrc::Mem(Addr { offset: a.offset.min(room as i64), ..a })
                    }
                };
                let n_op = Operand::int(n as i64);
                match self.b.below(5) {
                    0 | 1 => {
                        let op = VBinOp::ALL[self.b.below(6)];
                        let (a, b) = (src(self), src(self));
                        self.push(Inst::VBinary { op, ty, dst, a, b, n: n_op });
                    }
                    2 => {
                        let (a, b, c) = (src(self), src(self), src(self));
                        self.push(Inst::VFma { ty, dst, a, b, c, n: n_op });
                    }
                    3 => {
                        let ops: Vec<VUnOp> = VUnOp::ALL.iter().copied().filter(|o| o.class().accepts(ty)).collect();
                        let op = ops[self.b.below(ops.len())];
                        let s = match src(self) {
                            VSrc::Mem(a) => a,
                            VSrc::Scalar(_) => dst,
                        };
                        self.push(Inst::VUnary { op, ty, dst, src: s, n: n_op });
                    }
                    _ => {
                        let r = self.reg();
                        if self.b.one_in(2) {
                            let value = self.operand(ty);
                            self.push(Inst::VFill { ty, dst, value, n: n_op });
                        } else {
                            let op = RedOp::ALL[self.b.below(2)];
                            self.push(Inst::VReduce { op, ty, dst: r, src: dst, n: n_op });
                        }
                    }
                }
            }
            5 => {
                let Some((a, ta, ba)) = self.obj(Space::Nram) else { return };
                let Some((d, td, bd)) = self.obj(Space::Nram) else { return };
                let (op, ok) = match (ta, td) {
                    (f, i) if f.is_float() && i.is_int() => (ConvOp::FptosiSat, true),
                    (i, f) if i.is_int() && f.is_float() => (ConvOp::Sitofp, true),
                    (x, y) if x == y => (ConvOp::Bitcast, true),
                    (x, y) if x.bits() < y.bits() && x.is_int() => (ConvOp::Sext, true),
                    _ => (ConvOp::Bitcast, false),
                };
                if !ok {
                    return;
                }
                let n = 64 * self.b.below((ba / ta.bytes()).min(bd / td.bytes()) as usize / 64 + 1) as i64;
                self.push(Inst::VConvert {
                    op,
                    to: td,
                    from: ta,
                    dst: Addr::sym(Space::Nram, d, 0),
                    src: Addr::sym(Space::Nram, a, 0),
                    n: Operand::int(n),
                });
            }
            6 => {
                let Some((c, ty, bc)) = self.obj(Space::Nram) else { return };
                let Some((a, _, ba)) = self.obj(Space::Nram) else { return };
                let Some((b, _, bb)) = self.obj(Space::Wram) else { return };
                let (m, k, n) = (self.b.below(6) as u64, self.b.below(6) as u64, self.b.below(6) as u64);
                let w = ty.bytes();
                if m * n * w > bc || m * k * w > ba || k * n * w > bb {
                    return;
                }
                let (m, k, n) = (Operand::int(m as i64), Operand::int(k as i64), Operand::int(n as i64));
                let (c, a, b) =
                    (Addr::sym(Space::Nram, c, 0), Addr::sym(Space::Nram, a, 0), Addr::sym(Space::Wram, b, 0));
                self.push(Inst::Matmul { ty, c, a, b, m, k, n });
            }
            7 | 8 => {
                let route = mlu_isa::Route::ALL[self.b.below(9)];
                let Some((s, _, bs)) = self.obj(route.src) else { return };
                let Some((d, _, bd)) = self.obj(route.dst) else { return };
                let max = bs.min(bd);
                let bytes = 4 * self.b.below((max / 4) as usize + 1) as i64;
                let (src, dst) = (Addr::sym(route.src, s, 0), Addr::sym(route.dst, d, 0));
                // Spread cores over DRAM and SRAM objects sometimes.
                let src =
                    if self.b.one_in(3) && route.src != Space::Wram { Addr { base: Some(Reg(0)), ..src } } else { src };
                if kind == 7 {
                    self.push(Inst::Dma { dst, src, bytes: Operand::int(bytes) });
                } else {
                    let rows = 1 + self.b.below(4) as i64;
                    let row = bytes / rows / 4 * 4;
                    let stride = row + 4 * self.b.below(3) as i64;
                    if stride * (rows - 1) + row > max as i64 {
                        return;
                    }
                    let (b, s) = (Operand::int(row), Operand::int(stride));
                    self.push(Inst::Dma2d {
                        dst,
                        src,
                        bytes: b,
                        dst_stride: s,
                        src_stride: s,
                        rows: Operand::int(rows),
                    });
                }
            }
            9 | 10 => {
                let k = SyncKind::ALL[self.b.below(4)];
                self.push(Inst::Sync(k));
            }
            11 => {
                let count = [4, 4, 4, 1, 2][self.b.below(5)];
                // (On a one-core grid, counts above 1 deadlock: a trap to exercise.)
                let id = Operand::int(self.b.below(2) as i64);
                self.push(Inst::Barrier { scope: Scope::Local, id, count: Operand::int(count) });
            }
            12 => {
                let count = [4 * i64::from(self.clusters), 8, 4][self.b.below(3)];
                self.push(Inst::Barrier { scope: Scope::Global, id: Operand::int(0), count: Operand::int(count) });
            }
            13 => {
                // A forward branch on a register (often the core id).
                let cond = if self.b.one_in(2) { Reg(0) } else { self.reg() };
                let at = self.p.insts.len();
                let on_zero = self.b.one_in(2);
                self.push(Inst::Branch { on_zero, cond, target: LabelId(0) });
                let skip = 1 + self.b.below(4);
                self.branches.push((at, at + 1 + skip));
            }
            _ if self.b.one_in(4) => self.mutation(),
            _ => {}
        }
    }

    /// An instruction breaking a rule: misaligned, out of bounds, a bad
    /// count, a scalar WRAM access, an unknown direction, an `i1` vector.
    fn mutation(&mut self) {
        let Some((id, ty, bytes)) = self.obj(Space::Nram) else { return };
        let dst = Addr::sym(Space::Nram, id, 0);
        let i = match self.b.below(7) {
            0 => Inst::VFill { ty, dst: Addr { offset: 4, ..dst }, value: Operand::Imm(0), n: Operand::int(64) },
            1 => Inst::VFill { ty, dst, value: Operand::Imm(0), n: Operand::int(7) },
            2 => Inst::Load { ty: Ty::I32, dst: Reg(4), addr: Addr::abs(Space::Wram, 0) },
            3 => Inst::Dma { dst: Addr::abs(Space::Wram, 0), src: Addr::abs(Space::Sram, 0), bytes: Operand::int(64) },
            4 => Inst::VFill { ty: Ty::I1, dst, value: Operand::Imm(0), n: Operand::int(64) },
            5 => Inst::Dma {
                dst: Addr::sym(Space::Dram, MemId(0), 0),
                src: dst,
                bytes: Operand::int(bytes as i64 + 4096),
            },
            _ => Inst::Load { ty: Ty::I64, dst: Reg(4), addr: Addr::reg(Space::Nram, Reg(self.b.below(16) as u16), 0) },
        };
        self.push(i);
    }

    fn finish(&mut self) {
        let mut targets: Vec<usize> = self.branches.iter().map(|&(_, t)| t.min(self.p.insts.len())).collect();
        targets.sort_unstable();
        targets.dedup();
        for (k, &t) in targets.iter().enumerate() {
            let _ = self.p.add_label(&format!("l{k}"), t as u32);
        }
        for &(at, t) in &self.branches {
            let t = t.min(self.p.insts.len());
            let label = LabelId(targets.binary_search(&t).unwrap_or(0) as u32);
            self.p.insts[at] = match self.p.insts[at] {
                Inst::Branch { on_zero, cond, .. } => Inst::Branch { on_zero, cond, target: label },
                // The loop's back edge.
                _ => Inst::Branch { on_zero: false, cond: Reg(3), target: label },
            };
        }
    }
}

fn options(mode: Mode, clusters: u32, record: bool) -> SimOptions {
    SimOptions {
        clusters,
        cores: None,
        mode,
        fuel: FUEL,
        races: RaceMode::Warn,
        trace: None,
        record_races: record,
        ..SimOptions::default()
    }
}

/// The property of the module doc, on the program `data` decodes to.
pub fn check(data: &[u8]) {
    let g = program_from_bytes(data);
    check_program(&g.program, g.clusters, g.cores_per_cluster);
}

/// The property of the module doc, on one program.
pub fn check_program(p: &Program, clusters: u32, cores_per_cluster: u32) {
    let cfg = fuzz_config(cores_per_cluster);
    let printed = text::print_program(p);
    let (q, _) =
        text::parse(&printed).unwrap_or_else(|e| panic!("a generated program does not parse back: {e:?}\n{printed}"));
    assert_eq!(&q, p, "the text round trip changed the program:\n{printed}");
    let _ = mlu_isa::verify(p, &cfg);
    let Ok(mut f) = Simulator::new(p, &cfg, options(Mode::Functional, clusters, true)) else { return };
    let fr = f.run();
    if let Some((log, verdicts)) = f.race_log()
        && verdicts.len() <= ORACLE_LIMIT
    {
        let want = racy_accesses(log, f.cores());
        if let Some(i) = (0..want.len()).find(|&i| want[i] != verdicts[i]) {
            panic!(
                "race detector and oracle disagree on access {i}: detector {}, oracle {}\n{printed}",
                verdicts[i], want[i]
            );
        }
    }
    let mut c =
        Simulator::new(p, &cfg, options(Mode::Cycle, clusters, false)).expect("loads as the functional run did");
    let cr = c.run();
    match (&fr, &cr) {
        (Ok(fo), _) if fo.stats.hazards == 0 => {
            let co =
                cr.as_ref().unwrap_or_else(|t| panic!("functional run succeeded, cycle run trapped: {t}\n{printed}"));
            assert_eq!(co.stats.hazards, 0, "the detector depends on timing\n{printed}");
            for space in Space::ALL {
                for inst in f.memory().instances(space) {
                    assert!(
                        f.memory().instance(space, inst) == c.memory().instance(space, inst),
                        "{space} {inst:?} differs between functional and cycle runs\n{printed}"
                    );
                }
            }
            for k in 0..f.cores() as u32 {
                assert_eq!(f.registers(k), c.registers(k), "core {k}'s registers differ\n{printed}");
            }
            for core in &co.stats.cores {
                for (i, pipe) in core.pipes.iter().enumerate() {
                    assert_eq!(
                        pipe.busy + pipe.stalled() + pipe.idle,
                        co.stats.cycles,
                        "core {:?} pipe {i}\n{printed}",
                        core.core
                    );
                }
            }
            let mut again = Simulator::new(p, &cfg, options(Mode::Cycle, clusters, false)).expect("loads");
            let ao = again.run().expect("a second run succeeds");
            assert_eq!(ao.stats, co.stats, "cycle runs differ\n{printed}");
        }
        // One core issues the same instructions in both modes.
        (Err(ft), Err(ct)) if f.cores() == 1 => {
            assert_eq!((ft.kind, ft.pc), (ct.kind, ct.pc), "functional: {ft}\ncycle: {ct}\n{printed}");
        }
        (Ok(_), Err(t)) | (Err(t), Ok(_)) if f.cores() == 1 => {
            panic!("one mode trapped, the other did not: {t}\n{printed}");
        }
        // With several cores, which core traps first depends on the order
        // they run in; each mode must still end cleanly.
        _ => {}
    }
}
