//! Keel's IR as a [`PreCode`]: [`KeelCode`] reads an `ir_core::Function`
//! in SSA form (with, optionally, `memdep`'s dependences for its loads),
//! and [`KeelOp`] is its operation key.
//!
//! The mapping (the safety rules source document 001 leaves implicit, made
//! explicit here):
//! - `phi` is a phi; unguarded `copy` and `const` are copies (a `const`
//!   copies its immediate; Keel immediates carry their type);
//! - an unguarded single-result binary, unary (not `copy`), compare,
//!   convert or select is a pure operation keyed by opcode, condition code
//!   and result type; it commutes for `add`, `mul`, `and`, `or`, `xor`,
//!   the integer min/max, `fadd`, `fmul` and the symmetric compares
//!   (`eq`, `ne`, and for floats `ord`/`uno`); it may trap for `sdiv`,
//!   `udiv`, `srem`, `urem`, `fptosi` and `fptoui` ([`can_trap`]);
//! - an unguarded scalar `load` is a load keyed by its memory object and
//!   type; two loads read the same memory when no definition that memdep
//!   says may reach the later one comes after the earlier one
//!   ([`KeelCode::same_memory`]; why that is exact enough and sound: a
//!   write on a path from `L1` to `L2` that does not pass `L1` again is
//!   dominated by `L1`, else the path from the entry around `L1` would
//!   reach `L2`, and the last such write reaches `L2`; a path that passes
//!   `L1` again makes the later `L1` the one that counts);
//! - everything else (guarded instructions, calls, intrinsics, stores,
//!   tensor instructions, `undef`, instructions with several results or an
//!   operand that names no immediate) is `Other`: opaque, never moved.
//!
//! Invariant: value ids are var indices, instruction ids instruction
//! indices, blocks the nodes of `Function::cfg` (as for `cfg_dom::VarCode`).

use super::error::PreError;
use super::memory::LazyMemory;
use crate::input::{InstKind, InstOrder, Operand, PreCode, ValueId};
use crate::planted::{Bug, planted};
use crate::vn::{ValueNumber, ValueNumbers};
use cfg_dom::{InstId, Node, Stale, VarCode, Versioned};
use ir_core::{Format, Function, Imm, Inst, Opcode, Type, Var, node};
use memdep::MemDeps;

/// The operation key of a Keel computation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct KeelOp {
    /// The opcode.
    pub opcode: Opcode,
    /// The condition code of a compare (its index in `IntCC::ALL` or
    /// `FloatCC::ALL`), or 0.
    pub cc: u8,
    /// The result type.
    pub ty: Type,
    /// The memory object of a load (its index), `None` for the rest.
    pub mem: Option<u32>,
}

/// The value numbers of a Keel function.
pub type KeelValueNumbers = ValueNumbers<KeelOp, Imm>;

/// Whether `op` commutes (for compares, whether the condition code makes
/// the comparison symmetric is checked separately).
pub fn commutes(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Add | Mul | And | Or | Xor | Smin | Smax | Umin | Umax | Fadd | Fmul)
}

/// Whether an operation may trap (so it is never inserted on a new path).
pub fn can_trap(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Sdiv | Udiv | Srem | Urem | Fptosi | Fptoui | Load)
}

/// The condition code of a compare as a small integer.
fn cc_of(func: &Function, inst: Inst) -> u8 {
    if let Some(cc) = func.int_cc(inst) {
        ir_core::IntCC::ALL.iter().position(|&c| c == cc).unwrap_or(0) as u8
    } else if let Some(cc) = func.float_cc(inst) {
        ir_core::FloatCC::ALL.iter().position(|&c| c == cc).unwrap_or(0) as u8
    } else {
        0
    }
}

/// Whether the compare `op` with condition-code index `cc` is symmetric
/// (`eq`, `ne`, and for floats `ord`/`uno`), so its operands may be sorted.
fn symmetric_cc(op: Opcode, cc: u8) -> bool {
    if op == Opcode::Setp {
        matches!(ir_core::IntCC::ALL.get(cc as usize), Some(ir_core::IntCC::Eq | ir_core::IntCC::Ne))
    } else if op.format() == Format::Compare {
        use ir_core::FloatCC::*;
        matches!(ir_core::FloatCC::ALL.get(cc as usize), Some(Eq | Ne | Ord | Uno))
    } else {
        false
    }
}

