//! The vectorizer's oracle as a check, shared by the `vectorize` fuzz
//! target, `tests/fuzz_smoke.rs` and the generated-graph tests, and the
//! crate's planted bugs ([`Bug`], planted with [`with_bug`]) that prove the
//! oracles can fail (feature `fuzzing`).
//!
//! [`check_vmap`] runs the vmap property `eval(/p/, xs) == [eval(p, x) for
//! x in xs]` (bit-exact, per result) on one graph and one batch: every
//! lane is evaluated alone with the reference evaluator, the batch once
//! with the vectorized graph. If some lane traps (or runs out of fuel),
//! the vectorized graph must trap too; otherwise it must return exactly
//! the lanes' results. [`check`] decodes bytes into a graph and batches
//! and runs everything: the input verifies and round-trips through text,
//! vectorization succeeds with and without optimisation rules (same
//! results), the output verifies and round-trips, batches of 0, 1, 7 and
//! 64 lanes agree, and vectorizing the vectorized graph again (nested
//! vmap, with its own `in_axes`) agrees with the once-vectorized graph run
//! per outer lane on ragged inner batches. With the `keel` feature, a fifth
//! of the inputs are scalar programs that are also lowered to Keel IR and
//! interpreted (`check_lowered`).

pub use crate::planted::Bug;
pub use test_hooks::with_bug;

use crate::eval::{EvalConfig, EvalError, Evaluator};
use crate::generate::{ByteSource, GenConfig, Generated, Source, SplitMix64, generate, random_value};
use crate::graph::{Graph, Sym};
use crate::rules::RuleSet;
use crate::text::{parse, print_graph};
use crate::types::ValTy;
use crate::value::Value;
use crate::verify::verify;
use crate::vmap::{VectorizeConfig, Vectorizer};

/// Fuel for one lane's evaluation.
pub const LANE_FUEL: u64 = 200_000;

/// What one [`check_vmap`] saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Lanes whose results were compared.
    pub lanes: usize,
    /// True when some lane trapped (and the vectorized graph did too).
    pub trapped: bool,
}

/// Inputs for a batch: per lane, the values of the mapped params; and the
/// values of the unmapped ones, shared by every lane.
pub fn batch_inputs(
    g: &Graph,
    func: Sym,
    in_axes: &[bool],
    lanes: usize,
    s: &mut dyn Source,
) -> (Vec<Vec<Value>>, Vec<Value>) {
    let tys = g.param_types(func);
    let shared: Vec<Value> =
        tys.iter().zip(in_axes).map(|(&t, &m)| if m { Value::zero(t) } else { random_value(t, s) }).collect();
    let per_lane = (0..lanes)
        .map(|_| {
            tys.iter()
                .zip(in_axes)
                .zip(&shared)
                .map(|((&t, &m), v)| if m { random_value(t, s) } else { v.clone() })
                .collect()
        })
        .collect();
    (per_lane, shared)
}

/// The vectorized graph's arguments for a batch.
pub fn stack(tys: &[ValTy], in_axes: &[bool], per_lane: &[Vec<Value>], shared: &[Value]) -> Vec<Value> {
    tys.iter()
        .enumerate()
        .map(|(i, &t)| {
            if in_axes[i] {
                let lanes: Vec<Value> = per_lane.iter().map(|l| l[i].clone()).collect();
                Value::array_of(t, &lanes).expect("lanes of the parameter's type")
            } else {
                shared[i].clone()
            }
        })
        .collect()
}

/// What `p` gives per lane: every lane's results, or the first lane
/// that traps (or runs out of [`LANE_FUEL`]).
pub type Expected = Result<Vec<Vec<Value>>, (usize, EvalError)>;

