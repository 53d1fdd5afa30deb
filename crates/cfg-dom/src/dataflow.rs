//! A dataflow framework over any [`Graph`]: a general solver for monotone
//! analyses over a join-semilattice ([`Analysis`], [`DataflowResults`]) and
//! a fast specialised solver for gen/kill problems over bitsets
//! ([`GenKill`], [`BitDataflow`]).
//!
//! Algorithm: the iterative worklist solution of monotone frameworks (G. A.
//! Kildall, "A unified approach to global program optimization", POPL 1973;
//! J. B. Kam and J. D. Ullman, "Monotone data flow analysis frameworks",
//! Acta Informatica 7, 1977; Aho, Lam, Sethi and Ullman, *Compilers*, 2nd
//! ed., §9.2–9.3). It reaches the least fixed point of the equations above
//! the initial states (Kam and Ullman's "maximal fixed point", MFP, in
//! their meet-lattice terms); for gen/kill problems, which are
//! distributive, that is the meet over all paths. The
//! design follows rustc's `rustc_mir_dataflow` (an analysis names its domain,
//! a join-semilattice, its direction, its boundary value and its block
//! transfer function; the engine iterates a worklist seeded in reverse
//! postorder for forward problems and postorder for backward ones), and the
//! visiting order is that of K. D. Cooper, T. J. Harvey and K. Kennedy,
//! "Iterative data-flow analysis, revisited" (2004).
//!
//! Invariants and conventions, for both solvers:
//! - Every node has two states: its **in** state, at the top of the block
//!   (before its first instruction), and its **out** state, at its bottom.
//!   This holds in both directions: a backward problem computes `in` from
//!   `out` (`in = gen ∪ (out − kill)`, liveness' live-in) and a forward one
//!   `out` from `in`.
//! - The **boundary** value enters at the graph's entry (forward: it is
//!   joined into the entry's in state) or at every exit, a node without
//!   successors (backward: it is joined into the exit's out state).
//! - The **scope** ([`Scope`]) says which nodes are solved: those reachable
//!   from the entry (rustc's and Hoopl's choice for forward problems), or
//!   all nodes (GHC's Hoopl, note "Unreachable blocks" in `Dataflow.hs`: a
//!   backward fixpoint must treat every block as reachable). Nodes outside the
//!   scope keep their initial state and never contribute to their
//!   neighbours: [`Analysis::bottom`] in the general form, the empty set in
//!   the bitset form (the bottom of a may-problem; for a must-problem it
//!   means "nothing is known": no path from the entry reaches them, which
//!   is also what [`crate::DomTree`] says of unreachable nodes).
//! - The worklist is an in-queue bitset over positions in the visiting
//!   order (reverse postorder forward, postorder backward, of one DFS from
//!   the entry, then, for [`Scope::All`], from each still-unvisited node in
//!   id order). It always takes the next dirty position at or after the
//!   last one taken, wrapping round: sweeps in the visiting order over the
//!   dirty nodes only. So the result and the number of visits are
//!   deterministic, and the bitset solver's loop allocates nothing (the
//!   general one only through the domain's `clone_from` and the
//!   analysis' own code).
//! - Nothing recurses; successor ids out of range are ignored; queries on
//!   nodes or elements out of range answer "empty", never panic.
//!
//! # The bitset representation
//!
//! [`GenKill`] and [`BitDataflow`] store each family of sets (gen, kill,
//! in, out) as **one flat `Vec<u64>` matrix**: row `n` is words
//! `n * w .. (n + 1) * w` where `w = ceil(domain / 64)`. Compared with one
//! `FixedBitSet` per node, that is one allocation per family instead of one
//! per node, no per-set header or pointer chase, rows of neighbouring nodes
//! adjacent in memory (a chain of blocks walks the matrix linearly), and
//! every operation of the fixpoint loop (confluence, transfer, change test)
//! a loop over `w` words that the compiler vectorises. Bits past the
//! domain in the last word of a row are always zero.

use crate::graph::{Graph, NONE, Node};
use fixedbitset::FixedBitSet;
use ir_core::Epoch;

