//! `foreign-ir`: a toy compiler IR that has nothing to do with Keel's, and
//! the adapters that run Keel's analyses on it.
//!
//! [`Toy`] is the kind of IR a compiler might already have: named
//! variables (scalar or vector), statements that list what they define and
//! use (maybe under a guard, maybe a phi, maybe touching ranges of named
//! buffers), and blocks that list their statements and successors — no
//! terminator instructions, no SSA requirement, no Keel type anywhere.
//! Implementing a few small traits for it is all it takes:
//!
//! | trait | crate | module here |
//! |---|---|---|
//! | `Graph` (the CFG) and `VarCode` (defs, uses, guards, phis) | `cfg-dom` | this one |
//! | `MemCode` (buffer ranges read and written, symbols) | `memdep` | `memory` |
//! | `RegCode` (register classes, how statements may move) | `regalloc-pebble` | `registers` |
//! | `PreCode` (operations, operands, one memory question per load), and the plan applied | `svfg-pre` | [`ssa_toy`] |
//!
//! With those, `cfg-dom`'s dominators, frontiers, loops and liveness,
//! `ssa`'s phi placement and renaming, `defuse`'s three DU-chain methods,
//! `memdep`'s dependences and `regalloc-pebble`'s allocator and checker all
//! run on the toy IR. PRE, a transform, runs on a second, executable toy
//! IR ([`ssa_toy`]: SSA values, operations, terminators, an interpreter),
//! which applies the edit plan svfg-pre returns and checks the result by
//! running it. The package's examples do it, one per crate, each on a
//! source document's worked example ([`programs`]):
//!
//! ```sh
//! cargo run -p foreign-ir --example cfg_dom
//! cargo run -p foreign-ir --example ssa
//! cargo run -p foreign-ir --example defuse
//! cargo run -p foreign-ir --example memdep
//! cargo run -p foreign-ir --example regalloc
//! cargo run -p foreign-ir --example pre
//! ```
//!
//! Every analysis crate is a dependency here with its default features off,
//! so none of this builds Keel's IR (`ir-core`); the `keel` feature adds
//! `keel::from_function` for the analysis crates' own tests, which check
//! that a Keel function copied into the toy IR gets exactly Keel's answers.
//!
//! Invariants: ids are dense `u32`s (vars, statements, blocks, buffers,
//! symbols); block 0 is the entry; predecessor lists are derived from the
//! successor lists by [`Toy::new`], in block order; a statement's uses, as
//! `VarCode` reports them, are its operands, then its guard var, then (for
//! a phi) one incoming var per listed predecessor.

#![deny(missing_docs)]

#[cfg(feature = "keel")]
pub mod keel;
mod memory;
pub mod programs;
mod registers;
pub mod ssa_toy;

use cfg_dom::{Graph, Use, VarCode, Versioned};

/// How a statement may move within its block (the register allocator's
/// question; see `regalloc_pebble::InstKind`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Kind {
    /// No side effect, cannot trap: free to move after its inputs.
    Pure,
    /// Memory, calls, possible traps: keeps its order among effects.
    #[default]
    Effect,
    /// Ends the block: stays last.
    Terminator,
}

/// Whether a statement runs under a predicate.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Guard {
    /// It always runs.
    #[default]
    None,
    /// It runs when this var is true (the var is a use of the statement).
    Var(u32),
    /// It may not run, under a predicate the toy IR does not name as a var
    /// (its uses list says what it reads).
    Hidden,
}

/// Where a buffer range starts.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Start {
    /// At a constant element.
    At(i64),
    /// At `scale · symbol + add`.
    Symbol {
        /// The symbol ([`Toy::symbols`]).
        symbol: u32,
        /// Its factor.
        scale: i64,
        /// The constant part.
        add: i64,
    },
    /// Anywhere in the buffer.
    Unknown,
}

/// One range a statement reads or writes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Touch {
    /// The buffer ([`Toy::bufs`]).
    pub buf: u32,
    /// Where the range starts.
    pub start: Start,
    /// Its length in elements (`None`: unknown).
    pub len: Option<u64>,
    /// Written (else read).
    pub write: bool,
}

/// How a symbol used in range starts changes: set by statements, set on
/// entry to blocks, or a loop counter (`+= step` per trip of the loop
/// headed by `header`). Fixed when all are empty.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Symbol {
    /// Statements after which it holds a new value.
    pub set_by: Vec<u32>,
    /// Blocks on whose entry it holds a new value.
    pub set_on_entry: Vec<u32>,
    /// `(header, step)` for a loop counter.
    pub counter: Option<(u32, i64)>,
}

/// A variable: its name, and whether it lives in a vector register.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Var {
    /// For printing.
    pub name: String,
    /// A vector (else scalar) value.
    pub vector: bool,
}

