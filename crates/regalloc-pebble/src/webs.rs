//! Webs: the code renamed so that each of its variables is one *web* —
//! the definitions of a var joined by the uses they reach together
//! (Chaitin's "names", from "Register allocation & spilling via graph
//! coloring", SIGPLAN '82; S. S. Muchnick, *Advanced Compiler Design and
//! Implementation*, 1997, §16.3; `docs/references.md`). A var reused for unrelated values
//! becomes several webs, each live only where its values are, which is
//! what both allocators want as their unit (a web can take its own
//! register and its own spill slot).
//!
//! Built from `defuse`'s UD chains: a union-find over definitions, joining
//! all the definitions reaching each use. Every var live into the entry
//! block gets an entry definition (params, and vars read before any
//! definition, undefined there), so every read in reachable code has one.
//! A guarded definition whose value some use reads is joined, through that
//! use, with what reached it (it does not kill), so its tie to the old
//! value holds; reads in unreachable code that nothing reaches get webs of
//! their own.
//!
//! [`WebView`] is the renamed code as a [`RegCode`] (same graph, same
//! instructions, web ids for var ids): the allocators run on it and map
//! their result back ([`Webs::var_of`]).

use crate::class::RegClass;
use crate::dag::NONE;
use crate::input::{InstKind, RegCode};
use cfg_dom::{Graph, InputError, InstId, Liveness, Node, Use, VarCode, VarId, Versioned};

/// The code seen with every var live into the entry as a param, so the
/// chains give those reads an entry definition.
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

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let p = parent[x as usize];
        parent[x as usize] = parent[p as usize];
        x = p;
    }
    x
}

/// A function's webs.
#[derive(Clone, Debug, Default)]
pub struct Webs {
    /// Per web: its var.
    web_var: Vec<VarId>,
    /// Per instruction: the web of each definition, then (from
    /// `use_at[i]`) of each use (CSR).
    start: Vec<u32>,
    use_at: Vec<u32>,
    webs: Vec<u32>,
    /// Vars live into the entry, and their entry webs (parallel).
    entry_vars: Vec<VarId>,
    entry_webs: Vec<u32>,
    /// Per web: no use reads its value (every definition is dead).
    unread: Vec<bool>,
}

impl Webs {
    /// The webs of `code` on `graph` (which must have no phis).
    pub fn compute<G: Graph, C: VarCode>(graph: &G, code: &C) -> Result<Webs, InputError> {
        let liveness = Liveness::of(graph, code)?;
        let entry_vars: Vec<VarId> = graph.entry().map(|e| liveness.live_in(e).collect()).unwrap_or_default();
        let wrapped = EntryDefs { code, params: entry_vars.clone() };
        let chains = defuse::via_ssa(graph, &wrapped)?;
        let sites = chains.sites();
        let ndefs = sites.num_defs();
        let mut parent: Vec<u32> = (0..ndefs as u32).collect();
        for u in 0..sites.num_uses() as u32 {
            let ds = chains.defs_of(u);
            if let Some((&first, rest)) = ds.split_first() {
                for &d in rest {
                    let (a, b) = (find(&mut parent, first), find(&mut parent, d));
                    if a != b {
                        parent[a.max(b) as usize] = a.min(b);
                    }
                }
            }
        }
        let mut w = Webs { entry_vars, ..Webs::default() };
        let mut web_of_root: Vec<u32> = vec![NONE; ndefs];
        let mut def_web: Vec<u32> = vec![0; ndefs];
        for d in 0..ndefs as u32 {
            let r = find(&mut parent, d);
            if web_of_root[r as usize] == NONE {
                web_of_root[r as usize] = w.web_var.len() as u32;
                w.web_var.push(sites.def_var(r).expect("a definition"));
                w.unread.push(true);
            }
            def_web[d as usize] = web_of_root[r as usize];
            if !chains.uses_of(d).is_empty() {
                w.unread[def_web[d as usize] as usize] = false;
            }
        }
        w.entry_webs = (0..w.entry_vars.len() as u32)
            .map(|k| def_web[sites.param_def(k).expect("an entry def") as usize])
            .collect();
        for i in 0..code.num_insts() as InstId {
            w.start.push(w.webs.len() as u32);
            for d in sites.defs_of_inst(i) {
                w.webs.push(def_web[d as usize]);
            }
            w.use_at.push(w.webs.len() as u32);
            for (k, u) in sites.uses_of_inst(i).enumerate() {
                let web = match chains.defs_of(u).first() {
                    Some(&d) => def_web[d as usize],
                    None => {
                        let x = code.uses(i).nth(k).map_or(0, |u| u.var);
                        w.web_var.push(x);
                        w.unread.push(false);
                        w.web_var.len() as u32 - 1
                    }
                };
                w.webs.push(web);
            }
        }
        w.start.push(w.webs.len() as u32);
        w.canonical_numbering(code, &def_web, sites);
        Ok(w)
    }

