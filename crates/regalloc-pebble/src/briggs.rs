//! The baseline: Chaitin-Briggs graph colouring, on the same input trait,
//! with the same output, checker and interpreter tests as the pebble
//! allocator. It follows G. J. Chaitin et al., "Register allocation via
//! coloring" (Computer Languages, 1981) and Chaitin, "Register allocation &
//! spilling via graph coloring" (SIGPLAN '82), with the optimistic colouring
//! of P. Briggs, K. D. Cooper and L. Torczon, "Improvements to graph
//! coloring register allocation" (ACM TOPLAS, 1994); `docs/references.md`
//! has the full entries.
//!
//! - **Live ranges are webs** (Chaitin's "names"): definitions joined by a
//!   use they both reach ([`crate::webs`], the partition `defuse`'s DU/UD
//!   chains give); every var live into the entry block gets an entry
//!   definition (params, and vars read before any definition). A guarded
//!   definition joins the web of what reaches it through any later use, so
//!   its tie to the old value holds.
//! - **Interference graph**: a backward walk per block over web-level
//!   liveness (`cfg-dom`'s [`cfg_dom::Liveness`] on the code renamed to
//!   webs); a definition interferes with every web live after it and with
//!   the other definitions of its instruction, except a copy's source
//!   (Chaitin's copy rule); the entry definitions interfere pairwise; only
//!   webs of one class interfere.
//! - **Spill costs** weighted by loop depth: each definition and use of a
//!   web costs `loop_weight^depth` of its block.
//! - **Simplify / select with optimistic colouring** (Briggs, Cooper and
//!   Torczon 1994): remove nodes of degree < `P`; when none is left, push
//!   the one with the least cost / degree as a potential spill; select pops
//!   and gives each node the lowest colour its coloured neighbours leave
//!   free, spilling only when none is.
//! - **Spill everywhere**: a spilled web lives in its own slot; each use
//!   loads into a fresh temporary register just before its instruction,
//!   each definition stores from one just after (a guarded definition
//!   loads the old value into the same temporary first). Temporaries are
//!   new tiny live ranges that never spill; the graph is rebuilt and
//!   coloured again until nothing more spills.
//!
//! The output is an [`Allocation`] in statement order (no reordering).
//! Invariant: [`crate::check`] accepts it.

use crate::class::{Loc, PReg, RegClass, Regs};
use crate::dag::NONE;
use crate::error::AllocError;
use crate::input::RegCode;
use crate::options::Options;
use crate::output::{Allocation, Costs, Edit, ProgPoint, SlotInfo};
use crate::webs::{WebView, Webs};
use cfg_dom::{Graph, Input, InputBuffers, InstId, Liveness, LoopForest, Node, VarId};

