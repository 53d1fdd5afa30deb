use vectorize::fuzzing::{batch_inputs, check_vmap, configs};
use vectorize::generate::{SplitMix64, generate};
use vectorize::{Plant, RuleSet, VectorizeConfig, Vectorizer};

#[test]
fn planted() {
    for plant in [Plant::LoopRunsFinishedLanes, Plant::SelectSwapsBranches] {
        let vz = Vectorizer::with_config(RuleSet::default(), VectorizeConfig { plant: Some(plant), ..Default::default() });
        let mut caught = 0;
        for seed in 0..300u64 {
            let cfg = &configs()[(seed % 4) as usize];
            let mut s = SplitMix64::new(seed);
            let g = generate(cfg, &mut s);
            let v = vz.vectorize(&g.graph, g.func, &g.in_axes).unwrap();
            let (lanes, shared) = batch_inputs(&g.graph, g.func, &g.in_axes, 7, &mut s);
            if check_vmap(&g.graph, g.func, &v.graph, v.func, &g.in_axes, &lanes, &shared).is_err() {
                caught += 1;
            }
        }
        println!("{plant:?}: caught on {caught} of 300");
    }
}