/// A statement: `defs = f(uses)`, maybe under a guard, maybe a phi, maybe
/// touching buffers.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Stmt {
    /// What it reads like, for printing.
    pub text: String,
    /// Vars it defines.
    pub defs: Vec<u32>,
    /// Vars it reads (its operands).
    pub uses: Vec<u32>,
    /// Its guard.
    pub guard: Guard,
    /// For a phi: `(predecessor block, incoming var)` per operand.
    pub phi: Option<Vec<(u32, u32)>>,
    /// How it may move within its block.
    pub kind: Kind,
    /// A plain copy of its one use into its one definition.
    pub copy: bool,
    /// Buffer ranges it reads and writes.
    pub touches: Vec<Touch>,
    /// It may read any buffer (an opaque call).
    pub reads_all: bool,
    /// It may write any buffer (an opaque call).
    pub writes_all: bool,
}

impl Stmt {
    /// A statement defining `defs` from `uses`, always run, an effect.
    pub fn new(text: &str, defs: &[u32], uses: &[u32]) -> Stmt {
        Stmt { text: text.to_string(), defs: defs.to_vec(), uses: uses.to_vec(), ..Stmt::default() }
    }

    /// The statement's label: its text up to the first `:` (`s7` for
    /// `"s7: x = a + b"`), or the whole text.
    pub fn label(&self) -> &str {
        self.text.split(':').next().unwrap_or(&self.text)
    }
}

/// A function of the toy IR.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Toy {
    /// Variables by id.
    pub vars: Vec<Var>,
    /// The vars defined on entry.
    pub params: Vec<u32>,
    /// Statements by id.
    pub stmts: Vec<Stmt>,
    /// Per block: its statements (in order) and its successors.
    pub blocks: Vec<(Vec<u32>, Vec<u32>)>,
    /// Buffers: name and length in elements.
    pub bufs: Vec<(String, u64)>,
    /// Symbols of range starts.
    pub symbols: Vec<Symbol>,
    preds: Vec<Vec<u32>>,
}

impl Toy {
    /// A function from its parts, with no buffers or symbols (predecessor
    /// lists derived here; successors naming no block are ignored there,
    /// and reported by the analyses' input checks).
    pub fn new(vars: Vec<Var>, params: Vec<u32>, stmts: Vec<Stmt>, blocks: Vec<(Vec<u32>, Vec<u32>)>) -> Toy {
        let mut toy = Toy { vars, params, stmts, blocks, ..Toy::default() };
        toy.derive_preds();
        toy
    }

    /// The same function with these buffers and symbols.
    pub fn with_memory(mut self, bufs: Vec<(String, u64)>, symbols: Vec<Symbol>) -> Toy {
        self.bufs = bufs;
        self.symbols = symbols;
        self
    }

    /// Recomputes the predecessor lists after `blocks` changed.
    pub fn derive_preds(&mut self) {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (b, (_, succs)) in self.blocks.iter().enumerate() {
            for &s in succs {
                if let Some(p) = preds.get_mut(s as usize) {
                    p.push(b as u32);
                }
            }
        }
        self.preds = preds;
    }

    /// Scalar vars named `names`, ids in order.
    pub fn scalars(names: &[&str]) -> Vec<Var> {
        names.iter().map(|n| Var { name: n.to_string(), vector: false }).collect()
    }

    /// The name of var `v` (`?` when there is none).
    pub fn var_name(&self, v: u32) -> &str {
        self.vars.get(v as usize).map_or("?", |x| x.name.as_str())
    }
}

// ---- The CFG and the code: `cfg-dom`'s two traits. ----

impl Graph for Toy {
    fn num_nodes(&self) -> usize {
        self.blocks.len()
    }
    fn entry(&self) -> Option<u32> {
        (!self.blocks.is_empty()).then_some(0)
    }
    fn successors(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.blocks[n as usize].1.iter().copied()
    }
    fn predecessors(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.preds[n as usize].iter().copied()
    }
}

/// The toy IR keeps no versions: results cannot be checked for staleness.
impl Versioned for Toy {}

impl VarCode for Toy {
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn num_vars(&self) -> usize {
        self.vars.len()
    }
    fn num_insts(&self) -> usize {
        self.stmts.len()
    }
    fn params(&self) -> impl Iterator<Item = u32> + '_ {
        self.params.iter().copied()
    }
    fn block_insts(&self, b: u32) -> impl Iterator<Item = u32> + '_ {
        self.blocks[b as usize].0.iter().copied()
    }
    fn defs(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        self.stmts[i as usize].defs.iter().copied()
    }
    fn uses(&self, i: u32) -> impl Iterator<Item = Use> + '_ {
        let s = &self.stmts[i as usize];
        let guard = match s.guard {
            Guard::Var(v) => Some(Use::at(v)),
            Guard::None | Guard::Hidden => None,
        };
        let incoming = s.phi.iter().flatten().map(|&(pred, var)| Use::from_pred(var, pred));
        s.uses.iter().map(|&v| Use::at(v)).chain(guard).chain(incoming)
    }
    fn is_guarded(&self, i: u32) -> bool {
        self.stmts[i as usize].guard != Guard::None
    }
    fn is_phi(&self, i: u32) -> bool {
        self.stmts[i as usize].phi.is_some()
    }
}
