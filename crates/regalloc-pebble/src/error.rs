//! Why a function cannot be allocated ([`AllocError`]), and the size guard
//! that refuses a function before its liveness matrices are allocated.
//!
//! Invariant: every refusal names the entity (block, instruction, class)
//! or the sizes and the budget; nothing here allocates in proportion to
//! the function.

use crate::block_dag::CodeError;
use crate::class::RegClass;
use cfg_dom::{Graph, Input, InputError, InstId, Liveness, Node};
use core::fmt;

/// [`AllocError::TooLarge`] when the liveness matrices of `input` (its
/// vars plus its definitions, a bound on its webs) exceed `limit` bytes.
pub(crate) fn check_size<G: Graph, C: cfg_dom::VarCode>(input: &Input<'_, G, C>, limit: u64) -> Result<(), AllocError> {
    let defs: usize = (0..input.num_insts() as InstId).map(|i| input.defs(i).len()).sum();
    let names = input.num_vars().saturating_add(defs);
    let bytes = Liveness::matrix_bytes(input.num_blocks(), names);
    if bytes > limit {
        return Err(AllocError::TooLarge { blocks: input.num_blocks(), names, bytes, limit });
    }
    Ok(())
}

/// Why a function cannot be allocated.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AllocError {
    /// The graph and code are malformed (`cfg_dom::check_input`).
    Input(InputError),
    /// The code has a shape the allocator does not take (a phi, a
    /// misplaced terminator).
    Code(CodeError),
    /// An instruction needs more registers of a class at once than there
    /// are.
    TooFewRegisters {
        /// Its block.
        block: Node,
        /// The instruction.
        inst: InstId,
        /// The class.
        class: RegClass,
        /// Registers it needs.
        needs: u32,
        /// Registers there are.
        have: u32,
    },
    /// The function is too large for the liveness bit matrices within the
    /// budget ([`Options::max_memory`](crate::Options::max_memory)).
    TooLarge {
        /// Blocks.
        blocks: usize,
        /// Vars plus definitions (a bound on the webs).
        names: usize,
        /// Bytes the matrices would take.
        bytes: u64,
        /// The budget.
        limit: u64,
    },
    /// The Chaitin-Briggs baseline's interference graph outgrew the
    /// budget ([`Options::max_memory`](crate::Options::max_memory)) while
    /// it was built; a long block with many values live at once has
    /// quadratically many edges.
    InterferenceTooLarge {
        /// The block whose walk crossed the budget.
        block: Node,
        /// Live ranges and spill temporaries (the graph's nodes).
        nodes: usize,
        /// Distinct edges found so far.
        edges: u64,
        /// Bytes they take while the graph is built.
        bytes: u64,
        /// The budget.
        limit: u64,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::Input(e) => e.fmt(f),
            AllocError::Code(e) => e.fmt(f),
            AllocError::TooFewRegisters { block, inst, class, needs, have } => write!(
                f,
                "instruction {inst} of block {block} needs {needs} {} registers at once, but there are {have}",
                match class {
                    RegClass::Scalar => "scalar",
                    RegClass::Vector => "vector",
                }
            ),
            AllocError::TooLarge { blocks, names, bytes, limit } => write!(
                f,
                "too large to allocate: liveness over {blocks} blocks and {names} names needs {bytes} bytes of bit matrices, over the limit of {limit}"
            ),
            AllocError::InterferenceTooLarge { block, nodes, edges, bytes, limit } => write!(
                f,
                "too large to allocate: the interference graph over {nodes} live ranges has at least {edges} edges by block {block}, {bytes} bytes, over the limit of {limit}"
            ),
        }
    }
}

impl std::error::Error for AllocError {}

impl From<InputError> for AllocError {
    fn from(e: InputError) -> AllocError {
        AllocError::Input(e)
    }
}

impl From<CodeError> for AllocError {
    fn from(e: CodeError) -> AllocError {
        AllocError::Code(e)
    }
}