/// Which way information flows.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Direction {
    /// From the entry along edges: a node's in state is the confluence of
    /// its predecessors' out states.
    Forward,
    /// Against edges, from the exits: a node's out state is the confluence
    /// of its successors' in states.
    Backward,
}

/// How the states of several neighbours combine, for [`GenKill`] problems.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Confluence {
    /// Union: an element holds if it holds along some path (liveness,
    /// reaching definitions). States start empty.
    May,
    /// Intersection: an element holds if it holds along every path
    /// (available expressions, dominators). States of solved nodes start
    /// full.
    Must,
}

/// Which nodes a solver computes states for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Scope {
    /// Nodes reachable from the entry; others keep the empty state. With
    /// no entry, nothing is solved.
    Reachable,
    /// Every node. Forward, a node without predecessors other than the
    /// entry gets the confluence of nothing (empty for may, full for must).
    All,
}

/// A join-semilattice: a partial order in which any two elements have a
/// least upper bound. The dataflow domain of an [`Analysis`].
///
/// The solver needs `join` to be the least upper bound (commutative,
/// associative, idempotent), `bottom` (see [`Analysis::bottom`]) to be its
/// identity, and ascending chains to be finite.
pub trait JoinSemiLattice: Eq {
    /// Sets `self` to the join of `self` and `other`; true when `self`
    /// changed.
    fn join(&mut self, other: &Self) -> bool;
}

/// `false < true`: join is "or".
impl JoinSemiLattice for bool {
    fn join(&mut self, other: &bool) -> bool {
        let changed = !*self && *other;
        *self |= *other;
        changed
    }
}

/// Sets ordered by inclusion: join is union (the set grows if `other` is
/// longer).
impl JoinSemiLattice for FixedBitSet {
    fn join(&mut self, other: &FixedBitSet) -> bool {
        if other.is_subset(self) {
            return false;
        }
        self.union_with(other);
        true
    }
}

/// `None` below every `Some`: adds a new bottom ("not reached yet") to any
/// lattice.
impl<T: JoinSemiLattice + Clone> JoinSemiLattice for Option<T> {
    fn join(&mut self, other: &Option<T>) -> bool {
        match (self.as_mut(), other) {
            (_, None) => false,
            (None, Some(o)) => {
                *self = Some(o.clone());
                true
            }
            (Some(s), Some(o)) => s.join(o),
        }
    }
}

/// A monotone dataflow analysis, solved by [`DataflowResults::compute`].
///
/// For a forward analysis, `transfer_block` maps a node's in state to its
/// out state; for a backward one, its out state to its in state. It must be
/// monotone, or the solver may not terminate.
pub trait Analysis {
    /// The states: a join-semilattice with finite ascending chains.
    type Domain: JoinSemiLattice + Clone;

    /// Forward or backward.
    const DIRECTION: Direction;

    /// Which nodes are solved; by default those reachable from the entry.
    const SCOPE: Scope = Scope::Reachable;

    /// The bottom of the lattice (the identity of join): every state starts
    /// here, and nodes outside the scope keep it.
    fn bottom(&self) -> Self::Domain;

    /// Sets the boundary state, given as bottom: the in state of the entry
    /// (forward) or the out state of each exit, a node without successors
    /// (backward).
    fn boundary(&self, state: &mut Self::Domain);

    /// Applies the effect of the whole of `node` to `state`.
    fn transfer_block(&self, node: Node, state: &mut Self::Domain);
}

/// The worklist shared by both solvers: the visiting order, each node's
/// position in it, and the in-queue bitset over positions.
#[derive(Clone, Debug, Default)]
struct Worklist {
    /// Solved nodes in visiting order.
    order: Vec<Node>,
    /// Position of each node in `order`; `NONE` outside the scope.
    pos: Vec<u32>,
    /// Bit `i` set: `order[i]` is waiting.
    dirty: Vec<u64>,
    pending: usize,
    cursor: usize,
    stack: Vec<(Node, bool)>,
    buf: Vec<Node>,
}

impl Worklist {
    fn clear(&mut self) {
        self.order.clear();
        self.pos.clear();
        self.dirty.clear();
        self.pending = 0;
        self.cursor = 0;
        self.stack.clear();
        self.buf.clear();
    }

