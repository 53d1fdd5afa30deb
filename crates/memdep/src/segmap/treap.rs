//! The large form of a segment map: a *persistent canonical treap*
//! (Aragon and Seidel, "Randomized search trees", FOCS 1989; a Cartesian
//! tree in Vuillemin's sense, CACM 1980, with priorities a hash of the
//! key): a node per breakpoint (the set holds from its key up to the next
//! key; before the first key the set is empty), priorities a hash of the
//! key (so the shape is a function of the key set alone), children shared
//! through `Rc`, and per node the union and the intersection of its
//! subtree's sets and a lazy union tag for its descendants. Hence:
//! - a clone is one reference count;
//! - `assign` (a kill) and `add` are O(log n) and return the *same* tree
//!   when they change nothing, and `query` (the union over a range) is
//!   O(log n) set unions;
//! - `join` (pointwise union) walks both treaps in step, reusing shared
//!   subtrees, and returns one of its inputs, unchanged, when it already
//!   holds the other: a loop whose states have converged is confirmed in
//!   O(1) per object;
//! - equality is pointwise, with a pointer test first.
//!
//! - an add over the whole map up to its end (a site with an unknown
//!   offset, live over its object) is one tag at the root: the last
//!   breakpoint, when it holds the empty set, is kept beside the treap as
//!   its *cap* ([`tree::Tree`]), so such adds do not split and merge the right
//!   spine down to it.
//!
//! Invariants: keys are distinct, and below the cap when there is one (a
//! treap of two keys or more whose last key would hold the empty set has
//! a cap instead); a node's `set`, `union` and `inter`
//! are exact once its ancestors' tags are applied; `tag` is what remains
//! to be united into every set below the node. Recursion (split, merge,
//! join, range aggregates) is as deep as the treap, O(log n) with high
//! probability since priorities are a hash of the keys; traversals of all
//! nodes use explicit stacks.

use crate::sets::{EMPTY, SetId, SetTable};
use std::cell::Cell;
use std::rc::Rc;

/// An aggregate not computed yet.
const UNKNOWN: SetId = u32::MAX;

pub(super) mod tree;

type Link = Option<Rc<Node>>;

#[derive(Debug)]
struct Node {
    key: i64,
    prio: u64,
    set: SetId,
    /// Union and intersection of every set in the subtree, own included,
    /// computed on first need ([`UNKNOWN`] until then).
    union: Cell<SetId>,
    inter: Cell<SetId>,
    /// Nodes in the subtree.
    count: u32,
    /// To be united into every set of both children's subtrees.
    tag: SetId,
    left: Link,
    right: Link,
}

