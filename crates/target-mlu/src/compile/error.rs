//! The errors every part of the compiler answers bad input with:
//! [`CompileError`], one variant per failure, and the allocation
//! checker's [`AllocError`].
//!
//! Invariants: a [`CompileError`] holds the offending entity as data (the
//! instruction's [`Site`], the object, the opcode, the sizes and limits,
//! or the error of the crate that refused the input, kept typed and
//! returned by `source()`); `Display` writes the message; the compiler
//! builds one instead of panicking. This module depends on nothing else in
//! the compiler but the leaf `placed`, so every module may use it without
//! an import circle.

use super::placed::Placed;
use core::fmt;
use ir_core::{FuncId, Opcode};
use mlu_isa::{ConfigError, Inst, Reg, Space, Ty};
use std::error::Error;

/// Where the instruction being lowered is: its function, block and
/// instruction (Keel ids).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Site {
    /// The function's name (without `@`).
    pub func: String,
    /// The block.
    pub block: u32,
    /// The instruction.
    pub inst: u32,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}, bb{}, instruction {}", self.func, self.block, self.inst)
    }
}

/// What the lowering found no MLU operation for ([`CompileError::Unsupported`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Unlowerable {
    /// An operation (or a malformed instance of one).
    Op(Opcode),
    /// A tensor operation on `i1` elements.
    I1Elements(Opcode),
    /// `tfill` whose value is a descriptor.
    TfillFromDescriptor,
    /// A descriptor naming an object the module does not have.
    MissingObject(ir_core::Mem),
    /// An intrinsic.
    Intrinsic {
        /// Its name.
        name: String,
    },
    /// A tensor map's buffers the red-blue game could not plan.
    BufferPlan(BufferPlanError),
}

impl fmt::Display for Unlowerable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unlowerable::Op(op) => f.write_str(op.name()),
            Unlowerable::I1Elements(Opcode::Matmul) => f.write_str("`matmul` on i1 elements (no matrix form)"),
            Unlowerable::I1Elements(op) => write!(f, "`{}` on i1 elements (no vector form)", op.name()),
            Unlowerable::TfillFromDescriptor => f.write_str("tfill from a descriptor"),
            Unlowerable::MissingObject(_) => f.write_str("a descriptor of a missing object"),
            Unlowerable::Intrinsic { name } => write!(f, "`intrinsic {name:?}`"),
            Unlowerable::BufferPlan(e) => write!(f, "{e}"),
        }
    }
}

/// Why a tensor map's buffer plan failed (the red-blue game on its tile
/// DAG; never expected, each a bug in the plan's construction).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum BufferPlanError {
    /// The tile DAG did not build.
    Dag(regalloc_pebble::DagError),
    /// The game found no schedule.
    Pebble(regalloc_pebble::PebbleError),
    /// The schedule costs more than the bound it was searched at.
    AboveBound {
        /// Copies per tile.
        cost: u64,
        /// The bound.
        bound: u64,
    },
    /// The schedule leaves the result in no buffer.
    NoResult,
    /// The schedule uses more buffers than it was given.
    MissingBuffer,
}

impl fmt::Display for BufferPlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferPlanError::Dag(e) => write!(f, "the tile DAG: {e:?}"),
            BufferPlanError::Pebble(e) => write!(f, "{e:?}"),
            BufferPlanError::AboveBound { cost, bound } => {
                write!(f, "the red-blue game needs {cost} copies per tile, above its bound {bound}")
            }
            BufferPlanError::NoResult => f.write_str("the game computed the result nowhere"),
            BufferPlanError::MissingBuffer => f.write_str("the game used a buffer it does not have"),
        }
    }
}

impl Error for BufferPlanError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            BufferPlanError::Dag(e) => Some(e),
            BufferPlanError::Pebble(e) => Some(e),
            _ => None,
        }
    }
}