    /// The order for `direction` over the nodes of `scope`, all dirty.
    fn build(&mut self, g: &impl Graph, n: usize, direction: Direction, scope: Scope) {
        self.clear();
        self.pos.resize(n, NONE);
        if let Some(entry) = g.entry().filter(|&e| (e as usize) < n) {
            self.postorder_from(g, n, entry);
        }
        if scope == Scope::All {
            for root in 0..n as Node {
                if self.pos[root as usize] == NONE {
                    self.postorder_from(g, n, root);
                }
            }
        }
        if direction == Direction::Forward {
            self.order.reverse();
        }
        for (i, &v) in self.order.iter().enumerate() {
            self.pos[v as usize] = i as u32;
        }
        let m = self.order.len();
        self.dirty.resize(m.div_ceil(64), !0);
        if !m.is_multiple_of(64)
            && let Some(last) = self.dirty.last_mut()
        {
            *last = (1u64 << (m % 64)) - 1;
        }
        self.pending = m;
    }

    /// Appends the postorder of a DFS from `root` over unvisited nodes;
    /// `pos` marks visited nodes (0) until `build` numbers them.
    fn postorder_from(&mut self, g: &impl Graph, n: usize, root: Node) {
        self.stack.push((root, false));
        while let Some((v, exit)) = self.stack.pop() {
            if exit {
                self.order.push(v);
                continue;
            }
            if self.pos[v as usize] != NONE {
                continue;
            }
            self.pos[v as usize] = 0;
            self.stack.push((v, true));
            self.buf.clear();
            let pos = &self.pos;
            self.buf.extend(g.successors(v).filter(|&s| (s as usize) < n && pos[s as usize] == NONE));
            self.stack.extend(self.buf.iter().rev().map(|&s| (s, false)));
        }
    }

    fn in_scope(&self, v: Node) -> bool {
        self.pos.get(v as usize).is_some_and(|&p| p != NONE)
    }

    /// Queues `v` if it is solved and not already waiting.
    fn push(&mut self, v: Node) {
        let Some(&p) = self.pos.get(v as usize) else { return };
        if p == NONE {
            return;
        }
        let (w, bit) = (p as usize / 64, 1u64 << (p % 64));
        if self.dirty[w] & bit == 0 {
            self.dirty[w] |= bit;
            self.pending += 1;
        }
    }

    /// The next waiting node at or after the cursor, wrapping round.
    fn pop(&mut self) -> Option<Node> {
        while self.pending > 0 {
            match next_one(&self.dirty, self.cursor) {
                Some(p) => {
                    self.dirty[p / 64] &= !(1u64 << (p % 64));
                    self.pending -= 1;
                    self.cursor = p + 1;
                    return Some(self.order[p]);
                }
                None if self.cursor == 0 => {
                    // Unreachable: `pending` counts the set bits.
                    self.pending = 0;
                }
                None => self.cursor = 0,
            }
        }
        None
    }
}

/// The first set bit at index `>= from`.
fn next_one(words: &[u64], from: usize) -> Option<usize> {
    let mut i = from / 64;
    let mut w = *words.get(i)? & (!0u64 << (from % 64));
    loop {
        if w != 0 {
            return Some(i * 64 + w.trailing_zeros() as usize);
        }
        i += 1;
        w = *words.get(i)?;
    }
}

/// The results of an [`Analysis`]: an in and an out state per node.
///
/// Follows the crate's lifecycle (`new`, `of`, `compute` reusing buffers,
/// `clear`).
#[derive(Clone, Debug)]
pub struct DataflowResults<D> {
    ins: Vec<D>,
    outs: Vec<D>,
    work: Worklist,
    scratch: Option<D>,
    visits: u64,
    stamp: Option<Epoch>,
}

impl<D> Default for DataflowResults<D> {
    fn default() -> Self {
        DataflowResults {
            ins: Vec::new(),
            outs: Vec::new(),
            work: Worklist::default(),
            scratch: None,
            visits: 0,
            stamp: None,
        }
    }
}

impl<D: JoinSemiLattice + Clone> DataflowResults<D> {
    /// Empty results (no nodes).
    pub fn new() -> Self {
        Self::default()
    }

