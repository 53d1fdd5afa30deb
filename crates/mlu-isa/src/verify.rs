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
//! text).

use crate::config::MachineConfig;
use crate::inst::{Addr, Inst, Operand, VSrc};
use crate::ops::{Class, Route};
use crate::program::{Program, is_plain_name};
use crate::text::{SourceMap, Span, inst_text};
use crate::types::{Reg, Space, Ty};
use crate::{LabelId, MemId};
use core::fmt;
use rustc_hash::FxHashSet;

/// The kinds of verifier errors.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum VerifyErrorKind {
    /// An object or label id that does not exist (API-built programs only).
    UnknownEntity,
    /// A register number at or above the configuration's GPR count.
    Register,
    /// A type outside the opcode's class, an `i1` vector, or a conversion
    /// that does not exist.
    TypeClass,
    /// An operand in a space its unit cannot reach, or an object named in
    /// another space's brackets.
    Space,
    /// A copy direction the machine does not have.
    Direction,
    /// An immediate address that breaks its alignment rule.
    Alignment,
    /// An object or an immediate range outside its space.
    Capacity,
    /// Two objects of one space overlap.
    Overlap,
    /// A negative immediate count, size or stride, or a vector count that
    /// is not a multiple of the configuration's count rule.
    Count,
    /// A malformed object declaration (name, initial values).
    MemDecl,
    /// Labels out of position order, duplicated, or past the end.
    Labels,
    /// The last instruction can fall off the end of the program.
    FallsOffEnd,
    /// A barrier count that can never be met, or a negative id.
    Barrier,
}

/// A verifier error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    /// What kind of error.
    pub kind: VerifyErrorKind,
    /// The instruction, if the error is about one.
    pub inst: Option<u32>,
    /// The memory object, if the error is about one.
    pub mem: Option<MemId>,
    /// The label, if the error is about one.
    pub label: Option<LabelId>,
    /// What is wrong, naming the entity.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for VerifyError {}

impl VerifyError {
    /// Where the entity the error names (its instruction, object or label)
    /// is in the text the program was parsed from, if the source map has
    /// it.
    pub fn span(&self, smap: &SourceMap) -> Option<Span> {
        let span = if let Some(i) = self.inst {
            smap.insts.get(i as usize)
        } else if let Some(m) = self.mem {
            smap.mems.get(m.index())
        } else if let Some(l) = self.label {
            smap.labels.get(l.index())
        } else {
            None
        };
        span.copied()
    }