/// A priority from the key (a 64-bit mix), so that equal key sets give
/// equal shapes.
fn prio(key: i64) -> u64 {
    let mut x = key as u64 ^ 0x9e37_79b9_7f4a_7c15;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn count(n: &Link) -> u32 {
    n.as_ref().map_or(0, |n| n.count)
}

/// A node with exact children (no pending tag).
fn mk(key: i64, set: SetId, left: Link, right: Link, _: &mut SetTable) -> Rc<Node> {
    node(key, set, EMPTY, left, right)
}

/// A node whose `tag` is pending over its children (a leaf keeps none);
/// its aggregates are computed on first need.
fn node(key: i64, set: SetId, tag: SetId, left: Link, right: Link) -> Rc<Node> {
    let count = 1 + count(&left) + count(&right);
    let leaf = left.is_none() && right.is_none();
    let (union, inter, tag) = if leaf { (set, set, EMPTY) } else { (UNKNOWN, UNKNOWN, tag) };
    Rc::new(Node {
        key,
        prio: prio(key),
        set,
        union: Cell::new(union),
        inter: Cell::new(inter),
        count,
        tag,
        left,
        right,
    })
}

/// The union (or intersection) of every set in `n`'s subtree, computed
/// and kept on first need.
fn agg(n: &Node, inter: bool, t: &mut SetTable) -> SetId {
    let cell = if inter { &n.inter } else { &n.union };
    let v = cell.get();
    if v != UNKNOWN {
        return v;
    }
    let mut acc = n.set;
    for c in [&n.left, &n.right].into_iter().flatten() {
        let below = agg(c, inter, t);
        let below = t.union(below, n.tag);
        acc = if inter { t.inter(acc, below) } else { t.union(acc, below) };
    }
    cell.set(acc);
    acc
}

/// `n` with `s` united into every set of its subtree (lazily).
fn tagged(n: &Rc<Node>, s: SetId, t: &mut SetTable) -> Rc<Node> {
    if s == EMPTY {
        return n.clone();
    }
    let set = t.union(n.set, s);
    let tag = if n.left.is_none() && n.right.is_none() { EMPTY } else { t.union(n.tag, s) };
    if set == n.set && tag == n.tag {
        return n.clone();
    }
    let lift = |c: &Cell<SetId>, t: &mut SetTable| {
        let v = c.get();
        Cell::new(if v == UNKNOWN { UNKNOWN } else { t.union(v, s) })
    };
    let (union, inter) = (lift(&n.union, t), lift(&n.inter, t));
    Rc::new(Node { set, union, inter, tag, left: n.left.clone(), right: n.right.clone(), ..**n })
}

/// The exact children of `n` (its tag pushed into them).
fn children(n: &Node, t: &mut SetTable) -> (Link, Link) {
    let l = n.left.as_ref().map(|c| tagged(c, n.tag, t));
    let r = n.right.as_ref().map(|c| tagged(c, n.tag, t));
    (l, r)
}

/// Keys `< x` and keys `>= x` (a side that is all of `n` is `n` itself).
/// One walk down the path to `x`: a node that stays above the split keeps
/// its pending tag over both of its children (the child it keeps whole,
/// and the piece of the other), so only the piece leaving it is tagged.
fn split(n: &Link, x: i64, t: &mut SetTable) -> (Link, Link) {
    let Some(n) = n else { return (None, None) };
    if n.key < x {
        let (a, b) = split(&n.right, x, t);
        let Some(b) = b else { return (Some(n.clone()), None) };
        (Some(node(n.key, n.set, n.tag, n.left.clone(), a)), Some(tagged(&b, n.tag, t)))
    } else {
        let (a, b) = split(&n.left, x, t);
        let Some(a) = a else { return (None, Some(n.clone())) };
        (Some(tagged(&a, n.tag, t)), Some(node(n.key, n.set, n.tag, b, n.right.clone())))
    }
}

/// The treap of `a`'s keys then `b`'s (every key of `a` below every key of
/// `b`).
fn merge(a: Link, b: Link, t: &mut SetTable) -> Link {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => {
            if a.prio >= b.prio {
                let (l, r) = children(&a, t);
                let r = merge(r, Some(b), t);
                Some(mk(a.key, a.set, l, r, t))
            } else {
                let (l, r) = children(&b, t);
                let l = merge(Some(a), l, t);
                Some(mk(b.key, b.set, l, r, t))
            }
        }
    }
}

/// The set at position `x`, and whether `x` is a key.
///
/// The last key below `x` is remembered with the tag above it, and only
/// its set is made: uniting each key's set on the way down would intern a
/// set per level that nothing reads (on a long right spine, one per
/// append).
fn at(root: &Link, x: i64, t: &mut SetTable) -> (SetId, bool) {
    let mut n = root.as_ref();
    let mut tag = EMPTY;
    let mut best = (EMPTY, EMPTY);
    while let Some(node) = n {
        if node.key == x {
            return (t.union(node.set, tag), true);
        }
        if node.key < x {
            best = (node.set, tag);
            n = node.right.as_ref();
        } else {
            n = node.left.as_ref();
        }
        tag = t.union(tag, node.tag);
    }
    (t.union(best.0, best.1), false)
}

/// Union (or intersection) of the sets of the nodes with keys in
/// `(lo, hi)` (exclusive on both sides); `tag` is the ancestors' pending
/// union.
fn range(n: &Link, lo: i64, hi: i64, tag: SetId, inter: bool, t: &mut SetTable) -> Option<SetId> {
    let node = n.as_ref()?;
    let below = t.union(tag, node.tag);
    if node.key <= lo {
        return range(&node.right, lo, hi, below, inter, t);
    }
    if node.key >= hi {
        return range(&node.left, lo, hi, below, inter, t);
    }
    let own = t.union(node.set, tag);
    let l = side(&node.left, lo, true, below, inter, t);
    let r = side(&node.right, hi, false, below, inter, t);
    Some([l, r].into_iter().flatten().fold(own, |acc, s| if inter { t.inter(acc, s) } else { t.union(acc, s) }))
}

/// Aggregate over the nodes with key `> bound` (`greater`) or `< bound`.
fn side(n: &Link, bound: i64, greater: bool, tag: SetId, inter: bool, t: &mut SetTable) -> Option<SetId> {
    let node = n.as_ref()?;
    let below = t.union(tag, node.tag);
    let inside = if greater { node.key > bound } else { node.key < bound };
    if !inside {
        let next = if greater { &node.right } else { &node.left };
        return side(next, bound, greater, below, inter, t);
    }
    // The node and all of its far side are inside.
    let far = if greater { &node.right } else { &node.left };
    let near = if greater { &node.left } else { &node.right };
    let mut acc = t.union(node.set, tag);
    if let Some(f) = far {
        let a = agg(f, inter, t);
        let whole = t.union(a, below);
        acc = if inter { t.inter(acc, whole) } else { t.union(acc, whole) };
    }
    if let Some(s) = side(near, bound, greater, below, inter, t) {
        acc = if inter { t.inter(acc, s) } else { t.union(acc, s) };
    }
    Some(acc)
}

