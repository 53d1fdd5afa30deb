//! A fixed amount of DU-chain work, for instruction counts under
//! `valgrind --tool=callgrind` (deterministic, unlike wall-clock time on a
//! shared machine): builds one `du_chains` grid program, or loads the
//! functions of a corpus module, then runs one method `RUNS` times through
//! a warm context. Run it twice, with `RUNS` = 1 and `RUNS` = 6; the
//! difference over 5 is the instructions of one warm run.
//!
//! `cargo run --release -p benches --example du_count -- grid irreducible 10000 4096 0 ssa 6`
//! `cargo run --release -p benches --example du_count -- corpus corpus/sql-wasm.wasm iterative 6`

use benches::programs::{Shape, Spec};
use defuse::{Iterative, ViaSsa};
use ir_core::Function;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or_else(|| panic!("argument {i} missing"));
    let (funcs, method, runs): (Vec<Function>, &str, usize) = match arg(0) {
        "grid" => {
            let shape = match arg(1) {
                "structured" => Shape::Structured,
                "irreducible" => Shape::Irreducible,
                "chain" => Shape::Chain,
                s => panic!("unknown shape {s}"),
            };
            let spec = Spec {
                shape,
                blocks: arg(2).parse().unwrap(),
                vars: arg(3).parse().unwrap(),
                predication: arg(4).parse().unwrap(),
            };
            (vec![spec.build()], arg(5), arg(6).parse().unwrap())
        }
        "corpus" => {
            let bytes = std::fs::read(arg(1)).expect("the module");
            let imported = wasm_import::import(&bytes, &wasm_import::ImportOptions::default()).expect("a valid module");
            let funcs = imported.module.functions().map(|(_, f)| f.clone()).collect();
            (funcs, arg(2), arg(3).parse().unwrap())
        }
        s => panic!("unknown input kind {s}"),
    };
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
