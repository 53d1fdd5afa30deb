//! Loop nesting forests, irreducible loops included.
//!
//! # Definition
//!
//! Fix the depth-first search of [`Dfs`](crate::Dfs) (from the entry,
//! successors in order). A reachable node `h` is a **loop header** iff it
//! has a reachable predecessor `p` with `h` a DFS ancestor of `p` or `p`
//! itself (a retreating edge, self-loops included). The **body** of `h`'s loop is the
//! set of nodes `y` of `h`'s DFS subtree from which `h` can be reached by a
//! path that stays inside `h`'s DFS subtree (`h` included). Bodies are
//! strongly connected and laminar (two are nested or disjoint), so loops
//! **nest by body inclusion**: a loop's parent is the smallest body strictly
//! containing its own, and a node's **innermost loop** is the smallest body
//! containing it. A loop is **irreducible** when it has an entry other than
//! its header: an edge from a reachable node outside the body to a body node
//! other than the header. On a reducible graph the loops are exactly the
//! natural loops (one per header: the union of the natural loops of the
//! back edges to it), none is irreducible, and a graph is irreducible iff
//! one of its loops is. Unreachable nodes are in no loop and their edges
//! are ignored.
//!
//! # Algorithm
//!
//! P. Havlak, "Nesting of reducible and irreducible loops" (TOPLAS 19(4),
//! 1997), with the correction of G. Ramalingam, "Identifying loops in almost
//! linear time" (TOPLAS 21(2), 1999), which makes it almost linear:
//!
//! 1. A DFS from the entry, the traversal of [`Dfs`](crate::Dfs) (so the
//!    same tree), numbering the reachable nodes in preorder; the rest works
//!    on preorder indices, so ancestry is an O(1) interval test.
//! 2. Edges `y -> x` between reachable nodes are retreating (`x` an
//!    ancestor of `y` or `y` itself), tree (`y` the DFS parent of `x`), or
//!    forward/cross. Forward and cross edges are taken out of the graph and
//!    re-inserted later, at the nearest common DFS ancestor `a` of `y` and
//!    `x`: one postorder pass over successors finds them and their `a`
//!    (forward edges: `a = y`; cross edges: Tarjan's offline LCA ("Applications of path compression on balanced
//!    trees", JACM 1979), with its
//!    own union-find).
//! 3. Nodes `w` are processed in reverse preorder, with a union-find (path
//!    compression) whose roots are the outermost headers found so far and
//!    the nodes in no loop yet. First, each forward/cross edge `y -> x`
//!    whose LCA is `w` becomes an extra predecessor `y` of `find(x)`, and
//!    every loop found so far that contains `x` and is not headed by `x` is
//!    marked irreducible: `y` enters it from outside its header's subtree.
//!    (Havlak notices such a predecessor while searching a body and moves
//!    it up to the header, one nesting level at a time, which is quadratic
//!    on deep nests; here a second union-find over the loop tree skips the
//!    loops already marked.) Then `w`'s body: the representatives of `w`'s
//!    retreating predecessors (self-loops aside) seed a backward search over
//!    representatives, following DFS-tree parents and extra predecessors —
//!    with forward and cross edges gone, every such predecessor of a node of
//!    `w`'s subtree other than `w` is in the subtree. Each representative
//!    found is merged into `w`; if there is one, or `w` has a self-loop,
//!    `w` is a header.
//! 4. The forest is laid out: loop ids, parents, depths, children (CSR),
//!    and the bodies as ranges of one node permutation (below).
//!
//! Space O(n + m); time near-linear: the union-finds use path compression
//! without ranks (a set's root must be its header), O(m log_(2+m/n) n) in
//! the worst case (Tarjan and van Leeuwen, "Worst-case analysis of set union
//! algorithms", JACM 1984), linear in practice.
//!
//! # Invariants
//!
//! - Loop ids are dense, in the order the headers are found: reverse DFS
//!   preorder of headers. A loop's id is therefore smaller than its
//!   parent's: [`LoopForest::loops`] lists inner loops before the loops
//!   containing them; reverse it for a top-down walk.
//! - Bodies take O(n) space, not O(n × depth): nodes are laid out in one
//!   permutation where each loop's body is a contiguous range, made of the
//!   nodes whose innermost loop it is ([`LoopForest::own_nodes`], sorted by
//!   id), then the bodies of its children in id order. So
//!   [`LoopForest::contains`] is O(1), but a body is not sorted by node id
//!   as a whole.
//! - Everything is `u32` arrays and linked lists in arrays; buffers are
//!   reused by [`LoopForest::compute`]; nothing recurses (a 10^7-node chain
//!   and a 10^5-deep loop nest work on a 2 MiB stack); the output depends
//!   only on the graph (node ids and successor order); no graph makes it
//!   panic (unreachable nodes, self-loops, duplicate edges, an entry with
//!   predecessors, no entry, no nodes, ids out of range: ignored).
//! - A forest computed on a graph built from a function carries its CFG
//!   epoch ([`LoopForest::check`]).