/// The pointwise union of two subtrees, whose sets before their key
/// ranges are `ca` and `cb`. Returns `a` or `b` itself when it already is
/// the union; where both have a node at one key with one pending tag, the
/// children are joined as they are (the tag distributes over the union),
/// so subtrees the two share stay shared.
fn join(a: &Link, b: &Link, ca: SetId, cb: SetId, t: &mut SetTable) -> Link {
    match (a, b) {
        (None, None) => None,
        (Some(x), Some(y)) if Rc::ptr_eq(x, y) => a.clone(),
        (Some(x), None) => Some(tagged(x, cb, t)),
        (None, Some(y)) => Some(tagged(y, ca, t)),
        (Some(x), Some(y)) if x.key == y.key => {
            let set = t.union(x.set, y.set);
            let tag = t.union(x.tag, y.tag);
            // One node's subtrees under two tags (an `add` made one from
            // the other): their union is the subtrees under both tags.
            if same_link(&x.left, &y.left) && same_link(&x.right, &y.right) {
                for n in [x, y] {
                    if set == n.set && tag == n.tag {
                        return Some(n.clone());
                    }
                }
                let lift = |c: &Cell<SetId>, d: &Cell<SetId>, t: &mut SetTable| {
                    let (p, q) = (c.get(), d.get());
                    Cell::new(if p == UNKNOWN || q == UNKNOWN { UNKNOWN } else { t.union(p, q) })
                };
                let union = lift(&x.union, &y.union, t);
                return Some(Rc::new(Node {
                    set,
                    tag,
                    union,
                    inter: Cell::new(UNKNOWN),
                    left: x.left.clone(),
                    right: x.right.clone(),
                    ..**x
                }));
            }
            // Otherwise push down only what the tags do not share.
            let common = t.inter(x.tag, y.tag);
            let push = |n: &Rc<Node>, t: &mut SetTable| {
                let extra = t.diff(n.tag, common);
                (n.left.as_ref().map(|c| tagged(c, extra, t)), n.right.as_ref().map(|c| tagged(c, extra, t)))
            };
            let (xl, xr) = push(x, t);
            let (yl, yr) = push(y, t);
            let left = join(&xl, &yl, ca, cb, t);
            let right = join(&xr, &yr, x.set, y.set, t);
            for (n, nl, nr) in [(x, &xl, &xr), (y, &yl, &yr)] {
                if set == n.set && common == n.tag && same_link(&left, nl) && same_link(&right, nr) {
                    return Some(n.clone());
                }
            }
            let count = 1 + count(&left) + count(&right);
            Some(Rc::new(Node {
                key: x.key,
                prio: x.prio,
                set,
                union: Cell::new(UNKNOWN),
                inter: Cell::new(UNKNOWN),
                count,
                tag: common,
                left,
                right,
            }))
        }
        (Some(x), Some(y)) => {
            // The root of the result is the higher-priority root.
            let (first, fc, second, sc, swapped) =
                if x.prio >= y.prio { (x, ca, b, cb, false) } else { (y, cb, a, ca, true) };
            let (fl, fr) = children(first, t);
            let k = first.key;
            let (sl, rest) = split(second, k, t);
            // The second tree's node at k, if any.
            let (s_at, sr) = match &rest {
                Some(r) if min_key(r) == Some(k) => {
                    let (eq, gt) = split(&rest, k.saturating_add(1), t);
                    let v = eq.as_ref().map_or(EMPTY, |e| e.set);
                    (Some(v), gt)
                }
                _ => (None, rest),
            };
            // The second tree's set just before k (and at k without a node).
            let s_before = last_set(&sl, t).unwrap_or(sc);
            let s_val = s_at.unwrap_or(s_before);
            let set = t.union(first.set, s_val);
            let left = join_ordered(&fl, &sl, fc, sc, swapped, t);
            let right = join_ordered(&fr, &sr, first.set, s_val, swapped, t);
            // The first tree itself when the second added nothing to it.
            if set == first.set && same_link(&left, &fl) && same_link(&right, &fr) {
                return Some(first.clone());
            }
            Some(mk(k, set, left, right, t))
        }
    }
}

/// `join` with the operands in their original order (`swapped`: the first
/// argument came from `b`).
fn join_ordered(f: &Link, s: &Link, fc: SetId, sc: SetId, swapped: bool, t: &mut SetTable) -> Link {
    if swapped { join(s, f, sc, fc, t) } else { join(f, s, fc, sc, t) }
}

