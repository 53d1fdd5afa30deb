//! Memory dependences on an IR that has nothing to do with Keel's.
//!
//! The toy IR (this package's `Toy`) says, per statement, which ranges of
//! which buffers it reads and writes (a start that is a number,
//! `scale · symbol + add`, or unknown; a length that is a number or
//! unknown), maybe under a predicate, maybe opaque (a runtime call reading
//! or writing anything); it implements `cfg_dom::Graph` and
//! `memdep::MemCode`, which is all `memdep` needs. This prints the digest's
//! test vector 2 (§002) as a dependence table, checked against the
//! document's, then the carried answers of a tiled loop.
//!
//! Run it with `cargo run -p foreign-ir --example memdep`.

use foreign_ir::programs::{memdep_vector2, tiled_loop};

fn main() {
    let toy = memdep_vector2();
    let deps = memdep::memdep(&toy, &toy).expect("the toy program is well formed");
    // The baseline agrees (no symbols here).
    assert_eq!(deps, memdep::naive(&toy, &toy).expect("well formed"));
    let name = |i: u32| toy.stmts[i as usize].label().to_string();
    // The document's table exactly: ir3 <- {ir1, ir2}; ir6 <- {ir1, ir2,
    // ir4, ir5}.
    assert_eq!(deps.reaching_insts(2), [0, 1]);
    assert_eq!(deps.reaching_insts(5), [0, 1, 3, 4]);
    println!("digest test vector 2, in the toy IR:");
    for (i, s) in toy.stmts.iter().enumerate() {
        let mut defs: Vec<String> = deps.reaching_insts(i as u32).into_iter().map(name).collect();
        defs.dedup();
        if !deps.sites().uses_of_inst(i as u32).is_empty() {
            println!("  {:<32} depends on {{{}}}", s.text, defs.join(", "));
        }
    }

    let toy = tiled_loop();
    let q = memdep::MemQueries::new(&toy, &toy).expect("well formed");
    let l = q.loops().loops().next().expect("one loop");
    println!("tiled loop, dependences carried from one trip to a later one:");
    for p in q.carried_pairs(l) {
        let describe = |s: memdep::Site| format!("{} (access {})", toy.stmts[s.inst as usize].label(), s.access);
        println!("  {} -> {}: {:?}", describe(p.earlier), describe(p.later), p.answer);
    }
    let on = |buf: u32| {
        q.carried_pairs(l).iter().any(|p| q.access(p.earlier.inst, p.earlier.access).is_some_and(|a| a.object == buf))
    };
    assert!(!on(0) && !on(1) && on(2), "tiles of x and y are independent across trips; the buffer is not");
    println!("  (no pair on x or y: the tiles are independent across trips)");
}
