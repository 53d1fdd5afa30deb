//! Semantic PRE on an IR that has nothing to do with Keel's.
//!
//! `foreign_ir::ssa_toy` is the kind of SSA IR a small compiler might have, with
//! `svfg_pre::PreCode` implemented for it and an adapter that applies the
//! plan svfg-pre returns. `main` runs PRE on two of digest §001's classic
//! cases — the semantic one (`a + b` on one path, `y = a; z = y + b` after
//! the join) and a loop invariant — prints each program, the plan and the
//! result, and checks the result by running both on every path: same
//! results and arrays, never more computations, fewer on the path that
//! computed `a + b` twice and in the loop.
//!
//! Run it with `cargo run -p foreign-ir --example pre`.

use foreign_ir::ssa_toy::{Func, Outcome, Trap, apply, apply_cleanup, loop_example, run, semantic_example};
use svfg_pre::{Method, PlanArg, PlanBlock};

/// The two arrays the programs read, 100 elements each.
fn arrays() -> Vec<Vec<i64>> {
    vec![(0..100).map(|i| 10 * i).collect(), (0..100).map(|i| 1000 + i).collect()]
}

/// Runs PRE on `before`, prints the program, the plan and the result, and
/// checks the result on each of `runs`: the same result and arrays (or a
/// trap before and after), never more computations. Returns the result.
fn pre(before: &Func, runs: &[[i64; 3]]) -> Func {
    println!("before:\n{before}");
    let cfg = before.cfg();
    let plan = svfg_pre::plan(&cfg, before, Method::Svfg).expect("the example is well-formed SSA");
    // The SVFG behind the plan passes the verifier's slow recomputations.
    let a = svfg_pre::analyze(&cfg, before, Method::Svfg).expect("well-formed");
    svfg_pre::verify_svfg_of(&cfg, before, &a.vns, &a.svfg).expect("the SVFG verifies");

    println!("plan:");
    for (i, e) in plan.splits.iter().enumerate() {
        println!("    new block n{i} on the edge b{} -> b{}", e.from, e.to);
    }
    let arg = |a: &PlanArg<i64>| match *a {
        PlanArg::Value(v) => format!("v{v}"),
        PlanArg::New(p) => format!("new{}", p.0),
        PlanArg::Imm(k) => k.to_string(),
        PlanArg::Any => "any".to_string(),
    };
    let block = |b: PlanBlock| match b {
        PlanBlock::Existing(n) => format!("b{n}"),
        PlanBlock::New(i) => format!("n{i}"),
    };
    for ins in &plan.inserts {
        let args: Vec<String> = ins.args.iter().map(arg).collect();
        println!("    insert new{} = {} {} at the end of {}", ins.def.0, ins.op, args.join(", "), block(ins.at));
    }
    for phi in &plan.phis {
        let inc: Vec<String> = phi.incoming.iter().map(|(b, a)| format!("{}: {}", block(*b), arg(a))).collect();
        println!("    phi new{} = phi({}) at the top of b{}", phi.def.0, inc.join(", "), phi.block);
    }
    for r in &plan.replacements {
        println!("    replace `{}` by a copy of {}", before.insts[r.inst as usize], arg(&r.by));
    }
    let s = &plan.stats;
    println!(
        "    ({} removed, {} inserted, {} phis placed, {} created, {} edges split)\n",
        s.removed, s.inserted, s.phis_placed, s.phis_created, s.edges_split
    );
    assert!(s.inserted >= 1 && s.removed >= 1, "each example shows an insertion and a replacement");

    let mut after = before.clone();
    apply(&mut after, &plan);
    println!("after:\n{after}");
    for args in runs {
        let (x, y): (Result<Outcome, Trap>, _) = (run(before, args, arrays(), 100), run(&after, args, arrays(), 100));
        match (&x, &y) {
            (Ok(x), Ok(y)) => {
                assert_eq!((x.result, &x.arrays), (y.result, &y.arrays), "{args:?}");
                assert!(y.computations <= x.computations, "{args:?}: more computations after PRE");
                println!(
                    "args {args:?}: result {}, computations {} before, {} after",
                    x.result, x.computations, y.computations
                );
            }
            (Err(Trap), Err(Trap)) => println!("args {args:?}: traps before and after"),
            _ => panic!("{args:?}: {x:?} before, {y:?} after"),
        }
    }
    // The clean-up (document 001's last step): PRE's copies forwarded,
    // what nothing reads deleted; the same results, no more computations.
    let cleanup = svfg_pre::cleanup(&after.cfg(), &after).expect("PRE's output is SSA");
    let c = &cleanup.stats;
    println!(
        "clean-up: {} copies and {} trivial phis forwarded, {} phis, {} copies and {} computations deleted",
        c.copies_forwarded, c.trivial_phis, c.phis_deleted, c.copies_deleted, c.computations_deleted
    );
    let mut clean = after.clone();
    apply_cleanup(&mut clean, &cleanup);
    println!("after the clean-up:\n{clean}");
    for args in runs {
        let (x, y) = (run(&after, args, arrays(), 100), run(&clean, args, arrays(), 100));
        match (&x, &y) {
            (Ok(x), Ok(y)) => {
                assert_eq!((x.result, &x.arrays), (y.result, &y.arrays), "{args:?}");
                assert!(y.computations <= x.computations, "{args:?}: more computations after the clean-up");
            }
            (Err(Trap), Err(Trap)) => {}
            _ => panic!("{args:?}: {x:?} before the clean-up, {y:?} after"),
        }
    }
    println!();
    clean
}

fn main() {
    // a, b, c through each path: b1 (c < 0), b2 then b3 (a / c < 10), b2
    // then b4, and a division by zero in b2.
    let before = semantic_example();
    let after = pre(&before, &[[3, 4, -2], [3, 4, 1], [90, 4, 3], [3, 4, 0]]);
    let path = |f: &Func| run(f, &[3, 4, -2], arrays(), 100).map_or(u64::MAX, |o| o.computations);
    assert!(path(&after) < path(&before), "the path through b1 computes a + b once");
    // a, b, n: the loop runs 5 times, then once.
    let before = loop_example();
    let after = pre(&before, &[[2, 3, 30], [2, 3, 1]]);
    let trips = |f: &Func| run(f, &[2, 3, 30], arrays(), 100).map_or(u64::MAX, |o| o.computations);
    assert!(trips(&after) < trips(&before), "the loop computes a * b once");
}
