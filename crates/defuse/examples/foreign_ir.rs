//! DU/UD chains on an IR that has nothing to do with Keel's.
//!
//! `Toy` below is the kind of IR a compiler might already have: named
//! variables, statements that list what they define and use (optionally
//! under a predicate), and blocks that list their successors (no
//! terminator instructions at all). Implementing `cfg_dom::Graph` and
//! `cfg_dom::VarCode` for it (the `impl` blocks below) is all it takes to
//! run `defuse`'s three methods on it. `main` prints the chains of the
//! DU-chain document's worked example (digest §000, figure 4 / table 3),
//! written in the toy IR.
//!
//! Run it with `cargo run -p defuse --example foreign_ir`.

use cfg_dom::{Graph, Use, VarCode, Versioned};

/// A statement: `defs = f(uses)`, under `guard` when it has one. A phi lists
/// `(predecessor block, var)` pairs instead of uses.
#[derive(Clone, Debug, Default)]
pub struct Stmt {
    /// What it reads like, for printing.
    pub text: String,
    pub defs: Vec<u32>,
    pub uses: Vec<u32>,
    pub guard: Option<u32>,
    pub phi: Option<Vec<(u32, u32)>>,
}

/// A function of the toy IR: statements by id, blocks listing theirs and
/// their successors; block 0 is the entry.
#[derive(Clone, Debug, Default)]
pub struct Toy {
    pub vars: Vec<String>,
    pub params: Vec<u32>,
    pub stmts: Vec<Stmt>,
    pub blocks: Vec<(Vec<u32>, Vec<u32>)>,
    /// Predecessors, derived from the successor lists by `Toy::new`.
    preds: Vec<Vec<u32>>,
}

impl Toy {
    /// A function from its parts (predecessor lists derived here).
    pub fn new(vars: Vec<String>, params: Vec<u32>, stmts: Vec<Stmt>, blocks: Vec<(Vec<u32>, Vec<u32>)>) -> Toy {
        let mut preds = vec![Vec::new(); blocks.len()];
        for (b, (_, succs)) in blocks.iter().enumerate() {
            for &s in succs {
                preds[s as usize].push(b as u32);
            }
        }
        Toy { vars, params, stmts, blocks, preds }
    }
}

// ---- The whole adapter: the two traits, for the toy IR. ----

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
        let incoming = s.phi.iter().flatten().map(|&(pred, var)| Use::from_pred(var, pred));
        s.uses.iter().map(|&v| Use::at(v)).chain(s.guard.map(Use::at)).chain(incoming)
    }
    fn is_guarded(&self, i: u32) -> bool {
        self.stmts[i as usize].guard.is_some()
    }
    fn is_phi(&self, i: u32) -> bool {
        self.stmts[i as usize].phi.is_some()
    }
}

// ---- The document's program, and its chains. ----

/// The DU-chain document's example: `entry→bb1, bb1→bb2, bb2→{bb3, bb4},
/// bb3→bb4, bb4→bb5, bb5→{bb2, bb6}`, statements s1..s10 (s6 and s8 are
/// the phis SSA inserts, so they are not written).
pub fn document_example() -> Toy {
    let vars: Vec<String> = ["a", "b", "c", "x", "p", "y"].iter().map(|s| s.to_string()).collect();
    let [a, b, c, x, p, y] = [0, 1, 2, 3, 4, 5];
    let stmt = |text: &str, defs: &[u32], uses: &[u32], guard: Option<u32>| Stmt {
        text: text.to_string(),
        defs: defs.to_vec(),
        uses: uses.to_vec(),
        guard,
        phi: None,
    };
    let stmts = vec![
        stmt("s1: a = 3", &[a], &[], None),
        stmt("s2: b = 4", &[b], &[], None),
        stmt("s3: c = 5", &[c], &[], None),
        stmt("s4: x = a + c", &[x], &[a, c], None),
        stmt("s5: p = setp ...", &[p], &[], None),
        stmt("s7: @p x = a + b", &[x], &[a, b], Some(p)),
        stmt("s9: @p x = a - b", &[x], &[a, b], Some(p)),
        stmt("s10: y = x", &[y], &[x], None),
    ];
    let blocks = vec![
        (vec![], vec![1]),              // entry
        (vec![0, 1, 2, 3, 4], vec![2]), // bb1
        (vec![], vec![3, 4]),           // bb2
        (vec![5], vec![4]),             // bb3
        (vec![6], vec![5]),             // bb4
        (vec![], vec![2, 6]),           // bb5
        (vec![7], vec![]),              // bb6
    ];
    Toy::new(vars, vec![], stmts, blocks)
}

fn main() {
    let toy = document_example();
    let chains = defuse::via_ssa(&toy, &toy).expect("the toy program is well formed");
    // The baseline and the oracle agree, on the toy IR as on Keel's.
    assert_eq!(chains, defuse::iterative(&toy, &toy).expect("well formed"));
    assert_eq!(chains, defuse::oracle(&toy, &toy).expect("well formed"));
    let sites = chains.sites();
    let name = |stmt: u32| toy.stmts[stmt as usize].text.split(':').next().unwrap_or("?").to_string();
    let def_name = |d| match sites.def(d) {
        Some(defuse::Def::Result { inst, .. }) => name(inst),
        Some(defuse::Def::Param(i)) => format!("param{i}"),
        None => "?".into(),
    };
    let list = |v: Vec<String>| format!("{{{}}}", v.join(", "));
    println!("{:<20} {:<22} uses <- defined at", "statement", "defines -> used at");
    for (i, s) in toy.stmts.iter().enumerate() {
        let i = i as u32;
        let du: Vec<String> = sites
            .defs_of_inst(i)
            .map(|d| {
                let var = sites.def_var(d).map_or("?", |v| &toy.vars[v as usize]);
                let used = chains.uses_of(d).iter().filter_map(|&u| sites.use_at(u)).map(|u| name(u.inst));
                format!("{var} -> {}", list(used.collect()))
            })
            .collect();
        let ud: Vec<String> = sites
            .uses_of_inst(i)
            .map(|u| {
                let var = sites.use_var(u).map_or("?", |v| &toy.vars[v as usize]);
                format!("{var} <- {}", list(chains.defs_of(u).iter().map(|&d| def_name(d)).collect()))
            })
            .collect();
        println!("{:<20} {:<22} {}", s.text, du.join("; "), ud.join("; "));
    }
}
