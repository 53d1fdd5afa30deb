//! A segment map in treap form: the treap of [`super`] (its nodes and
//! their algorithms) and the *cap* beside it, the last breakpoint when it
//! holds the empty set, which makes an add over a whole object one tag at
//! the root (see [`Tree`]).
//!
//! Invariants: those of the treap, and every key below the cap when there
//! is one; a treap of two keys or more whose last key would hold the empty
//! set has a cap instead (every update restores this canonical form).

use super::super::bounds::INF;
#[cfg(test)]
use super::Node;
use super::{
    Link, agg, at, build, count, equivalent, flatten, identical, join, last_set, max_key, merge, min_key, mk, range,
    same_link, split, tagged,
};
use crate::sets::{EMPTY, SetId, SetTable};
use std::rc::Rc;

/// A segment map in treap form (see the module doc).
///
/// The *end cap*: a last breakpoint holding the empty set (the end of an
/// object, past which nothing is live) may be kept beside the treap
/// instead of in it. An add over the whole map up to it (a write or read
/// with an unknown offset, live over its object) is then one tag at the
/// root, where a breakpoint in the treap, at the end of its right spine,
/// would cut every such add into two splits and two merges down that
/// spine; a query up to it is the root's aggregate; and two maps that
/// differ by such adds differ at the root only, which a join takes in one
/// step. The cap is canonical: a treap of two keys or more whose last key
/// holds the empty set always keeps that key as its cap (`normalize`, after
/// every update), so two maps never differ by where they keep it; an update
/// that reaches the cap puts it back into the treap first (`materialize`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    root: Link,
    /// The cap: every key of `root` is below it, and every position from it
    /// on holds the empty set. Never set on an empty treap.
    end: Option<i64>,
}

impl Tree {
    /// The tree of canonical breakpoints (sorted, distinct keys).
    pub fn from_points(points: &[(i64, SetId)], t: &mut SetTable) -> Tree {
        match points.split_last() {
            Some((&(e, EMPTY), rest)) if !rest.is_empty() => Tree { root: build(rest, t), end: Some(e) },
            _ => Tree { root: build(points, t), end: None },
        }
    }

    /// Makes the last key the cap when it holds the empty set (see the
    /// type's doc): the canonical form every update leaves.
    fn normalize(&mut self, t: &mut SetTable) {
        let Some(root) = &self.root else { return };
        if self.end.is_some() || root.count < 2 {
            return;
        }
        let e = max_key(root);
        if last_set(&self.root, t) == Some(EMPTY) {
            self.root = split(&self.root, e, t).0;
            self.end = Some(e);
        }
    }

    /// Number of breakpoints (nodes, and the cap).
    pub fn len(&self) -> usize {
        count(&self.root) as usize + usize::from(self.end.is_some())
    }

    /// The breakpoints in order with their exact sets, not coalesced.
    pub fn raw_points(&self, t: &mut SetTable, out: &mut Vec<(i64, SetId)>) {
        flatten(&self.root, t, out);
        if let Some(e) = self.end {
            out.push((e, EMPTY));
        }
    }

    /// The set at position `x`.
    #[cfg(test)]
    pub fn value_at(&self, x: i64, t: &mut SetTable) -> SetId {
        if self.end.is_some_and(|e| x >= e) {
            return EMPTY;
        }
        at(&self.root, x, t).0
    }

    /// Puts the cap back into the treap as its last node.
    fn materialize(&mut self, t: &mut SetTable) {
        if let Some(e) = self.end.take() {
            let root = std::mem::take(&mut self.root);
            self.root = merge(root, Some(mk(e, EMPTY, None, None, t)), t);
        }
    }

    /// Sets every position in `[lo, hi)` to `s` (`lo < hi`).
    pub fn assign(&mut self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) {
        self.assign_keys(lo, hi, s, t);
        self.normalize(t);
    }

    /// [`Tree::assign`] without the normalization.
    fn assign_keys(&mut self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) {
        // Nothing to do when [lo, hi) already holds s alone (from the cap
        // on, everything holds the empty set).
        let inside = self.end.map_or(hi, |e| hi.min(e));
        if (inside == hi || s == EMPTY)
            && (lo >= inside
                || at(&self.root, lo, t).0 == s && range(&self.root, lo, inside, EMPTY, false, t).is_none())
        {
            return;
        }
        // Below the cap the treap alone is concerned; an update that
        // reaches it (even at its key) takes it into the treap.
        if self.end.is_some_and(|e| hi >= e) {
            self.materialize(t);
        }
        let at_hi = if hi == INF { None } else { Some(at(&self.root, hi, t)) };
        let (a, rest) = split(&self.root, lo, t);
        let mut b = if hi == INF { None } else { split(&rest, hi, t).1 };
        if let Some((v, false)) = at_hi {
            b = merge(Some(mk(hi, v, None, None, t)), b, t);
        }
        let mid = Some(mk(lo, s, None, None, t));
        let am = merge(a, mid, t);
        self.root = merge(am, b, t);
    }

    /// Adds `s` (not empty) to every position in `[lo, hi)` (`lo < hi`).
    pub fn add(&mut self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) {
        if !self.add_to_all(lo, hi, s, t) {
            self.add_keys(lo, hi, s, t);
            self.normalize(t);
        }
    }