use crate::graph::{Graph, NONE, Node};
use crate::stamp::Versioned;
use crate::stamp::{Stale, check_stamp};

/// A loop of a [`LoopForest`]: a dense id, in the order headers are found
/// (reverse DFS preorder of headers; inner loops have smaller ids than the
/// loops containing them). Displays as `loopN`.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct LoopId(u32);

impl LoopId {
    /// The loop with id `index`.
    pub fn from_u32(index: u32) -> LoopId {
        LoopId(index)
    }

    /// The id as a number.
    pub fn as_u32(self) -> u32 {
        self.0
    }

    /// The id as an index, for side tables of `num_loops()` entries.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl core::fmt::Display for LoopId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "loop{}", self.0)
    }
}

/// The loop nesting forest of a graph (Havlak–Ramalingam): every loop,
/// reducible or not, with its header, body, parent, children and
/// irreducibility, and each node's innermost loop and loop depth.
///
/// Methods taking a [`LoopId`] panic if it is not a loop of this forest;
/// methods taking a node answer "no loop" for unreachable and out-of-range
/// nodes.
///
/// # Example
///
/// ```
/// use cfg_dom::{CsrGraph, LoopForest};
///
/// // 0 -> 1 -> 2 -> 3 -> 2 (inner loop), 3 -> 1 (outer loop), and a second
/// // entry into the inner loop: 1 -> 4 -> 3.
/// let edges = [(0, 1), (1, 2), (2, 3), (3, 2), (3, 1), (1, 4), (4, 3), (3, 5)];
/// let g = CsrGraph::from_edges(6, Some(0), edges).unwrap();
/// let loops = LoopForest::of(&g);
/// let inner = loops.innermost_loop(3).unwrap();
/// let outer = loops.parent(inner).unwrap();
/// assert_eq!((loops.header(inner), loops.header(outer)), (2, 1));
/// assert_eq!(loops.body(inner), [2, 3]);
/// assert!(loops.contains(outer, 4) && !loops.contains(inner, 4));
/// assert!(loops.is_irreducible(inner) && !loops.is_irreducible(outer));
/// assert_eq!((0..6).map(|n| loops.loop_depth(n)).collect::<Vec<_>>(), [0, 1, 2, 2, 1, 0]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    /// By loop: its header.
    header: Vec<Node>,
    /// By loop: the parent loop, `NONE` for an outermost loop.
    parent: Vec<u32>,
    /// By loop: its nesting depth (an outermost loop has depth 1).
    depth: Vec<u32>,
    /// By loop: whether it has an entry other than its header.
    irreducible: Vec<bool>,
    /// By loop: the children, in increasing id order (CSR).
    child_start: Vec<u32>,
    children: Vec<LoopId>,
    /// By loop: its body is `body[body_start..body_end]`, of which
    /// `body[body_start..own_end]` are the nodes whose innermost loop it is.
    body_start: Vec<u32>,
    own_end: Vec<u32>,
    body_end: Vec<u32>,
    /// The nodes in loops, laid out so that every body is a range.
    body: Vec<Node>,
    /// By node: the innermost loop, `NONE` if none.
    innermost: Vec<u32>,
    /// By node: its index in `body`, `NONE` if in no loop.
    body_pos: Vec<u32>,
    stamp: Option<u64>,
    scratch: Scratch,
}