/// A copy the lowering emits ([`CompileError::CopyOutOfWram`] names it).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CopyOf {
    /// A `dma` tensor operation.
    Dma {
        /// Its source's space.
        from: Space,
        /// Its destination's space.
        to: Space,
    },
    /// A source that may overlap its destination, to a DRAM temporary.
    AliasTemp,
    /// `matmul`'s right operand, to WRAM.
    MatmulRight,
    /// `matmul`'s result, out of NRAM.
    MatmulResult,
}

impl fmt::Display for CopyOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CopyOf::Dma { from, to } => write!(f, "`dma` {from} → {to}"),
            CopyOf::AliasTemp => f.write_str("a source overlapping its destination to a temporary"),
            CopyOf::MatmulRight => f.write_str("the right operand of `matmul`"),
            CopyOf::MatmulResult => f.write_str("the result of `matmul`"),
        }
    }
}

/// A compile error: what failed, naming the instruction, object, option or
/// limit.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CompileError {
    /// The machine configuration does not validate.
    Config(ConfigError),
    /// The Keel module does not verify.
    NotVerified(ir_core::VerifierErrors),
    /// The function to compile (or an instance's) is not in the module.
    NoSuchFunction {
        /// Its id.
        func: FuncId,
    },
    /// A core count the split cannot use.
    CoreCount {
        /// Cores asked for.
        cores: u32,
        /// Cores the machine has.
        machine: u32,
    },
    /// A tile size that is not a positive multiple of 512 bytes.
    TileSize {
        /// The size asked for.
        bytes: u64,
    },
    /// A recursive call (calls are inlined).
    Recursive {
        /// The callee's name.
        callee: String,
        /// The caller's name.
        caller: String,
    },
    /// An operation the MLU ISA has no form for.
    Unsupported {
        /// The instruction.
        at: Site,
        /// What has no form.
        what: Unlowerable,
    },
    /// A call to an external function.
    ExternalCall {
        /// The instruction.
        at: Site,
        /// The callee's name.
        callee: String,
    },
    /// A scalar load or store of a WRAM object.
    ScalarWram {
        /// The instruction.
        at: Site,
        /// `load` or `store`.
        op: Opcode,
        /// The object's name.
        object: String,
    },
    /// A vector source in WRAM, which only the matrix unit reads.
    WramSource {
        /// The instruction.
        at: Site,
        /// The operation.
        op: Opcode,
        /// The source object's name, when known.
        object: Option<String>,
    },
    /// `matmul`'s left operand in WRAM.
    MatmulLeftInWram {
        /// The instruction.
        at: Site,
    },
    /// A WRAM destination at an offset that is not an aligned immediate.
    WramDestinationOffset {
        /// The instruction.
        at: Site,
        /// The operation.
        op: Opcode,
        /// The WRAM alignment.
        align: u64,
    },
    /// `matmul`'s WRAM operand at an offset that is not an aligned
    /// immediate.
    MatmulWramOffset {
        /// The instruction.
        at: Site,
        /// The WRAM alignment.
        align: u64,
    },
    /// A copy out of WRAM (the machine has none).
    CopyOutOfWram {
        /// The instruction.
        at: Site,
        /// The copy.
        copy: CopyOf,
    },
    /// More inlined call instances than the compiler handles.
    TooManyInstances {
        /// The limit.
        limit: usize,
    },
    /// A call to a function the module does not have.
    MissingCallee {
        /// Its id.
        func: FuncId,
    },
    /// More virtual registers than the compiler handles.
    TooManyVregs {
        /// The limit.
        limit: u32,
    },
    /// More instructions than the compiler emits.
    TooManyInsts {
        /// The limit.
        limit: usize,
    },
    /// A staging buffer too small for one whole vector of the type.
    TileTooSmall {
        /// The buffer's bytes.
        tile_bytes: u64,
        /// The element type.
        elem: Ty,
        /// The configuration's `count_multiple`.
        count_multiple: u64,
    },
    /// More register names (webs) than the compiler handles.
    TooManyWebs {
        /// Webs the function needs.
        webs: usize,
        /// The limit.
        limit: u32,
    },
    /// Fewer GPRs than the allocator needs.
    TooFewGprs {
        /// The configuration's GPRs.
        gprs: u32,
        /// The fewest the allocator needs.
        needed: u32,
    },
    /// A space whose objects do not fit.
    SpaceOverflow {
        /// The space.
        space: Space,
        /// Bytes the objects need.
        used: u64,
        /// Bytes the machine has (per core, cluster or chip).
        capacity: u64,
        /// Every object of the space, placed.
        objects: Vec<Placed>,
    },
    /// No staging-buffer size fits.
    NoTileFits,
    /// The virtual code is malformed (a compiler bug).
    MalformedVirtualCode(cfg_dom::InputError),
    /// A jump to a label the program does not have (a compiler bug).
    MissingLabel {
        /// The jumping instruction.
        inst: u32,
    },
    /// The program's control-flow graph is malformed (a compiler bug).
    MalformedCfg(cfg_dom::GraphError),
    /// `regalloc-pebble` failed.
    Regalloc(regalloc_pebble::AllocError),
    /// `regalloc-pebble`'s checker refused its allocation.
    PebbleCheck(regalloc_pebble::CheckError),
    /// `regalloc-pebble` asked for a move between two spill slots.
    SlotToSlotMove,
    /// The allocation checker refused an allocation.
    WrongAllocation(AllocError),
    /// `memdep` refused the compiled code (a compiler bug).
    Memdep(memdep::InputError),
    /// Sync placement: `memdep`'s site sets for the compiled code outgrew
    /// the memory budget ([`CompileOptions::max_memory`](super::CompileOptions::max_memory));
    /// the naive lowering (a sync after every instruction) needs no
    /// dependences.
    SyncsTooLarge {
        /// Instructions of the compiled code.
        insts: usize,
        /// Bytes the sets would have taken (at least).
        bytes: u64,
        /// The budget.
        limit: u64,
    },
    /// A fused run's tile DAG did not build.
    FusedDag(regalloc_pebble::DagError),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use CompileError as E;
        match self {
            E::Config(e) => write!(f, "{e}"),
            E::NotVerified(e) => write!(f, "the module does not verify:\n{e}"),
            E::NoSuchFunction { .. } => f.write_str("no such function"),
            E::CoreCount { cores, machine } => write!(
                f,
                "cannot split over {cores} cores: the machine has {machine} (4 per cluster); more than 4 must be \
                 whole clusters"
            ),
            E::TileSize { bytes } => write!(f, "the tile size must be a multiple of 512 bytes, not {bytes}"),
            E::Recursive { callee, caller } => write!(
                f,
                "`call @{callee}` in @{caller} is recursive: calls are inlined, and the MLU has no indirect jump \
                 for a return"
            ),
            E::Unsupported { at, what } => write!(f, "cannot lower {what} ({at}): the MLU ISA has no such operation"),
            E::ExternalCall { at, callee } => write!(
                f,
                "cannot lower `call @{callee}` ({at}): it is an external function, with no code to run on the MLU"
            ),
            E::ScalarWram { at, op, object } => write!(
                f,
                "cannot lower `{} @{object}[..]` ({at}): scalar instructions cannot reach WRAM (docs/mlu-isa.md §2.2)",
                op.name()
            ),
            E::WramSource { at, op, object } => {
                let source = match object {
                    Some(name) => format!("its source @{name}"),
                    None => "its source".to_string(),
                };
                write!(f, "cannot lower `{}` ({at}): {source} is in WRAM, which only the matrix unit reads", op.name())
            }
            E::MatmulLeftInWram { at } => write!(
                f,
                "cannot lower `matmul` ({at}): its left operand is in WRAM; the matrix unit reads it from NRAM"
            ),
            E::WramDestinationOffset { at, op, align } => write!(
                f,
                "cannot lower `{}` ({at}): its WRAM destination must start at an immediate offset aligned to {align} \
                 bytes",
                op.name()
            ),
            E::MatmulWramOffset { at, align } => write!(
                f,
                "cannot lower `matmul` ({at}): its WRAM operand must start at an immediate offset aligned to {align} \
                 bytes"
            ),
            E::CopyOutOfWram { at, copy } => {
                write!(f, "cannot lower the copy of {copy} ({at}): nothing copies out of WRAM (docs/mlu-isa.md §2.3)")
            }
            E::TooManyInstances { limit } => write!(f, "inlining needs more than {limit} call instances"),
            E::MissingCallee { .. } => f.write_str("call to a missing function"),
            E::TooManyVregs { limit } => {
                write!(f, "the function needs more than {limit} virtual registers (inlining and staging temporaries)")
            }
            E::TooManyInsts { limit } => write!(f, "the compiled code exceeds {limit} instructions"),
            E::TileTooSmall { tile_bytes, elem, count_multiple } => write!(
                f,
                "a {tile_bytes}-byte staging buffer holds no whole vector of {elem} ({count_multiple} elements)"
            ),
            E::TooManyWebs { webs, limit } => {
                write!(f, "the function needs {webs} register names, more than the {limit} the compiler handles")
            }
            E::TooFewGprs { gprs, needed } => {
                write!(f, "the configuration has {gprs} GPRs; the allocator needs at least {needed}")
            }
            E::SpaceOverflow { space, used, capacity, objects } => {
                let scope = match space {
                    Space::Nram | Space::Wram => "per core",
                    Space::Sram => "per cluster",
                    Space::Dram => "on the chip",
                };
                write!(f, "{space} overflows: the objects need {used} bytes, the machine has {capacity} {scope}: ")?;
                for (i, p) in objects.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}@{} ({} bytes, {})", p.name, p.bytes, p.kind.name())?;
                }
                Ok(())
            }
            E::NoTileFits => f.write_str("no tile size fits"),
            E::MalformedVirtualCode(e) => write!(f, "the virtual code is malformed: {e}"),
            E::MissingLabel { inst } => write!(f, "instruction {inst} jumps to a missing label"),
            E::MalformedCfg(e) => write!(f, "the program's CFG is malformed: {e}"),
            E::Regalloc(e) => write!(f, "register allocation failed: {e}"),
            E::PebbleCheck(e) => write!(f, "regalloc-pebble's checker: {e}"),
            E::SlotToSlotMove => f.write_str("regalloc-pebble asked for a slot-to-slot move"),
            E::WrongAllocation(e) => write!(f, "register allocation is wrong: {e}"),
            E::Memdep(e) => write!(f, "memdep refused the compiled code: {e}"),
            E::SyncsTooLarge { insts, bytes, limit } => write!(
                f,
                "sync placement: the memory dependences of the {insts} compiled instructions need at least {bytes} bytes, over the limit of {limit}; the naive lowering needs none"
            ),
            E::FusedDag(e) => write!(f, "the fused tile DAG: {e:?}"),
        }
    }
}

