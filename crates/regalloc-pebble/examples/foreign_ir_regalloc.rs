//! Register allocation of an IR that has nothing to do with Keel's.
//!
//! `Toy` is the kind of IR a compiler (or an accelerator backend) might
//! have: named variables of two register classes, statements that list
//! what they define and use, blocks that list their successors. The three
//! small `impl`s below — `cfg_dom::Graph`, `cfg_dom::VarCode` and
//! `regalloc_pebble::RegCode` — are the whole adapter. `main` allocates a
//! toy function (the digest's block `t1 = x ∘ y; q = y ∘ z; v = t1 ∘ y`,
//! then a loop of vector work) with 2 scalar and 2 vector registers,
//! checks the allocation symbolically, and prints each block's new order
//! with its registers and the inserted loads, stores and moves.
//!
//! Run it with `cargo run -p regalloc-pebble --example foreign_ir_regalloc`.

use cfg_dom::{Graph, Use, VarCode, Versioned};
use regalloc_pebble::{InstKind, Loc, Options, ProgPoint, RegClass, RegCode, Regs, allocate, check};

/// A statement: `defs = op(uses)`, maybe under a guard (then a definition
/// keeps its old value when the guard fails); `kind` says how it may move;
/// `copy` marks a plain copy.
#[derive(Clone, Debug)]
pub struct Stmt {
    pub text: String,
    pub defs: Vec<u32>,
    pub uses: Vec<u32>,
    pub guarded: bool,
    pub kind: InstKind,
    pub copy: bool,
}

/// A function: variables (name, class), statements, blocks (statement
/// ids, successors); block 0 is the entry.
#[derive(Clone, Debug, Default)]
pub struct Toy {
    pub vars: Vec<(String, RegClass)>,
    pub params: Vec<u32>,
    pub stmts: Vec<Stmt>,
    pub blocks: Vec<(Vec<u32>, Vec<u32>)>,
    preds: Vec<Vec<u32>>,
}

impl Toy {
    pub fn new(
        vars: Vec<(String, RegClass)>,
        params: Vec<u32>,
        stmts: Vec<Stmt>,
        blocks: Vec<(Vec<u32>, Vec<u32>)>,
    ) -> Toy {
        let mut preds = vec![Vec::new(); blocks.len()];
        for (b, (_, succs)) in blocks.iter().enumerate() {
            for &s in succs {
                preds[s as usize].push(b as u32);
            }
        }
        Toy { vars, params, stmts, blocks, preds }
    }
}

// ---- The whole adapter. ----

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
        self.stmts[i as usize].uses.iter().map(|&v| Use::at(v))
    }
    fn is_guarded(&self, i: u32) -> bool {
        self.stmts[i as usize].guarded
    }
}

impl RegCode for Toy {
    fn class(&self, var: u32) -> RegClass {
        self.vars[var as usize].1
    }
    fn inst_kind(&self, inst: u32) -> InstKind {
        self.stmts[inst as usize].kind
    }
    fn is_copy(&self, inst: u32) -> bool {
        self.stmts[inst as usize].copy
    }
}

// ---- A function, and its allocation. ----

pub fn example() -> Toy {
    use InstKind::{Effect, Pure, Terminator};
    use RegClass::{Scalar, Vector};
    let vars: Vec<(String, RegClass)> = [
        ("x", Scalar),
        ("y", Scalar),
        ("z", Scalar),
        ("t1", Scalar),
        ("q", Scalar),
        ("v", Scalar),
        ("n", Scalar),
        ("a", Vector),
        ("b", Vector),
        ("c", Vector),
    ]
    .iter()
    .map(|&(n, c)| (n.to_string(), c))
    .collect();
    let [x, y, z, t1, q, v, n, a, b, c] = core::array::from_fn(|i| i as u32);
    let st = |text: &str, defs: &[u32], uses: &[u32], kind| Stmt {
        text: text.to_string(),
        defs: defs.to_vec(),
        uses: uses.to_vec(),
        guarded: false,
        kind,
        copy: false,
    };
    let stmts = vec![
        st("t1 = x * y", &[t1], &[x, y], Pure),
        st("q = y * z", &[q], &[y, z], Pure),
        st("v = t1 * y", &[v], &[t1, y], Pure),
        st("n = q + v", &[n], &[q, v], Pure),
        st("jump loop", &[], &[], Terminator),
        st("a = vload q", &[a], &[q], Effect),
        st("b = a * a", &[b], &[a, a], Pure),
        st("c = a + b", &[c], &[a, b], Pure),
        st("vstore v, c", &[], &[v, c], Effect),
        st("n = n - 1", &[n], &[n], Pure),
        st("br n, loop, exit", &[], &[n], Terminator),
        st("ret q", &[], &[q], Terminator),
    ];
    let blocks = vec![(vec![0, 1, 2, 3, 4], vec![1]), (vec![5, 6, 7, 8, 9, 10], vec![1, 2]), (vec![11], vec![])];
    Toy::new(vars, vec![x, y, z], stmts, blocks)
}

#[allow(dead_code)]
fn main() {
    let toy = example();
    let options = Options { regs: Regs::new(2, 2), ..Options::default() };
    let alloc = allocate(&toy, &toy, &options).expect("the toy function is well formed");
    check(&toy, &toy, &alloc).expect("the allocation computes what the code computes");
    let name = |x: u32| toy.vars[x as usize].0.as_str();
    let loc = |l: Loc| l.to_string();
    println!("params arrive in: {:?}", alloc.param_locs().iter().map(|l| l.map(loc)).collect::<Vec<_>>());
    for b in 0..toy.blocks.len() as u32 {
        println!("block {b}:");
        for (k, &i) in alloc.order(b).iter().enumerate() {
            for (_, e) in alloc.edits_at(ProgPoint::Before { block: b, index: k as u32 }) {
                println!("    {} <- {}    ({})", loc(e.to), loc(e.from), name(e.var));
            }
            let s = &toy.stmts[i as usize];
            let regs: Vec<String> = alloc.allocs(i).iter().map(|r| r.to_string()).collect();
            println!("  {:<18} registers (uses, then defs): {}", s.text, regs.join(" "));
        }
    }
    for (p, e) in alloc.edits() {
        if let ProgPoint::OnEdge { from, to } = p {
            println!("edge {from} -> {to}: {} <- {}    ({})", loc(e.to), loc(e.from), name(e.var));
        }
    }
    let c = alloc.costs;
    println!("loads {}, stores {}, moves {} (loop-weighted: {})", c.loads, c.stores, c.moves, c.weighted());
}