/// Evaluates `f` of `g` on each lane alone.
pub fn each_lane(g: &Graph, f: Sym, per_lane: &[Vec<Value>]) -> Result<Expected, String> {
    let cfg = EvalConfig { fuel: LANE_FUEL, ..EvalConfig::default() };
    let mut ev = Evaluator::new(g, cfg).map_err(|e| e.to_string())?;
    let mut expected: Vec<Vec<Value>> = Vec::with_capacity(per_lane.len());
    for (l, args) in per_lane.iter().enumerate() {
        match ev.call(f, args) {
            Ok(r) => expected.push(r),
            Err(e) => return Ok(Err((l, e))),
        }
    }
    Ok(Ok(expected))
}

/// Checks the batched run of `vf` of `vg` on the stacked lanes against
/// `expected` (from [`each_lane`]); `Err` describes the first difference.
pub fn compare(
    expected: &Expected,
    tys: &[ValTy],
    vg: &Graph,
    vf: Sym,
    in_axes: &[bool],
    per_lane: &[Vec<Value>],
    shared: &[Value],
) -> Result<Outcome, String> {
    let vcfg = EvalConfig { fuel: LANE_FUEL.saturating_mul(4 * per_lane.len() as u64 + 8), ..EvalConfig::default() };
    let args = stack(tys, in_axes, per_lane, shared);
    let got = Evaluator::new(vg, vcfg).and_then(|mut e| e.call(vf, &args));
    match (expected, got) {
        (Err(_), Err(_)) => Ok(Outcome { lanes: per_lane.len(), trapped: true }),
        (Err((l, e)), Ok(_)) => Err(format!("lane {l} traps ({e}) but the vectorized graph returns")),
        (Ok(_), Err(e)) => Err(format!("the vectorized graph traps ({e}) but no lane does")),
        (Ok(expected), Ok(results)) => {
            for (r, got) in results.iter().enumerate() {
                let Some(a) = got.array() else { return Err(format!("result {r} is not an array")) };
                if a.len() != per_lane.len() {
                    return Err(format!("result {r} has {} lanes, not {}", a.len(), per_lane.len()));
                }
                for (l, want) in expected.iter().enumerate() {
                    let have = a.item(1, l);
                    if want.len() != results.len() || have != want[r] {
                        return Err(format!("result {r}, lane {l}: {have} instead of {}", want[r]));
                    }
                }
            }
            Ok(Outcome { lanes: per_lane.len(), trapped: false })
        }
    }
}

/// Checks `eval(vg.vf, stacked) == [eval(g.f, lane) for lane]`; `Err`
/// describes the first difference.
pub fn check_vmap(
    g: &Graph,
    f: Sym,
    vg: &Graph,
    vf: Sym,
    in_axes: &[bool],
    lanes: &[Vec<Value>],
    shared: &[Value],
) -> Result<Outcome, String> {
    let expected = each_lane(g, f, lanes)?;
    compare(&expected, &g.param_types(f), vg, vf, in_axes, lanes, shared)
}

/// The generator configurations the fuzz target picks from.
pub fn configs() -> [GenConfig; 4] {
    [
        GenConfig::default(),
        GenConfig { nodes: 6, params: 2, depth: 1, ..GenConfig::default() },
        GenConfig { nodes: 20, params: 4, depth: 3, ..GenConfig::default() },
        GenConfig { nodes: 10, params: 3, depth: 2, lifted: false, trapping: false, ..GenConfig::default() },
    ]
}

/// Scalar programs, some parameters arrays reduced whole (`rows`, as
/// `@mean`), which vectorize into the subset the lowering to Keel IR
/// (feature `keel`) handles.
pub fn scalar_config() -> GenConfig {
    GenConfig { arrays: false, lifted: false, rows: true, ..GenConfig::default() }
}