/// True when two subtrees have the same keys, sets and tags, node for
/// node (explicit stack; shared subtrees are not walked).
fn identical(a: &Link, b: &Link) -> bool {
    let mut stack: Vec<(&Link, &Link)> = vec![(a, b)];
    while let Some((x, y)) = stack.pop() {
        match (x, y) {
            (None, None) => {}
            (Some(p), Some(q)) if Rc::ptr_eq(p, q) => {}
            (Some(p), Some(q)) if p.key == q.key && p.set == q.set && p.tag == q.tag && p.count == q.count => {
                stack.push((&p.left, &q.left));
                stack.push((&p.right, &q.right));
            }
            _ => return false,
        }
    }
    true
}

/// Pointwise equality of two treaps with the same keys, walking both with
/// their pending tags and skipping subtrees they share under equal tags;
/// `None` when the key sets differ (the caller then compares values).
fn equivalent(a: &Rc<Node>, b: &Rc<Node>, t: &mut SetTable) -> Option<bool> {
    let mut stack: Vec<(&Rc<Node>, SetId, &Rc<Node>, SetId)> = vec![(a, EMPTY, b, EMPTY)];
    while let Some((x, tx, y, ty)) = stack.pop() {
        if Rc::ptr_eq(x, y) && tx == ty {
            continue;
        }
        if x.key != y.key || x.count != y.count {
            return None;
        }
        if t.union(x.set, tx) != t.union(y.set, ty) {
            return Some(false);
        }
        let (ux, uy) = (t.union(tx, x.tag), t.union(ty, y.tag));
        for (p, q) in [(&x.left, &y.left), (&x.right, &y.right)] {
            match (p, q) {
                (None, None) => {}
                (Some(p), Some(q)) => stack.push((p, ux, q, uy)),
                _ => return None,
            }
        }
    }
    Some(true)
}

/// True when both are the same subtree (or both empty).
fn same_link(x: &Link, y: &Link) -> bool {
    match (x, y) {
        (None, None) => true,
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        _ => false,
    }
}

fn min_key(n: &Rc<Node>) -> Option<i64> {
    let mut n = n;
    while let Some(l) = &n.left {
        n = l;
    }
    Some(n.key)
}

fn max_key(n: &Rc<Node>) -> i64 {
    let mut n = n;
    while let Some(r) = &n.right {
        n = r;
    }
    n.key
}

/// The set of the largest key of a subtree (with its pending tags).
fn last_set(n: &Link, t: &mut SetTable) -> Option<SetId> {
    let mut n = n.as_ref()?;
    let mut tag = EMPTY;
    while let Some(r) = &n.right {
        tag = t.union(tag, n.tag);
        n = r;
    }
    Some(t.union(n.set, tag))
}

/// The breakpoints in order, with exact sets (explicit stack).
fn flatten(root: &Link, t: &mut SetTable, out: &mut Vec<(i64, SetId)>) {
    let mut stack: Vec<(&Rc<Node>, SetId)> = Vec::new();
    let mut n = root.as_ref();
    let mut tag = EMPTY;
    loop {
        while let Some(node) = n {
            stack.push((node, tag));
            tag = t.union(tag, node.tag);
            n = node.left.as_ref();
        }
        let Some((node, above)) = stack.pop() else { break };
        out.push((node.key, t.union(node.set, above)));
        tag = t.union(above, node.tag);
        n = node.right.as_ref();
    }
}

/// The canonical treap of sorted, distinct breakpoints (a Cartesian tree
/// by priority, built with a stack, nodes made bottom-up).
fn build(points: &[(i64, SetId)], t: &mut SetTable) -> Link {
    let n = points.len();
    if n == 0 {
        return None;
    }
    let prios: Vec<u64> = points.iter().map(|p| prio(p.0)).collect();
    let (mut left, mut right) = (vec![usize::MAX; n], vec![usize::MAX; n]);
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..n {
        let mut last = usize::MAX;
        while let Some(&top) = stack.last() {
            if prios[top] < prios[i] {
                last = top;
                stack.pop();
            } else {
                break;
            }
        }
        left[i] = last;
        if let Some(&top) = stack.last() {
            right[top] = i;
        }
        stack.push(i);
    }
    let root = stack[0];
    // Post-order without recursion.
    let mut made: Vec<Link> = vec![None; n];
    let mut work: Vec<(usize, bool)> = vec![(root, false)];
    while let Some((i, done)) = work.pop() {
        if done {
            let l = if left[i] == usize::MAX { None } else { made[left[i]].take() };
            let r = if right[i] == usize::MAX { None } else { made[right[i]].take() };
            made[i] = Some(mk(points[i].0, points[i].1, l, r, t));
            continue;
        }
        work.push((i, true));
        for c in [left[i], right[i]] {
            if c != usize::MAX {
                work.push((c, false));
            }
        }
    }
    made[root].take()
}
