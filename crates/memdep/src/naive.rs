//! The baseline: every use checked against every definition along the
//! paths that reach it, by a backward search per site.
//!
//! From just before the site's instruction, walk instructions backward
//! with the set of elements still unaccounted for; a definition that may
//! write one of them is a dependence; a certain write of an exact range
//! removes its elements (they are defined there on this path); at a
//! block's top, continue into every reachable predecessor with the
//! elements not yet searched from that predecessor's end (a search is a
//! union over elements, so searching an element twice from one point adds
//! nothing). Anti-dependences search the reads the same way (an
//! instruction's certain write also hides its own reads of those
//! elements). Affine offsets count as unknown (their bounds).
//!
//! This is the textbook method, tuned (element sets as interval lists, a
//! visited set per block rather than per path, buffers reused): O(sites ×
//! instructions × intervals). With `per_element` it searches each element
//! on its own: the byte-granular oracle of the `fuzzing` feature.

use crate::code::{InputError, MemCode, MemInput};
use crate::deps::MemDeps;
use crate::engine::{MemDep, Options, Parts};
use crate::sets::SetId;
use cfg_dom::{Graph, InstId, Node};

/// Memory dependences by the backward search per site (see the module
/// doc): flow, output and anti, affine offsets read as unknown. Equal to
/// [`crate::MemDep`] with `symbolic: false`.
pub fn naive<G: Graph, C: MemCode>(graph: &G, code: &C) -> Result<MemDeps, InputError> {
    Naive::default().compute(graph, code)
}

/// The baseline's context, reused across functions (like [`MemDep`]).
#[derive(Clone, Debug, Default)]
pub struct Naive {
    ctx: MemDep,
    scratch: Scratch,
}

impl Naive {
    /// A context.
    pub fn new() -> Naive {
        Naive::default()
    }

    /// Dependences of `code` on `graph` by backward search.
    pub fn compute<G: Graph, C: MemCode>(&mut self, graph: &G, code: &C) -> Result<MemDeps, InputError> {
        self.run(graph, code, false)
    }

    pub(crate) fn run<G: Graph, C: MemCode>(
        &mut self,
        graph: &G,
        code: &C,
        per_element: bool,
    ) -> Result<MemDeps, InputError> {
        let want = Options { anti_and_output: true, symbolic: false, loop_carried: false, ..Options::default() };
        if self.ctx.options() != want {
            self.ctx = MemDep::with_options(want);
        }
        let mut buffers = std::mem::take(&mut self.ctx.input);
        let result = MemInput::new(graph, code, &mut buffers).map(|input| {
            self.ctx.prepare(&input);
            search_all(&input, self.ctx.parts(), &mut self.scratch, per_element);
            self.ctx.finish(&input)
        });
        self.ctx.input = buffers;
        result
    }
}

/// Element sets: per object, sorted disjoint half-open intervals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Elems {
    per_obj: Vec<Vec<(i64, i64)>>,
}

impl Elems {
    fn clear(&mut self) {
        for v in &mut self.per_obj {
            v.clear();
        }
    }

    fn is_empty(&self) -> bool {
        self.per_obj.iter().all(Vec::is_empty)
    }

    fn obj(&self, o: u32) -> &[(i64, i64)] {
        self.per_obj.get(o as usize).map_or(&[], Vec::as_slice)
    }