/// Allocates `code` on `graph` by Chaitin-Briggs (module doc), with the
/// registers, loop weight and memory budget of `options` (the pebble
/// allocator's other options do not apply). Functions whose liveness
/// matrices would exceed [`Options::max_memory`] are refused
/// ([`AllocError::TooLarge`]) before they are allocated, and so is an
/// interference graph that outgrows it ([`AllocError::InterferenceTooLarge`]).
pub fn allocate<G: Graph, C: RegCode>(graph: &G, code: &C, options: &Options) -> Result<Allocation, AllocError> {
    let (regs, loop_weight) = (options.regs, options.loop_weight);
    let mut buffers = InputBuffers::default();
    let input = Input::new(graph, code, &mut buffers)?;
    crate::error::check_size(&input, options.max_memory)?;
    for b in 0..input.num_blocks() as Node {
        for &i in input.block_insts(b) {
            if input.is_phi(i) {
                return Err(AllocError::Code(crate::block_dag::CodeError::Phi { inst: i }));
            }
        }
    }
    let loops = LoopForest::of(graph);
    let n = input.num_blocks();
    let ni = input.num_insts();
    let webs = Webs::compute_input(&input, options.max_memory)?;
    let nwebs = webs.len();
    let web_var: Vec<VarId> = (0..nwebs as u32).map(|w| webs.var_of(w)).collect();
    let (entry_live, entry_webs): (Vec<VarId>, Vec<u32>) = webs.entry().unzip();
    let mut blocks: Vec<Vec<InstId>> = vec![Vec::new(); n];
    let mut def_web: Vec<Vec<u32>> = vec![Vec::new(); ni];
    let mut use_web: Vec<Vec<u32>> = vec![Vec::new(); ni];
    let mut guarded = vec![false; ni];
    for b in 0..n as Node {
        blocks[b as usize] = input.block_insts(b).to_vec();
        for &i in input.block_insts(b) {
            guarded[i as usize] = input.is_guarded(i);
            def_web[i as usize] = webs.defs(i).to_vec();
            use_web[i as usize] = webs.uses(i).to_vec();
        }
    }
    let wc = WebView::new(code, &webs);
    let web_live = Liveness::of(graph, &wc)?;
    let wc = WebCode { nwebs, blocks: &blocks, def_web: &def_web, use_web: &use_web, guarded: &guarded };
    let weight: Vec<u64> =
        (0..n as Node).map(|b| loop_weight.max(1).saturating_pow(loops.loop_depth(b).min(18))).collect();
    let class: Vec<RegClass> = web_var.iter().map(|&x| code.class(x)).collect();
    let mut cost: Vec<u64> = vec![0; nwebs];
    for b in 0..n as Node {
        for &i in &blocks[b as usize] {
            for &w in def_web[i as usize].iter().chain(&use_web[i as usize]) {
                cost[w as usize] = cost[w as usize].saturating_add(weight[b as usize]);
            }
        }
    }
    let is_copy = |i: InstId| code.is_copy(i) && input.uses(i).len() == 1 && input.defs(i).len() == 1;
    // Colour, spill, repeat.
    let mut spilled = vec![false; nwebs];
    let (color, temps) = loop {
        let g = Interference::build(&wc, &web_live, &class, &spilled, &entry_webs, &is_copy, options.max_memory)?;
        match g.color(&class, &cost, regs, &spilled) {
            Ok(c) => break c,
            Err(Spill::Webs(ws)) => {
                for w in ws {
                    spilled[w as usize] = true;
                }
            }
            Err(Spill::Temp(i)) => {
                let b = input.block_of(i).unwrap_or(0);
                let c = g.temp_class(i);
                return Err(AllocError::TooFewRegisters {
                    block: b,
                    inst: i,
                    class: c,
                    needs: regs.get(c) + 1,
                    have: regs.get(c),
                });
            }
        }
    };
    // The allocation: operands, spill code, entry locations.
    let mut slot_of: Vec<u32> = vec![NONE; nwebs];
    let mut slots: Vec<SlotInfo> = Vec::new();
    let mut slot = |w: u32, slots: &mut Vec<SlotInfo>| -> u32 {
        if slot_of[w as usize] == NONE {
            slots.push(SlotInfo { home_of: Some(web_var[w as usize]), vars: vec![web_var[w as usize]] });
            slot_of[w as usize] = slots.len() as u32 - 1;
        }
        slot_of[w as usize]
    };
    let mut order_start = Vec::with_capacity(n + 1);
    let mut order = Vec::new();
    let mut alloc_start = Vec::with_capacity(ni + 1);
    let mut allocs = Vec::new();
    let mut per_inst: Vec<Vec<PReg>> = vec![Vec::new(); ni];
    let mut edits: Vec<(ProgPoint, Edit)> = Vec::new();
    let mut costs = Costs::default();
    for b in 0..n as Node {
        order_start.push(order.len() as u32);
        for (idx, &i) in blocks[b as usize].iter().enumerate() {
            order.push(i);
            let w = weight[b as usize];
            let regs_i = &mut per_inst[i as usize];
            let uses = input.uses(i);
            for (k, &uw) in use_web[i as usize].iter().enumerate() {
                let r = if spilled[uw as usize] {
                    let t = temps.use_temp(i, k as u32);
                    let r = PReg::new(class[uw as usize], t);
                    let e = Edit { from: Loc::Slot(slot(uw, &mut slots)), to: Loc::Reg(r), var: uses[k].var };
                    costs.add(e.kind(), w);
                    edits.push((ProgPoint::Before { block: b, index: idx as u32 }, e));
                    r
                } else {
                    PReg::new(class[uw as usize], color[uw as usize])
                };
                regs_i.push(r);
            }
            let defs = input.defs(i);
            for (k, &dw) in def_web[i as usize].iter().enumerate() {
                let r = if spilled[dw as usize] {
                    let t = temps.def_temp(i, k as u32);
                    let r = PReg::new(class[dw as usize], t);
                    // A guarded definition nothing reads keeps no old
                    // value and saves nothing (its register may hold
                    // garbage when the guard fails).
                    let dead = guarded[i as usize] && webs.is_unread(dw);
                    if !dead {
                        let s = slot(dw, &mut slots);
                        if guarded[i as usize] {
                            let e = Edit { from: Loc::Slot(s), to: Loc::Reg(r), var: defs[k] };
                            costs.add(e.kind(), w);
                            edits.push((ProgPoint::Before { block: b, index: idx as u32 }, e));
                        }
                        let e = Edit { from: Loc::Reg(r), to: Loc::Slot(s), var: defs[k] };
                        costs.add(e.kind(), w);
                        edits.push((ProgPoint::Before { block: b, index: idx as u32 + 1 }, e));
                    }
                    r
                } else {
                    PReg::new(class[dw as usize], color[dw as usize])
                };
                regs_i.push(r);
            }
        }
    }
    order_start.push(order.len() as u32);
    for pi in per_inst.iter().take(ni) {
        alloc_start.push(allocs.len() as u32);
        allocs.extend_from_slice(pi);
    }
    alloc_start.push(allocs.len() as u32);
    edits.sort_by_key(|&(p, _)| p);
    let mut entry_locs: Vec<(VarId, Loc)> = Vec::new();
    for (k, &x) in entry_live.iter().enumerate() {
        let w = entry_webs[k];
        let loc = if spilled[w as usize] {
            Loc::Slot(slot(w, &mut slots))
        } else {
            Loc::Reg(PReg::new(class[w as usize], color[w as usize]))
        };
        entry_locs.push((x, loc));
    }
    let param_locs: Vec<Option<Loc>> =
        input.params().iter().map(|&p| entry_locs.iter().find(|&&(x, _)| x == p).map(|&(_, l)| l)).collect();
    let mut regs_used = [0u32; 2];
    let mut see = |r: PReg| {
        let u = &mut regs_used[r.class.index()];
        *u = (*u).max(r.index + 1);
    };
    allocs.iter().for_each(|&r| see(r));
    for (_, e) in &edits {
        for l in [e.from, e.to] {
            if let Loc::Reg(r) = l {
                see(r);
            }
        }
    }
    for (_, l) in &entry_locs {
        if let Loc::Reg(r) = *l {
            see(r);
        }
    }
    Ok(Allocation {
        order_start,
        order,
        alloc_start,
        allocs,
        edits,
        param_locs,
        entry_locs,
        slots,
        regs_used,
        costs,
        globals: Vec::new(),
        local_regs: None,
    })
}