/// Whether `inst` is a candidate computation: an unguarded pure operation
/// with one result (binary, non-copy unary, compare, convert, select) or
/// an unguarded load. (The instructions the oracles count.)
pub fn is_computation(func: &Function, inst: Inst) -> bool {
    let op = func.opcode(inst);
    func.guard(inst).is_none()
        && func.results(inst).len() == 1
        && match op.format() {
            Format::Binary | Format::Compare | Format::Convert | Format::Select | Format::Load => true,
            Format::Unary => op != Opcode::Copy,
            _ => false,
        }
}

/// Where [`KeelCode::same_memory`]'s answers come from.
#[derive(Clone, Copy, Debug)]
enum Memory<'a> {
    /// No memory dependences: every load reads its own value.
    None,
    /// The function's dependences, computed beforehand.
    Deps(&'a MemDeps),
    /// Walks first, dependences on demand ([`LazyMemory`]).
    Lazy(&'a LazyMemory<'a>),
}

/// A Keel function in SSA form as [`PreCode`] (see the module doc), with
/// the memory dependences its loads are numbered through, if any.
#[derive(Clone, Copy, Debug)]
pub struct KeelCode<'a> {
    func: &'a Function,
    memory: Memory<'a>,
    /// Planted bugs (tests only), read once.
    sub_commutes: bool,
    loads_ignore_writes: bool,
}

impl<'a> KeelCode<'a> {
    /// `func` with no memory dependences: every load reads its own value.
    pub fn new(func: &'a Function) -> KeelCode<'a> {
        KeelCode {
            func,
            memory: Memory::None,
            sub_commutes: planted(Bug::SubCommutes),
            loads_ignore_writes: planted(Bug::LoadsIgnoreWrites),
        }
    }

    /// `func` with its loads numbered through `memory`, the dependences of
    /// `func` as it is now (an error when they are stale).
    pub fn with_memory(func: &'a Function, memory: &'a MemDeps) -> Result<KeelCode<'a>, Stale> {
        memory.check(func)?;
        Ok(KeelCode { memory: Memory::Deps(memory), ..KeelCode::new(func) })
    }

    /// `func` with its loads numbered through `memory`'s answers (walks
    /// first, `memdep` on demand), which must be about `func`.
    pub fn with_lazy_memory(func: &'a Function, memory: &'a LazyMemory<'a>) -> KeelCode<'a> {
        KeelCode { memory: Memory::Lazy(memory), ..KeelCode::new(func) }
    }

    /// The function.
    pub fn function(&self) -> &'a Function {
        self.func
    }

    /// Whether every operand of `inst` is a var or names an immediate.
    fn operands_resolve(&self, inst: Inst) -> bool {
        self.func
            .operands(inst)
            .iter()
            .all(|o| o.as_var().is_some() || o.as_const().and_then(|c| self.func.imm(c)).is_some())
    }
}

impl Versioned for KeelCode<'_> {
    fn cfg_stamp(&self) -> Option<u64> {
        self.func.cfg_stamp()
    }

    fn code_stamp(&self) -> Option<u64> {
        self.func.code_stamp()
    }
}

