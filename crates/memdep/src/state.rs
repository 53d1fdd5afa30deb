//! The dataflow state at a program point: which sites are live where.
//!
//! A [`Layer`] holds one kind of site (the definitions, for flow and output
//! dependences; the reads, for anti-dependences). Per object, a segment map
//! over element positions (the *absolute* map); per `(object, symbol,
//! scale)` *class*, a segment map over positions relative to
//! `scale · value(symbol)` and the class's *members*.
//!
//! Invariants (what makes the answers sound):
//! - Every live site is in the absolute map of its object over its whole
//!   possible extent minus what exact kills covered since: a site with an
//!   unknown or symbolic offset over its bounds, a certain exact write over
//!   its range.
//! - A member of a class is a site whose offset is affine in the class's
//!   symbol with the class's scale, *every live instance* of which was
//!   recorded while the symbol kept its value on every path since (or
//!   advanced by a known step, see [`Layer::advance`]): its relative
//!   positions are then exact, and the class's map says where relative to
//!   the symbol it is still live. A site that is live but not a member is
//!   treated as anywhere in its bounds; so a site whose older instance lost
//!   its relation does not become a member when it runs again (see
//!   [`Layer::insert`]).
//! - A query for an access of a class takes the absolute answer and drops
//!   the members the class map does not place on the access's relative
//!   range: `(abs ∖ members) ∪ (abs ∩ rel)`.
//! - Joins: absolute and class maps unite pointwise (kills intersect); a
//!   site is a member after a join only if no incoming path has it live
//!   without being a member (its relation lost on that path).

use crate::planted::{Bug, Planted};
use crate::segmap::{INF, SegMap};
use crate::sets::{EMPTY, SetId, SetTable};
use smallvec::SmallVec;

/// Where an access lies, prepared once per access.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Shape {
    /// The object.
    pub obj: u32,
    /// Absolute extent `[lo, hi)`.
    pub lo: i64,
    pub hi: i64,
    /// The extent is exact: a certain write of it kills it.
    pub exact: bool,
    /// Relative to a symbol, when the offset is affine.
    pub class: Option<Rel>,
}

/// An access's position relative to `scale · value(sym)`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Rel {
    pub sym: u32,
    pub scale: i64,
    pub lo: i64,
    pub hi: i64,
    /// The size is known: a certain write kills `[lo, hi)` relatively.
    pub exact: bool,
}

/// One class: sites of one object whose offsets are affine in one symbol
/// with one scale.
#[derive(Clone, Debug)]
pub(crate) struct Class {
    pub obj: u32,
    pub sym: u32,
    pub scale: i64,
    pub map: SegMap,
    pub members: SetId,
}

/// The live sites of one kind.
#[derive(Debug, Default)]
pub(crate) struct Layer {
    /// By object id (missing objects are empty).
    pub objs: Vec<SegMap>,
    /// Sorted by `(obj, sym, scale)`.
    pub classes: Vec<Class>,
}

impl Clone for Layer {
    fn clone(&self) -> Layer {
        Layer { objs: self.objs.clone(), classes: self.classes.clone() }
    }

    /// Reuses this layer's vectors (see [`State::copy_from`]).
    fn clone_from(&mut self, source: &Layer) {
        self.objs.clone_from(&source.objs);
        self.classes.clone_from(&source.classes);
    }
}

impl Layer {
    /// Pointwise equality (maps and members).
    pub fn same(&self, other: &Layer, t: &mut SetTable) -> bool {
        let n = self.objs.len().max(other.objs.len());
        let empty = SegMap::default();
        let objs = (0..n).all(|o| {
            let (a, b) = (self.objs.get(o).unwrap_or(&empty), other.objs.get(o).unwrap_or(&empty));
            a.same(b, t)
        });
        objs && self.classes.len() == other.classes.len()
            && self.classes.iter().zip(&other.classes).all(|(x, y)| {
                (x.obj, x.sym, x.scale, x.members) == (y.obj, y.sym, y.scale, y.members) && x.map.same(&y.map, t)
            })
    }

    /// Empties the layer, keeping capacity.
    pub fn clear(&mut self) {
        self.objs.clear();
        self.classes.clear();
    }

    fn obj(&self, o: u32) -> Option<&SegMap> {
        self.objs.get(o as usize)
    }

    fn obj_mut(&mut self, o: u32) -> &mut SegMap {
        if self.objs.len() <= o as usize {
            self.objs.resize_with(o as usize + 1, SegMap::default);
        }
        &mut self.objs[o as usize]
    }