    /// Solves `analysis` on `g`.
    pub fn of<A: Analysis<Domain = D>>(g: &impl Graph, analysis: &A) -> Self {
        let mut r = Self::new();
        r.compute(g, analysis);
        r
    }

    /// Empties the results, keeping their buffers.
    pub fn clear(&mut self) {
        self.ins.clear();
        self.outs.clear();
        self.work.clear();
        self.visits = 0;
        self.stamp = None;
    }

    /// Solves `analysis` on `g` to its fixed point, reusing buffers.
    ///
    /// Each solved node is visited at least once; when its transfer result
    /// changes, it is joined into the neighbours downstream (successors
    /// forward, predecessors backward) and those whose state grew are
    /// queued again.
    pub fn compute<A: Analysis<Domain = D>>(&mut self, g: &impl Graph, analysis: &A) {
        self.clear();
        let n = g.num_nodes().min(NONE as usize);
        self.stamp = g.stamp();
        let bottom = analysis.bottom();
        self.ins.resize(n, bottom.clone());
        self.outs.resize(n, bottom.clone());
        self.work.build(g, n, A::DIRECTION, A::SCOPE);
        match A::DIRECTION {
            Direction::Forward => {
                if let Some(e) = g.entry().filter(|&e| self.work.in_scope(e)) {
                    analysis.boundary(&mut self.ins[e as usize]);
                }
            }
            Direction::Backward => {
                for i in 0..self.work.order.len() {
                    let v = self.work.order[i];
                    if !g.successors(v).any(|s| (s as usize) < n) {
                        analysis.boundary(&mut self.outs[v as usize]);
                    }
                }
            }
        }
        let mut scratch = self.scratch.take().unwrap_or_else(|| bottom.clone());
        while let Some(v) = self.work.pop() {
            self.visits += 1;
            let vi = v as usize;
            match A::DIRECTION {
                Direction::Forward => {
                    scratch.clone_from(&self.ins[vi]);
                    analysis.transfer_block(v, &mut scratch);
                    if scratch == self.outs[vi] {
                        continue;
                    }
                    self.outs[vi].clone_from(&scratch);
                    for s in g.successors(v) {
                        if self.work.in_scope(s) && self.ins[s as usize].join(&self.outs[vi]) {
                            self.work.push(s);
                        }
                    }
                }
                Direction::Backward => {
                    scratch.clone_from(&self.outs[vi]);
                    analysis.transfer_block(v, &mut scratch);
                    if scratch == self.ins[vi] {
                        continue;
                    }
                    self.ins[vi].clone_from(&scratch);
                    for p in g.predecessors(v) {
                        if self.work.in_scope(p) && self.outs[p as usize].join(&self.ins[vi]) {
                            self.work.push(p);
                        }
                    }
                }
            }
        }
        self.scratch = Some(scratch);
    }

    /// The state at the top of `n` (before its first instruction); `None`
    /// out of range.
    pub fn state_in(&self, n: Node) -> Option<&D> {
        self.ins.get(n as usize)
    }

    /// The state at the bottom of `n` (after its last instruction); `None`
    /// out of range.
    pub fn state_out(&self, n: Node) -> Option<&D> {
        self.outs.get(n as usize)
    }

    /// True when `n` was solved (it is in the analysis' scope).
    pub fn is_solved(&self, n: Node) -> bool {
        self.work.in_scope(n)
    }

    /// Number of nodes solved for (the graph's).
    pub fn num_nodes(&self) -> usize {
        self.ins.len()
    }

    /// Number of node visits the fixpoint took (at least one per solved
    /// node).
    pub fn visits(&self) -> u64 {
        self.visits
    }

    /// The stamp of the graph the results were computed on.
    pub fn stamp(&self) -> Option<Epoch> {
        self.stamp
    }
}

/// The shape of a [`GenKill`] problem: direction, confluence and scope.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Flow {
    /// Which way information flows.
    pub direction: Direction,
    /// Union or intersection.
    pub confluence: Confluence,
    /// Which nodes are solved.
    pub scope: Scope,
}

