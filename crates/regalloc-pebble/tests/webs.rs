//! The webs' one-walk construction (`regalloc_pebble::webs::Webs`) against
//! the construction it replaced, written again here as the oracle:
//! `defuse`'s UD chains through SSA (every var live into the entry a
//! param), all the definitions reaching one use joined by a union-find.
//! The two must give the same partition of the sites (entry definitions,
//! definitions, uses), the same var and the same "nothing reads it" per
//! web, on generated programs with guarded definitions, unreachable blocks
//! and irreducible loops; and the oracle must catch a planted bug.

use cfg_dom::{Graph, InstId, Liveness, Node, Use, VarCode, VarId, Versioned};
use ir_gen::{GenConfig, generate};
use regalloc_pebble::fuzzing::{Bug, with_bug};
use regalloc_pebble::lower_phis;
use regalloc_pebble::webs::Webs;
use std::collections::HashMap;

/// The code with every var live into the entry as a param.
struct EntryDefs<'c, C> {
    code: &'c C,
    params: Vec<VarId>,
}

impl<C: VarCode> Versioned for EntryDefs<'_, C> {}

impl<C: VarCode> VarCode for EntryDefs<'_, C> {
    fn num_blocks(&self) -> usize {
        self.code.num_blocks()
    }
    fn num_vars(&self) -> usize {
        self.code.num_vars()
    }
    fn num_insts(&self) -> usize {
        self.code.num_insts()
    }
    fn params(&self) -> impl Iterator<Item = VarId> + '_ {
        self.params.iter().copied()
    }
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        self.code.block_insts(b)
    }
    fn defs(&self, inst: InstId) -> impl Iterator<Item = VarId> + '_ {
        self.code.defs(inst)
    }
    fn uses(&self, inst: InstId) -> impl Iterator<Item = Use> + '_ {
        self.code.uses(inst)
    }
    fn is_guarded(&self, inst: InstId) -> bool {
        self.code.is_guarded(inst)
    }
    fn is_phi(&self, inst: InstId) -> bool {
        self.code.is_phi(inst)
    }
}

/// A site of the code.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Site {
    Entry(VarId),
    Def(InstId, usize),
    Use(InstId, usize),
}

/// A labelling of the sites: per site its web, per web its var and whether
/// nothing reads it.
#[derive(Default, Debug)]
struct Labels {
    web: HashMap<Site, u32>,
    var: HashMap<u32, VarId>,
    unread: HashMap<u32, bool>,
}

fn labels_of(webs: &Webs, code: &impl VarCode) -> Labels {
    let mut l = Labels::default();
    for (v, w) in webs.entry() {
        l.web.insert(Site::Entry(v), w);
    }
    for i in 0..code.num_insts() as InstId {
        for (k, &w) in webs.defs(i).iter().enumerate() {
            l.web.insert(Site::Def(i, k), w);
        }
        for (k, &w) in webs.uses(i).iter().enumerate() {
            l.web.insert(Site::Use(i, k), w);
        }
    }
    for w in 0..webs.len() as u32 {
        l.var.insert(w, webs.var_of(w));
        l.unread.insert(w, webs.is_unread(w));
    }
    l
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        x = parent[x as usize];
    }
    x
}