/// Bytes one distinct interference edge costs while the graph is built:
/// its pair in the edge list, counted twice because the list may hold up
/// to twice the distinct edges before it is compacted (2 × 8), and an
/// entry in each endpoint's adjacency (2 × 4) (`Interference::build`).
const EDGE_BYTES: u64 = 2 * 8 + 2 * 4;

/// The renamed code as flat tables, for the interference walk.
struct WebCode<'a> {
    nwebs: usize,
    blocks: &'a [Vec<InstId>],
    def_web: &'a [Vec<u32>],
    use_web: &'a [Vec<u32>],
    guarded: &'a [bool],
}

/// Why colouring failed.
enum Spill {
    /// These webs spill (actual spills of this round).
    Webs(Vec<u32>),
    /// A temporary found no colour: the instruction needs more registers
    /// than there are.
    Temp(InstId),
}

/// Temporaries of spilled webs, per instruction, and their colours.
#[derive(Default)]
struct Temps {
    /// (inst, is_def, index) -> colour, sorted.
    colour: Vec<((InstId, bool, u32), u32)>,
}

impl Temps {
    fn get(&self, key: (InstId, bool, u32)) -> u32 {
        let k = self.colour.binary_search_by_key(&key, |&(k, _)| k).expect("every temporary is coloured");
        self.colour[k].1
    }
    fn use_temp(&self, i: InstId, k: u32) -> u32 {
        self.get((i, false, k))
    }
    fn def_temp(&self, i: InstId, k: u32) -> u32 {
        self.get((i, true, k))
    }
}

/// The interference graph over webs and the temporaries of spilled webs.
struct Interference {
    nwebs: usize,
    adj: Vec<Vec<u32>>,
    /// Temporary node ids from `nwebs`: (inst, is_def, index, class).
    temps: Vec<(InstId, bool, u32, RegClass)>,
}

