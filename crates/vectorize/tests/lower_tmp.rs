use vectorize::fuzzing::{batch_inputs, stack};
use vectorize::eval::{EvalConfig, Evaluator};
use vectorize::generate::{GenConfig, SplitMix64, generate};
use vectorize::lower::{Lanes, LowerOptions, lower};
use vectorize::text::print_graph;

#[test]
fn generated_lowering() {
    let n: u64 = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let cfg = GenConfig { arrays: false, lifted: false, ..GenConfig::default() };
    let (mut ok, mut traps, mut fails, mut unsupported) = (0, 0, 0, 0);
    for seed in 0..n {
        let mut s = SplitMix64::new(seed);
        let g = generate(&cfg, &mut s);
        let v = vectorize::vectorize(&g.graph, g.func, &g.in_axes).unwrap();
        let l = match lower(&v.graph, v.func, LowerOptions { lanes: Lanes::Fixed(7), elements: 0 }) {
            Ok(l) => l,
            Err(e) => { unsupported += 1; if unsupported < 3 { println!("seed {seed}: {e}\n{}", print_graph(&v.graph)); } continue; }
        };
        let (lanes, shared) = batch_inputs(&g.graph, g.func, &g.in_axes, 7, &mut s);
        let mut ev = Evaluator::new(&g.graph, EvalConfig::default()).unwrap();
        let want: Result<Vec<Vec<_>>, _> = lanes.iter().map(|a| ev.call(g.func, a)).collect();
        let args = stack(&g.graph.param_types(g.func), &g.in_axes, &lanes, &shared);
        let got = l.run(&args, ir_core::interp::Config::default());
        match (want, got) {
            (Err(_), Err(_)) => traps += 1,
            (Ok(w), Ok(gv)) => {
                let mut same = true;
                for (r, gr) in gv.iter().enumerate() {
                    for (li, lw) in w.iter().enumerate() {
                        if gr.array().unwrap().item(1, li) != lw[r] { same = false; }
                    }
                }
                if same { ok += 1 } else { fails += 1; if fails < 3 { println!("seed {seed} differs\n{}\n{}", print_graph(&v.graph), ir_core::text::print_module(&l.module)); } }
            }
            (w, gt) => { fails += 1; if fails < 3 { println!("seed {seed}: {:?} vs {:?}", w.is_ok(), gt.err()); } }
        }
    }
    println!("ok {ok} traps {traps} fails {fails} unsupported {unsupported}");
    assert_eq!(fails, 0);
}
