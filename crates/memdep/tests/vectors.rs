//! The digest's two test vectors (§002) and the saxpy kernel, exactly.

use ir_core::{Function, Inst, Module};
use memdep::{MemDep, MemDeps, Summaries};

fn load(name: &str) -> Module {
    let path = format!("{}/../../docs/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    ir_core::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap().0
}

/// The instructions of the function in layout order.
fn insts(f: &Function) -> Vec<Inst> {
    f.blocks().flat_map(|b| f.block_insts(b)).collect()
}

/// Per instruction that reads memory: the 1-based positions (among the
/// memory instructions, the document's `irN`) of the instructions it
/// depends on.
fn table(f: &Function, deps: &MemDeps) -> Vec<(usize, Vec<usize>)> {
    let mem: Vec<Inst> = insts(f).into_iter().filter(|&i| f.opcode(i).touches_memory()).collect();
    let pos = |i: u32| mem.iter().position(|m| m.as_u32() == i).unwrap() + 1;
    mem.iter()
        .enumerate()
        .filter(|(_, i)| !deps.sites().uses_of_inst(i.as_u32()).is_empty())
        .map(|(k, &i)| (k + 1, deps.reaching_insts(i.as_u32()).into_iter().map(pos).collect()))
        .collect()
}

fn analyse(m: &Module, name: &str) -> (Function, MemDeps) {
    let f = m.function(m.function_by_name(name).unwrap()).unwrap().clone();
    let s = Summaries::of(m);
    let deps = MemDep::new().compute_function(m, &f, Some(&s)).unwrap();
    (f, deps)
}

#[test]
fn vector1_exact_partial_kills() {
    let m = load("memdep_vector1.kir");
    let (f, deps) = analyse(&m, "vector1");
    // ir2 <- {ir1}; ir4 <- {ir1, ir3}; ir6 <- {ir3, ir5}.
    assert_eq!(table(&f, &deps), vec![(2, vec![1]), (4, vec![1, 3]), (6, vec![3, 5])]);
}

#[test]
fn vector2_inexact_guarded_and_opaque() {
    let m = load("memdep_vector2.kir");
    let (f, deps) = analyse(&m, "vector2");
    // ir3 <- {ir1, ir2}; ir6 <- {ir1, ir2, ir4, ir5}. ir4 is a call to an
    // external function, which in Keel may read any memory too
    // (docs/ir.md §6.5), so it is a use as well: of ir1 and ir2.
    assert_eq!(table(&f, &deps), vec![(3, vec![1, 2]), (4, vec![1, 2]), (6, vec![1, 2, 4, 5])]);
}

#[test]
fn saxpy_flow_is_exact_across_iterations() {
    let m = load("saxpy.kir");
    let (f, deps) = analyse(&m, "saxpy");
    // 1: dma xt <- x[off]; 2: dma yt <- y[off]; 3: tfma yt <- xt, a, yt;
    // 4: dma y[off] <- yt. The read of y[off] does not depend on the write
    // of y[off] one iteration earlier (another tile), and the buffers'
    // reads depend only on this iteration's writes.
    assert_eq!(table(&f, &deps), vec![(1, vec![]), (2, vec![]), (3, vec![1, 2]), (4, vec![3])]);
}

#[test]
fn saxpy_tiles_are_independent_across_iterations() {
    let m = load("saxpy.kir");
    let f = m.function(m.function_by_name("saxpy").unwrap()).unwrap();
    let q = memdep::MemQueries::of_function(&m, f, None).unwrap();
    let l = q.loops().loops().next().unwrap();
    let name = |o: u32| m.mem(ir_core::Mem::from_u32(o)).unwrap().name.to_string();
    let pairs = q.carried_pairs(l);
    // Only the NRAM buffers carry dependences (every distance: they are
    // reused by each tile; double buffering removes those); the DRAM
    // tiles of x and y never conflict across iterations.
    assert!(!pairs.is_empty());
    for p in &pairs {
        let obj = q.access(p.earlier.inst, p.earlier.access).unwrap().object;
        assert!(["xt", "yt"].contains(&name(obj).as_str()), "{p:?} on {}", name(obj));
        assert_eq!(p.answer, memdep::Answer::Must(memdep::Distance::AtLeast(1)));
    }
    let y = m.mems().find(|(_, o)| &*o.name == "y").unwrap().0.as_u32();
    let on_y: Vec<memdep::Site> = f
        .blocks()
        .flat_map(|b| f.block_insts(b))
        .flat_map(|i| {
            q.accesses(i.as_u32())
                .iter()
                .enumerate()
                .filter(|(_, a)| a.object == y)
                .map(move |(k, _)| memdep::Site { inst: i.as_u32(), access: k as u32 })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(on_y.len(), 2);
    for &a in &on_y {
        for &b in &on_y {
            assert_eq!(q.loop_carried(l, a, b), memdep::Answer::NoDep);
        }
    }
    assert!(!q.iterations_independent(l));
}

/// The compact form's accessors give back what the per-site queries give,
/// set by set: on vector 1 (flow, output and anti sets) and on generated
/// programs with loops (loop-carried sets).
#[test]
fn the_compact_form_is_the_per_site_answers() {
    let check = |deps: &MemDeps| {
        let sites = deps.sites();
        for u in 0..sites.num_uses() as u32 {
            assert_eq!(deps.set(deps.flow_set(u).unwrap()), deps.defs_of(u));
        }
        for d in 0..sites.num_defs() as u32 {
            assert_eq!(deps.set(deps.output_set(d).unwrap()), deps.output_of(d));
            assert_eq!(deps.set(deps.anti_set(d).unwrap()), deps.anti_of(d));
        }
        let mut carried = 0;
        for (h, u, s) in deps.carried_sets() {
            assert!(!deps.set(s).is_empty());
            assert_eq!(deps.set(s), deps.carried_defs(h, u));
            carried += 1;
        }
        assert_eq!(deps.flow_set(sites.num_uses() as u32), None);
        assert_eq!(deps.set(u32::MAX), &[]);
        carried
    };
    let m = load("memdep_vector1.kir");
    let (_, deps) = analyse(&m, "vector1");
    check(&deps);
    let options = memdep::Options { loop_carried: true, ..memdep::Options::default() };
    let mut carried = 0;
    for seed in 0..40 {
        let g = ir_gen::generate(&ir_gen::GenConfig { blocks: 30, ..ir_gen::GenConfig::default() }, seed);
        let s = Summaries::of(&g.module);
        for (_, f) in g.module.functions() {
            carried += check(&MemDep::with_options(options).compute_function(&g.module, f, Some(&s)).unwrap());
        }
    }
    assert!(carried > 0, "no loop-carried set in 40 generated modules");
}

/// `MemDep::explain`: the definitions live before ir4 of vector 1, per
/// segment (ir3 on [0, 16), ir1 on [16, 32)), and nothing of ir1 before
/// ir6; the dependences it returns are `compute_function`'s.
#[test]
fn explain_gives_the_live_definitions_per_segment() {
    let m = load("memdep_vector1.kir");
    let (f, deps) = analyse(&m, "vector1");
    let ir: Vec<u32> = insts(&f).iter().map(|i| i.as_u32()).collect();
    let def_of = |k: usize| deps.sites().defs_of_inst(ir[k - 1])[0];
    let mut ctx = MemDep::new();
    let (again, e) = ctx.explain_function(&m, &f, None, ir[3]).unwrap();
    assert_eq!(again, deps);
    let e = e.expect("ir4 is reachable");
    assert_eq!(e.objects.len(), 1);
    let segs: Vec<(i64, Option<i64>, Vec<u32>)> =
        e.objects[0].segments.iter().map(|s| (s.lo, s.hi, s.defs.clone())).collect();
    assert_eq!(segs, [(0, Some(16), vec![def_of(3)]), (16, Some(32), vec![def_of(1)])]);
    let (_, e) = ctx.explain_function(&m, &f, None, ir[5]).unwrap();
    let live: Vec<u32> = e.unwrap().objects[0].segments.iter().flat_map(|s| s.defs.clone()).collect();
    assert!(!live.contains(&def_of(1)) && live.contains(&def_of(3)) && live.contains(&def_of(5)));
}

/// `MemDep::explain` agrees with the dependences on generated programs:
/// before each read, the definitions live on the segments its extent
/// overlaps (every segment of the object for an inexact read; of every
/// object for "reads anything") are exactly the read's flow set. Without
/// symbolic offsets, so that every site is in the absolute segments.
#[test]
fn explain_agrees_with_the_flow_sets() {
    use memdep::{ANY, MemQueries, Offset, Options};
    let options = Options { symbolic: false, ..Options::default() };
    let mut checked = 0;
    for seed in 0..25 {
        let g = ir_gen::generate(&ir_gen::GenConfig { blocks: 25, ..ir_gen::GenConfig::default() }, seed);
        let s = Summaries::of(&g.module);
        for (_, f) in g.module.functions() {
            let mut ctx = MemDep::with_options(options);
            let deps = ctx.compute_function(&g.module, f, Some(&s)).unwrap();
            let q = MemQueries::of_function(&g.module, f, Some(&s)).unwrap();
            for u in 0..deps.sites().num_uses() as u32 {
                if !deps.sites().use_reachable(u) {
                    continue;
                }
                let site = deps.sites().use_site(u).unwrap();
                let (_, e) = ctx.explain_function(&g.module, f, Some(&s), site.inst).unwrap();
                let e = e.expect("a reachable read");
                let extent = match q.access(site.inst, site.access) {
                    _ if site.access == ANY => None,
                    Some(a) => match (a.offset, a.size) {
                        (Offset::Exact(lo), Some(n)) if a.within.is_none() => Some((a.object, lo, lo + n as i64)),
                        _ => Some((a.object, i64::MIN, i64::MAX)),
                    },
                    None => None,
                };
                let mut live: Vec<u32> = e
                    .objects
                    .iter()
                    .filter(|o| extent.is_none_or(|(obj, _, _)| o.object == obj))
                    .flat_map(|o| o.segments.iter())
                    .filter(|sg| extent.is_none_or(|(_, lo, hi)| sg.lo < hi && sg.hi.is_none_or(|h| lo < h)))
                    .flat_map(|sg| sg.defs.iter().copied())
                    .collect();
                live.sort_unstable();
                live.dedup();
                let flow: Vec<u32> = deps.defs_of_iter(u).collect();
                assert_eq!(live, flow, "seed {seed}, {}: read {u} at {site:?}", f.name());
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} reads checked");
}

/// The must/may split against its definition, computed here from the
/// accesses alone: a definition in a use's flow set is a must dependence
/// exactly when the use reads an exact range and the definition certainly
/// writes (unguarded, not only possibly) an exact range of the same object
/// that overlaps it; must and may partition the flow set. On both vectors
/// (vector 1's reads are all must; vector 2's inexact and "anything" reads
/// have none) and on generated programs with guards.
#[test]
fn must_and_may_split_the_flow_sets_by_definition() {
    use memdep::{ANY, MemQueries, Offset};
    let exact = |a: memdep::Access| match (a.offset, a.size) {
        (Offset::Exact(lo), Some(n)) => Some((a.object, lo, lo.saturating_add(n as i64))),
        _ => None,
    };
    let check = |m: &Module, f: &Function, s: Option<&Summaries>| -> (usize, usize) {
        let deps = MemDep::new().compute_function(m, f, s).unwrap();
        let q = MemQueries::of_function(m, f, s).unwrap();
        let sites = deps.sites();
        let (mut musts, mut mays) = (0, 0);
        for u in 0..sites.num_uses() as u32 {
            let us = sites.use_site(u).unwrap();
            let read = if us.access == ANY { None } else { q.access(us.inst, us.access).and_then(exact) };
            let expected: Vec<u32> = deps
                .defs_of_iter(u)
                .filter(|&d| {
                    let ds = sites.def_site(d).unwrap();
                    let Some((ro, rlo, rhi)) = read else { return false };
                    if ds.access == ANY || f.guard(Inst::from_u32(ds.inst)).is_some() {
                        return false;
                    }
                    let a = q.access(ds.inst, ds.access).unwrap();
                    !a.may && exact(a).is_some_and(|(o, lo, hi)| o == ro && lo < rhi && rlo < hi)
                })
                .collect();
            let must: Vec<u32> = deps.must_of(u).iter().flat_map(|&(a, b)| a..b).collect();
            let may: Vec<u32> = deps.may_of(u).iter().flat_map(|&(a, b)| a..b).collect();
            assert_eq!(must, expected, "{}: use {u} at {us:?}", f.name());
            let mut all: Vec<u32> = must.iter().chain(&may).copied().collect();
            all.sort_unstable();
            assert_eq!(all, deps.defs_of_iter(u).collect::<Vec<_>>(), "{}: use {u}", f.name());
            musts += must.len();
            mays += may.len();
        }
        (musts, mays)
    };
    let m = load("memdep_vector1.kir");
    let (f, _) = analyse(&m, "vector1");
    assert_eq!(check(&m, &f, None), (5, 0));
    let m = load("memdep_vector2.kir");
    let (f, _) = analyse(&m, "vector2");
    let (musts, mays) = check(&m, &f, None);
    assert!(mays > 0 && musts < mays, "{musts} must, {mays} may");
    let (mut musts, mut mays) = (0, 0);
    for seed in 0..40 {
        let config = ir_gen::GenConfig { blocks: 30, predication: 0.3, ..ir_gen::GenConfig::default() };
        let g = ir_gen::generate(&config, seed);
        let s = Summaries::of(&g.module);
        for (_, f) in g.module.functions() {
            let (a, b) = check(&g.module, f, Some(&s));
            musts += a;
            mays += b;
        }
    }
    // Generated code mostly reads at variable offsets: few must dependences.
    assert!(musts > 0 && mays > 50, "{musts} must, {mays} may");
}