impl Error for CompileError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        use CompileError as E;
        match self {
            E::Config(e) => Some(e),
            E::NotVerified(e) => Some(e),
            E::Unsupported { what: Unlowerable::BufferPlan(e), .. } => Some(e),
            E::MalformedVirtualCode(e) => Some(e),
            E::MalformedCfg(e) => Some(e),
            E::Regalloc(e) => Some(e),
            E::PebbleCheck(e) => Some(e),
            E::WrongAllocation(e) => Some(e),
            E::Memdep(e) => Some(e),
            E::FusedDag(e) => Some(e),
            _ => None,
        }
    }
}

/// Why an allocation is wrong ([`check_allocation`](super::check_allocation)):
/// the physical instruction at fault and what is wrong there.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AllocError {
    /// The physical instruction at fault.
    pub at: u32,
    /// What is wrong.
    pub kind: AllocErrorKind,
}

/// What is wrong with an allocation at one instruction (instructions are
/// boxed, so errors stay small on the checker's and the compiler's
/// `Result`s).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AllocErrorKind {
    /// The origins do not match the instructions one to one.
    OriginCount {
        /// Origins.
        origins: usize,
        /// Physical instructions.
        insts: usize,
    },
    /// More abstract state than [`MAX_STATE`](super::MAX_STATE): not checked.
    TooLarge {
        /// Blocks.
        blocks: usize,
        /// Locations (registers and spill slots).
        locations: usize,
    },
    /// An origin naming no virtual instruction.
    NotVirtual {
        /// The origin's index.
        origin: u32,
    },
    /// A physical instruction that is not the virtual one it stands for.
    StandsFor {
        /// The physical instruction.
        physical: Box<Inst>,
        /// The virtual instruction.
        virtual_inst: Box<Inst>,
    },
    /// The register operands differ in number.
    OperandCount,
    /// A register read that does not hold the virtual register it should.
    WrongValue {
        /// The physical register.
        reg: Reg,
        /// The virtual register it should hold.
        expected: u32,
        /// The virtual register it holds, if known.
        held: Option<u32>,
    },
    /// One of the two defines a register and the other does not.
    DefinitionsDiffer,
    /// A reload of a slot or into a register that does not exist.
    ReloadOutOfRange,
    /// An instruction that is not the reload it claims.
    NotReload {
        /// The instruction.
        inst: Box<Inst>,
        /// The slot.
        slot: u32,
    },
    /// A spill of a register or to a slot that does not exist.
    SpillOutOfRange,
    /// An instruction that is not the spill it claims.
    NotSpill {
        /// The instruction.
        inst: Box<Inst>,
        /// The slot.
        slot: u32,
    },
    /// A move between registers that do not exist.
    MoveOutOfRange,
    /// An instruction that is not the move it claims.
    NotMove {
        /// The instruction.
        inst: Box<Inst>,
        /// The destination.
        to: Reg,
        /// The source.
        from: Reg,
    },
    /// An instruction standing for an inserted jump that is no jump.
    NotJump {
        /// The instruction.
        inst: Box<Inst>,
    },
    /// A branch past the end of the program.
    BranchPastEnd,
}

