//! The verifier: checks a program against a machine configuration and
//! collects every error.
//!
//! What it checks (the rules of `docs/mlu-isa.md` §4): ids exist; register
//! numbers are below the configuration's GPR count; each opcode's type is
//! in its class and conversions exist; operands are in the spaces their
//! unit reaches (no scalar WRAM access, vector operands in NRAM, `mmul`'s
//! right operand in WRAM); copy directions exist; memory objects are
//! aligned, inside their space's capacity and disjoint; and, where an
//! address or count is an immediate, alignment, the count rule and bounds.
//! What depends on register values is checked by the simulator at run time.
//!
//! Invariants: never panics, whatever the program holds; reports errors in
//! a deterministic order (objects, then labels, then instructions in
//! order); each error names its object, label or instruction (index and
//! text) and holds the values involved (module `error`).

mod error;

pub use error::{OperandRole, VerifyError, VerifyErrorKind, VerifyProblem, VerifySubject};

use crate::config::MachineConfig;
use crate::inst::{Addr, Inst, Operand, VSrc};
use crate::ops::{Class, Route};
use crate::program::{Program, is_plain_name};
use crate::text::inst_text;
use crate::types::{Reg, Space, Ty};
use crate::{LabelId, MemId};
use OperandRole as R;
use VerifyProblem as P;
use rustc_hash::FxHashSet;

/// Checks `p` for machine `c`; returns every error found.
pub fn verify(p: &Program, c: &MachineConfig) -> Result<(), Vec<VerifyError>> {
    let mut v = Verifier { p, c, dram_extent: p.extent(Space::Dram), errors: Vec::new(), inst: None };
    v.mems();
    v.labels();
    for (i, inst) in p.insts.iter().enumerate() {
        v.inst = Some(i as u32);
        v.check_inst(inst);
    }
    v.inst = None;
    match p.insts.last() {
        None => v.err(P::NoInstructions),
        Some(last) if !last.ends_flow() => {
            v.inst = Some(p.insts.len() as u32 - 1);
            v.err(P::FallsOffEnd);
        }
        Some(_) => {}
    }
    if v.errors.is_empty() { Ok(()) } else { Err(v.errors) }
}

/// For each object, another object of its space that it overlaps, found by
/// one address-order sweep per space (O(n log n)): each object is compared
/// with the earlier-placed object reaching furthest, and an overlap is
/// recorded on the later-declared of the two, naming the other. Every
/// program with an overlap gets at least one report; an object is named
/// once at most.
fn overlapping_objects(p: &Program) -> Vec<Option<usize>> {
    let mut found = vec![None; p.mems.len()];
    let mut order: Vec<usize> = (0..p.mems.len()).collect();
    order.sort_by_key(|&i| (p.mems[i].space.index(), p.mems[i].addr, i));
    let mut reach: Option<usize> = None;
    for &i in &order {
        let m = &p.mems[i];
        if let Some(r) = reach.filter(|&r| p.mems[r].space == m.space) {
            let o = &p.mems[r];
            if o.addr < m.end() && m.addr < o.end() {
                let (later, other) = if r > i { (r, i) } else { (i, r) };
                found[later].get_or_insert(other);
            }
            if m.end() > o.end() {
                reach = Some(i);
            }
        } else {
            reach = Some(i);
        }
    }
    found
}

struct Verifier<'a> {
    p: &'a Program,
    c: &'a MachineConfig,
    /// `p.extent(Space::Dram)`, computed once (it scans every object).
    dram_extent: u64,
    errors: Vec<VerifyError>,
    inst: Option<u32>,
}