    fn class_index(&self, obj: u32, sym: u32, scale: i64) -> Result<usize, usize> {
        self.classes.binary_search_by(|c| (c.obj, c.sym, c.scale).cmp(&(obj, sym, scale)))
    }

    /// The sites live on the access's extent.
    pub fn query(&self, s: &Shape, t: &mut SetTable) -> SetId {
        let abs = self.obj(s.obj).map_or(EMPTY, |m| m.query(s.lo, s.hi, t));
        let Some(r) = s.class else { return abs };
        let Ok(k) = self.class_index(s.obj, r.sym, r.scale) else { return abs };
        let c = &self.classes[k];
        // No member live here: the class cannot narrow the answer.
        if !t.meets(abs, c.members) {
            return abs;
        }
        let rel = c.map.query(r.lo, r.hi, t);
        let outside = t.diff(abs, c.members);
        let inside = t.inter(abs, rel);
        t.union(outside, inside)
    }

    /// Every live site.
    pub fn query_all(&self, t: &mut SetTable) -> SetId {
        self.objs.iter().fold(EMPTY, |acc, m| {
            let a = m.all(t);
            t.union(acc, a)
        })
    }

    /// Makes `item` live on the access's extent; `kill` replaces what was
    /// live there (a certain write of a known range).
    ///
    /// A site becomes a member of its class only if it is not live already
    /// as a non-member: an older instance of it whose relation to the
    /// symbol was lost (the symbol changed since) may still be live, and
    /// membership would hide it. Its new instance is then found through
    /// the absolute map like the old one.
    pub fn insert(&mut self, s: &Shape, item: SetId, kill: bool, t: &mut SetTable) {
        let mut member = false;
        if let Some(r) = s.class {
            let k = self.class_index(s.obj, r.sym, r.scale);
            let already = k.is_ok_and(|k| t.meets(self.classes[k].members, item));
            member = already || {
                let live = self.obj(s.obj).map_or(EMPTY, |m| m.all(t));
                !t.meets(live, item)
            };
        }
        let m = self.obj_mut(s.obj);
        if kill && s.exact {
            m.assign(s.lo, s.hi, item, t);
        } else {
            m.add(s.lo, s.hi, item, t);
        }
        if let Some(r) = s.class {
            let k = match self.class_index(s.obj, r.sym, r.scale) {
                Ok(k) => k,
                Err(k) => {
                    let c = Class { obj: s.obj, sym: r.sym, scale: r.scale, map: SegMap::default(), members: EMPTY };
                    self.classes.insert(k, c);
                    k
                }
            };
            let c = &mut self.classes[k];
            if kill && r.exact {
                c.map.assign(r.lo, r.hi, item, t);
            } else {
                c.map.add(r.lo, r.hi, item, t);
            }
            if member {
                c.members = t.union(c.members, item);
            }
        }
    }

    /// A certain write of a known range: nothing of this layer stays live
    /// on it.
    pub fn clear_range(&mut self, s: &Shape, t: &mut SetTable) {
        if s.exact {
            if let Some(m) = self.objs.get_mut(s.obj as usize) {
                m.assign(s.lo, s.hi, EMPTY, t);
            }
        } else if let Some(r) = s.class.filter(|r| r.exact)
            && let Ok(k) = self.class_index(s.obj, r.sym, r.scale)
        {
            self.classes[k].map.assign(r.lo, r.hi, EMPTY, t);
        }
    }

    /// Makes `item` live on every position `0..len` of every object (no
    /// kill).
    pub fn insert_everywhere(&mut self, item: SetId, lens: impl Iterator<Item = u64>, t: &mut SetTable) {
        for (o, len) in lens.enumerate() {
            let hi = i64::try_from(len).unwrap_or(INF);
            self.obj_mut(o as u32).add(0, hi, item, t);
        }
    }

    /// `sym` took an unrelated value: its classes lose their relation.
    pub fn forget(&mut self, sym: u32) {
        self.classes.retain(|c| c.sym != sym);
    }

    /// `sym` advanced by `step`: every class of it moves by `scale · step`
    /// positions, kept as the hull over any number of advances (see
    /// [`SegMap::advanced`]); a class whose positions would overflow is
    /// forgotten.
    pub fn advance(&mut self, sym: u32, step: i64, t: &mut SetTable) {
        self.classes.retain_mut(|c| {
            if c.sym != sym {
                return true;
            }
            match c.scale.checked_mul(step).and_then(|g| c.map.advanced(g, t)) {
                Some(m) => {
                    c.map = m;
                    true
                }
                None => false,
            }
        });
    }