impl fmt::Display for AllocErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use AllocErrorKind as K;
        match self {
            K::OriginCount { origins, insts } => write!(f, "{origins} origins for {insts} instructions"),
            K::TooLarge { blocks, locations } => {
                write!(f, "too large to check: {blocks} blocks × {locations} locations")
            }
            K::NotVirtual { origin } => write!(f, "origin {origin} is not a virtual instruction"),
            K::StandsFor { physical, virtual_inst } => {
                write!(f, "`{}` stands for `{}`", physical.mnemonic(), virtual_inst.mnemonic())
            }
            K::OperandCount => f.write_str("the register operands differ in number"),
            K::WrongValue { reg, expected, held } => match held {
                Some(v) => write!(f, "{reg} should hold v{expected} but holds v{v}"),
                None => write!(f, "{reg} should hold v{expected} but holds nothing known"),
            },
            K::DefinitionsDiffer => f.write_str("the definitions differ"),
            K::ReloadOutOfRange => f.write_str("a reload out of range"),
            K::NotReload { inst, slot } => {
                write!(f, "`{}` is not the reload of slot {slot} it claims", inst.mnemonic())
            }
            K::SpillOutOfRange => f.write_str("a spill out of range"),
            K::NotSpill { inst, slot } => write!(f, "`{}` is not the spill to slot {slot} it claims", inst.mnemonic()),
            K::MoveOutOfRange => f.write_str("a move out of range"),
            K::NotMove { inst, to, from } => {
                write!(f, "`{}` is not the move {to} <- {from} it claims", inst.mnemonic())
            }
            K::NotJump { inst } => write!(f, "`{}` stands for an inserted jump", inst.mnemonic()),
            K::BranchPastEnd => f.write_str("a branch past the end"),
        }
    }
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "instruction {}: {}", self.at, self.kind)
    }
}

impl Error for AllocError {}
