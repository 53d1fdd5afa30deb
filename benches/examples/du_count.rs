//! A fixed amount of DU-chain work, for instruction counts under
//! `valgrind --tool=callgrind` (deterministic, unlike wall-clock time on a
//! shared machine): builds one `du_chains` grid program, or loads the
//! functions of a corpus module, then runs one method `RUNS` times through
//! a warm context. Run it twice, with `RUNS` = 1 and `RUNS` = 6; the
//! difference over 5 is the instructions of one warm run.
//!
//! `cargo run --release -p benches --example du_count -- grid irreducible 10000 4096 0 ssa 6`
//! `cargo run --release -p benches --example du_count -- corpus corpus/sql-wasm.wasm iterative 6`

use benches::programs::functions_from_args;
use defuse::{Iterative, ViaSsa};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or_else(|| panic!("argument {i} missing"));
    let (funcs, used) = functions_from_args(&args);
    let (method, runs) = (arg(used), arg(used + 1).parse().expect("a run count"));
    let (mut ssa, mut it) = (ViaSsa::new(), Iterative::new());
    let mut edges = 0;
    for _ in 0..runs {
        for f in &funcs {
            edges += match method {
                "ssa" => ssa.compute_function(f).expect("valid input").num_edges(),
                "iterative" => it.compute_function(f).expect("valid input").num_edges(),
                m => panic!("unknown method {m}"),
            };
        }
    }
    println!("{edges} chain edges");
}