    /// [`Tree::add`] past the whole-map case, without the normalization.
    fn add_keys(&mut self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) {
        // Nothing to do when every position already holds s (none from the
        // cap on does).
        if self.end.is_none_or(|e| hi <= e) {
            let here = self.inter(lo, hi, t);
            if t.union(here, s) == here {
                return;
            }
        }
        if self.end.is_some_and(|e| hi >= e) {
            self.materialize(t);
        }
        let (v_lo, key_lo) = at(&self.root, lo, t);
        let at_hi = if hi == INF { None } else { Some(at(&self.root, hi, t)) };
        let (a, rest) = split(&self.root, lo, t);
        let (mid, mut b) = if hi == INF { (rest, None) } else { split(&rest, hi, t) };
        let mut mid = mid.map(|m| tagged(&m, s, t));
        if !key_lo {
            let first = t.union(v_lo, s);
            mid = merge(Some(mk(lo, first, None, None, t)), mid, t);
        }
        if let Some((v, false)) = at_hi {
            b = merge(Some(mk(hi, v, None, None, t)), b, t);
        }
        let am = merge(a, mid, t);
        self.root = merge(am, b, t);
    }

    /// The add of `s` on `[lo, hi)` when the range starts at the first key
    /// and ends at the cap: a tag at the root, after a look at the root's
    /// intersection aggregate (`s` everywhere already: nothing changes).
    /// False, changing nothing, for any other add.
    fn add_to_all(&mut self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) -> bool {
        let Some(root) = &self.root else { return false };
        if min_key(root) != Some(lo) || self.end != Some(hi) {
            return false;
        }
        let everywhere = agg(root, true, t);
        if t.union(everywhere, s) != everywhere {
            self.root = Some(tagged(root, s, t));
        }
        true
    }

    /// The intersection of the sets on `[lo, hi)`.
    fn inter(&self, lo: i64, hi: i64, t: &mut SetTable) -> SetId {
        let first = at(&self.root, lo, t).0;
        match range(&self.root, lo, hi, EMPTY, true, t) {
            Some(s) => t.inter(first, s),
            None => first,
        }
    }

    /// The union of the sets on `[lo, hi)` (`lo < hi`).
    ///
    /// A range from the first key on that reaches past the last one, or
    /// to the last one when it holds the empty set (the end of an object
    /// that its wide sites cover), is the whole map: its union aggregate,
    /// kept at the root, instead of two walks down the spines.
    pub fn query(&self, lo: i64, hi: i64, t: &mut SetTable) -> SetId {
        // Nothing is live from the cap on.
        let hi = match self.end {
            Some(e) if lo >= e => return EMPTY,
            Some(e) => hi.min(e),
            None => hi,
        };
        if let Some(root) = &self.root
            && min_key(root).is_some_and(|k| lo <= k)
        {
            let last = max_key(root);
            if hi > last || (hi == last && last_set(&self.root, t) == Some(EMPTY)) || Some(hi) == self.end {
                return agg(root, false, t);
            }
        }
        let first = at(&self.root, lo, t).0;
        match range(&self.root, lo, hi, EMPTY, false, t) {
            Some(s) => t.union(first, s),
            None => first,
        }
    }

    /// The union of every set.
    pub fn all(&self, t: &mut SetTable) -> SetId {
        self.root.as_ref().map_or(EMPTY, |r| agg(r, false, t))
    }

    /// The pointwise union (one of the two itself when it already holds
    /// the other).
    pub fn join(&self, other: &Tree, t: &mut SetTable) -> Tree {
        if self.end == other.end {
            return Tree { root: join(&self.root, &other.root, EMPTY, EMPTY, t), end: self.end };
        }
        // Different caps: the union of the treaps with their caps in them.
        let (mut a, mut b) = (self.clone(), other.clone());
        a.materialize(t);
        b.materialize(t);
        let mut u = Tree { root: join(&a.root, &b.root, EMPTY, EMPTY, t), end: None };
        u.normalize(t);
        u
    }

    /// Pointwise equality when it is cheap to decide from the trees alone
    /// (one tree, identical nodes, or equal key sets); `None` otherwise.
    pub fn same_shape(&self, other: &Tree, t: &mut SetTable) -> Option<bool> {
        if self.end != other.end {
            return None;
        }
        match (&self.root, &other.root) {
            (None, None) => Some(true),
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => Some(true),
            (a, b) if identical(a, b) => Some(true),
            (Some(a), Some(b)) if a.count == b.count => equivalent(a, b, t),
            _ => None,
        }
    }

    /// True when both are one tree.
    pub fn ptr_eq(&self, other: &Tree) -> bool {
        same_link(&self.root, &other.root) && self.end == other.end
    }

    /// Checks the node invariants (heap order, key order, counts,
    /// aggregates) with an explicit walk; panics on a violation.
    #[cfg(test)]
    pub fn check_invariants(&self, t: &mut SetTable) {
        if let Some(e) = self.end {
            let root = self.root.as_ref().expect("a capped treap is not empty");
            assert!(max_key(root) < e, "every key below the cap");
        }
        let mut stack: Vec<&Rc<Node>> = self.root.iter().collect();
        while let Some(n) = stack.pop() {
            let mut u = n.set;
            let mut c = 1;
            for ch in [&n.left, &n.right].into_iter().flatten() {
                assert!(ch.prio <= n.prio, "heap order");
                let below = agg(ch, false, t);
                let cu = t.union(below, n.tag);
                u = t.union(u, cu);
                c += ch.count;
                stack.push(ch);
            }
            assert_eq!(u, agg(n, false, t));
            assert_eq!(c, n.count);
            if let Some(l) = &n.left {
                assert!(l.key < n.key);
            }
            if let Some(r) = &n.right {
                assert!(r.key > n.key);
            }
        }
    }

    /// The depth of the tree (explicit walk).
    #[cfg(test)]
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack: Vec<(&Rc<Node>, usize)> = self.root.iter().map(|n| (n, 1)).collect();
        while let Some((n, d)) = stack.pop() {
            deepest = deepest.max(d);
            stack.extend([&n.left, &n.right].into_iter().flatten().map(|c| (c, d + 1)));
        }
        deepest
    }
}
