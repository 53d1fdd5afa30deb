//! Long, high-pressure blocks (issue 32): one block of `N` instructions,
//! each reading two values among the `W` defined just before it (so about
//! `W` values are live throughout), allocated at 16 registers by
//! `regalloc-pebble` (both strategies), Chaitin-Briggs and regalloc2:
//! allocation time (wall clock, best of `R` runs) and loop-weighted loads +
//! stores + moves, every allocation checked.
//!
//! `cargo run --release -p benches --example regalloc_long -- [N [W [R [peers]]]]`
//! (defaults 20000, 64, 3, `all`; `peers` = `all` or `fast`, which skips
//! the block games and Chaitin-Briggs, whose times grow faster than
//! linearly on such blocks).

use benches::regalloc::{Prepared, check_ra2, machine_env};
use regalloc_pebble::{Allocator, Options, Strategy, briggs, check};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The block as Keel text: deterministic per `(n, w, seed)` (a fixed
/// linear congruential sequence, no randomness crate).
fn long_block(n: usize, w: usize, seed: u64) -> String {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = |bound: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % bound
    };
    let ops = ["add", "sub", "mul", "xor", "and", "or"];
    let mut s = String::from("func @long(%a: i32, %b: i32) -> i32 {\n");
    for k in 0..n {
        let _ = writeln!(s, "    var %t{k}: i32");
    }
    s.push_str("bb0:\n");
    for k in 0..n {
        let (x, y) = if k < 2 {
            ("%a".to_string(), "%b".to_string())
        } else {
            let lo = k.saturating_sub(w);
            let x = format!("%t{}", lo + next(k - lo));
            let y = if next(5) < 4 { format!("%t{}", lo + next(k - lo)) } else { "%a".to_string() };
            (x, y)
        };
        let _ = writeln!(s, "    %t{k} = {} {x}, {y}", ops[next(ops.len())]);
    }
    let _ = writeln!(s, "    ret %t{}\n}}", n - 1);
    s
}

fn best_of(reps: usize, mut run: impl FnMut()) -> Duration {
    (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let arg = |k: usize, d: usize| std::env::args().nth(k).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (n, w, reps) = (arg(1, 20000), arg(2, 64), arg(3, 3));
    let fast = std::env::args().nth(4).is_some_and(|s| s == "fast");
    let (m, _) = ir_core::text::parse(&long_block(n, w, 1)).expect("the generator prints valid IR");
    let f = Prepared::new(m.function(m.function_by_name("long").expect("@long")).expect("@long"));
    println!("one block of {n} instructions, reads among the last {w} values, 16 registers");
    let global = Options::with_regs(16);
    let blocks = Options { strategy: Strategy::Blocks, ..Options::with_regs(16) };
    let mut ctx = Allocator::new();
    for (name, opts) in [("pebble (global)", &global), ("pebble (blocks)", &blocks)] {
        if fast && opts.strategy == Strategy::Blocks {
            continue;
        }
        let a = ctx.compute(&f.cfg, &f.lowered, opts).expect("allocates");
        check(&f.cfg, &f.lowered, &a).expect("checked");
        let t = best_of(reps, || {
            ctx.compute(&f.cfg, &f.lowered, opts).expect("allocates");
        });
        let q = f.tally_keel(&a);
        println!("{name}: {:?}; loads {} stores {} moves {} (total {})", t, q.loads, q.stores, q.moves, q.total());
    }
    if !fast {
        let a = briggs::allocate(&f.cfg, &f.lowered, &global).expect("allocates");
        check(&f.cfg, &f.lowered, &a).expect("checked");
        let t = best_of(reps, || {
            briggs::allocate(&f.cfg, &f.lowered, &global).expect("allocates");
        });
        let q = f.tally_keel(&a);
        println!(
            "Chaitin-Briggs: {:?}; loads {} stores {} moves {} (total {})",
            t,
            q.loads,
            q.stores,
            q.moves,
            q.total()
        );
    }
    let env = machine_env(16);
    let opts = regalloc2::RegallocOptions::default();
    let mut rctx = regalloc2::Ctx::default();
    let out = regalloc2::run_with_ctx(&f.ra2, &env, &opts, &mut rctx).expect("allocates").clone();
    check_ra2(&f.ra2, &env, &out).expect("regalloc2's checker");
    let t = best_of(reps, || {
        regalloc2::run_with_ctx(&f.ra2, &env, &opts, &mut rctx).expect("allocates");
    });
    let q = f.ra2.tally(&f.ssa, &out);
    println!("regalloc2: {:?}; loads {} stores {} moves {} (total {})", t, q.loads, q.stores, q.moves, q.total());
}
