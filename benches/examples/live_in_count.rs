//! How much liveness a pruned SSA construction would have to compute: the
//! number of (block, var) pairs with the var live into the block, summed
//! over the reachable blocks of a `du_chains` grid program or of a corpus
//! module's functions, beside the instruction count.
//!
//! Pruned phi placement (a phi only where its var is live) and on-the-fly
//! construction (Braun et al., CC 2013, whose lookups memoise one value per
//! block on every path from a use back to its definitions) both do work
//! proportional to these pairs. `docs/benchmarks-defuse.md` (run 10) sets
//! them against the semi-pruned placement `defuse::via_ssa` uses.
//!
//! `cargo run --release -p benches --example live_in_count -- grid structured 10000 1024 0`
//! `cargo run --release -p benches --example live_in_count -- corpus corpus/sql-wasm.wasm`

use benches::programs::functions_from_args;
use cfg_dom::{Dfs, Graph, Liveness};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (funcs, _) = functions_from_args(&args);
    let (mut insts, mut blocks, mut pairs, mut at_joins) = (0usize, 0usize, 0usize, 0usize);
    let mut live = Liveness::new();
    for f in &funcs {
        let g = f.cfg();
        live.compute(&g, f).expect("valid input");
        let dfs = Dfs::of(&g);
        insts += f.blocks().map(|b| f.block_insts(b).count()).sum::<usize>();
        for b in (0..g.num_nodes() as u32).filter(|&b| dfs.is_reachable(b)) {
            let n = live.live_in(b).count();
            blocks += 1;
            pairs += n;
            if g.predecessors(b).nth(1).is_some() {
                at_joins += n;
            }
        }
    }
    println!(
        "{} functions, {insts} instructions, {blocks} reachable blocks: {pairs} live-in (block, var) pairs \
         ({:.1} per instruction), {at_joins} at join blocks",
        funcs.len(),
        pairs as f64 / insts.max(1) as f64
    );
}