/// Vectorizes, lowers to Keel (with `lanes` exact) and interprets: the
/// results must be the graph's per lane (or both trap).
#[cfg(feature = "keel")]
pub fn check_lowered(gn: &Generated, s: &mut dyn Source, lanes: usize) -> Result<(), String> {
    use crate::lower::{Lanes, LowerOptions, lower};
    let v = Vectorizer::default().vectorize(&gn.graph, gn.func, &gn.in_axes).map_err(|e| e.to_string())?;
    // Room for every lane's row (random rows hold at most 4 elements).
    let elements = 4 * lanes as u64;
    let l = lower(
        &v.graph,
        v.func,
        LowerOptions { lanes: Lanes::Fixed(lanes as u64), elements, on_chip_bytes: crate::lower::DEFAULT_ON_CHIP },
    )
    .map_err(|e| format!("lower: {e}\n{}", print_graph(&v.graph)))?;
    let (per_lane, shared) = batch_inputs(&gn.graph, gn.func, &gn.in_axes, lanes, s);
    let mut ev = Evaluator::new(&gn.graph, EvalConfig { fuel: LANE_FUEL, ..EvalConfig::default() })
        .map_err(|e| e.to_string())?;
    let want: Result<Vec<Vec<Value>>, _> = per_lane.iter().map(|a| ev.call(gn.func, a)).collect();
    let config =
        ir_core::interp::Config { fuel: LANE_FUEL.saturating_mul(16 * lanes as u64 + 16), ..Default::default() };
    let got = l.run(&stack(&gn.graph.param_types(gn.func), &gn.in_axes, &per_lane, &shared), config);
    match (want, got) {
        (Ok(w), Ok(g)) => {
            for (r, gr) in g.iter().enumerate() {
                for (i, wl) in w.iter().enumerate() {
                    let have = gr.array().map(|a| a.item(1, i));
                    if have.as_ref() != Some(&wl[r]) {
                        return Err(format!("lowered result {r}, lane {i}: {have:?} instead of {}", wl[r]));
                    }
                }
            }
            Ok(())
        }
        (Err(_), Err(_)) => Ok(()),
        (w, g) => Err(format!(
            "the graph {} but the lowered function {}",
            if w.is_ok() { "returns" } else { "traps" },
            if g.is_ok() { "returns" } else { "traps" }
        )),
    }
}

/// Text round trip: prints, parses, prints identically, and verifies.
pub fn check_text(g: &Graph) -> Result<Graph, String> {
    let text = print_graph(g);
    let (back, _) = parse(&text).map_err(|e| format!("the printed graph does not parse: {e:?}\n{text}"))?;
    let again = print_graph(&back);
    if again != text {
        return Err(format!("print(parse(print(g))) differs:\n{text}\n---\n{again}"));
    }
    verify(&back).map_err(|e| format!("the reparsed graph does not verify: {e:?}"))?;
    Ok(back)
}