impl Interference {
    fn build(
        wc: &WebCode<'_>,
        live: &Liveness,
        class: &[RegClass],
        spilled: &[bool],
        entry: &[u32],
        is_copy: &impl Fn(InstId) -> bool,
        max_memory: u64,
    ) -> Result<Interference, AllocError> {
        let nwebs = wc.nwebs;
        // At most `max_edges` distinct edges fit the budget (EDGE_BYTES
        // each). The list, which may repeat edges, is compacted (sorted,
        // duplicates dropped) whenever it doubles past its last compacted
        // length, so it never holds more than twice `max_edges` pairs; an
        // edge count over `max_edges` after compaction is refused.
        let max_edges = (max_memory / EDGE_BYTES).min(usize::MAX as u64 / 2) as usize;
        let mut compact_at = (1usize << 20).min(max_edges.saturating_mul(2)).max(1);
        let mut g = Interference { nwebs, adj: vec![Vec::new(); nwebs], temps: Vec::new() };
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let add = |edges: &mut Vec<(u32, u32)>, a: u32, b: u32, cls: &dyn Fn(u32) -> RegClass| {
            if a != b && cls(a) == cls(b) {
                edges.push((a.min(b), a.max(b)));
            }
        };
        let mut temp_class: Vec<RegClass> = Vec::new();
        let mut live_set: Vec<bool> = vec![false; nwebs];
        let mut live_list: Vec<u32> = Vec::new();
        for b in 0..wc.blocks.len() as Node {
            live_list.clear();
            for w in live.live_out(b) {
                if !spilled[w as usize] {
                    live_set[w as usize] = true;
                    live_list.push(w);
                }
            }
            for &i in wc.blocks[b as usize].iter().rev() {
                let defs = &wc.def_web[i as usize];
                let uses = &wc.use_web[i as usize];
                // Definitions (temporaries for spilled ones, which live from
                // the instruction to the store after it).
                let mut def_nodes: Vec<u32> = Vec::with_capacity(defs.len());
                for (k, &d) in defs.iter().enumerate() {
                    if spilled[d as usize] {
                        let t = (nwebs + g.temps.len()) as u32;
                        g.temps.push((i, true, k as u32, class[d as usize]));
                        temp_class.push(class[d as usize]);
                        def_nodes.push(t);
                    } else {
                        def_nodes.push(d);
                    }
                }
                let cls =
                    |x: u32| if (x as usize) < nwebs { class[x as usize] } else { temp_class[x as usize - nwebs] };
                let copy_src = if is_copy(i) { uses.first().copied() } else { None };
                for &d in &def_nodes {
                    live_list.retain(|&w| live_set[w as usize]);
                    for &w in &live_list {
                        if Some(w) != copy_src {
                            add(&mut edges, d, w, &cls);
                        }
                    }
                    for &e in &def_nodes {
                        add(&mut edges, d, e, &cls);
                    }
                }
                if !wc.guarded[i as usize] {
                    for &d in defs {
                        if !spilled[d as usize] {
                            live_set[d as usize] = false;
                        }
                    }
                }
                live_list.retain(|&w| live_set[w as usize]);
                // Uses (temporaries for spilled ones, live from the load
                // before the instruction to it). A guarded definition of a
                // spilled web loads the old value into its own temporary,
                // which is live before the instruction too.
                let mut before: Vec<u32> = Vec::new();
                for (k, &u) in uses.iter().enumerate() {
                    if spilled[u as usize] {
                        let t = (nwebs + g.temps.len()) as u32;
                        g.temps.push((i, false, k as u32, class[u as usize]));
                        temp_class.push(class[u as usize]);
                        before.push(t);
                    } else if !live_set[u as usize] {
                        live_set[u as usize] = true;
                        live_list.push(u);
                    }
                }
                if wc.guarded[i as usize] {
                    before.extend(def_nodes.iter().copied().filter(|&d| d as usize >= nwebs));
                }
                let cls =
                    |x: u32| if (x as usize) < nwebs { class[x as usize] } else { temp_class[x as usize - nwebs] };
                for (k, &t) in before.iter().enumerate() {
                    for &w in &live_list {
                        add(&mut edges, t, w, &cls);
                    }
                    for &o in &before[..k] {
                        add(&mut edges, t, o, &cls);
                    }
                    for &u in uses {
                        if !spilled[u as usize] {
                            add(&mut edges, t, u, &cls);
                        }
                    }
                }
                if edges.len() >= compact_at {
                    edges.sort_unstable();
                    edges.dedup();
                    if edges.len() > max_edges {
                        return Err(AllocError::InterferenceTooLarge {
                            block: b,
                            nodes: nwebs + g.temps.len(),
                            edges: edges.len() as u64,
                            bytes: (edges.len() as u64).saturating_mul(EDGE_BYTES),
                            limit: max_memory,
                        });
                    }
                    compact_at = edges.len().saturating_mul(2).max(1 << 20).min(max_edges.saturating_mul(2)).max(1);
                }
            }
            for &w in &live_list {
                live_set[w as usize] = false;
            }
            for w in live.live_out(b) {
                live_set[w as usize] = false;
            }
        }
        // Entry definitions are all live at once.
        let live_entry: Vec<u32> = entry.iter().copied().filter(|&w| !spilled[w as usize]).collect();
        let cls = |x: u32| if (x as usize) < nwebs { class[x as usize] } else { temp_class[x as usize - nwebs] };
        for (k, &a) in live_entry.iter().enumerate() {
            for &b in &live_entry[..k] {
                add(&mut edges, a, b, &cls);
            }
        }
        edges.sort_unstable();
        edges.dedup();
        if edges.len() > max_edges {
            return Err(AllocError::InterferenceTooLarge {
                block: wc.blocks.len().saturating_sub(1) as Node,
                nodes: nwebs + g.temps.len(),
                edges: edges.len() as u64,
                bytes: (edges.len() as u64).saturating_mul(EDGE_BYTES),
                limit: max_memory,
            });
        }
        g.adj = vec![Vec::new(); nwebs + g.temps.len()];
        for (a, b) in edges {
            g.adj[a as usize].push(b);
            g.adj[b as usize].push(a);
        }
        Ok(g)
    }