impl Flow {
    /// A flow over the nodes reachable from the entry.
    pub const fn new(direction: Direction, confluence: Confluence) -> Flow {
        Flow { direction, confluence, scope: Scope::Reachable }
    }

    /// The same flow over another scope.
    pub const fn with_scope(self, scope: Scope) -> Flow {
        Flow { scope, ..self }
    }
}

impl Default for Flow {
    /// Forward, may, reachable nodes.
    fn default() -> Flow {
        Flow::new(Direction::Forward, Confluence::May)
    }
}

/// A gen/kill problem over sets of `0..domain_size`: per node a gen and a
/// kill set, so that the transfer of node `n` is `out = gen ∪ (in − kill)`
/// forward and `in = gen ∪ (out − kill)` backward; a boundary set; and an
/// optional per-node **join-gen** set, united into the node's confluence
/// result after the confluence (its out state backward, its in state
/// forward), for facts that arise on the node's outgoing (backward) or
/// incoming (forward) edges whatever the neighbours say — liveness puts
/// there the phi operands its successors read at its end.
///
/// Solve it with [`BitDataflow`]. Sets are rows of flat word matrices (see
/// the module doc); element and node arguments out of range are ignored.
#[derive(Clone, Debug, Default)]
pub struct GenKill {
    flow: Flow,
    num_nodes: usize,
    domain: usize,
    words: usize,
    gens: Vec<u64>,
    kills: Vec<u64>,
    /// Empty until a join-gen bit is first inserted (then `num_nodes`
    /// rows).
    join_gens: Vec<u64>,
    boundary: Vec<u64>,
}

/// `(word, mask)` of element `e`.
fn bit(e: usize) -> (usize, u64) {
    (e / 64, 1u64 << (e % 64))
}

impl GenKill {
    /// An empty problem: no nodes, an empty domain, [`Flow::default`].
    pub fn new() -> GenKill {
        GenKill::default()
    }

    /// A problem of `num_nodes` nodes over `0..domain_size`, every set
    /// empty.
    pub fn with_size(flow: Flow, num_nodes: usize, domain_size: usize) -> GenKill {
        let mut p = GenKill::new();
        p.reset(flow, num_nodes, domain_size);
        p
    }

    /// Resizes to `num_nodes` nodes over `0..domain_size` with every set
    /// empty, reusing buffers.
    pub fn reset(&mut self, flow: Flow, num_nodes: usize, domain_size: usize) {
        self.clear();
        self.flow = flow;
        self.num_nodes = num_nodes;
        self.domain = domain_size;
        self.words = domain_size.div_ceil(64);
        let cells = num_nodes.saturating_mul(self.words);
        self.gens.resize(cells, 0);
        self.kills.resize(cells, 0);
        self.boundary.resize(self.words, 0);
    }

    /// Empties the problem (no nodes), keeping its buffers.
    pub fn clear(&mut self) {
        self.num_nodes = 0;
        self.domain = 0;
        self.words = 0;
        self.gens.clear();
        self.kills.clear();
        self.join_gens.clear();
        self.boundary.clear();
    }

    /// Direction, confluence and scope.
    pub fn flow(&self) -> Flow {
        self.flow
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.num_nodes
    }

    /// Size of the domain: elements are `0..domain_size()`.
    pub fn domain_size(&self) -> usize {
        self.domain
    }

    /// Words per row: `ceil(domain_size / 64)`.
    pub fn words_per_row(&self) -> usize {
        self.words
    }

    fn range(&self, n: Node) -> Option<core::ops::Range<usize>> {
        let n = n as usize;
        (n < self.num_nodes).then(|| n * self.words..(n + 1) * self.words)
    }

    fn set(matrix: &mut [u64], row: Option<core::ops::Range<usize>>, e: usize, domain: usize, on: bool) -> bool {
        let Some(row) = row.filter(|_| e < domain) else { return false };
        let (w, m) = bit(e);
        let Some(word) = matrix.get_mut(row.start + w) else { return false };
        let was = *word & m != 0;
        if on {
            *word |= m;
        } else {
            *word &= !m;
        }
        was != on
    }

    /// Adds `e` to the gen set of `n`; true when it was not there.
    pub fn insert_gen(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        GenKill::set(&mut self.gens, row, e, self.domain, true)
    }