/// Buffers of one computation, kept for the next. Everything but `pre` is
/// indexed by DFS preorder index ("index" below), not by node; edge arrays
/// are indexed by forward/cross edge.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// By node: its preorder index, `NONE` if unreachable.
    pre: Vec<u32>,
    /// The node at each index (the preorder).
    vertex: Vec<Node>,
    /// The DFS-tree parent's index; `NONE` for the entry.
    parent: Vec<u32>,
    /// The largest index in the DFS subtree: `a` is an ancestor of `b` (or
    /// `b`) iff `a <= b <= last[a]`.
    last: Vec<u32>,
    /// Indices in postorder.
    postorder: Vec<u32>,
    /// DFS stack entries `(node, parent index or own index, exit)`.
    dfs: Vec<(Node, u32, bool)>,
    succ_buf: Vec<Node>,
    /// Havlak's union-find: parent pointers; a root is a node not yet merged
    /// into a loop, or the outermost header found so far of its set.
    rep: Vec<u32>,
    /// The header of the loop a representative was merged into: for a
    /// header, its parent loop's header; for another node, its innermost
    /// loop's header. `NONE` if not merged.
    merged_into: Vec<u32>,
    /// By header: marked irreducible.
    marked: Vec<bool>,
    /// One buffer, three uses in turn: Tarjan's LCA forest (a finished node
    /// points to its DFS parent); the marking walk's union-find over the
    /// loop tree (a marked header whose parent loop is known points to that
    /// parent's header); finally the loop id of each header (`NONE` for
    /// other nodes).
    aux: Vec<u32>,
    /// Forward/cross edges `src -> dst`.
    src: Vec<u32>,
    dst: Vec<u32>,
    /// Forward/cross edges by LCA: list heads by index, links by edge.
    lca_head: Vec<u32>,
    lca_next: Vec<u32>,
    /// Extra predecessors of representatives: the edges re-inserted at
    /// their LCA, listed at the representative of their target at that
    /// time.
    extra_head: Vec<u32>,
    extra_next: Vec<u32>,
    /// Headers in the order found.
    headers: Vec<u32>,
    /// By loop: body size, then the fill cursor.
    cursor: Vec<u32>,
    work: Vec<u32>,
}

impl LoopForest {
    /// An empty forest.
    pub fn new() -> LoopForest {
        LoopForest::default()
    }

    /// The loop nesting forest of `g`.
    pub fn of(g: &impl Graph) -> LoopForest {
        let mut f = LoopForest::new();
        f.compute(g);
        f
    }

    /// Empties the forest, keeping its buffers.
    pub fn clear(&mut self) {
        self.header.clear();
        self.parent.clear();
        self.depth.clear();
        self.irreducible.clear();
        self.child_start.clear();
        self.children.clear();
        self.body_start.clear();
        self.own_end.clear();
        self.body_end.clear();
        self.body.clear();
        self.innermost.clear();
        self.body_pos.clear();
        self.stamp = None;
    }

    /// Computes the loop nesting forest of `g` from its entry, reusing
    /// buffers.
    pub fn compute(&mut self, g: &impl Graph) {
        self.clear();
        let n = g.num_nodes();
        self.stamp = g.stamp();
        self.innermost.resize(n, NONE);
        self.body_pos.resize(n, NONE);
        self.child_start.push(0);
        let s = &mut self.scratch;
        s.spanning_tree(g, n);
        if s.vertex.is_empty() {
            return;
        }
        s.reset();
        s.forward_and_cross_edges(g, n);
        s.find_loops(g);
        self.lay_out();
    }

