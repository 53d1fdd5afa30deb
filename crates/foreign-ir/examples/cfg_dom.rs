//! `cfg-dom`'s analyses on an IR that has nothing to do with Keel's.
//!
//! The toy IR (this package's `Toy`) implements `cfg_dom::Graph` (entry,
//! successors, predecessors over dense ids) and `cfg_dom::VarCode` (per
//! block its statements; per statement what it defines and uses). This
//! prints, for the DU-chain document's program (digest §000, figure 4),
//! the dominator tree, the dominance frontiers, the loop nesting forest
//! and live variables, and checks the document's own figures: the tree
//! entry→bb1→bb2→{bb3, bb4}, bb4→bb5→bb6, and DF(bb2) = DF(bb4) = {bb2},
//! DF(bb3) = {bb4}.
//!
//! Run it with `cargo run -p foreign-ir --example cfg_dom`.

use cfg_dom::{DomTree, DominanceFrontiers, Liveness, LoopForest, Node};
use foreign_ir::programs::du_chains;

fn main() {
    let toy = du_chains();
    let name = |b: Node| if b == 0 { "entry".to_string() } else { format!("bb{b}") };
    let names = |bs: &[Node]| bs.iter().map(|&b| name(b)).collect::<Vec<_>>().join(", ");

    let dt = DomTree::of(&toy);
    let idoms: Vec<Option<Node>> = (0..7).map(|b| dt.idom(b)).collect();
    assert_eq!(idoms, [None, Some(0), Some(1), Some(2), Some(2), Some(4), Some(5)]);
    println!("dominator tree:");
    for b in dt.preorder() {
        let depth = dt.depth(*b).unwrap_or(0) as usize;
        println!("  {}{}", "  ".repeat(depth), name(*b));
    }

    let df = DominanceFrontiers::of(&toy, &dt).expect("the tree is of this graph");
    assert_eq!((df.frontier(2), df.frontier(3), df.frontier(4)), (&[2][..], &[4][..], &[2][..]));
    println!("dominance frontiers:");
    for b in 0..7 {
        println!("  DF({}) = {{{}}}", name(b), names(df.frontier(b)));
    }

    let loops = LoopForest::of(&toy);
    println!("loops:");
    for l in loops.loops() {
        println!("  header {}, body {{{}}}, depth {}", name(loops.header(l)), names(loops.body(l)), loops.depth(l));
    }
    assert_eq!(loops.num_loops(), 1);

    let live = Liveness::of(&toy, &toy).expect("the toy program is well formed");
    println!("live on entry:");
    for b in 0..7 {
        let vars: Vec<&str> = live.live_in(b).map(|v| toy.var_name(v)).collect();
        println!("  {}: {{{}}}", name(b), vars.join(", "));
    }
    // x, a, b, p circulate in the loop; c dies at s4.
    assert!(live.is_live_in(2, 3) && !live.is_live_in(2, 2));
}