/// Everything [`check`] does, on a generated graph with its choices
/// source; `Err` names the first failure.
pub fn check_generated(gn: &Generated, s: &mut dyn Source, batches: &[usize]) -> Result<usize, String> {
    let g = &gn.graph;
    verify(g).map_err(|e| format!("the generated graph does not verify: {e:?}\n{}", print_graph(g)))?;
    let back = check_text(g)?;
    let v = Vectorizer::default()
        .vectorize(g, gn.func, &gn.in_axes)
        .map_err(|e| format!("vectorize: {e}\n{}", print_graph(g)))?;
    verify(&v.graph).map_err(|e| format!("the vectorized graph does not verify: {e:?}\n{}", print_graph(&v.graph)))?;
    check_text(&v.graph)?;
    let plain = Vectorizer::with_config(RuleSet::default_without_opts(), VectorizeConfig::default())
        .vectorize(g, gn.func, &gn.in_axes)
        .map_err(|e| format!("vectorize without optimisations: {e}"))?;
    let mut lanes = 0;
    let tys = g.param_types(gn.func);
    for &b in batches {
        let (lane_args, shared) = batch_inputs(g, gn.func, &gn.in_axes, b, s);
        let show = || format!("\n{}\n--- vectorized:\n{}", print_graph(g), print_graph(&v.graph));
        let expected = each_lane(g, gn.func, &lane_args)?;
        lanes += compare(&expected, &tys, &v.graph, v.func, &gn.in_axes, &lane_args, &shared)
            .map_err(|e| format!("batch {b}: {e}{}", show()))?
            .lanes;
        compare(&expected, &tys, &plain.graph, plain.func, &gn.in_axes, &lane_args, &shared)
            .map_err(|e| format!("batch {b}, no optimisation rules: {e}{}", show()))?;
        if b == batches[0] {
            let bf = back.function("f").ok_or("no @f after the round trip")?;
            check_vmap(&back, bf, &v.graph, v.func, &gn.in_axes, &lane_args, &shared)
                .map_err(|e| format!("reparsed: {e}"))?;
        }
    }
    // Nested vmap: vectorize /p/ again and compare with /p/ per outer lane.
    let vtys = v.graph.param_types(v.func);
    let mut axes2: Vec<bool> = vtys.iter().map(|_| s.choose(3) != 0).collect();
    if !axes2.iter().any(|&b| b) {
        axes2[0] = true;
    }
    let vv = Vectorizer::default()
        .vectorize(&v.graph, v.func, &axes2)
        .map_err(|e| format!("nested vectorize: {e}\n{}", print_graph(&v.graph)))?;
    verify(&vv.graph).map_err(|e| format!("the twice-vectorized graph does not verify: {e:?}"))?;
    let outer = 1 + s.choose(4) as usize;
    let mut per_outer = Vec::with_capacity(outer);
    // /p/'s batched params must agree on their number of (inner) lanes. A
    // param batched by /p/ but not by //p// holds one inner batch shared
    // by every outer lane, which fixes that number; otherwise each outer
    // lane has an inner batch of its own size (ragged).
    let (_, shared_inner) = batch_inputs(g, gn.func, &gn.in_axes, 0, s);
    let fixed = (0..gn.in_axes.len()).any(|i| gn.in_axes[i] && !axes2[i]);
    let shared_n = s.choose(4) as usize;
    let (shared_lanes, _) = batch_inputs(g, gn.func, &gn.in_axes, shared_n, s);
    let shared_v = stack(&g.param_types(gn.func), &gn.in_axes, &shared_lanes, &shared_inner);
    for _ in 0..outer {
        let n = if fixed { shared_n } else { s.choose(5) as usize };
        let (lanes_in, _) = batch_inputs(g, gn.func, &gn.in_axes, n, s);
        let args = stack(&g.param_types(gn.func), &gn.in_axes, &lanes_in, &shared_inner);
        // An unmapped outer param must be the same value in every outer lane.
        let args: Vec<Value> =
            args.into_iter().enumerate().map(|(i, a)| if axes2[i] { a } else { shared_v[i].clone() }).collect();
        per_outer.push(args);
    }
    let shared2: Vec<Value> = (0..vtys.len()).map(|i| shared_v[i].clone()).collect();
    check_vmap(&v.graph, v.func, &vv.graph, vv.func, &axes2, &per_outer, &shared2)
        .map_err(|e| format!("nested vmap: {e}\n{}\n--- twice:\n{}", print_graph(&v.graph), print_graph(&vv.graph)))?;
    Ok(lanes)
}

/// The fuzz property on arbitrary bytes: panics with a description on any
/// failure. The first byte picks a configuration (one of [`configs`], or
/// scalar programs, which with the `keel` feature are also lowered to Keel
/// and interpreted); the rest decode the graph; the batches' values come
/// from a seed hashed from all the bytes.
pub fn check(bytes: &[u8]) {
    let pick = bytes.first().copied().unwrap_or(0) as usize % 5;
    let mut s = ByteSource::new(bytes.get(1..).unwrap_or(&[]));
    let mut rng = SplitMix64::new(bytes.iter().fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b))));
    let result = if pick == 4 {
        let gn = generate(&scalar_config(), &mut s);
        let checked = check_generated(&gn, &mut rng, &[0, 1, 7]);
        #[cfg(feature = "keel")]
        let checked = checked.and_then(|_| check_lowered(&gn, &mut rng, 5));
        checked.map(|_| ())
    } else {
        let gn = generate(&configs()[pick], &mut s);
        check_generated(&gn, &mut rng, &[0, 1, 7]).map(|_| ())
    };
    if let Err(e) = result {
        panic!("{e}");
    }
}
