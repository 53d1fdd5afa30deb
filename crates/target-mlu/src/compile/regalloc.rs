//! The register-allocation boundary and slice 1's allocator.
//!
//! The lowering hands an [`Allocator`] a [`VirtualCode`]: a program whose
//! registers are virtual (`%r0 .. %r(vregs−1)`, unbounded by the machine's
//! GPR count). The allocator returns an [`Allocation`]: the program over
//! physical registers plus, for every physical instruction, its
//! [`Origin`] (a virtual instruction, a reload or a spill), which is what
//! [`check_allocation`](super::check_allocation) verifies. Slice 2 plugs
//! `regalloc-pebble` in here, through the same trait.
//!
//! Two allocators implement the trait: [`HomeAllocator`] (slice 1) and
//! `regalloc-pebble` ([`super::PebbleAllocator`], slice 2, the default).
//!
//! [`HomeAllocator`] (slice 1): each virtual register gets one home for the
//! whole function: the `gprs − SCRATCH` most used get a GPR of their own,
//! the rest an 8-byte slot of the NRAM object `@keel.spill`. An instruction
//! reading spilled registers first reloads them into the reserved scratch
//! registers `%r0 .. %r(SCRATCH−1)` (one per operand); one writing a spilled
//! register writes `%r0` and stores it back. Simple and always correct: no
//! liveness is needed because no home is ever shared. Algorithm: the
//! "spill everywhere" baseline (the linear scan of M. Poletto and V.
//! Sarkar, "Linear scan register allocation", ACM TOPLAS 21(5), 1999,
//! degenerates to it when every interval spans the function; listed in
//! `docs/references.md`); priorities by use count.

use super::error::CompileError;
use crate::planted::{Bug, planted};
use mlu_isa::{Addr, Inst, Label, MachineConfig, MemDecl, MemId, Operand, Program, Reg, Space, Ty, VSrc};

/// Scratch registers [`HomeAllocator`] reserves for reloads.
pub const SCRATCH: u16 = 8;

/// Code over virtual registers.
#[derive(Clone, Debug)]
pub struct VirtualCode {
    /// The program; its registers are virtual.
    pub program: Program,
    /// How many virtual registers it uses.
    pub vregs: u32,
}

/// Where a physical instruction comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Origin {
    /// Virtual instruction `index`, with its registers renamed.
    Inst(u32),
    /// `ld.i64 reg, @spill[slot]`: brings virtual register `vreg` back.
    Reload {
        /// The slot read.
        slot: u32,
        /// The register written.
        reg: Reg,
        /// The virtual register it holds.
        vreg: u32,
    },
    /// `st.i64 @spill[slot], reg`: saves virtual register `vreg`.
    Spill {
        /// The register read.
        reg: Reg,
        /// The slot written.
        slot: u32,
        /// The virtual register it holds.
        vreg: u32,
    },
    /// `mov.i64 to, from`: moves virtual register `vreg` between registers.
    Move {
        /// The register read.
        from: Reg,
        /// The register written.
        to: Reg,
        /// The virtual register it holds.
        vreg: u32,
    },
    /// `jmp`: an inserted jump (to or from a stub holding a split edge's
    /// moves); it touches no register.
    Jump,
}

/// An allocated program.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// The program over physical registers (the spill object appended to
    /// its objects when there are spills).
    pub program: Program,
    /// The origin of each instruction of `program`.
    pub origins: Vec<Origin>,
    /// The spill object, if any.
    pub spill: Option<MemId>,
    /// Spill slots used.
    pub spill_slots: u32,
    /// GPRs the allocation uses (for [`HomeAllocator`], the virtual
    /// registers that got a GPR of their own).
    pub in_registers: u32,
    /// Which allocator made it, and why when it is a fallback (the compile
    /// report prints it).
    pub allocator: String,
    /// The virtual code as the allocator renamed it (webs), which the
    /// allocation implements and the checker compares against; `None`
    /// when it allocated the code as given.
    pub renamed: Option<VirtualCode>,
}

