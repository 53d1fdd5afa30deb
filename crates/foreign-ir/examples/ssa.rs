//! SSA form of an IR that has nothing to do with Keel's, without
//! rewriting it.
//!
//! The toy IR (this package's `Toy`) implements `cfg_dom::Graph` and
//! `cfg_dom::VarCode`. `ssa`'s IR-independent steps then run on it:
//! `VarFacts` (which vars are defined where, which are live across blocks:
//! the DU-chain document's `global_prs`), `PhiPlacement` (semi-pruned phis
//! at iterated dominance frontiers) and the `Renamer` walk, which reports
//! every definition, use and phi operand to a `RenameSink` the compiler
//! writes. This sink prints the DU-chain document's program (digest §000)
//! in SSA form and checks the document's figures: phis for `x` only, at
//! bb2 and bb4, and the guarded definitions' "may leave" links
//! (x5 may leave x2; x4 may leave x3 in the document's numbering).
//!
//! Run it with `cargo run -p foreign-ir --example ssa`.

use cfg_dom::{DomTree, Input, InputBuffers, InstId, Node, VarId};
use foreign_ir::programs::du_chains;
use ssa::{NO_VERSION, PhiPlacement, Policy, RenameSink, Renamer, VarFacts, Version, VersionDef};
use std::collections::BTreeMap;

/// Collects the walk's findings: the var of each version, the version each
/// use reads, each phi's operands and each guarded definition's link.
#[derive(Default)]
struct Collect {
    var_of: BTreeMap<Version, VarId>,
    /// Per version, its number among its var's versions in definition
    /// order (the document's x1, x2, ...).
    number: BTreeMap<Version, u32>,
    count: BTreeMap<VarId, u32>,
    defs: BTreeMap<(InstId, u32), Version>,
    uses: BTreeMap<(InstId, u32), Version>,
    phis: BTreeMap<Version, (Node, Vec<(Node, Version)>)>,
    may_leave: Vec<(Version, Version)>,
}

impl RenameSink for Collect {
    fn define(&mut self, version: Version, var: VarId, def: VersionDef, prev: Version) {
        self.var_of.insert(version, var);
        let n = self.count.entry(var).or_default();
        *n += 1;
        self.number.insert(version, *n);
        match def {
            VersionDef::Result { inst, index, guarded } => {
                self.defs.insert((inst, index), version);
                if guarded && prev != NO_VERSION {
                    self.may_leave.push((version, prev));
                }
            }
            VersionDef::Phi { block } => self.phis.entry(version).or_default().0 = block,
            VersionDef::Param(_) => {}
        }
    }
    fn use_site(&mut self, inst: InstId, k: u32, _var: VarId, version: Version) {
        self.uses.insert((inst, k), version);
    }
    /// A predecessor may be walked before the phi's block: the operand
    /// can come before the phi's definition.
    fn phi_operand(&mut self, phi: Version, pred: Node, version: Version) {
        self.phis.entry(phi).or_default().1.push((pred, version));
    }
}

fn main() {
    let toy = du_chains();
    let mut buffers = InputBuffers::default();
    let input = Input::new(&toy, &toy, &mut buffers).expect("the toy program is well formed");
    let dt = DomTree::of(&toy);
    let facts = VarFacts::of(&input, &dt).expect("of this input");
    let global: Vec<&str> =
        (0..toy.vars.len() as u32).filter(|&v| facts.is_non_local(v)).map(|v| toy.var_name(v)).collect();
    println!("global vars (global_prs): {{{}}}", global.join(", "));

    let mut placement = PhiPlacement::new();
    placement.compute(&input, &dt, &facts, Policy::SemiPruned, None).expect("of this input");
    let mut sink = Collect::default();
    Renamer::new().run(&input, &dt, &placement, &mut sink).expect("of this input");

    let show = |v: Version| match sink.var_of.get(&v) {
        Some(&var) => format!("{}{}", toy.var_name(var), sink.number[&v]),
        None => "undef".to_string(),
    };

    let x = 3;
    let phi_blocks: Vec<Node> = sink.phis.values().map(|(b, _)| *b).collect();
    assert!(sink.phis.keys().all(|v| sink.var_of[v] == x), "phis for x only");
    assert_eq!(phi_blocks, [2, 4], "at bb2 and bb4");
    assert_eq!(sink.may_leave.len(), 2, "each guarded definition may leave the version before it");

    let mut out = String::new();
    for b in 0..toy.blocks.len() as Node {
        out += &format!("bb{b}:\n");
        for (&v, (blk, ops)) in &sink.phis {
            if *blk == b {
                let ops: Vec<String> = ops.iter().map(|&(p, o)| format!("bb{p}: {}", show(o))).collect();
                out += &format!("    {} = phi({})\n", show(v), ops.join(", "));
            }
        }
        for &i in &toy.blocks[b as usize].0 {
            let defs: Vec<String> = (0..toy.stmts[i as usize].defs.len() as u32)
                .filter_map(|k| sink.defs.get(&(i, k)).map(|&v| show(v)))
                .collect();
            let uses: Vec<String> = sink.uses.range((i, 0)..(i + 1, 0)).map(|(_, &v)| show(v)).collect();
            let leave = sink.may_leave.iter().filter(|(v, _)| sink.defs.get(&(i, 0)) == Some(v)).map(|&(_, p)| show(p));
            let leave: Vec<String> = leave.map(|p| format!(" (may leave {p})")).collect();
            let label = toy.stmts[i as usize].label();
            let uses = if uses.is_empty() { "(constant)".to_string() } else { uses.join(", ") };
            out += &format!("    {label}: {} <- {uses}{}\n", defs.join(", "), leave.concat());
        }
    }
    print!("{out}");
    // The document's SSA form, version numbers included.
    for line in [
        "s4: x1 <- a1, c1",
        "x2 = phi(bb1: x1, bb5: x4)",
        "s7: x5 <- a1, b1, p1 (may leave x2)",
        "x3 = phi(bb2: x2, bb3: x5)",
        "s9: x4 <- a1, b1, p1 (may leave x3)",
        "s10: y1 <- x4",
    ] {
        assert!(out.contains(line), "missing `{line}`");
    }
}