    /// Renumbers the webs by a key statement order does not change: the
    /// var, then the first block defining it, then which definition of the
    /// var it is there (definitions of one var keep their order under any
    /// legal reordering); entry definitions first. So web ids — the names
    /// the allocator ranks by — are the same for every statement order of
    /// the same blocks.
    fn canonical_numbering<C: VarCode>(&mut self, code: &C, def_web: &[u32], sites: &defuse::Sites) {
        let n = self.web_var.len();
        let mut key: Vec<(u32, u32, u32)> = (0..n).map(|w| (self.web_var[w], u32::MAX, u32::MAX)).collect();
        for &w in &self.entry_webs {
            key[w as usize] = (self.web_var[w as usize], 0, 0);
        }
        // Per var: the block whose definitions `count` counts, and how many
        // of them came before (a direct index: a block may define 10^5
        // distinct vars).
        let mut counted: Vec<(Node, u32)> = vec![(Node::MAX, 0); code.num_vars()];
        for b in 0..code.num_blocks() as Node {
            for i in code.block_insts(b) {
                for d in sites.defs_of_inst(i) {
                    let var = sites.def_var(d).unwrap_or(0);
                    let k = match counted.get_mut(var as usize) {
                        Some(e) if e.0 == b => {
                            e.1 += 1;
                            e.1
                        }
                        Some(e) => {
                            *e = (b, 0);
                            0
                        }
                        None => 0,
                    };
                    let web = def_web[d as usize];
                    key[web as usize] = key[web as usize].min((var, 1 + b, k));
                }
                // Reads nothing reaches (in unreachable code): their own
                // webs, keyed after every definition of the block.
                for (k, &web) in self.uses(i).iter().enumerate() {
                    if key[web as usize].1 == u32::MAX {
                        let var = self.web_var[web as usize];
                        key[web as usize] = key[web as usize].min((var, 1 + b, (1 << 31) + k as u32));
                    }
                }
            }
        }
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by_key(|&w| (key[w as usize], w));
        let mut new_id = vec![0u32; n];
        for (k, &w) in order.iter().enumerate() {
            new_id[w as usize] = k as u32;
        }
        self.web_var = order.iter().map(|&w| self.web_var[w as usize]).collect();
        self.unread = order.iter().map(|&w| self.unread[w as usize]).collect();
        for w in self.webs.iter_mut().chain(self.entry_webs.iter_mut()) {
            *w = new_id[*w as usize];
        }
    }

    /// Number of webs.
    pub fn len(&self) -> usize {
        self.web_var.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.web_var.is_empty()
    }

    /// The var of web `w`.
    #[inline]
    pub fn var_of(&self, w: u32) -> VarId {
        self.web_var[w as usize]
    }

    /// The webs of `inst`'s definitions.
    #[inline]
    pub fn defs(&self, inst: InstId) -> &[u32] {
        let i = inst as usize;
        match (self.start.get(i), self.use_at.get(i)) {
            (Some(&s), Some(&e)) => &self.webs[s as usize..e as usize],
            _ => &[],
        }
    }

    /// The webs of `inst`'s uses.
    #[inline]
    pub fn uses(&self, inst: InstId) -> &[u32] {
        let i = inst as usize;
        match (self.use_at.get(i), self.start.get(i + 1)) {
            (Some(&s), Some(&e)) => &self.webs[s as usize..e as usize],
            _ => &[],
        }
    }

    /// Vars live into the entry, with their entry webs.
    pub fn entry(&self) -> impl Iterator<Item = (VarId, u32)> + '_ {
        self.entry_vars.iter().copied().zip(self.entry_webs.iter().copied())
    }

    /// True when nothing reads web `w`'s values.
    pub fn is_unread(&self, w: u32) -> bool {
        self.unread[w as usize]
    }
}

/// The code with webs for vars.
#[derive(Debug)]
pub struct WebView<'a, C> {
    code: &'a C,
    webs: &'a Webs,
}

impl<'a, C> WebView<'a, C> {
    /// `code` renamed by `webs`.
    pub fn new(code: &'a C, webs: &'a Webs) -> Self {
        WebView { code, webs }
    }
}

impl<C: VarCode> Versioned for WebView<'_, C> {}

impl<C: VarCode> VarCode for WebView<'_, C> {
    fn num_blocks(&self) -> usize {
        self.code.num_blocks()
    }
    fn num_vars(&self) -> usize {
        self.webs.len()
    }
    fn num_insts(&self) -> usize {
        self.code.num_insts()
    }
    fn params(&self) -> impl Iterator<Item = VarId> + '_ {
        self.webs.entry_webs.iter().copied()
    }
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        self.code.block_insts(b)
    }
    fn defs(&self, inst: InstId) -> impl Iterator<Item = VarId> + '_ {
        self.webs.defs(inst).iter().copied()
    }
    fn uses(&self, inst: InstId) -> impl Iterator<Item = Use> + '_ {
        self.webs.uses(inst).iter().map(|&w| Use::at(w))
    }
    fn is_guarded(&self, inst: InstId) -> bool {
        self.code.is_guarded(inst)
    }
}

impl<C: RegCode> RegCode for WebView<'_, C> {
    fn class(&self, var: VarId) -> RegClass {
        self.code.class(self.webs.var_of(var))
    }
    fn inst_kind(&self, inst: InstId) -> InstKind {
        self.code.inst_kind(inst)
    }
    fn is_copy(&self, inst: InstId) -> bool {
        self.code.is_copy(inst)
    }
}