    /// Removes `e` from the gen set of `n`; true when it was there.
    pub fn remove_gen(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        GenKill::set(&mut self.gens, row, e, self.domain, false)
    }

    /// Adds `e` to the kill set of `n`; true when it was not there.
    pub fn insert_kill(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        GenKill::set(&mut self.kills, row, e, self.domain, true)
    }

    /// Adds every element of `elems` (clipped to the domain) to the kill
    /// set of `n`, a word at a time: a definition killing every other
    /// definition of its variable is one range when definitions are
    /// numbered by variable. Nothing happens when `n` is out of range.
    pub fn insert_kill_range(&mut self, n: Node, elems: core::ops::Range<usize>) {
        let Some(row) = self.range(n) else { return };
        let (lo, hi) = (elems.start, elems.end.min(self.domain));
        if lo >= hi {
            return;
        }
        let words = &mut self.kills[row];
        let (first, last) = (lo / 64, (hi - 1) / 64);
        let head = !0u64 << (lo % 64);
        let tail = !0u64 >> (63 - (hi - 1) % 64);
        if first == last {
            words[first] |= head & tail;
            return;
        }
        words[first] |= head;
        words[first + 1..last].fill(!0);
        words[last] |= tail;
    }

    /// Removes `e` from the kill set of `n`; true when it was there.
    pub fn remove_kill(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        GenKill::set(&mut self.kills, row, e, self.domain, false)
    }

    /// Adds `e` to the join-gen set of `n` (see the type's doc); true when
    /// it was not there.
    pub fn insert_join_gen(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        if row.is_none() || e >= self.domain {
            return false;
        }
        if self.join_gens.is_empty() {
            self.join_gens.resize(self.gens.len(), 0);
        }
        GenKill::set(&mut self.join_gens, row, e, self.domain, true)
    }

    /// Adds `e` to the boundary set; true when it was not there.
    pub fn insert_boundary(&mut self, e: usize) -> bool {
        let row = Some(0..self.words);
        GenKill::set(&mut self.boundary, row, e, self.domain, true)
    }

    /// The gen set of `n` as words (empty out of range).
    pub fn gen_row(&self, n: Node) -> &[u64] {
        self.range(n).and_then(|r| self.gens.get(r)).unwrap_or(&[])
    }

    /// The kill set of `n` as words (empty out of range).
    pub fn kill_row(&self, n: Node) -> &[u64] {
        self.range(n).and_then(|r| self.kills.get(r)).unwrap_or(&[])
    }

    /// The join-gen set of `n` as words (empty out of range or when no
    /// node has one).
    pub fn join_gen_row(&self, n: Node) -> &[u64] {
        self.range(n).and_then(|r| self.join_gens.get(r)).unwrap_or(&[])
    }

    /// The boundary set as words.
    pub fn boundary_row(&self) -> &[u64] {
        &self.boundary
    }
}

/// The solution of a [`GenKill`] problem: an in and an out set per node,
/// as rows of two flat word matrices.
///
/// Follows the crate's lifecycle (`new`, `of`, `compute` reusing buffers,
/// `clear`). The fixpoint loop allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct BitDataflow {
    flow: Flow,
    domain: usize,
    words: usize,
    ins: Vec<u64>,
    outs: Vec<u64>,
    work: Worklist,
    tmp: Vec<u64>,
    visits: u64,
    stamp: Option<Epoch>,
}

impl BitDataflow {
    /// An empty solution (no nodes).
    pub fn new() -> BitDataflow {
        BitDataflow::default()
    }

    /// Solves `problem` on `g`.
    pub fn of(g: &impl Graph, problem: &GenKill) -> BitDataflow {
        let mut s = BitDataflow::new();
        s.compute(g, problem);
        s
    }

    /// Empties the solution, keeping its buffers.
    pub fn clear(&mut self) {
        self.domain = 0;
        self.words = 0;
        self.ins.clear();
        self.outs.clear();
        self.work.clear();
        self.tmp.clear();
        self.visits = 0;
        self.stamp = None;
    }