    /// Renders the error against the text the program was parsed from
    /// (`file:line:col`, the line and a caret), or as a file error when the
    /// source map has no span for the entity (feature `render`: drawn by
    /// the `diagnostics` crate).
    #[cfg(feature = "render")]
    pub fn render(&self, file: &str, src: &str, smap: &SourceMap) -> String {
        match self.span(smap) {
            Some(s) => crate::text::render_error(file, src, s, &self.message),
            None => crate::text::render_file_error(file, &self.message),
        }
    }
}

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
        None => v.err(VerifyErrorKind::FallsOffEnd, "the program has no instructions".into()),
        Some(last) if !last.ends_flow() => {
            v.inst = Some(p.insts.len() as u32 - 1);
            v.err(
                VerifyErrorKind::FallsOffEnd,
                "the last instruction falls off the end (end with exit, jmp or trap)".into(),
            );
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
    fn err(&mut self, kind: VerifyErrorKind, what: String) {
        let message = match self.inst.and_then(|i| self.p.insts.get(i as usize).map(|x| (i, x))) {
            Some((i, inst)) => format!("instruction {i} `{}`: {what}", inst_text(self.p, inst)),
            None => what,
        };
        self.errors.push(VerifyError { kind, inst: self.inst, mem: None, label: None, message });
    }

    fn mem_err(&mut self, kind: VerifyErrorKind, m: usize, what: String) {
        let name = &self.p.mems[m].name;
        self.errors.push(VerifyError {
            kind,
            inst: None,
            mem: Some(MemId(m as u32)),
            label: None,
            message: format!("memory object @{name}: {what}"),
        });
    }

    fn mems(&mut self) {
        let (p, c) = (self.p, self.c);
        let overlaps = overlapping_objects(p);
        let mut seen = FxHashSet::default();
        for (i, m) in p.mems.iter().enumerate() {
            if !is_plain_name(&m.name) {
                self.mem_err(VerifyErrorKind::MemDecl, i, "the name is not a plain name ([A-Za-z0-9_.]+)".into());
            }
            if !seen.insert(m.name.as_str()) {
                self.mem_err(VerifyErrorKind::MemDecl, i, "declared twice".into());
            }
            if m.init.len() as u64 > m.len {
                self.mem_err(
                    VerifyErrorKind::MemDecl,
                    i,
                    format!("{} initial values for {} elements", m.init.len(), m.len),
                );
            }
            if m.init.iter().any(|&b| m.ty.canonical(b) != b) {
                self.mem_err(VerifyErrorKind::MemDecl, i, format!("an initial value is not a canonical {}", m.ty));
            }
            let align = c.align(m.space);
            if !m.addr.is_multiple_of(align) {
                self.mem_err(
                    VerifyErrorKind::Alignment,
                    i,
                    format!("address {} in {} is not a multiple of {align}", m.addr, m.space),
                );
            }
            let cap = c.capacity(m.space);
            if m.end() > cap || m.len.checked_mul(m.ty.bytes()).is_none() {
                self.mem_err(
                    VerifyErrorKind::Capacity,
                    i,
                    format!(
                        "bytes {}..{} exceed the {} {} of {} (`{}_bytes`)",
                        m.addr,
                        m.end(),
                        cap,
                        m.space,
                        c.name,
                        m.space
                    ),
                );
            }
            if let Some(o) = overlaps[i].map(|j| &p.mems[j]) {
                self.mem_err(
                    VerifyErrorKind::Overlap,
                    i,
                    format!(
                        "bytes {}..{} overlap @{} ({}..{}) in {}",
                        m.addr,
                        m.end(),
                        o.name,
                        o.addr,
                        o.end(),
                        m.space
                    ),
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
                problem = Some(format!("label `{}` is at position {} past the end ({})", l.name, l.at, p.insts.len()));
            } else if !seen.insert(l.name.as_str()) {
                problem = Some(format!("label `{}` is defined twice", l.name));
            } else if i > 0 && p.labels[i - 1].at > l.at {
                problem = Some(format!("label `{}` is out of position order", l.name));
            } else if !is_plain_name(&l.name) || l.name.starts_with(|ch: char| ch.is_ascii_digit() || ch == '.') {
                problem = Some(format!("label `{}` is not a word ([A-Za-z_][A-Za-z0-9_.]*)", l.name));
            }
            if let Some(message) = problem {
                self.errors.push(VerifyError {
                    kind: VerifyErrorKind::Labels,
                    inst: None,
                    mem: None,
                    label: Some(LabelId(i as u32)),
                    message,
                });
            }
        }
    }

    fn reg(&mut self, r: Reg) {
        if u32::from(r.0) >= self.c.gprs {
            self.err(
                VerifyErrorKind::Register,
                format!("{r} is not one of the {} registers of {}", self.c.gprs, self.c.name),
            );
        }
    }

    fn class(&mut self, class: Class, ty: Ty, what: &str) {
        if !class.accepts(ty) {
            let want = match class {
                Class::Int => "an integer type",
                Class::Float => "a float type",
                Class::Any => "any type",
            };
            self.err(VerifyErrorKind::TypeClass, format!("{what} takes {want}, not {ty}"));
        }
    }

    fn vector_ty(&mut self, ty: Ty) {
        if !Inst::vector_type_ok(ty) {
            self.err(VerifyErrorKind::TypeClass, "vector and matrix operations have no i1 elements".into());
        }
    }

    /// The static byte address of `a`, if it has no register part.
    fn static_addr(&mut self, a: &Addr) -> Option<i128> {
        let sym = match a.sym {
            Some(m) => match self.p.mem(m) {
                Some(decl) => {
                    if decl.space != a.space {
                        self.err(
                            VerifyErrorKind::Space,
                            format!("@{} is in {}, not in {}", decl.name, decl.space, a.space),
                        );
                    }
                    i128::from(decl.addr)
                }
                None => {
                    self.err(VerifyErrorKind::UnknownEntity, format!("memory object {} does not exist", m.0));
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
    fn addr(&mut self, a: &Addr, spaces: &[Space], align: u64, len: Option<u64>, what: &str) {
        if let Some(r) = a.base {
            self.reg(r);
        }
        if !spaces.contains(&a.space) {
            let names: Vec<&str> = spaces.iter().map(|s| s.name()).collect();
            self.err(VerifyErrorKind::Space, format!("{what} must be in {}, not {}", names.join(" or "), a.space));
        }
        let Some(start) = self.static_addr(a) else { return };
        if start < 0 {
            self.err(VerifyErrorKind::Capacity, format!("{what} is at the negative address {start}"));
            return;
        }
        if align > 1 && start % i128::from(align) != 0 {
            self.err(
                VerifyErrorKind::Alignment,
                format!("{what} at {} {start} is not aligned to {align} bytes", a.space),
            );
        }
        let limit = if a.space == Space::Dram { self.dram_extent } else { self.c.capacity(a.space) };
        let end = start + i128::from(len.unwrap_or(0));
        if end > i128::from(limit) || (len.is_none() && start >= i128::from(limit) && limit > 0) {
            let bound = if a.space == Space::Dram { "the program's DRAM objects end" } else { "the space ends" };
            self.err(VerifyErrorKind::Capacity, format!("{what} bytes {start}..{end} go past {limit}, where {bound}"));
        }
    }

    fn op(&mut self, o: &Operand) {
        if let Operand::Reg(r) = o {
            self.reg(*r);
        }
    }

    /// A static non-negative count, size or stride (`None` if in a register).
    fn count(&mut self, o: &Operand, what: &str) -> Option<u64> {
        self.op(o);
        let v = o.imm_i64()?;
        if v < 0 {
            self.err(VerifyErrorKind::Count, format!("{what} is negative ({v})"));
            return None;
        }
        Some(v as u64)
    }

    fn vcount(&mut self, n: &Operand) -> Option<u64> {
        let v = self.count(n, "the element count")?;
        if !v.is_multiple_of(self.c.count_multiple) {
            self.err(
                VerifyErrorKind::Count,
                format!("the element count {v} is not a multiple of {} (`count_multiple`)", self.c.count_multiple),
            );
        }
        Some(v)
    }

    fn vaddr(&mut self, a: &Addr, ty: Ty, n: Option<u64>, what: &str) {
        let len = n.map(|n| n.saturating_mul(ty.bytes()));
        self.addr(a, &[Space::Nram], self.c.vector_align, len, what);
    }

    fn vsrc(&mut self, s: &VSrc, ty: Ty, n: Option<u64>, what: &str) {
        match s {
            VSrc::Mem(a) => self.vaddr(a, ty, n, what),
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
                    self.err(VerifyErrorKind::TypeClass, format!("there is no {op} from {from} to {to}"));
                }
            }
            Inst::Load { ty, addr, .. } | Inst::Store { ty, addr, .. } => {
                if let Inst::Store { value, .. } = inst {
                    self.op(value);
                }
                self.addr(addr, &[Space::Nram, Space::Sram, Space::Dram], ty.bytes(), Some(ty.bytes()), "the address");
            }
            Inst::ReadSreg { .. } | Inst::Exit | Inst::Trap | Inst::Nop | Inst::Sync(_) => {}
            Inst::Jump { target } | Inst::Branch { target, .. } => {
                if let Inst::Branch { cond, .. } = inst {
                    self.reg(*cond);
                }
                if self.p.label(*target).is_none() {
                    self.err(VerifyErrorKind::UnknownEntity, format!("label {} does not exist", target.0));
                }
            }
            Inst::VUnary { op, ty, dst, src, n } => {
                self.class(op.class(), *ty, op.name());
                self.vector_ty(*ty);
                let n = self.vcount(n);
                self.vaddr(dst, *ty, n, "the destination");
                self.vaddr(src, *ty, n, "the source");
            }
            Inst::VBinary { ty, dst, a, b, n, .. } => {
                self.vector_ty(*ty);
                let n = self.vcount(n);
                self.vaddr(dst, *ty, n, "the destination");
                self.vsrc(a, *ty, n, "the first source");
                self.vsrc(b, *ty, n, "the second source");
            }
            Inst::VFma { ty, dst, a, b, c, n } => {
                self.vector_ty(*ty);
                let n = self.vcount(n);
                self.vaddr(dst, *ty, n, "the destination");
                self.vsrc(a, *ty, n, "the first source");
                self.vsrc(b, *ty, n, "the second source");
                self.vsrc(c, *ty, n, "the third source");
            }
            Inst::VFill { ty, dst, value, n } => {
                self.vector_ty(*ty);
                self.op(value);
                let n = self.vcount(n);
                self.vaddr(dst, *ty, n, "the destination");
            }
            Inst::VConvert { op, to, from, dst, src, n } => {
                if !op.legal(*to, *from) {
                    self.err(VerifyErrorKind::TypeClass, format!("there is no {op} from {from} to {to}"));
                }
                self.vector_ty(*to);
                self.vector_ty(*from);
                let n = self.vcount(n);
                self.vaddr(dst, *to, n, "the destination");
                self.vaddr(src, *from, n, "the source");
            }
            Inst::VReduce { ty, src, n, .. } => {
                self.vector_ty(*ty);
                let n = self.vcount(n);
                self.vaddr(src, *ty, n, "the source");
            }
            Inst::Matmul { ty, c, a, b, m, k, n } => {
                self.vector_ty(*ty);
                let (m, k, n) = (self.count(m, "m"), self.count(k, "k"), self.count(n, "n"));
                let len = |x: Option<u64>, y: Option<u64>| Some(x?.saturating_mul(y?).saturating_mul(ty.bytes()));
                let align = self.c.vector_align;
                self.addr(c, &[Space::Nram], align, len(m, n), "the result C");
                self.addr(a, &[Space::Nram], align, len(m, k), "the left operand A");
                self.addr(b, &[Space::Wram], self.c.wram_align, len(k, n), "the right operand B");
            }
            Inst::Dma { dst, src, bytes } => {
                let bytes = self.count(bytes, "the byte count");
                self.copy(*dst, *src, bytes, Some((0, 0)), Some(1));
            }
            Inst::Dma2d { dst, src, bytes, dst_stride, src_stride, rows } => {
                let bytes = self.count(bytes, "the byte count");
                let ds = self.count(dst_stride, "the destination stride");
                let ss = self.count(src_stride, "the source stride");
                let rows = self.count(rows, "the row count");
                let strides = ds.zip(ss);
                self.copy(*dst, *src, bytes, strides, rows);
            }
            Inst::Barrier { scope, id, count } => {
                self.count(id, "the barrier id");
                if let Some(v) = self.count(count, "the barrier count") {
                    let most = match scope {
                        crate::Scope::Local => self.c.cores_per_cluster,
                        crate::Scope::Global => self.c.cores(),
                    };
                    if v == 0 || v > u64::from(most) {
                        self.err(
                            VerifyErrorKind::Barrier,
                            format!(
                                "a count of {v} can never be met: the scope has 1 to {most} cores on {}",
                                self.c.name
                            ),
                        );
                    }
                }
            }
        }
    }

    fn copy(&mut self, dst: Addr, src: Addr, bytes: Option<u64>, strides: Option<(u64, u64)>, rows: Option<u64>) {
        let route = Route::new(src.space, dst.space);
        if !route.exists() {
            self.err(
                VerifyErrorKind::Direction,
                format!("there is no copy direction {} ({}): see docs/mlu-isa.md §2.5", route, route.bang_name()),
            );
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
        self.addr(&dst, &all, dst_align, extent(strides.map(|s| s.0)), "the destination");
        self.addr(&src, &all, src_align, extent(strides.map(|s| s.1)), "the source");
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
            Err(e) => e.into_iter().map(|e| e.kind).collect(),
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
        let kinds: Vec<_> = errs.iter().map(|e| e.kind).collect();
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
}
