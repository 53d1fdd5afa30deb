//! Generated programs for the `du_chains` and `ssa_construction`
//! benchmarks: one `ir-gen` function per grid cell, fixed seed, and a
//! profile of what it contains (printed on stderr before timing).
//!
//! A cell is a [`Spec`]: a [`Shape`], a block count, a var count and a
//! predication rate. Every shape uses `ir-gen`'s defaults for what the grid
//! does not vary (4 random definitions per var, loops, diamonds, ladders,
//! switches and early exits nested up to 3 deep, 5% of top-level steps a run
//! of unreachable blocks, no input phis), with two exceptions:
//! - **no memory instructions** (`memory = 0`): they only add uses of the
//!   generator's dedicated index vars, and leaving them out keeps the
//!   Cranelift translation of the same programs (`crate::clif_ssa`) exact;
//! - **one function** (`main` alone), so there are no calls.
//!
//! The shapes:
//! - [`Shape::Structured`]: `irreducible = 0`, a reducible CFG;
//! - [`Shape::Irreducible`]: `irreducible = IRREDUCIBLE_RATE`, so about one
//!   region in five is a two-block cycle entered at both blocks;
//! - [`Shape::Chain`]: `max_depth = 0`, no unreachable blocks: straight
//!   blocks and chains with at most 64 early exits to the return block, so
//!   every block but the entry and the return block has exactly one
//!   predecessor.

use cfg_dom::{Dfs, Graph, Input, LoopForest};
use defuse::Sites;
use ir_core::Function;
use ir_core::node;
use ir_gen::{GenConfig, generate};

/// The generator seed of every program.
pub const SEED: u64 = 1;

/// Rate of irreducible regions in [`Shape::Irreducible`] programs.
pub const IRREDUCIBLE_RATE: f64 = 0.2;

/// The CFG family of a program.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Shape {
    /// Reducible: loops, diamonds, switches, early exits.
    Structured,
    /// Structured plus irreducible two-block cycles.
    Irreducible,
    /// Straight-line blocks with early exits (`max_depth = 0`).
    Chain,
}

impl Shape {
    /// The name used in benchmark group ids.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Structured => "structured",
            Shape::Irreducible => "irreducible",
            Shape::Chain => "chain",
        }
    }
}

/// One grid cell.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Spec {
    /// The CFG family.
    pub shape: Shape,
    /// Blocks of `main`, exactly.
    pub blocks: usize,
    /// Pool vars of `main` (at least 7).
    pub vars: usize,
    /// Percentage of random instructions that are guarded (`@%p`).
    pub predication: u32,
}

impl Spec {
    /// The generator configuration of the cell.
    pub fn config(&self) -> GenConfig {
        let base = GenConfig {
            blocks: self.blocks,
            vars: self.vars,
            predication: f64::from(self.predication) / 100.0,
            memory: 0.0,
            functions: 1,
            ..GenConfig::default()
        };
        match self.shape {
            Shape::Structured => GenConfig { irreducible: 0.0, ..base },
            Shape::Irreducible => GenConfig { irreducible: IRREDUCIBLE_RATE, ..base },
            Shape::Chain => GenConfig { irreducible: 0.0, max_depth: 0, unreachable: 0.0, ..base },
        }
    }

    /// The benchmark parameter: `BLOCKSxVARSpPERCENT`, e.g. `10000x1024p10`
    /// (parse it with the regex `(\d+)x(\d+)p(\d+)`).
    pub fn id(&self) -> String {
        format!("{}x{}p{}", self.blocks, self.vars, self.predication)
    }

    /// The program: `main` of the generated module, seed [`SEED`].
    pub fn build(&self) -> Function {
        let g = generate(&self.config(), SEED);
        g.module.function(g.main).expect("the generator returns its main").clone()
    }
}

/// What a program holds, for the stderr line before timing.
#[derive(Copy, Clone, Debug)]
pub struct Profile {
    /// Blocks in the layout.
    pub blocks: usize,
    /// Blocks reachable from the entry.
    pub reachable: usize,
    /// CFG edges.
    pub edges: usize,
    /// Instructions in the layout.
    pub insts: usize,
    /// Definitions (params and results), the baseline's bit-vector universe.
    pub defs: usize,
    /// Use sites (operands, guards).
    pub uses: usize,
    /// Instructions with a guard.
    pub guarded: usize,
    /// Loops in the loop nesting forest, and how many are irreducible.
    pub loops: usize,
    /// Irreducible loops.
    pub irreducible_loops: usize,
    /// Reachable blocks with more than one predecessor.
    pub joins: usize,
    /// The largest number of predecessors of a block.
    pub max_preds: usize,
}

