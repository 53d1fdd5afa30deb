//! Register allocation of an IR that has nothing to do with Keel's.
//!
//! The toy IR (this package's `Toy`) has variables of two register
//! classes, statements that list what they define and use and how they may
//! move, and blocks that list their successors; it implements
//! `cfg_dom::Graph`, `cfg_dom::VarCode` and `regalloc_pebble::RegCode`,
//! which is the whole adapter. This allocates the pebbling document's
//! block (digest §004) followed by a loop of vector work with 2 scalar and
//! 2 vector registers, checks the allocation symbolically, and prints each
//! block's new order with its registers and the inserted loads, stores and
//! moves.
//!
//! Run it with `cargo run -p foreign-ir --example regalloc`.

use foreign_ir::programs::pebble_block;
use regalloc_pebble::{Loc, Options, ProgPoint, Regs, allocate, check};

fn main() {
    let toy = pebble_block();
    let options = Options { regs: Regs::new(2, 2), ..Options::default() };
    let alloc = allocate(&toy, &toy, &options).expect("the toy function is well formed");
    check(&toy, &toy, &alloc).expect("the allocation computes what the code computes");
    let loc = |l: Loc| l.to_string();
    println!("params arrive in: {:?}", alloc.param_locs().iter().map(|l| l.map(loc)).collect::<Vec<_>>());
    for b in 0..toy.blocks.len() as u32 {
        println!("block {b}:");
        for (k, &i) in alloc.order(b).iter().enumerate() {
            for (_, e) in alloc.edits_at(ProgPoint::Before { block: b, index: k as u32 }) {
                println!("    {} <- {}    ({})", loc(e.to), loc(e.from), toy.var_name(e.var));
            }
            let s = &toy.stmts[i as usize];
            let regs: Vec<String> = alloc.allocs(i).iter().map(|r| r.to_string()).collect();
            println!("  {:<18} registers (uses, then defs): {}", s.text, regs.join(" "));
        }
    }
    for (p, e) in alloc.edits() {
        if let ProgPoint::OnEdge { from, to } = p {
            println!("edge {from} -> {to}: {} <- {}    ({})", loc(e.to), loc(e.from), toy.var_name(e.var));
        }
    }
    let c = alloc.costs;
    println!("loads {}, stores {}, moves {} (loop-weighted: {})", c.loads, c.stores, c.moves, c.weighted());
}