    /// Solves `problem` on `g` to its fixed point, reusing buffers. The
    /// graph's nodes are solved; rows the problem lacks (nodes past its
    /// `num_nodes`) count as empty gen and kill sets.
    pub fn compute(&mut self, g: &impl Graph, problem: &GenKill) {
        self.clear();
        let n = g.num_nodes().min(NONE as usize);
        self.stamp = g.stamp();
        self.flow = problem.flow;
        self.domain = problem.domain;
        let w = problem.words;
        self.words = w;
        let cells = n.saturating_mul(w);
        self.ins.resize(cells, 0);
        self.outs.resize(cells, 0);
        self.tmp.resize(w, 0);
        self.work.build(g, n, self.flow.direction, self.flow.scope);
        let must = self.flow.confluence == Confluence::Must;
        let full = full_mask(self.domain);
        if must {
            for &v in &self.work.order {
                let r = v as usize * w..(v as usize + 1) * w;
                fill(&mut self.ins[r.clone()], full);
                fill(&mut self.outs[r], full);
            }
        }
        let entry = g.entry();
        let forward = self.flow.direction == Direction::Forward;
        while let Some(v) = self.work.pop() {
            self.visits += 1;
            let vi = v as usize;
            let row = vi * w..(vi + 1) * w;
            let tmp = &mut self.tmp[..];
            if must {
                fill(tmp, full);
            } else {
                tmp.fill(0);
            }
            // Confluence into `tmp`, then the join-gen set.
            let boundary_node = if forward {
                for p in g.predecessors(v) {
                    if self.work.in_scope(p) {
                        combine(tmp, &self.outs[p as usize * w..(p as usize + 1) * w], must);
                    }
                }
                entry == Some(v)
            } else {
                let mut exit = true;
                for s in g.successors(v) {
                    if (s as usize) < n {
                        exit = false;
                        if self.work.in_scope(s) {
                            combine(tmp, &self.ins[s as usize * w..(s as usize + 1) * w], must);
                        }
                    }
                }
                exit
            };
            if boundary_node {
                combine(tmp, &problem.boundary, must);
            }
            let jg = problem.join_gen_row(v);
            if jg.len() == w {
                tmp.iter_mut().zip(jg).for_each(|(t, &j)| *t |= j);
            }
            // Store the confluence side; transfer into the other side.
            let (join_side, other_side) =
                if forward { (&mut self.ins, &mut self.outs) } else { (&mut self.outs, &mut self.ins) };
            join_side[row.clone()].copy_from_slice(tmp);
            let other = &mut other_side[row];
            let (gen_row, kill_row) = (problem.gen_row(v), problem.kill_row(v));
            let mut changed = false;
            if gen_row.len() == w && kill_row.len() == w {
                for (((o, &t), &gn), &k) in other.iter_mut().zip(tmp.iter()).zip(gen_row).zip(kill_row) {
                    let new = gn | (t & !k);
                    changed |= new != *o;
                    *o = new;
                }
            } else {
                changed = other != tmp;
                other.copy_from_slice(tmp);
            }
            if changed {
                if forward {
                    for s in g.successors(v) {
                        self.work.push(s);
                    }
                } else {
                    for p in g.predecessors(v) {
                        self.work.push(p);
                    }
                }
            }
        }
    }

    /// Direction, confluence and scope of the problem solved.
    pub fn flow(&self) -> Flow {
        self.flow
    }

    /// Size of the domain solved.
    pub fn domain_size(&self) -> usize {
        self.domain
    }

    /// Number of nodes solved for (the graph's).
    pub fn num_nodes(&self) -> usize {
        self.work.pos.len()
    }