    /// Loop ids, parents, depths, children, innermost loops and the body
    /// layout, from the headers found and the merge links.
    fn lay_out(&mut self) {
        let s = &mut self.scratch;
        let k = s.headers.len();
        // `aux` becomes the loop id of each header.
        let loop_of = &mut s.aux;
        loop_of.clear();
        loop_of.resize(s.vertex.len(), NONE);
        for (l, &h) in s.headers.iter().enumerate() {
            loop_of[h as usize] = l as u32;
            self.header.push(s.vertex[h as usize]);
        }
        for &h in &s.headers {
            let up = s.merged_into[h as usize];
            // A parent header is found after its children: a larger id.
            self.parent.push(if up == NONE { NONE } else { loop_of[up as usize] });
            self.irreducible.push(s.marked[h as usize]);
        }
        self.depth.resize(k, 0);
        for l in (0..k).rev() {
            let p = self.parent[l];
            self.depth[l] = if p == NONE { 1 } else { self.depth[p as usize] + 1 };
        }
        // Children (CSR), in increasing id order.
        let parent = &self.parent;
        let pairs = (0..k as u32).filter(|&l| parent[l as usize] != NONE).map(|l| (parent[l as usize], LoopId(l)));
        crate::csr::bucket_by(k, pairs, &mut self.child_start, &mut self.children);
        // Innermost loops, and how many nodes each loop owns.
        self.own_end.resize(k, 0);
        for (i, &x) in s.vertex.iter().enumerate() {
            let l = if loop_of[i] != NONE {
                loop_of[i]
            } else {
                match s.merged_into[i] {
                    NONE => NONE,
                    h => loop_of[h as usize],
                }
            };
            self.innermost[x as usize] = l;
            if l != NONE {
                self.own_end[l as usize] += 1;
            }
        }
        // Body sizes, bottom-up (children have smaller ids).
        s.cursor.clear();
        s.cursor.extend_from_slice(&self.own_end);
        for l in 0..k {
            let p = self.parent[l];
            if p != NONE {
                s.cursor[p as usize] += s.cursor[l];
            }
        }
        // Body ranges, top-down: a loop's own nodes, then its children's
        // bodies in id order.
        self.body_start.resize(k, 0);
        self.body_end.resize(k, 0);
        let mut next_root = 0u32;
        for l in (0..k).rev() {
            if self.parent[l] == NONE {
                self.body_start[l] = next_root;
                next_root += s.cursor[l];
            }
            let start = self.body_start[l];
            self.body_end[l] = start + s.cursor[l];
            self.own_end[l] += start;
            let mut at = self.own_end[l];
            for c in &self.children[self.child_start[l] as usize..self.child_start[l + 1] as usize] {
                self.body_start[c.index()] = at;
                at += s.cursor[c.index()];
            }
        }
        // Own nodes, in increasing node order.
        self.body.resize(next_root as usize, 0);
        s.cursor.clear();
        s.cursor.extend_from_slice(&self.body_start);
        for (x, &l) in self.innermost.iter().enumerate() {
            if l != NONE {
                let at = s.cursor[l as usize];
                self.body[at as usize] = x as Node;
                self.body_pos[x] = at;
                s.cursor[l as usize] = at + 1;
            }
        }
    }

    /// Number of nodes of the graph the forest was computed on.
    pub fn num_nodes(&self) -> usize {
        self.innermost.len()
    }

    /// Number of loops.
    pub fn num_loops(&self) -> usize {
        self.header.len()
    }

    /// Every loop, by increasing id: inner loops before the loops
    /// containing them (`.rev()` gives a top-down order).
    pub fn loops(&self) -> impl ExactSizeIterator<Item = LoopId> + DoubleEndedIterator + use<> {
        (0..self.header.len() as u32).map(LoopId)
    }