    fn add(&mut self, o: u32, lo: i64, hi: i64) {
        if lo >= hi {
            return;
        }
        if self.per_obj.len() <= o as usize {
            self.per_obj.resize_with(o as usize + 1, Vec::new);
        }
        let v = &mut self.per_obj[o as usize];
        v.push((lo, hi));
        v.sort_unstable();
        let mut out: Vec<(i64, i64)> = Vec::with_capacity(v.len());
        for &(a, b) in v.iter() {
            match out.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        *v = out;
    }

    fn meets(&self, o: u32, lo: i64, hi: i64) -> bool {
        lo < hi && self.obj(o).iter().any(|&(a, b)| a < hi && lo < b)
    }

    fn remove(&mut self, o: u32, lo: i64, hi: i64) {
        let Some(v) = self.per_obj.get_mut(o as usize) else { return };
        if lo >= hi {
            return;
        }
        let mut out = Vec::with_capacity(v.len() + 1);
        for &(a, b) in v.iter() {
            if b <= lo || hi <= a {
                out.push((a, b));
                continue;
            }
            if a < lo {
                out.push((a, lo));
            }
            if hi < b {
                out.push((hi, b));
            }
        }
        *v = out;
    }

    /// `self ∖ other`.
    fn minus(&self, other: &Elems) -> Elems {
        let mut r = self.clone();
        for (o, v) in other.per_obj.iter().enumerate() {
            for &(a, b) in v {
                r.remove(o as u32, a, b);
            }
        }
        r
    }

    fn union_with(&mut self, other: &Elems) {
        for (o, v) in other.per_obj.iter().enumerate() {
            for &(a, b) in v {
                self.add(o as u32, a, b);
            }
        }
    }
}

/// Reused memory of the searches.
#[derive(Clone, Debug, Default)]
struct Scratch {
    visited: Vec<Elems>,
    found: Vec<u32>,
    work: Vec<(Node, usize, Elems)>,
    /// For the one-element search: a stamp per block, and the work list.
    seen: Vec<u64>,
    stamp: u64,
    path: Vec<(Node, usize)>,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    /// Collect definitions (flow and output dependences).
    Defs,
    /// Collect reads (anti-dependences).
    Reads,
}

/// The elements a site touches (`None`: every element).
fn extent(p: &Parts<'_>, shape_index: u32) -> Option<(u32, i64, i64)> {
    (shape_index != u32::MAX).then(|| {
        let s = &p.shapes[shape_index as usize];
        (s.obj, s.lo, s.hi)
    })
}

fn search_all<G: Graph>(input: &MemInput<'_, G>, p: Parts<'_>, scratch: &mut Scratch, per_element: bool) {
    let n = input.num_blocks();
    scratch.visited.resize_with(n, Elems::default);
    let everything = {
        let mut e = Elems::default();
        for o in 0..input.num_objects() as u32 {
            e.add(o, 0, i64::try_from(input.object_len(o)).unwrap_or(i64::MAX));
        }
        e
    };
    let elems_of = |x: Option<(u32, i64, i64)>| -> Elems {
        match x {
            None => everything.clone(),
            Some((o, lo, hi)) => {
                let mut e = Elems::default();
                e.add(o, lo, hi);
                e
            }
        }
    };
    // Where each instruction is: its block and position.
    let mut pos: Vec<(Node, usize)> = vec![(u32::MAX, 0); input.num_insts()];
    for b in 0..n as Node {
        for (k, &i) in input.block_insts(b).iter().enumerate() {
            pos[i as usize] = (b, k);
        }
    }
    for u in 0..p.sites.uses.len() {
        if !p.sites.use_live[u] {
            continue;
        }
        let inst = p.sites.uses[u].inst;
        let r = elems_of(extent(&p, p.use_shape[u]));
        query(input, &p, scratch, pos[inst as usize], r, Mode::Defs, per_element);
        p.flow[u] = set_of(p.sets, &mut scratch.found);
    }
    if p.output.is_empty() {
        return;
    }
    for d in 0..p.sites.defs.len() {
        if !p.sites.def_live[d] {
            continue;
        }
        let inst = p.sites.defs[d].inst;
        let r = elems_of(extent(&p, p.def_shape[d]));
        query(input, &p, scratch, pos[inst as usize], r.clone(), Mode::Defs, per_element);
        p.output[d] = set_of(p.sets, &mut scratch.found);
        query(input, &p, scratch, pos[inst as usize], r, Mode::Reads, per_element);
        p.anti[d] = set_of(p.sets, &mut scratch.found);
    }
}

/// Interns a list of ids (sorted and deduplicated here).
fn set_of(sets: &mut crate::sets::SetTable, buf: &mut Vec<u32>) -> SetId {
    buf.sort_unstable();
    buf.dedup();
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &x in buf.iter() {
        match ranges.last_mut() {
            Some(r) if r.1 == x => r.1 = x + 1,
            _ => ranges.push((x, x + 1)),
        }
    }
    buf.clear();
    sets.intern(&ranges)
}

/// The sites found from just before the instruction at `at` with elements
/// `r` (into `scratch.found`), element by element when `per_element`.
fn query<G: Graph>(
    input: &MemInput<'_, G>,
    p: &Parts<'_>,
    scratch: &mut Scratch,
    at: (Node, usize),
    r: Elems,
    mode: Mode,
    per_element: bool,
) {
    if !per_element {
        search(input, p, scratch, at, r, mode);
        return;
    }
    for (o, v) in r.per_obj.iter().enumerate() {
        for &(a, b) in v {
            for x in a..b {
                search_element(input, p, scratch, at, (o as u32, x), mode);
            }
        }
    }
}

/// The search for one element: the plain textbook walk (a block is
/// entered from its end at most once).
fn search_element<G: Graph>(
    input: &MemInput<'_, G>,
    p: &Parts<'_>,
    scratch: &mut Scratch,
    at: (Node, usize),
    (o, x): (u32, i64),
    mode: Mode,
) {
    let covers = |k: u32| {
        k == u32::MAX || (p.shapes[k as usize].obj == o && p.shapes[k as usize].lo <= x && x < p.shapes[k as usize].hi)
    };
    scratch.stamp += 1;
    let stamp = scratch.stamp;
    scratch.seen.resize(input.num_blocks(), 0);
    scratch.path.clear();
    scratch.path.push((at.0, at.1));
    while let Some((b, end)) = scratch.path.pop() {
        let mut killed = false;
        for &i in input.block_insts(b)[..end].iter().rev() {
            let defs = p.sites.defs_of_inst(i);
            // Is the element certainly written here?
            let kills = defs.iter().any(|&d| {
                let k = p.def_shape[d as usize];
                let site = p.sites.defs[d as usize];
                k != u32::MAX
                    && p.shapes[k as usize].exact
                    && covers(k)
                    && !input.effects(i).guarded
                    && !input.accesses(i)[site.access as usize].may
            });
            match mode {
                Mode::Defs => scratch.found.extend(defs.iter().copied().filter(|&d| covers(p.def_shape[d as usize]))),
                Mode::Reads if !kills => scratch
                    .found
                    .extend(p.sites.uses_of_inst(i).iter().copied().filter(|&u| covers(p.use_shape[u as usize]))),
                Mode::Reads => {}
            }
            if kills {
                killed = true;
                break;
            }
        }
        if killed {
            continue;
        }
        for q in input.graph().predecessors(b) {
            if p.dfs.is_reachable(q) && scratch.seen[q as usize] != stamp {
                scratch.seen[q as usize] = stamp;
                scratch.path.push((q, input.block_insts(q).len()));
            }
        }
    }
}

fn search<G: Graph>(
    input: &MemInput<'_, G>,
    p: &Parts<'_>,
    scratch: &mut Scratch,
    at: (Node, usize),
    r: Elems,
    mode: Mode,
) {
    let graph = input.graph();
    for v in &mut scratch.visited {
        v.clear();
    }
    scratch.work.clear();
    scratch.work.push((at.0, at.1, r));
    while let Some((b, end, mut r)) = scratch.work.pop() {
        let insts: &[InstId] = &input.block_insts(b)[..end];
        let mut live = true;
        for &i in insts.iter().rev() {
            let defs = p.sites.defs_of_inst(i);
            // Certain writes of exact ranges: the elements defined here.
            let mut killed = Elems::default();
            for &d in defs {
                let k = p.def_shape[d as usize];
                if k == u32::MAX {
                    continue;
                }
                let s = &p.shapes[k as usize];
                let site = p.sites.defs[d as usize];
                let certain = !input.effects(i).guarded && !input.accesses(i)[site.access as usize].may;
                if certain && s.exact {
                    killed.add(s.obj, s.lo, s.hi);
                }
            }
            match mode {
                Mode::Defs => {
                    for &d in defs {
                        let hit = match extent(p, p.def_shape[d as usize]) {
                            None => !r.is_empty(),
                            Some((o, lo, hi)) => r.meets(o, lo, hi),
                        };
                        if hit {
                            scratch.found.push(d);
                        }
                    }
                }
                Mode::Reads => {
                    let visible = r.minus(&killed);
                    for &u in p.sites.uses_of_inst(i) {
                        let hit = match extent(p, p.use_shape[u as usize]) {
                            None => !visible.is_empty(),
                            Some((o, lo, hi)) => visible.meets(o, lo, hi),
                        };
                        if hit {
                            scratch.found.push(u);
                        }
                    }
                }
            }
            r = r.minus(&killed);
            if r.is_empty() {
                live = false;
                break;
            }
        }
        if !live {
            continue;
        }
        for q in graph.predecessors(b) {
            if !p.dfs.is_reachable(q) {
                continue;
            }
            let fresh = r.minus(&scratch.visited[q as usize]);
            if fresh.is_empty() {
                continue;
            }
            scratch.visited[q as usize].union_with(&fresh);
            let len = input.block_insts(q).len();
            scratch.work.push((q, len, fresh));
        }
    }
}
