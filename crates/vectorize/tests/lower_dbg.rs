use vectorize::generate::{GenConfig, SplitMix64, generate};
use vectorize::lower::{Lanes, LowerOptions, lower};
use vectorize::text::print_graph;
#[test]
fn one() {
    let cfg = GenConfig { arrays: false, lifted: false, ..GenConfig::default() };
    let mut s = SplitMix64::new(636);
    let g = generate(&cfg, &mut s);
    let v = vectorize::vectorize(&g.graph, g.func, &g.in_axes).unwrap();
    if let Err(e) = lower(&v.graph, v.func, LowerOptions { lanes: Lanes::Fixed(7), elements: 0 }) {
        println!("{e}\n{}", print_graph(&v.graph));
        for s in v.graph.syms() { if v.graph.args(s).iter().any(|a| a.index() == 205) { println!("USER {:?} {:?}", v.graph.data(s), v.graph.args(s)); } }
    }
}