/// The oracle: chains through SSA, then a union-find over definitions.
fn oracle<G: Graph, C: VarCode>(graph: &G, code: &C) -> Labels {
    let liveness = Liveness::of(graph, code).expect("valid code");
    let entry_vars: Vec<VarId> = graph.entry().map(|e| liveness.live_in(e).collect()).unwrap_or_default();
    let wrapped = EntryDefs { code, params: entry_vars.clone() };
    let chains = defuse::via_ssa(graph, &wrapped).expect("valid code");
    let sites = chains.sites();
    let mut parent: Vec<u32> = (0..sites.num_defs() as u32).collect();
    for u in 0..sites.num_uses() as u32 {
        let ds = chains.defs_of(u);
        for w in ds.windows(2) {
            let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    let mut l = Labels::default();
    let mut fresh = sites.num_defs() as u32;
    for d in 0..sites.num_defs() as u32 {
        let r = find(&mut parent, d);
        l.var.insert(r, sites.def_var(r).expect("a definition"));
        let read = !chains.uses_of(d).is_empty();
        *l.unread.entry(r).or_insert(true) &= !read;
    }
    for (k, &v) in entry_vars.iter().enumerate() {
        l.web.insert(Site::Entry(v), find(&mut parent, sites.param_def(k as u32).unwrap()));
    }
    for i in 0..code.num_insts() as InstId {
        for (k, d) in sites.defs_of_inst(i).enumerate() {
            l.web.insert(Site::Def(i, k), find(&mut parent, d));
        }
        for (k, u) in sites.uses_of_inst(i).enumerate() {
            let web = match chains.defs_of(u).first() {
                Some(&d) => find(&mut parent, d),
                None => {
                    fresh += 1;
                    l.var.insert(fresh, code.uses(i).nth(k).unwrap().var);
                    l.unread.insert(fresh, false);
                    fresh
                }
            };
            l.web.insert(Site::Use(i, k), web);
        }
    }
    l
}

/// The first difference between two labellings, up to renaming.
fn difference(a: &Labels, b: &Labels) -> Option<String> {
    if a.web.len() != b.web.len() {
        return Some(format!("{} sites against {}", a.web.len(), b.web.len()));
    }
    let (mut ab, mut ba) = (HashMap::new(), HashMap::new());
    for (site, &x) in &a.web {
        let Some(&y) = b.web.get(site) else { return Some(format!("{site:?} only on one side")) };
        if *ab.entry(x).or_insert(y) != y || *ba.entry(y).or_insert(x) != x {
            return Some(format!("{site:?}: the webs split differently"));
        }
        if a.var[&x] != b.var[&y] || a.unread[&x] != b.unread[&y] {
            return Some(format!("{site:?}: var or unread differ"));
        }
    }
    None
}

/// Generated programs compared; the differences found.
fn compare(seeds: std::ops::Range<u64>) -> (usize, usize) {
    let (mut checked, mut differ) = (0, 0);
    for seed in seeds {
        let cfg = GenConfig {
            blocks: 4 + (seed % 24) as usize,
            vars: 3 + (seed % 9) as usize,
            predication: if seed % 3 == 0 { 0.0 } else { 0.35 },
            unreachable: if seed % 4 == 0 { 0.25 } else { 0.0 },
            irreducible: if seed % 5 == 0 { 0.3 } else { 0.0 },
            ..GenConfig::default()
        };
        let g = generate(&cfg, seed);
        for (_, func) in g.module.functions() {
            let mut f = func.clone();
            lower_phis(&mut f);
            let graph = f.cfg();
            let webs = Webs::compute(&graph, &f, u64::MAX).expect("webs");
            checked += 1;
            if let Some(d) = difference(&labels_of(&webs, &f), &oracle(&graph, &f)) {
                differ += 1;
                if differ == 1 {
                    eprintln!("seed {seed}, {}: {d}", f.name());
                }
            }
        }
    }
    (checked, differ)
}

#[test]
fn webs_partition_the_sites_as_the_chains_do() {
    let (checked, differ) = compare(0..400);
    assert!(checked >= 400, "{checked} functions");
    assert_eq!(differ, 0, "{differ} of {checked} functions differ");
}

#[test]
fn the_oracle_catches_guards_treated_as_kills() {
    let (checked, differ) = with_bug(Bug::WebsIgnoreGuards, || compare(0..120));
    assert!(differ * 5 > checked, "the planted bug shows in {differ} of {checked} functions");
}

#[test]
fn the_entry_points_are_counted_against_the_budget() {
    let g = generate(&GenConfig { blocks: 30, vars: 12, ..GenConfig::default() }, 7);
    let mut f = g.module.function(g.main).expect("main").clone();
    lower_phis(&mut f);
    let graph = f.cfg();
    let e = Webs::compute(&graph, &f, 64).unwrap_err();
    assert!(matches!(e, regalloc_pebble::AllocError::TooLarge { limit: 64, .. }), "{e:?}");
}