    fn temp_class(&self, i: InstId) -> RegClass {
        self.temps.iter().find(|t| t.0 == i).map_or(RegClass::Scalar, |t| t.3)
    }

    /// Briggs' simplify / select. Temporaries never spill.
    fn color(
        &self,
        class: &[RegClass],
        cost: &[u64],
        regs: Regs,
        spilled: &[bool],
    ) -> Result<(Vec<u32>, Temps), Spill> {
        let total = self.adj.len();
        let cls = |x: usize| if x < self.nwebs { class[x] } else { self.temps[x - self.nwebs].3 };
        let k_of = |x: usize| regs.get(cls(x)) as usize;
        let active: Vec<bool> = (0..total).map(|x| x >= self.nwebs || !spilled[x]).collect();
        let mut degree: Vec<usize> =
            (0..total).map(|x| self.adj[x].iter().filter(|&&y| active[y as usize]).count()).collect();
        let mut removed = vec![false; total];
        let mut stack: Vec<u32> = Vec::with_capacity(total);
        let mut left: usize = active.iter().filter(|&&a| a).count();
        // Low-degree worklist.
        let mut low: Vec<u32> =
            (0..total as u32).filter(|&x| active[x as usize] && degree[x as usize] < k_of(x as usize)).collect();
        while left > 0 {
            let pick = loop {
                match low.pop() {
                    Some(x) if !removed[x as usize] => break Some(x),
                    Some(_) => continue,
                    None => break None,
                }
            };
            let x = match pick {
                Some(x) => x,
                None => {
                    // Potential spill: least cost / degree (temporaries last).
                    let mut best: Option<(u32, u64, usize)> = None;
                    for x in 0..total {
                        if !active[x] || removed[x] {
                            continue;
                        }
                        let c = if x < self.nwebs { cost[x] } else { u64::MAX };
                        let d = degree[x].max(1);
                        let better = match best {
                            None => true,
                            // c / d < bc / bd
                            Some((_, bc, bd)) => (c as u128) * (bd as u128) < (bc as u128) * (d as u128),
                        };
                        if better {
                            best = Some((x as u32, c, d));
                        }
                    }
                    best.expect("a node is left").0
                }
            };
            removed[x as usize] = true;
            left -= 1;
            stack.push(x);
            for &y in &self.adj[x as usize] {
                let y = y as usize;
                if active[y] && !removed[y] {
                    degree[y] -= 1;
                    if degree[y] + 1 == k_of(y) {
                        low.push(y as u32);
                    }
                }
            }
        }
        let mut color: Vec<u32> = vec![NONE; total];
        let mut actual: Vec<u32> = Vec::new();
        let mut used: Vec<bool> = Vec::new();
        while let Some(x) = stack.pop() {
            used.clear();
            used.resize(k_of(x as usize), false);
            for &y in &self.adj[x as usize] {
                let c = color[y as usize];
                if c != NONE && (c as usize) < used.len() {
                    used[c as usize] = true;
                }
            }
            match used.iter().position(|&u| !u) {
                Some(c) => color[x as usize] = c as u32,
                None if (x as usize) < self.nwebs => actual.push(x),
                None => return Err(Spill::Temp(self.temps[x as usize - self.nwebs].0)),
            }
        }
        if !actual.is_empty() {
            return Err(Spill::Webs(actual));
        }
        let mut temps = Temps::default();
        for (k, t) in self.temps.iter().enumerate() {
            temps.colour.push(((t.0, t.1, t.2), color[self.nwebs + k]));
        }
        temps.colour.sort_unstable();
        color.truncate(self.nwebs);
        Ok((color, temps))
    }
}