    /// The join of two layers (see the module invariants), into `out`,
    /// whose vectors are reused (its content is replaced).
    pub fn join_into(&self, other: &Layer, t: &mut SetTable, planted: Planted, out: &mut Layer) {
        let n = self.objs.len().max(other.objs.len());
        let empty = SegMap::default();
        out.objs.clear();
        out.objs.extend((0..n).map(|o| {
            let a = self.objs.get(o).unwrap_or(&empty);
            let b = other.objs.get(o).unwrap_or(&empty);
            if planted.has(Bug::JoinIntersects) { a.meet(b, t) } else { a.join(b, t) }
        }));
        let classes = &mut out.classes;
        classes.clear();
        let (a, b) = (&self.classes, &other.classes);
        if a.is_empty() && b.is_empty() {
            return;
        }
        let (mut i, mut j) = (0, 0);
        // Lazily: the union of every site live in an object, per side.
        let mut all_a: SmallVec<[Option<SetId>; 16]> = smallvec::smallvec![None; n];
        let mut all_b: SmallVec<[Option<SetId>; 16]> = smallvec::smallvec![None; n];
        let all = |side: &Layer, cache: &mut [Option<SetId>], o: u32, t: &mut SetTable| -> SetId {
            *cache[o as usize].get_or_insert_with(|| side.obj(o).map_or(EMPTY, |m| m.all(t)))
        };
        while i < a.len() || j < b.len() {
            let ord = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => (x.obj, x.sym, x.scale).cmp(&(y.obj, y.sym, y.scale)),
                (Some(_), None) => core::cmp::Ordering::Less,
                _ => core::cmp::Ordering::Greater,
            };
            let c = match ord {
                core::cmp::Ordering::Equal => {
                    let (x, y) = (&a[i], &b[j]);
                    i += 1;
                    j += 1;
                    let members = if x.members == y.members {
                        x.members
                    } else {
                        // Members of both; or of one side and not live on
                        // the other at all.
                        let both = t.inter(x.members, y.members);
                        let ally = all(other, &mut all_b, x.obj, t);
                        let only_x = t.diff(x.members, ally);
                        let allx = all(self, &mut all_a, x.obj, t);
                        let only_y = t.diff(y.members, allx);
                        let u = t.union(both, only_x);
                        t.union(u, only_y)
                    };
                    Class { obj: x.obj, sym: x.sym, scale: x.scale, map: x.map.join(&y.map, t), members }
                }
                core::cmp::Ordering::Less => {
                    let x = &a[i];
                    i += 1;
                    let ally = all(other, &mut all_b, x.obj, t);
                    Class { members: t.diff(x.members, ally), ..x.clone() }
                }
                core::cmp::Ordering::Greater => {
                    let y = &b[j];
                    j += 1;
                    let allx = all(self, &mut all_a, y.obj, t);
                    Class { members: t.diff(y.members, allx), ..y.clone() }
                }
            };
            if c.members != EMPTY {
                classes.push(c);
            }
        }
    }
}

/// The state at a program point: live definitions, and live reads when
/// anti-dependences are computed.
#[derive(Clone, Debug, Default)]
pub(crate) struct State {
    pub defs: Layer,
    pub reads: Layer,
}

impl State {
    /// Becomes a copy of `source`, reusing this state's vectors (a block's
    /// working state takes its one predecessor's state without
    /// allocating).
    pub fn copy_from(&mut self, source: &State) {
        self.defs.clone_from(&source.defs);
        self.reads.clone_from(&source.reads);
    }

    /// Empties the state, keeping capacity.
    pub fn clear(&mut self) {
        self.defs.clear();
        self.reads.clear();
    }

    pub fn same(&self, other: &State, t: &mut SetTable) -> bool {
        self.defs.same(&other.defs, t) && self.reads.same(&other.reads, t)
    }

    /// The join of two states, into `out` (its vectors reused).
    pub fn join_into(&self, other: &State, t: &mut SetTable, planted: Planted, out: &mut State) {
        self.defs.join_into(&other.defs, t, planted, &mut out.defs);
        self.reads.join_into(&other.reads, t, planted, &mut out.reads);
    }

    pub fn forget(&mut self, sym: u32) {
        self.defs.forget(sym);
        self.reads.forget(sym);
    }

    pub fn advance(&mut self, sym: u32, step: i64, t: &mut SetTable) {
        self.defs.advance(sym, step, t);
        self.reads.advance(sym, step, t);
    }
}