impl Profile {
    /// The profile of `func`.
    pub fn of(func: &Function) -> Profile {
        let g = func.cfg();
        let dfs = Dfs::of(&g);
        let mut scratch = cfg_dom::InputBuffers::default();
        let sites = Sites::of(&Input::new(&g, func, &mut scratch).expect("a generated program is valid input"));
        let forest = LoopForest::of(&g);
        let n = g.num_nodes();
        let reachable: Vec<u32> = (0..n as u32).filter(|&v| dfs.is_reachable(v)).collect();
        let preds = |v: u32| g.pred_slice(v).len();
        Profile {
            blocks: func.layout().num_blocks(),
            reachable: reachable.len(),
            edges: (0..n as u32).map(|v| g.succ_slice(v).len()).sum(),
            insts: func.blocks().map(|b| func.block_insts(b).count()).sum(),
            defs: sites.num_defs(),
            uses: sites.num_uses(),
            guarded: func.blocks().flat_map(|b| func.block_insts(b)).filter(|&i| func.guard(i).is_some()).count(),
            loops: forest.num_loops(),
            irreducible_loops: forest.loops().filter(|&l| forest.is_irreducible(l)).count(),
            joins: reachable.iter().filter(|&&v| preds(v) > 1).count(),
            max_preds: reachable.iter().map(|&v| preds(v)).max().unwrap_or(0),
        }
    }

    /// Bytes of the dense bit-vector baseline (`defuse::iterative`): four
    /// families of sets (gen, kill, in, out), each a `blocks x defs` bit
    /// matrix in 64-bit words.
    pub fn bitvector_bytes(&self) -> u64 {
        4 * self.blocks as u64 * self.defs.div_ceil(64) as u64 * 8
    }
}

impl core::fmt::Display for Profile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} blocks ({} reachable, {} joins, max {} preds), {} edges, {} insts ({} guarded), {} defs, \
             {} uses, {} loops ({} irreducible)",
            self.blocks,
            self.reachable,
            self.joins,
            self.max_preds,
            self.edges,
            self.insts,
            self.guarded,
            self.defs,
            self.uses,
            self.loops,
            self.irreducible_loops
        )
    }
}

/// `bytes` as a short human-readable size (`1.5 GB`, `12 MB`).
pub fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000_000 => format!("{:.1} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.0} MB", b as f64 / 1e6),
        b => format!("{:.0} kB", b as f64 / 1e3),
    }
}

/// True when `func`'s CFG is a chain apart from early exits: every
/// reachable block other than the entry and the return block (the one
/// block with more than one predecessor) has exactly one predecessor.
pub fn is_chain_with_exits(func: &Function) -> bool {
    let g = func.cfg();
    let entry = func.entry_block().map(node);
    let multi = (0..g.num_nodes() as u32).filter(|&v| g.pred_slice(v).len() > 1).count();
    multi <= 1 && (0..g.num_nodes() as u32).all(|v| Some(v) == entry || !g.pred_slice(v).is_empty())
}

/// The functions a measuring example names at the start of its command
/// line, and how many arguments that took: `grid SHAPE BLOCKS VARS
/// PREDICATION` (the grid program of that [`Spec`], shape `structured`,
/// `irreducible` or `chain`) or `corpus FILE.wasm` (every function of the
/// module). Panics with the missing or bad argument (examples only).
pub fn functions_from_args(args: &[String]) -> (Vec<Function>, usize) {
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or_else(|| panic!("argument {i} missing"));
    match arg(0) {
        "grid" => {
            let shape = [Shape::Structured, Shape::Irreducible, Shape::Chain]
                .into_iter()
                .find(|s| s.name() == arg(1))
                .unwrap_or_else(|| panic!("unknown shape {}", arg(1)));
            let count = |i: usize| arg(i).parse::<usize>().unwrap_or_else(|_| panic!("argument {i} is not a count"));
            let predication = arg(4).parse().expect("argument 4 is a percentage");
            let spec = Spec { shape, blocks: count(2), vars: count(3), predication };
            (vec![spec.build()], 5)
        }
        "corpus" => {
            let bytes = std::fs::read(arg(1)).expect("the module");
            let imported = wasm_import::import(&bytes, &wasm_import::ImportOptions::default()).expect("a valid module");
            (imported.module.functions().map(|(_, f)| f.clone()).collect(), 2)
        }
        s => panic!("unknown input kind {s}"),
    }
}