    fn row<'a>(&self, m: &'a [u64], n: Node) -> &'a [u64] {
        let n = n as usize;
        m.get(n * self.words..(n + 1) * self.words).unwrap_or(&[])
    }

    /// The in set of `n` (at its top) as words; empty out of range.
    pub fn in_words(&self, n: Node) -> &[u64] {
        self.row(&self.ins, n)
    }

    /// The out set of `n` (at its bottom) as words; empty out of range.
    pub fn out_words(&self, n: Node) -> &[u64] {
        self.row(&self.outs, n)
    }

    /// True when `e` is in the in set of `n`.
    pub fn contains_in(&self, n: Node, e: usize) -> bool {
        contains(self.in_words(n), e)
    }

    /// True when `e` is in the out set of `n`.
    pub fn contains_out(&self, n: Node, e: usize) -> bool {
        contains(self.out_words(n), e)
    }

    /// The elements of the in set of `n`, in increasing order.
    pub fn iter_in(&self, n: Node) -> impl Iterator<Item = usize> + '_ {
        ones(self.in_words(n))
    }

    /// The elements of the out set of `n`, in increasing order.
    pub fn iter_out(&self, n: Node) -> impl Iterator<Item = usize> + '_ {
        ones(self.out_words(n))
    }

    /// True when `n` was solved (it is in the problem's scope).
    pub fn is_solved(&self, n: Node) -> bool {
        self.work.in_scope(n)
    }

    /// Number of node visits the fixpoint took (at least one per solved
    /// node).
    pub fn visits(&self) -> u64 {
        self.visits
    }

    /// The stamp of the graph the solution was computed on.
    pub fn stamp(&self) -> Option<Epoch> {
        self.stamp
    }
}

/// The last-word mask of a full row of `domain` elements (all ones when the
/// domain fills whole words).
fn full_mask(domain: usize) -> u64 {
    if domain.is_multiple_of(64) { !0 } else { (1u64 << (domain % 64)) - 1 }
}

/// Fills a row with every element of the domain (`last` masks the last
/// word).
fn fill(row: &mut [u64], last: u64) {
    row.fill(!0);
    if let Some(l) = row.last_mut() {
        *l = last;
    }
}

/// `acc ∩= x` (must) or `acc ∪= x` (may), word by word.
fn combine(acc: &mut [u64], x: &[u64], must: bool) {
    if must {
        acc.iter_mut().zip(x).for_each(|(a, &b)| *a &= b);
    } else {
        acc.iter_mut().zip(x).for_each(|(a, &b)| *a |= b);
    }
}

fn contains(row: &[u64], e: usize) -> bool {
    let (w, m) = bit(e);
    row.get(w).is_some_and(|&x| x & m != 0)
}

/// The set bits of a row, in increasing order.
pub(crate) fn ones(row: &[u64]) -> impl Iterator<Item = usize> + '_ {
    row.iter().enumerate().flat_map(|(i, &w)| {
        let mut w = w;
        core::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let b = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(i * 64 + b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn the_worklist_sweeps_in_order_and_wraps() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3.
        let g = CsrGraph::from_edges(5, Some(0), [(0, 1), (1, 2), (2, 1), (2, 3)]).unwrap();
        let mut w = Worklist::default();
        w.build(&g, 5, Direction::Forward, Scope::Reachable);
        assert_eq!(w.order, [0, 1, 2, 3]);
        assert!(!w.in_scope(4));
        assert_eq!(w.pop(), Some(0));
        assert_eq!(w.pop(), Some(1));
        w.push(0);
        w.push(4);
        assert_eq!([w.pop(), w.pop(), w.pop(), w.pop()], [Some(2), Some(3), Some(0), None]);
        w.build(&g, 5, Direction::Backward, Scope::All);
        assert_eq!(w.order, [3, 2, 1, 0, 4]);
    }

    #[test]
    fn rows_and_bits() {
        let mut p = GenKill::with_size(Flow::default(), 3, 130);
        assert_eq!(p.words_per_row(), 3);
        assert!(p.insert_gen(1, 129) && !p.insert_gen(1, 129));
        assert!(!p.insert_gen(3, 0) && !p.insert_gen(0, 130));
        assert_eq!(p.gen_row(1), [0, 0, 2]);
        assert!(p.remove_gen(1, 129) && !p.remove_gen(1, 129));
        assert!(p.join_gen_row(0).is_empty());
        assert!(p.insert_join_gen(2, 64));
        assert_eq!(p.join_gen_row(2), [0, 1, 0]);
        assert_eq!(full_mask(130), 3);
        assert_eq!(ones(&[0b101, 1 << 63]).collect::<Vec<_>>(), [0, 2, 127]);
    }
}