    /// The outermost loops, by increasing id.
    pub fn roots(&self) -> impl Iterator<Item = LoopId> + '_ {
        self.loops().filter(|l| self.parent[l.index()] == NONE)
    }

    /// The header of `l`: its only entry unless `l` is irreducible.
    ///
    /// # Panics
    ///
    /// When `l` is not a loop of this forest (ids come from
    /// [`LoopForest::loops`] and the other accessors of the same forest).
    #[track_caller]
    pub fn header(&self, l: LoopId) -> Node {
        self.header[l.index()]
    }

    /// The smallest loop strictly containing `l`, if any.
    ///
    /// # Panics
    ///
    /// When `l` is not a loop of this forest (ids come from
    /// [`LoopForest::loops`] and the other accessors of the same forest).
    #[track_caller]
    pub fn parent(&self, l: LoopId) -> Option<LoopId> {
        Some(self.parent[l.index()]).filter(|&p| p != NONE).map(LoopId)
    }

    /// The loops whose parent is `l`, by increasing id.
    ///
    /// # Panics
    ///
    /// When `l` is not a loop of this forest (ids come from
    /// [`LoopForest::loops`] and the other accessors of the same forest).
    #[track_caller]
    pub fn children(&self, l: LoopId) -> &[LoopId] {
        &self.children[self.child_start[l.index()] as usize..self.child_start[l.index() + 1] as usize]
    }

    /// The nesting depth of `l`: 1 for an outermost loop, its parent's
    /// plus one otherwise.
    ///
    /// # Panics
    ///
    /// When `l` is not a loop of this forest (ids come from
    /// [`LoopForest::loops`] and the other accessors of the same forest).
    #[track_caller]
    pub fn depth(&self, l: LoopId) -> u32 {
        self.depth[l.index()]
    }

    /// True when `l` has an entry other than its header: an edge from a
    /// reachable node outside its body to a body node other than the
    /// header.
    ///
    /// # Panics
    ///
    /// When `l` is not a loop of this forest (ids come from
    /// [`LoopForest::loops`] and the other accessors of the same forest).
    #[track_caller]
    pub fn is_irreducible(&self, l: LoopId) -> bool {
        self.irreducible[l.index()]
    }

    /// The smallest loop containing `n`; `None` for nodes in no loop and
    /// unreachable nodes. A header's innermost loop is the loop it heads.
    pub fn innermost_loop(&self, n: Node) -> Option<LoopId> {
        self.innermost.get(n as usize).copied().filter(|&l| l != NONE).map(LoopId)
    }

    /// The number of loops containing `n`: 0 outside loops and for
    /// unreachable nodes. O(1).
    pub fn loop_depth(&self, n: Node) -> u32 {
        self.innermost_loop(n).map_or(0, |l| self.depth[l.index()])
    }

    /// True when `n` is a loop header.
    pub fn is_header(&self, n: Node) -> bool {
        self.header_loop(n).is_some()
    }

    /// The loop headed by `n`, if `n` is a header.
    pub fn header_loop(&self, n: Node) -> Option<LoopId> {
        self.innermost_loop(n).filter(|&l| self.header[l.index()] == n)
    }

    /// Every node of `l`, nested loops included: the nodes whose innermost
    /// loop is `l` ([`LoopForest::own_nodes`], sorted), then the bodies of
    /// its children in id order. Not sorted as a whole: all bodies share
    /// one array of `num_nodes` entries at most.
    ///
    /// # Panics
    ///
    /// When `l` is not a loop of this forest (ids come from
    /// [`LoopForest::loops`] and the other accessors of the same forest).
    #[track_caller]
    pub fn body(&self, l: LoopId) -> &[Node] {
        &self.body[self.body_start[l.index()] as usize..self.body_end[l.index()] as usize]
    }

    /// The nodes whose innermost loop is `l` (its header included), sorted.
    ///
    /// # Panics
    ///
    /// When `l` is not a loop of this forest (ids come from
    /// [`LoopForest::loops`] and the other accessors of the same forest).
    #[track_caller]
    pub fn own_nodes(&self, l: LoopId) -> &[Node] {
        &self.body[self.body_start[l.index()] as usize..self.own_end[l.index()] as usize]
    }

    /// True when `n` is in the body of `l`. O(1).
    ///
    /// # Panics
    ///
    /// When `l` is not a loop of this forest (ids come from
    /// [`LoopForest::loops`] and the other accessors of the same forest).
    #[track_caller]
    pub fn contains(&self, l: LoopId, n: Node) -> bool {
        let (start, end) = (self.body_start[l.index()], self.body_end[l.index()]);
        // `NONE` (in no loop) is never below `end <= num_nodes`.
        self.body_pos.get(n as usize).is_some_and(|&p| start <= p && p < end)
    }

    /// The stamp of the graph the forest was computed on.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    /// `Ok` when the forest was computed on `func`'s CFG as it is now.
    pub fn check(&self, func: &impl Versioned) -> Result<(), Stale> {
        check_stamp(self.stamp, func.cfg_stamp())
    }
}