/// Appends `@keel.spill` (NRAM, `slots` × `i64`) to `program` when there
/// are slots; its id.
pub(crate) fn add_spill_object(program: &mut Program, slots: u32) -> Option<MemId> {
    (slots > 0).then(|| {
        program.mems.push(MemDecl {
            name: "keel.spill".into(),
            ty: Ty::I64,
            len: u64::from(slots),
            space: Space::Nram,
            addr: 0,
            init: Vec::new(),
        });
        MemId(program.mems.len() as u32 - 1)
    })
}

/// The address of spill slot `slot` of the spill object `spill`: 8 bytes
/// per slot, no base register (what the checker expects of a reload or
/// spill).
pub(crate) fn slot_addr(spill: Option<MemId>, slot: u32) -> Addr {
    Addr { space: Space::Nram, sym: spill, base: None, offset: 8 * i64::from(slot) }
}

/// A register allocator: virtual code in, physical code out.
pub trait Allocator {
    /// Allocates `code` for `config`'s GPRs.
    fn allocate(&mut self, code: &VirtualCode, config: &MachineConfig) -> Result<Allocation, CompileError>;
}

/// Slice 1's allocator: one home per virtual register (see the module doc).
#[derive(Copy, Clone, Debug, Default)]
pub struct HomeAllocator;

#[derive(Copy, Clone, Debug)]
enum Home {
    Reg(Reg),
    Slot(u32),
}

/// Calls `f(reg, is_def)` on every register field of `inst`, letting it
/// rename them.
pub fn map_regs(inst: &mut Inst, mut f: impl FnMut(Reg, bool) -> Reg) {
    fn op(o: &mut Operand, f: &mut impl FnMut(Reg, bool) -> Reg) {
        if let Operand::Reg(r) = o {
            *r = f(*r, false);
        }
    }
    fn addr(a: &mut Addr, f: &mut impl FnMut(Reg, bool) -> Reg) {
        if let Some(r) = &mut a.base {
            *r = f(*r, false);
        }
    }
    fn src(s: &mut VSrc, f: &mut impl FnMut(Reg, bool) -> Reg) {
        match s {
            VSrc::Mem(a) => addr(a, f),
            VSrc::Scalar(o) => op(o, f),
        }
    }
    let f = &mut f;
    // Uses first, in `Inst::uses` order; then the definition.
    match inst {
        Inst::Mov { src: a, .. } | Inst::Unary { a, .. } | Inst::Convert { src: a, .. } => op(a, f),
        Inst::Binary { a, b, .. } | Inst::Setp { a, b, .. } | Inst::Fsetp { a, b, .. } => {
            op(a, f);
            op(b, f);
        }
        Inst::Select { cond, a, b, .. } => {
            *cond = f(*cond, false);
            op(a, f);
            op(b, f);
        }
        Inst::Load { addr: a, .. } => addr(a, f),
        Inst::Store { addr: a, value, .. } => {
            addr(a, f);
            op(value, f);
        }
        Inst::ReadSreg { .. } | Inst::Jump { .. } | Inst::Exit | Inst::Trap | Inst::Nop | Inst::Sync(_) => {}
        Inst::Branch { cond, .. } => *cond = f(*cond, false),
        Inst::VUnary { dst, src: s, n, .. } | Inst::VConvert { dst, src: s, n, .. } => {
            addr(dst, f);
            addr(s, f);
            op(n, f);
        }
        Inst::VBinary { dst, a, b, n, .. } => {
            addr(dst, f);
            src(a, f);
            src(b, f);
            op(n, f);
        }
        Inst::VFma { dst, a, b, c, n, .. } => {
            addr(dst, f);
            src(a, f);
            src(b, f);
            src(c, f);
            op(n, f);
        }
        Inst::VFill { dst, value, n, .. } => {
            addr(dst, f);
            op(value, f);
            op(n, f);
        }
        Inst::VReduce { src: s, n, .. } => {
            addr(s, f);
            op(n, f);
        }
        Inst::Matmul { c, a, b, m, k, n, .. } => {
            addr(c, f);
            addr(a, f);
            addr(b, f);
            op(m, f);
            op(k, f);
            op(n, f);
        }
        Inst::Dma { dst, src: s, bytes } => {
            addr(dst, f);
            addr(s, f);
            op(bytes, f);
        }
        Inst::Dma2d { dst, src: s, bytes, dst_stride, src_stride, rows } => {
            addr(dst, f);
            addr(s, f);
            op(bytes, f);
            op(dst_stride, f);
            op(src_stride, f);
            op(rows, f);
        }
        Inst::Barrier { id, count, .. } => {
            op(id, f);
            op(count, f);
        }
    }
    match inst {
        Inst::Mov { dst, .. }
        | Inst::Unary { dst, .. }
        | Inst::Binary { dst, .. }
        | Inst::Setp { dst, .. }
        | Inst::Fsetp { dst, .. }
        | Inst::Select { dst, .. }
        | Inst::Convert { dst, .. }
        | Inst::Load { dst, .. }
        | Inst::ReadSreg { dst, .. }
        | Inst::VReduce { dst, .. } => *dst = f(*dst, true),
        _ => {}
    }
}

