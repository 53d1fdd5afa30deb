//! Webs: the code renamed so that each of its variables is one *web* —
//! the definitions of a var joined by the uses they reach together
//! (Chaitin's "names", from "Register allocation & spilling via graph
//! coloring", SIGPLAN '82; S. S. Muchnick, *Advanced Compiler Design and
//! Implementation*, 1997, §16.3; `docs/references.md`). A var reused for unrelated values
//! becomes several webs, each live only where its values are, which is
//! what both allocators want as their unit (a web can take its own
//! register and its own spill slot).
//!
//! Built in one walk, without SSA: a union-find over the definitions
//! and one *entry point* per (block, var live into it). In each reachable
//! block a use joins the point that reaches it: the latest definition of
//! its var in the block, or the block's entry point for the var; at the
//! block's end, the entry point of each var live into a successor joins
//! what reaches the end. Every var live into the entry block gets an
//! entry definition (params, and vars read before any definition,
//! undefined there), and the entry block's entry points are those, so
//! every read in reachable code has one. A guarded definition does not
//! kill: it remembers what reached it, and the first read through it
//! (a use, or a successor's entry point) joins the two, so a guarded
//! definition that nothing reads stays apart, as in the chains. Defs and
//! reads in unreachable code take no part: each is a web of its own.
//!
//! The partition is the one the def-use chains give (all the definitions
//! reaching one use in one web, Chaitin's construction): a successor's
//! entry point for a live var is read by some use below it without an
//! unguarded definition between, so what joins there reaches that use.
//! `tests/webs.rs` checks it against `defuse`'s chains (the construction
//! this module used before, through SSA) on generated programs; the walk
//! is linear in instructions plus, per edge, the successor's live-in set.
//!
//! Invariants: element ids are the definitions first (entry definitions,
//! then each listed instruction's, by instruction id), then the entry
//! points of the reachable blocks but the entry; a union keeps the smaller
//! root, so a component's root is its first definition (a component's
//! entry points always join a definition: every path from the entry to a
//! point where a var is live passes a definition of it or the entry's).
//!
//! [`WebView`] is the renamed code as a [`RegCode`] (same graph, same
//! instructions, web ids for var ids): the allocators run on it and map
//! their result back ([`Webs::var_of`]).

use crate::class::RegClass;
use crate::dag::NONE;
use crate::error::AllocError;
use crate::input::{InstKind, RegCode};
use crate::planted::{Bug, planted};
use cfg_dom::{Dfs, Graph, Input, InputBuffers, InstId, Liveness, Node, Use, VarCode, VarId, Versioned};

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let p = parent[x as usize];
        parent[x as usize] = parent[p as usize];
        x = p;
    }
    x
}

fn unite(parent: &mut [u32], a: u32, b: u32) {
    let (a, b) = (find(parent, a), find(parent, b));
    if a != b {
        parent[a.max(b) as usize] = a.min(b);
    }
}

/// The union-find of one [`Webs::compute`]: elements as in the module
/// doc, and per guarded definition what reached it until a read joins
/// them ([`NONE`] once joined, or for an unguarded one).
struct Joins {
    parent: Vec<u32>,
    before: Vec<u32>,
}

impl Joins {
    /// A read of the value `x` (a definition or an entry point) stands:
    /// every guarded definition down the chain from `x` joins what reached
    /// it, each once.
    fn read(&mut self, x: u32) {
        let mut y = x;
        while let Some(&p) = self.before.get(y as usize)
            && p != NONE
        {
            self.before[y as usize] = NONE;
            unite(&mut self.parent, y, p);
            y = p;
        }
    }
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
    /// The webs of `code` on `graph` (which must have no phis). The entry
    /// points take four bytes each, one per var live into each reachable
    /// block: past `limit` bytes, [`AllocError::TooLarge`].
    pub fn compute<G: Graph, C: VarCode>(graph: &G, code: &C, limit: u64) -> Result<Webs, AllocError> {
        let mut buffers = InputBuffers::default();
        let input = Input::new(graph, code, &mut buffers)?;
        Webs::compute_input(&input, limit)
    }