impl Scratch {
    /// The DFS of [`Dfs`](crate::Dfs) (same tree): a node is visited when popped, its
    /// unvisited successors pushed in reverse, so visited in order.
    fn spanning_tree(&mut self, g: &impl Graph, n: usize) {
        self.pre.clear();
        self.pre.resize(n, NONE);
        for v in [&mut self.vertex, &mut self.parent, &mut self.last, &mut self.postorder] {
            v.clear();
        }
        let Some(entry) = g.entry().filter(|&e| (e as usize) < n) else { return };
        self.dfs.clear();
        self.dfs.push((entry, NONE, false));
        while let Some((v, parent, exit)) = self.dfs.pop() {
            if exit {
                // `parent` holds the node's own index here.
                self.last[parent as usize] = self.vertex.len() as u32 - 1;
                self.postorder.push(parent);
                continue;
            }
            if self.pre[v as usize] != NONE {
                continue;
            }
            let index = self.vertex.len() as u32;
            self.pre[v as usize] = index;
            self.vertex.push(v);
            self.parent.push(parent);
            self.last.push(NONE);
            self.dfs.push((v, index, true));
            self.succ_buf.clear();
            let pre = &self.pre;
            self.succ_buf.extend(g.successors(v).filter(|&w| (w as usize) < n && pre[w as usize] == NONE));
            self.dfs.extend(self.succ_buf.iter().rev().map(|&w| (w, index, false)));
        }
    }

    /// The index of node `x` if it is reachable (and in range).
    #[inline]
    fn index(&self, x: Node) -> Option<u32> {
        self.pre.get(x as usize).copied().filter(|&i| i != NONE)
    }

    /// True when index `a` is a DFS ancestor of index `b`, or `b`.
    #[inline]
    fn is_ancestor(&self, a: u32, b: u32) -> bool {
        a <= b && b <= self.last[a as usize]
    }

    fn reset(&mut self) {
        let r = self.vertex.len();
        for v in [&mut self.merged_into, &mut self.lca_head, &mut self.extra_head] {
            v.clear();
            v.resize(r, NONE);
        }
        for v in [&mut self.rep, &mut self.aux] {
            v.clear();
            v.extend(0..r as u32);
        }
        self.marked.clear();
        self.marked.resize(r, false);
        for v in [&mut self.src, &mut self.dst, &mut self.lca_next, &mut self.extra_next, &mut self.headers] {
            v.clear();
        }
    }