impl Allocator for HomeAllocator {
    fn allocate(&mut self, code: &VirtualCode, config: &MachineConfig) -> Result<Allocation, CompileError> {
        // A planted bug (tests only) is read once, when the pass starts.
        let shared_home = planted(Bug::SharedHome);
        let gprs = config.gprs;
        if gprs < u32::from(SCRATCH) + 2 {
            return Err(CompileError::TooFewGprs { gprs, needed: u32::from(SCRATCH) + 2 });
        }
        let n = code.vregs as usize;
        let mut weight = vec![0u64; n];
        for inst in &code.program.insts {
            for r in inst.uses().as_slice().iter().chain(inst.def().as_ref()) {
                if let Some(w) = weight.get_mut(r.index()) {
                    *w += 1;
                }
            }
        }
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(weight[v as usize]), v));
        let free = (gprs - u32::from(SCRATCH)) as usize;
        let mut home = vec![Home::Slot(0); n];
        let mut slots = 0u32;
        for (rank, &v) in order.iter().enumerate() {
            home[v as usize] = if rank < free {
                Home::Reg(Reg(SCRATCH + rank as u16))
            } else {
                slots += 1;
                Home::Slot(slots - 1)
            };
        }
        if shared_home {
            for v in 0..n {
                home[v] = home[v & !1];
            }
        }
        let mut program = Program { mems: code.program.mems.clone(), labels: Vec::new(), insts: Vec::new() };
        let spill = add_spill_object(&mut program, slots);
        let slot_addr = |slot: u32| slot_addr(spill, slot);
        let mut origins = Vec::with_capacity(code.program.insts.len());
        let mut start = Vec::with_capacity(code.program.insts.len() + 1);
        for (vi, vinst) in code.program.insts.iter().enumerate() {
            start.push(program.insts.len() as u32);
            let mut inst = vinst.clone();
            let mut reloads: Vec<(u32, Reg, u32)> = Vec::new();
            let mut store: Option<(Reg, u32, u32)> = None;
            map_regs(&mut inst, |r, def| match home.get(r.index()) {
                Some(Home::Reg(p)) => *p,
                Some(&Home::Slot(s)) if def => {
                    store = Some((Reg(0), s, u32::from(r.0)));
                    Reg(0)
                }
                Some(&Home::Slot(s)) => {
                    let scratch = Reg(reloads.len() as u16 % SCRATCH);
                    reloads.push((s, scratch, u32::from(r.0)));
                    scratch
                }
                None => r,
            });
            for (slot, reg, vreg) in reloads {
                program.insts.push(Inst::Load { ty: Ty::I64, dst: reg, addr: slot_addr(slot) });
                origins.push(Origin::Reload { slot, reg, vreg });
            }
            program.insts.push(inst);
            origins.push(Origin::Inst(vi as u32));
            if let Some((reg, slot, vreg)) = store {
                program.insts.push(Inst::Store { ty: Ty::I64, addr: slot_addr(slot), value: Operand::Reg(reg) });
                origins.push(Origin::Spill { reg, slot, vreg });
            }
        }
        let end = program.insts.len() as u32;
        program.labels = code
            .program
            .labels
            .iter()
            .map(|l| Label { name: l.name.clone(), at: start.get(l.at as usize).copied().unwrap_or(end) })
            .collect();
        let in_registers = (n.min(free)) as u32;
        Ok(Allocation {
            program,
            origins,
            spill,
            spill_slots: slots,
            in_registers,
            allocator: "home".into(),
            renamed: None,
        })
    }
}