    /// [`Webs::compute`] on an input already checked.
    pub fn compute_input<G: Graph, C: VarCode>(input: &Input<'_, G, C>, limit: u64) -> Result<Webs, AllocError> {
        let mut liveness = Liveness::new();
        liveness.compute_input(input);
        let graph = input.graph();
        let mut dfs = Dfs::new();
        dfs.compute(graph);
        let entry = graph.entry();
        let entry_vars: Vec<VarId> = entry.map(|e| liveness.live_in(e).collect()).unwrap_or_default();
        let nblocks = input.num_blocks();
        let ni = input.num_insts();
        // Definitions: the entry's, then each listed instruction's (the
        // input's own numbering, by instruction id, after the entry's).
        let nentry = entry_vars.len();
        let (def_start, use_start) = (input.def_starts(), input.use_starts());
        let ndefs = nentry + input.all_defs().len();
        // Entry points: the entry block's are its entry definitions.
        let mut point_base: Vec<u32> = vec![NONE; nblocks];
        let mut npoints = 0usize;
        for b in 0..nblocks as Node {
            if Some(b) == entry {
                point_base[b as usize] = 0;
            } else if dfs.is_reachable(b) {
                point_base[b as usize] = (ndefs + npoints) as u32;
                npoints += liveness.live_in(b).count();
            }
        }
        let bytes = 4 * (ndefs + npoints) as u64;
        if bytes > limit {
            let names = input.num_vars().saturating_add(ndefs);
            return Err(AllocError::TooLarge { blocks: nblocks, names, bytes, limit });
        }
        let mut joins = Joins { parent: (0..(ndefs + npoints) as u32).collect(), before: vec![NONE; ndefs] };
        let ignore_guards = planted(Bug::WebsIgnoreGuards);
        // Per use: the element it reads (NONE in unreachable code).
        let mut use_elem: Vec<u32> = vec![NONE; input.all_uses().len()];
        let mut current: Vec<u32> = vec![NONE; input.num_vars()];
        let mut touched: Vec<VarId> = Vec::new();
        for b in (0..nblocks as Node).filter(|&b| dfs.is_reachable(b)) {
            let base = point_base[b as usize];
            for (k, v) in liveness.live_in(b).enumerate() {
                current[v as usize] = base + k as u32;
                touched.push(v);
            }
            for &i in input.block_insts(b) {
                let first_use = use_start[i as usize] as usize;
                for (k, u) in input.uses(i).iter().enumerate() {
                    let x = current[u.var as usize];
                    if x != NONE {
                        joins.read(x);
                        use_elem[first_use + k] = x;
                    }
                }
                let guarded = input.is_guarded(i) && !ignore_guards;
                let first_def = nentry + def_start[i as usize] as usize;
                for (k, &v) in input.defs(i).iter().enumerate() {
                    let d = (first_def + k) as u32;
                    if guarded {
                        joins.before[d as usize] = current[v as usize];
                    }
                    current[v as usize] = d;
                    touched.push(v);
                }
            }
            for s in graph.successors(b) {
                let base = point_base[s as usize];
                for (k, v) in liveness.live_in(s).enumerate() {
                    let x = current[v as usize];
                    if x != NONE {
                        unite(&mut joins.parent, base + k as u32, x);
                        joins.read(x);
                    }
                }
            }
            for v in touched.drain(..) {
                current[v as usize] = NONE;
            }
        }
        let var_of_def = |d: usize| if d < nentry { entry_vars[d] } else { input.all_defs()[d - nentry] };
        let parent = &mut joins.parent;
        let mut read = vec![false; ndefs];
        for &x in use_elem.iter().filter(|&&x| x != NONE) {
            read[find(parent, x) as usize] = true;
        }
        let mut w = Webs::default();
        let mut web_of_root: Vec<u32> = vec![NONE; ndefs];
        let mut def_web: Vec<u32> = vec![0; ndefs];
        for d in 0..ndefs as u32 {
            let r = find(parent, d);
            if web_of_root[r as usize] == NONE {
                web_of_root[r as usize] = w.web_var.len() as u32;
                w.web_var.push(var_of_def(r as usize));
                w.unread.push(!read[r as usize]);
            }
            def_web[d as usize] = web_of_root[r as usize];
        }
        w.entry_webs = def_web[..nentry].to_vec();
        w.entry_vars = entry_vars;
        for i in 0..ni {
            w.start.push(w.webs.len() as u32);
            w.webs.extend_from_slice(&def_web[nentry + def_start[i] as usize..nentry + def_start[i + 1] as usize]);
            w.use_at.push(w.webs.len() as u32);
            for (k, u) in input.uses(i as InstId).iter().enumerate() {
                let web = match use_elem[use_start[i] as usize + k] {
                    NONE => {
                        w.web_var.push(u.var);
                        w.unread.push(false);
                        w.web_var.len() as u32 - 1
                    }
                    x => web_of_root[find(parent, x) as usize],
                };
                w.webs.push(web);
            }
        }
        w.start.push(w.webs.len() as u32);
        w.canonical_numbering(input);
        Ok(w)
    }

    /// Renumbers the webs by a key statement order does not change: the
    /// var, then the first block defining it, then which definition of the
    /// var it is there (definitions of one var keep their order under any
    /// legal reordering); entry definitions first. So web ids — the names
    /// the allocator ranks by — are the same for every statement order of
    /// the same blocks.
    fn canonical_numbering<G: Graph, C: VarCode>(&mut self, input: &Input<'_, G, C>) {
        let n = self.web_var.len();
        let mut key: Vec<(u32, u32, u32)> = (0..n).map(|w| (self.web_var[w], u32::MAX, u32::MAX)).collect();
        for &w in &self.entry_webs {
            key[w as usize] = (self.web_var[w as usize], 0, 0);
        }
        // Per var: the block whose definitions `count` counts, and how many
        // of them came before (a direct index: a block may define 10^5
        // distinct vars).
        let mut counted: Vec<(Node, u32)> = vec![(Node::MAX, 0); input.num_vars()];
        for b in 0..input.num_blocks() as Node {
            for &i in input.block_insts(b) {
                for (&var, &web) in input.defs(i).iter().zip(self.defs(i)) {
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