impl PreCode for KeelCode<'_> {
    type Op = KeelOp;
    type Imm = Imm;

    fn num_blocks(&self) -> usize {
        self.func.num_blocks()
    }

    fn num_values(&self) -> usize {
        self.func.num_vars()
    }

    fn num_insts(&self) -> usize {
        self.func.num_insts()
    }

    fn params(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.func.params().iter().map(|v| v.as_u32())
    }

    #[inline]
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        // Blocks out of the layout have no code, as for the var-level
        // analyses.
        <Function as VarCode>::block_insts(self.func, b)
    }

    fn kind(&self, inst: InstId) -> InstKind<KeelOp> {
        let i = Inst::from_u32(inst);
        let Some(d) = self.func.inst(i) else { return InstKind::Other };
        let op = d.opcode();
        if op == Opcode::Phi {
            return InstKind::Phi;
        }
        let results = self.func.results(i);
        if d.guard().is_some() || results.len() != 1 || !self.operands_resolve(i) {
            return InstKind::Other;
        }
        let ty = self.func.var_type(results[0]);
        match (op.format(), ty) {
            (Format::Const | Format::Unary, _) if op == Opcode::Const || op == Opcode::Copy => InstKind::Copy,
            (Format::Load, Some(ty)) => match self.func.scalar_mem(i) {
                Some(m) => InstKind::Load(KeelOp { opcode: op, cc: 0, ty, mem: Some(m.as_u32()) }),
                None => InstKind::Other,
            },
            (Format::Binary | Format::Compare | Format::Convert | Format::Select | Format::Unary, Some(ty)) => {
                InstKind::Pure(KeelOp { opcode: op, cc: cc_of(self.func, i), ty, mem: None })
            }
            _ => InstKind::Other,
        }
    }

    fn results(&self, inst: InstId) -> impl Iterator<Item = ValueId> + '_ {
        self.func.results(Inst::from_u32(inst)).iter().map(|v| v.as_u32())
    }

    fn operands(&self, inst: InstId) -> impl Iterator<Item = Operand<Imm>> + '_ {
        self.func.operands(Inst::from_u32(inst)).iter().filter_map(|o| match o.as_var() {
            Some(v) => Some(Operand::Value(v.as_u32())),
            None => o.as_const().and_then(|c| self.func.imm(c)).map(Operand::Imm),
        })
    }

    fn reads(&self, inst: InstId) -> impl Iterator<Item = ValueId> + '_ {
        self.func.uses(Inst::from_u32(inst)).map(|(_, v)| v.as_u32())
    }

    /// Keel's terminators are instructions: nothing.
    fn block_reads(&self, _: Node) -> impl Iterator<Item = ValueId> + '_ {
        core::iter::empty()
    }

    fn phi_preds(&self, inst: InstId) -> impl Iterator<Item = Node> + '_ {
        self.func.phi_blocks(Inst::from_u32(inst)).iter().map(|&b| node(b))
    }

    fn commutes(&self, op: KeelOp) -> bool {
        commutes(op.opcode) || symmetric_cc(op.opcode, op.cc) || (self.sub_commutes && op.opcode == Opcode::Sub)
    }

    fn may_trap(&self, op: KeelOp) -> bool {
        can_trap(op.opcode)
    }

    /// memdep's answer (see the module doc): every definition that may
    /// reach `later` is an instruction that does not come after `earlier`.
    /// False without memory dependences, or when memdep does not know
    /// `later`.
    fn same_memory(&self, earlier: InstId, later: InstId, order: &InstOrder<'_>) -> bool {
        let memory = match self.memory {
            Memory::None => return false,
            Memory::Deps(m) => m,
            Memory::Lazy(lazy) => {
                if self.loads_ignore_writes {
                    return true;
                }
                if let Some(answer) = lazy.walk_says_same(Inst::from_u32(earlier), Inst::from_u32(later)) {
                    return answer;
                }
                match lazy.deps() {
                    Some(m) => m,
                    None => return false,
                }
            }
        };
        let uses = memory.sites().uses_of_inst(later);
        if uses.is_empty() {
            return false; // memdep does not know this read: assume the worst
        }
        if self.loads_ignore_writes {
            return true;
        }
        let same = uses.iter().all(|&u| {
            memory
                .defs_of_iter(u)
                .all(|d| matches!(memory.sites().def_site(d), Some(site) if !order.before(earlier, site.inst)))
        });
        if let (Memory::Lazy(lazy), true) = (self.memory, same) {
            lazy.count_memdep_yes();
        }
        same
    }
}

impl ValueNumbers<KeelOp, Imm> {
    /// Numbers `func` (SSA form): every load its own number.
    pub fn of(func: &Function) -> Result<KeelValueNumbers, PreError> {
        ValueNumbers::of_code(&func.cfg(), &KeelCode::new(func)).map_err(|e| PreError::of_input(func, e))
    }

    /// Numbers `func` (SSA form) with its loads numbered through `memory`,
    /// the dependences of `func` as it is now.
    pub fn of_with_memory(func: &Function, memory: &MemDeps) -> Result<KeelValueNumbers, PreError> {
        let code = KeelCode::with_memory(func, memory).map_err(PreError::StaleMemory)?;
        ValueNumbers::of_code(&func.cfg(), &code).map_err(|e| PreError::of_input(func, e))
    }

    /// Numbers `func` (SSA form) with its loads numbered through
    /// `memory`'s answers, as [`super::run_in`] numbers them.
    pub fn of_with_lazy_memory(func: &Function, memory: &LazyMemory<'_>) -> Result<KeelValueNumbers, PreError> {
        let code = KeelCode::with_lazy_memory(func, memory);
        ValueNumbers::of_code(&func.cfg(), &code).map_err(|e| PreError::of_input(func, e))
    }

    /// The number of `var`, or [`ValueNumber::NONE`].
    pub fn of_var(&self, var: Var) -> ValueNumber {
        self.of_value(var.as_u32())
    }
}