impl Verifier<'_> {
    fn err(&mut self, problem: VerifyProblem) {
        let subject = match self.inst.and_then(|i| self.p.insts.get(i as usize).map(|x| (i, x))) {
            Some((index, inst)) => VerifySubject::Inst { index, text: inst_text(self.p, inst) },
            None => VerifySubject::Program,
        };
        self.errors.push(VerifyError { subject, problem });
    }

    fn mem_err(&mut self, m: usize, problem: VerifyProblem) {
        let subject = VerifySubject::Mem { id: MemId(m as u32), name: self.p.mems[m].name.clone() };
        self.errors.push(VerifyError { subject, problem });
    }

    fn mems(&mut self) {
        let (p, c) = (self.p, self.c);
        let overlaps = overlapping_objects(p);
        let mut seen = FxHashSet::default();
        for (i, m) in p.mems.iter().enumerate() {
            if !is_plain_name(&m.name) {
                self.mem_err(i, P::ObjectName);
            }
            if !seen.insert(m.name.as_str()) {
                self.mem_err(i, P::DeclaredTwice);
            }
            if m.init.len() as u64 > m.len {
                self.mem_err(i, P::TooManyInitialValues { values: m.init.len(), len: m.len });
            }
            if m.init.iter().any(|&b| m.ty.canonical(b) != b) {
                self.mem_err(i, P::NonCanonicalInit { ty: m.ty });
            }
            let align = c.align(m.space);
            if !m.addr.is_multiple_of(align) {
                self.mem_err(i, P::ObjectMisaligned { addr: m.addr, space: m.space, align });
            }
            let capacity = c.capacity(m.space);
            if m.end() > capacity || m.len.checked_mul(m.ty.bytes()).is_none() {
                let (start, end, space, config) = (m.addr, m.end(), m.space, c.name.clone());
                self.mem_err(i, P::ObjectCapacity { start, end, capacity, space, config });
            }
            if let Some(j) = overlaps[i] {
                let o = &p.mems[j];
                self.mem_err(
                    i,
                    P::ObjectOverlap {
                        start: m.addr,
                        end: m.end(),
                        other: MemId(j as u32),
                        other_name: o.name.clone(),
                        other_start: o.addr,
                        other_end: o.end(),
                        space: m.space,
                    },
                );
            }
        }
    }

    fn labels(&mut self) {
        let p = self.p;
        let mut seen = FxHashSet::default();
        for (i, l) in p.labels.iter().enumerate() {
            let mut problem = None;
            if l.at as usize > p.insts.len() {
                problem = Some(P::LabelPastEnd { at: l.at, len: p.insts.len() });
            } else if !seen.insert(l.name.as_str()) {
                problem = Some(P::LabelTwice);
            } else if i > 0 && p.labels[i - 1].at > l.at {
                problem = Some(P::LabelOutOfOrder);
            } else if !is_plain_name(&l.name) || l.name.starts_with(|ch: char| ch.is_ascii_digit() || ch == '.') {
                problem = Some(P::LabelNotWord);
            }
            if let Some(problem) = problem {
                let subject = VerifySubject::Label { id: LabelId(i as u32), name: l.name.clone() };
                self.errors.push(VerifyError { subject, problem });
            }
        }
    }

    fn reg(&mut self, r: Reg) {
        if u32::from(r.0) >= self.c.gprs {
            self.err(P::Register { reg: r, gprs: self.c.gprs, config: self.c.name.clone() });
        }
    }

    fn class(&mut self, class: Class, ty: Ty, op: &'static str) {
        if !class.accepts(ty) {
            self.err(P::TypeClass { op, class, ty });
        }
    }

    fn vector_ty(&mut self, ty: Ty) {
        if !Inst::vector_type_ok(ty) {
            self.err(P::I1Vector);
        }
    }

    /// The static byte address of `a`, if it has no register part.
    fn static_addr(&mut self, a: &Addr) -> Option<i128> {
        let sym = match a.sym {
            Some(m) => match self.p.mem(m) {
                Some(decl) => {
                    if decl.space != a.space {
                        let (name, declared, used) = (decl.name.clone(), decl.space, a.space);
                        self.err(P::ObjectSpace { id: m, name, declared, used });
                    }
                    i128::from(decl.addr)
                }
                None => {
                    self.err(P::UnknownMem { id: m });
                    return None;
                }
            },
            None => 0,
        };
        if a.base.is_some() {
            return None;
        }
        Some(sym + i128::from(a.offset))
    }

    /// Checks an operand address: space, alignment and (for `len` bytes
    /// when known) bounds.
    fn addr(&mut self, a: &Addr, spaces: &[Space], align: u64, len: Option<u64>, role: OperandRole) {
        if let Some(r) = a.base {
            self.reg(r);
        }
        if !spaces.contains(&a.space) {
            self.err(P::OperandSpace { role, allowed: spaces.to_vec(), space: a.space });
        }
        let Some(start) = self.static_addr(a) else { return };
        if start < 0 {
            self.err(P::NegativeAddress { role, addr: start });
            return;
        }
        if align > 1 && start % i128::from(align) != 0 {
            self.err(P::Misaligned { role, space: a.space, addr: start, align });
        }
        let limit = if a.space == Space::Dram { self.dram_extent } else { self.c.capacity(a.space) };
        let end = start + i128::from(len.unwrap_or(0));
        if end > i128::from(limit) || (len.is_none() && start >= i128::from(limit) && limit > 0) {
            self.err(P::OutOfRange { role, space: a.space, start, end, limit });
        }
    }

    fn op(&mut self, o: &Operand) {
        if let Operand::Reg(r) = o {
            self.reg(*r);
        }
    }

    /// A static non-negative count, size or stride (`None` if in a register).
    fn count(&mut self, o: &Operand, role: OperandRole) -> Option<u64> {
        self.op(o);
        let value = o.imm_i64()?;
        if value < 0 {
            self.err(P::NegativeCount { role, value });
            return None;
        }
        Some(value as u64)
    }

    fn vcount(&mut self, n: &Operand) -> Option<u64> {
        let count = self.count(n, R::ElementCount)?;
        if !count.is_multiple_of(self.c.count_multiple) {
            self.err(P::CountMultiple { count, multiple: self.c.count_multiple });
        }
        Some(count)
    }

    fn vaddr(&mut self, a: &Addr, ty: Ty, n: Option<u64>, role: OperandRole) {
        let len = n.map(|n| n.saturating_mul(ty.bytes()));
        self.addr(a, &[Space::Nram], self.c.vector_align, len, role);
    }

    fn vsrc(&mut self, s: &VSrc, ty: Ty, n: Option<u64>, role: OperandRole) {
        match s {
            VSrc::Mem(a) => self.vaddr(a, ty, n, role),
            VSrc::Scalar(o) => self.op(o),
        }
    }

    fn check_inst(&mut self, inst: &Inst) {
        if let Some(d) = inst.def() {
            self.reg(d);
        }
        match inst {
            Inst::Mov { src, .. } => self.op(src),
            Inst::Unary { op, ty, a, .. } => {
                self.op(a);
                self.class(op.class(), *ty, op.name());
            }
            Inst::Binary { op, ty, a, b, .. } => {
                self.op(a);
                self.op(b);
                self.class(op.class(), *ty, op.name());
            }
            Inst::Setp { ty, a, b, .. } => {
                self.op(a);
                self.op(b);
                self.class(Class::Int, *ty, "setp");
            }
            Inst::Fsetp { ty, a, b, .. } => {
                self.op(a);
                self.op(b);
                self.class(Class::Float, *ty, "fsetp");
            }
            Inst::Select { cond, a, b, .. } => {
                self.reg(*cond);
                self.op(a);
                self.op(b);
            }
            Inst::Convert { op, to, from, src, .. } => {
                self.op(src);
                if !op.legal(*to, *from) {
                    self.err(P::NoConversion { op: *op, from: *from, to: *to });
                }
            }
            Inst::Load { ty, addr, .. } | Inst::Store { ty, addr, .. } => {
                if let Inst::Store { value, .. } = inst {
                    self.op(value);
                }
                self.addr(addr, &[Space::Nram, Space::Sram, Space::Dram], ty.bytes(), Some(ty.bytes()), R::Address);
            }
            Inst::ReadSreg { .. } | Inst::Exit | Inst::Trap | Inst::Nop | Inst::Sync(_) => {}
            Inst::Jump { target } | Inst::Branch { target, .. } => {
                if let Inst::Branch { cond, .. } = inst {
                    self.reg(*cond);
                }
                if self.p.label(*target).is_none() {
                    self.err(P::UnknownLabel { id: *target });
                }
            }
            Inst::VUnary { op, ty, dst, src, n } => {
                self.class(op.class(), *ty, op.name());
                self.vector_ty(*ty);
                let n = self.vcount(n);
                self.vaddr(dst, *ty, n, R::Destination);
                self.vaddr(src, *ty, n, R::Source);
            }
            Inst::VBinary { ty, dst, a, b, n, .. } => {
                self.vector_ty(*ty);
                let n = self.vcount(n);
                self.vaddr(dst, *ty, n, R::Destination);
                self.vsrc(a, *ty, n, R::FirstSource);
                self.vsrc(b, *ty, n, R::SecondSource);
            }
            Inst::VFma { ty, dst, a, b, c, n } => {
                self.vector_ty(*ty);
                let n = self.vcount(n);
                self.vaddr(dst, *ty, n, R::Destination);
                self.vsrc(a, *ty, n, R::FirstSource);
                self.vsrc(b, *ty, n, R::SecondSource);
                self.vsrc(c, *ty, n, R::ThirdSource);
            }
            Inst::VFill { ty, dst, value, n } => {
                self.vector_ty(*ty);
                self.op(value);
                let n = self.vcount(n);
                self.vaddr(dst, *ty, n, R::Destination);
            }
            Inst::VConvert { op, to, from, dst, src, n } => {
                if !op.legal(*to, *from) {
                    self.err(P::NoConversion { op: *op, from: *from, to: *to });
                }
                self.vector_ty(*to);
                self.vector_ty(*from);
                let n = self.vcount(n);
                self.vaddr(dst, *to, n, R::Destination);
                self.vaddr(src, *from, n, R::Source);
            }
            Inst::VReduce { ty, src, n, .. } => {
                self.vector_ty(*ty);
                let n = self.vcount(n);
                self.vaddr(src, *ty, n, R::Source);
            }
            Inst::Matmul { ty, c, a, b, m, k, n } => {
                self.vector_ty(*ty);
                let (m, k, n) = (self.count(m, R::M), self.count(k, R::K), self.count(n, R::N));
                let len = |x: Option<u64>, y: Option<u64>| Some(x?.saturating_mul(y?).saturating_mul(ty.bytes()));
                let align = self.c.vector_align;
                self.addr(c, &[Space::Nram], align, len(m, n), R::ResultC);
                self.addr(a, &[Space::Nram], align, len(m, k), R::LeftA);
                self.addr(b, &[Space::Wram], self.c.wram_align, len(k, n), R::RightB);
            }
            Inst::Dma { dst, src, bytes } => {
                let bytes = self.count(bytes, R::ByteCount);
                self.copy(*dst, *src, bytes, Some((0, 0)), Some(1));
            }
            Inst::Dma2d { dst, src, bytes, dst_stride, src_stride, rows } => {
                let bytes = self.count(bytes, R::ByteCount);
                let ds = self.count(dst_stride, R::DestinationStride);
                let ss = self.count(src_stride, R::SourceStride);
                let rows = self.count(rows, R::RowCount);
                let strides = ds.zip(ss);
                self.copy(*dst, *src, bytes, strides, rows);
            }
            Inst::Barrier { scope, id, count } => {
                self.count(id, R::BarrierId);
                if let Some(v) = self.count(count, R::BarrierCount) {
                    let most = match scope {
                        crate::Scope::Local => self.c.cores_per_cluster,
                        crate::Scope::Global => self.c.cores(),
                    };
                    if v == 0 || v > u64::from(most) {
                        self.err(P::BarrierCount { count: v, most, config: self.c.name.clone() });
                    }
                }
            }
        }
    }

    fn copy(&mut self, dst: Addr, src: Addr, bytes: Option<u64>, strides: Option<(u64, u64)>, rows: Option<u64>) {
        let route = Route::new(src.space, dst.space);
        if !route.exists() {
            self.err(P::NoDirection { route });
        }
        // The extent of each end: (rows − 1)·stride + bytes.
        let extent = |stride: Option<u64>| -> Option<u64> {
            let r = rows?;
            if r == 0 {
                return Some(0);
            }
            Some((r - 1).saturating_mul(stride?).saturating_add(bytes?))
        };
        let all = [Space::Nram, Space::Wram, Space::Sram, Space::Dram];
        let dst_align = if dst.space == Space::Wram { self.c.wram_align } else { 1 };
        let src_align = if src.space == Space::Wram { self.c.wram_align } else { 1 };
        self.addr(&dst, &all, dst_align, extent(strides.map(|s| s.0)), R::Destination);
        self.addr(&src, &all, src_align, extent(strides.map(|s| s.1)), R::Source);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse;

    fn kinds(src: &str) -> Vec<VerifyErrorKind> {
        let (p, _) = parse(src).unwrap();
        match verify(&p, &MachineConfig::mlu370()) {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.kind()).collect(),
        }
    }

    #[test]
    fn a_kernel_verifies() {
        let src = ".mem @x: f32[64] dram\n.mem @b: f32[64] nram\n    dma nram[@b], dram[@x], 256\n    sync.io\n    vexp.f32 nram[@b], nram[@b], 64\n    exit\n";
        assert_eq!(kinds(src), []);
    }

    #[test]
    fn each_kind() {
        use VerifyErrorKind::*;
        assert_eq!(kinds("    add.i32 %r64, %r1, 1\n    exit\n"), [Register]);
        assert_eq!(kinds("    fadd.i32 %r1, %r1, 1\n    exit\n"), [TypeClass]);
        assert_eq!(kinds("    vexp.i32 nram[0], nram[0], 64\n    exit\n"), [TypeClass]);
        assert_eq!(kinds("    sext.i8.i32 %r1, %r2\n    exit\n"), [TypeClass]);
        assert_eq!(kinds("    ld.i32 %r1, wram[0]\n    exit\n"), [Space]);
        assert_eq!(kinds("    vadd.f32 sram[0], nram[0], nram[0], 64\n    exit\n"), [Space]);
        assert_eq!(kinds("    dma wram[0], sram[0], 64\n    exit\n"), [Direction]);
        assert_eq!(kinds("    vadd.f32 nram[64], nram[0], nram[0], 64\n    exit\n"), [Alignment]);
        assert_eq!(kinds("    ld.i32 %r1, nram[2]\n    exit\n"), [Alignment]);
        assert_eq!(kinds("    vadd.f32 nram[0], nram[0], nram[0], 65\n    exit\n"), [Count]);
        assert_eq!(kinds("    vfill.f32 nram[786176], 1.0, 128\n    exit\n"), [Capacity]);
        assert_eq!(kinds(".mem @a: f32[1000000] nram\n    exit\n"), [Capacity]);
        assert_eq!(kinds(".mem @a: f32[64] nram at 0\n.mem @b: f32[64] nram at 128\n    exit\n"), [Overlap]);
        assert_eq!(kinds("    nop\n"), [FallsOffEnd]);
        assert_eq!(kinds("    barrier.sync.local 0, 5\n    exit\n"), [Barrier]);
        assert_eq!(kinds(".mem @a: f32[64] dram\n    ld.f32 %r1, sram[@a]\n    exit\n"), [Space]);
        assert_eq!(kinds(".mem @a: f32[64] dram\n    ld.f32 %r1, dram[@a + 256]\n    exit\n"), [Capacity]);
    }

    #[test]
    fn api_programs_with_bad_ids_do_not_panic() {
        let mut p = Program::new();
        p.push(Inst::Jump { target: LabelId(7) });
        p.push(Inst::Load { ty: Ty::I32, dst: Reg(1), addr: Addr::sym(Space::Nram, MemId(3), 0) });
        p.add_label("b", 9).unwrap();
        let errs = verify(&p, &MachineConfig::mlu370()).unwrap_err();
        let kinds: Vec<_> = errs.iter().map(|e| e.kind()).collect();
        assert_eq!(
            kinds,
            [
                VerifyErrorKind::Labels,
                VerifyErrorKind::UnknownEntity,
                VerifyErrorKind::UnknownEntity,
                VerifyErrorKind::FallsOffEnd
            ]
        );
    }

    #[test]
    fn errors_hold_the_entity_and_the_values() {
        let src = ".mem @a: f32[64] nram at 0\n.mem @b: f32[64] nram at 128\n    ld.i32 %r1, wram[0]\n    add.i32 %r64, %r1, 1\n";
        let (p, smap) = parse(src).unwrap();
        let errs = verify(&p, &MachineConfig::mlu370()).unwrap_err();
        let texts: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        assert_eq!(texts[0], "memory object @b: bytes 128..384 overlap @a (0..256) in nram");
        assert_eq!(
            errs[0].problem,
            VerifyProblem::ObjectOverlap {
                start: 128,
                end: 384,
                other: MemId(0),
                other_name: "a".into(),
                other_start: 0,
                other_end: 256,
                space: Space::Nram
            }
        );
        assert_eq!((errs[0].mem(), errs[0].inst(), errs[0].kind()), (Some(MemId(1)), None, VerifyErrorKind::Overlap));
        assert!(texts[1].starts_with("instruction 0 `ld.i32"), "{}", texts[1]);
        assert!(texts[1].ends_with("`: the address must be in nram or sram or dram, not wram"), "{}", texts[1]);
        assert!(texts[2].ends_with("`: %r64 is not one of the 64 registers of mlu370"), "{}", texts[2]);
        assert_eq!(errs[2].problem, VerifyProblem::Register { reg: Reg(64), gprs: 64, config: "mlu370".into() });
        assert!(texts[3].ends_with("`: the last instruction falls off the end (end with exit, jmp or trap)"));
        assert_eq!(errs[3].inst(), Some(1));
        assert_eq!(errs[3].span(&smap), Some(smap.insts[1]));
        let mut p = Program::new();
        p.add_label("b", 9).unwrap();
        let errs = verify(&p, &MachineConfig::mlu370()).unwrap_err();
        assert_eq!(errs[0].to_string(), "label `b` is at position 9 past the end (0)");
        assert_eq!(errs[0].label(), Some(LabelId(0)));
        assert_eq!(errs[1].to_string(), "the program has no instructions");
        assert_eq!(errs[1].subject, VerifySubject::Program);
    }
}