    /// Collects the forward and cross edges by LCA, in one postorder pass:
    /// a forward edge's LCA is its source; a cross edge `y -> x` has `x`
    /// finished before `y`, so when `y` finishes, the root of `x`'s set in
    /// Tarjan's offline-LCA forest (the lowest unfinished ancestor of `x`)
    /// is their LCA.
    fn forward_and_cross_edges(&mut self, g: &impl Graph, n: usize) {
        for p in 0..self.postorder.len() {
            let y = self.postorder[p];
            for xn in g.successors(self.vertex[y as usize]) {
                if xn as usize >= n {
                    continue;
                }
                let x = self.pre[xn as usize];
                if x == NONE || self.is_ancestor(x, y) || self.parent[x as usize] == y {
                    // Unreachable, retreating or tree edge.
                    continue;
                }
                let a = if self.is_ancestor(y, x) { y } else { find(&mut self.aux, x) };
                let e = self.src.len() as u32;
                self.src.push(y);
                self.dst.push(x);
                self.lca_next.push(self.lca_head[a as usize]);
                self.lca_head[a as usize] = e;
            }
            if self.parent[y as usize] != NONE {
                self.aux[y as usize] = self.parent[y as usize];
            }
        }
        self.extra_next.resize(self.src.len(), NONE);
        // `aux` becomes the marking walk's union-find.
        for (i, v) in self.aux.iter_mut().enumerate() {
            *v = i as u32;
        }
    }

    /// Havlak's loop, in reverse preorder, with Ramalingam's handling of
    /// forward and cross edges.
    fn find_loops(&mut self, g: &impl Graph) {
        for w in (0..self.vertex.len() as u32).rev() {
            // Forward/cross edges whose LCA is `w`.
            let mut e = self.lca_head[w as usize];
            while e != NONE {
                let x = self.dst[e as usize];
                let rx = find(&mut self.rep, x) as usize;
                self.extra_next[e as usize] = self.extra_head[rx];
                self.extra_head[rx] = e;
                self.mark_irreducible(x);
                e = self.lca_next[e as usize];
            }
            // The body of `w`, seeded by its retreating predecessors. A
            // representative is merged into `w` as soon as it is found, so
            // `find` answers `w` for everything already in the body.
            let mut self_loop = false;
            let mut found = false;
            self.work.clear();
            for pn in g.predecessors(self.vertex[w as usize]) {
                let p = match self.index(pn) {
                    Some(p) if self.is_ancestor(w, p) => p,
                    _ => continue,
                };
                if p == w {
                    self_loop = true;
                    continue;
                }
                let r = find(&mut self.rep, p);
                if r != w {
                    self.merge(r, w);
                    found = true;
                }
            }
            while let Some(r) = self.work.pop() {
                // `r > w`: it has a DFS parent.
                let mut next = self.parent[r as usize];
                let mut e = self.extra_head[r as usize];
                loop {
                    let c = find(&mut self.rep, next);
                    if c != w {
                        self.merge(c, w);
                    }
                    if e == NONE {
                        break;
                    }
                    next = self.src[e as usize];
                    e = self.extra_next[e as usize];
                }
            }
            if self_loop || found {
                self.headers.push(w);
            }
        }
    }

    /// Merges representative `r` into the loop of `w` and queues it for
    /// the body search.
    #[inline]
    fn merge(&mut self, r: u32, w: u32) {
        self.rep[r as usize] = w;
        self.merged_into[r as usize] = w;
        self.work.push(r);
    }

    /// Marks irreducible every loop found so far that contains `x` and is
    /// not headed by it, skipping runs of loops already marked.
    fn mark_irreducible(&mut self, x: u32) {
        let mut h = self.merged_into[x as usize];
        while h != NONE {
            h = find(&mut self.aux, h);
            self.marked[h as usize] = true;
            let up = self.merged_into[h as usize];
            if up == NONE {
                break;
            }
            self.aux[h as usize] = up;
            h = up;
        }
    }
}

/// The root of `x` in the union-find `parent`, halving the path (every
/// node on it is pointed to its grandparent: compression in one pass).
#[inline]
fn find(parent: &mut [u32], mut x: u32) -> u32 {
    loop {
        let p = parent[x as usize];
        let gp = parent[p as usize];
        if p == gp {
            return p;
        }
        parent[x as usize] = gp;
        x = gp;
    }
}
