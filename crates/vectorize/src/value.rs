//! Run-time values of the graph IR: scalars ([`Imm`]), arrays nested to any
//! depth ([`Array`]) and tuples.
//!
//! An array is stored flat, in the segmented form of nested data parallelism
//! (G. E. Blelloch and G. W. Sabot, "Compiling collection-oriented languages
//! onto massively parallel computers", JPDC 8(2), 1990; G. E. Blelloch,
//! "Programming parallel algorithms", CACM 39(3), 1996, on NESL; both in
//! `docs/references.md`): the scalars of every level in one `data` vector,
//! plus one offsets vector per inner level. `[[1, 2], [], [3]]` is
//! `offsets = [[0, 2, 2, 3]]`, `data = [1, 2, 3]`. Rows may be ragged. This
//! is what makes a lifted operation cheap: `fadd.1` is one loop over `data`,
//! `sum.1` one pass over segments, whatever the nesting.
//!
//! Invariants (checked by [`Array::from_parts`], kept by every
//! constructor): `depth >= 1`; `offsets.len() == depth - 1`; each offsets
//! vector starts at 0, never decreases, has one more entry than the level
//! above has items, and ends at the next level's item count (the last
//! ends at `data.len()`); every element of `data` is the canonical bits of
//! an [`Imm`] of type `elem`. So two arrays are equal exactly when their
//! fields are (bit-exact, NaN payloads included), and the derived
//! `PartialEq` is value equality. Parts that break an invariant are an
//! [`ArrayError`] naming it, with the position and sizes.

use crate::scalar::{Imm, ScalarTy};
use crate::types::ValTy;
use core::fmt;
use std::rc::Rc;

/// A value.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    /// A scalar.
    Scalar(Imm),
    /// An array (shared: cloning a value is O(1)).
    Array(Rc<Array>),
    /// The results of an `if`/`while` with other than one result.
    Tuple(Rc<[Value]>),
}

/// A possibly nested, possibly ragged array of scalars, stored flat.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Array {
    elem: ScalarTy,
    depth: u32,
    offsets: Vec<Vec<u32>>,
    data: Vec<u64>,
}

/// The outer `k` levels of an array (its lanes at level `k`), without the
/// items: what a lifted operation keeps from its mapped arguments.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Container {
    /// Items at level 1 (the array's length).
    pub top: usize,
    /// Offsets of levels 1 .. k-1 (`k - 1` vectors).
    pub offsets: Vec<Vec<u32>>,
}

impl Container {
    /// Number of lanes (items at the innermost level of the container).
    pub fn lanes(&self) -> usize {
        match self.offsets.last() {
            Some(o) => o.last().copied().unwrap_or(0) as usize,
            None => self.top,
        }
    }

    /// The container with `top` lanes and no inner levels.
    pub fn flat(top: usize) -> Container {
        Container { top, offsets: Vec::new() }
    }

    /// Puts `items` (an array with one top item per lane) in this
    /// container: the result has `self`'s levels, then the items' levels.
    ///
    /// # Panics
    /// If `items.len() != self.lanes()` (a precondition of callers).
    pub fn assemble(&self, items: Array) -> Array {
        assert_eq!(items.len(), self.lanes(), "one item per lane");
        if self.offsets.is_empty() {
            return items;
        }
        let Array { elem, depth, offsets, data } = items;
        let mut all = self.offsets.clone();
        all.extend(offsets);
        Array { elem, depth: depth + self.offsets.len() as u32, offsets: all, data }
    }
}

/// Why an array cannot be built from what it was given
/// ([`Array::from_imms`], [`Array::from_parts`], [`Value::array_of`]):
/// the invariant broken, with the position and the sizes or types
/// involved.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ArrayError {
    /// A scalar of another type than the array's elements.
    ElementType {
        /// The scalar's position.
        index: usize,
        /// Its type.
        found: ScalarTy,
        /// The elements' type.
        elem: ScalarTy,
    },
    /// Another number of offset levels than the depth needs.
    Levels {
        /// The depth.
        depth: u32,
        /// The offset levels given.
        levels: usize,
    },
    /// Offsets that do not start at 0 or that decrease.
    OffsetsOrder {
        /// The level.
        level: usize,
    },
    /// Offsets with another number of entries than the level above has
    /// items, plus one.
    OffsetsCount {
        /// The level.
        level: usize,
        /// Its entries.
        entries: usize,
        /// The items of the level above.
        items: usize,
    },
    /// Innermost offsets that do not end at the number of scalars.
    DataLength {
        /// Where the offsets end.
        end: usize,
        /// The scalars given.
        scalars: usize,
    },
    /// Bits that are not the canonical bits of a value of the element
    /// type.
    NotCanonical {
        /// The scalar's position.
        index: usize,
        /// The elements' type.
        elem: ScalarTy,
    },
    /// An item of another type than the array's items.
    ItemType {
        /// The item's position.
        index: usize,
        /// The items' type.
        item: ValTy,
    },
}

impl fmt::Display for ArrayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArrayError::ElementType { found, elem, .. } => write!(f, "a {found} in an array of {elem}"),
            ArrayError::Levels { depth, levels } => {
                write!(f, "depth {depth} needs {} offset levels, not {levels}", depth.saturating_sub(1))
            }
            ArrayError::OffsetsOrder { level } => write!(f, "offsets of level {level} do not start at 0 and grow"),
            ArrayError::OffsetsCount { level, entries, items } => {
                write!(f, "offsets of level {level} have {entries} entries for {items} items")
            }
            ArrayError::DataLength { end, scalars } => {
                write!(f, "the offsets end at {end} but there are {scalars} scalars")
            }
            ArrayError::NotCanonical { elem, .. } => write!(f, "bits that are not canonical for {elem}"),
            ArrayError::ItemType { item, .. } => write!(f, "an item of another type than {item}"),
        }
    }
}

impl std::error::Error for ArrayError {}

impl Array {
    /// A flat array of scalars of type `elem` given by their bits
    /// (canonicalised).
    pub fn from_bits(elem: ScalarTy, bits: impl IntoIterator<Item = u64>) -> Array {
        Array {
            elem,
            depth: 1,
            offsets: Vec::new(),
            data: bits.into_iter().map(|b| Imm::from_bits(elem, b).bits()).collect(),
        }
    }

    /// A flat array of scalars (all of type `elem`; others are an error).
    pub fn from_imms(elem: ScalarTy, values: &[Imm]) -> Result<Array, ArrayError> {
        if let Some((index, v)) = values.iter().enumerate().find(|(_, v)| v.ty() != elem) {
            return Err(ArrayError::ElementType { index, found: v.ty(), elem });
        }
        Ok(Array { elem, depth: 1, offsets: Vec::new(), data: values.iter().map(|v| v.bits()).collect() })
    }

    /// An empty array of type `ty` (which must be an array type; a scalar
    /// type gives an empty `array<ty>`).
    pub fn empty(ty: ValTy) -> Array {
        let depth = ty.depth.max(1);
        Array { elem: ty.scalar, depth, offsets: vec![vec![0]; depth as usize - 1], data: Vec::new() }
    }

    /// An array from its parts, checked against the invariants.
    pub fn from_parts(elem: ScalarTy, depth: u32, offsets: Vec<Vec<u32>>, data: Vec<u64>) -> Result<Array, ArrayError> {
        if depth == 0 || offsets.len() != depth as usize - 1 {
            return Err(ArrayError::Levels { depth, levels: offsets.len() });
        }
        let mut items = None;
        for (level, o) in offsets.iter().enumerate() {
            if o.first() != Some(&0) || o.windows(2).any(|w| w[0] > w[1]) {
                return Err(ArrayError::OffsetsOrder { level });
            }
            if let Some(n) = items
                && o.len() != n + 1
            {
                return Err(ArrayError::OffsetsCount { level, entries: o.len(), items: n });
            }
            items = Some(*o.last().unwrap_or(&0) as usize);
        }
        if let Some(n) = items
            && n != data.len()
        {
            return Err(ArrayError::DataLength { end: n, scalars: data.len() });
        }
        if let Some(index) = data.iter().position(|&b| Imm::from_bits(elem, b).bits() != b) {
            return Err(ArrayError::NotCanonical { index, elem });
        }
        Ok(Array { elem, depth, offsets, data })
    }

    /// The scalar type at the bottom.
    pub fn elem(&self) -> ScalarTy {
        self.elem
    }

    /// The nesting depth (at least 1).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The array's type.
    pub fn ty(&self) -> ValTy {
        ValTy::array(self.elem, self.depth)
    }

    /// Number of (top-level) elements.
    pub fn len(&self) -> usize {
        match self.offsets.first() {
            Some(o) => o.len() - 1,
            None => self.data.len(),
        }
    }

    /// True when the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The scalars of every level, flat, as bits.
    pub fn data(&self) -> &[u64] {
        &self.data
    }

    /// The scalars as [`Imm`]s.
    pub fn scalars(&self) -> impl ExactSizeIterator<Item = Imm> + '_ {
        self.data.iter().map(|&b| Imm::from_bits(self.elem, b))
    }

    /// Offsets splitting the items of level `level + 1` into those of
    /// level `level + 2` (`level < depth - 1`).
    pub fn offsets(&self, level: usize) -> &[u32] {
        self.offsets.get(level).map_or(&[], Vec::as_slice)
    }

    /// Number of items at nesting level `k` (`1 <= k <= depth`): level 1
    /// is the array's elements, level `depth` its scalars. Level 0 has one
    /// item, the array itself.
    pub fn lanes(&self, k: u32) -> usize {
        match k {
            0 => 1,
            1 => self.len(),
            _ => self.offsets.get(k as usize - 2).and_then(|o| o.last()).map_or(0, |&n| n as usize),
        }
    }

    /// The outer `k` levels (`1 <= k <= depth`).
    pub fn container(&self, k: u32) -> Container {
        Container { top: self.len(), offsets: self.offsets[..(k as usize).saturating_sub(1)].to_vec() }
    }

    /// True when `self` and `other` have the same outer `k` levels.
    pub fn same_container(&self, other: &Array, k: u32) -> bool {
        let levels = (k as usize).saturating_sub(1);
        self.len() == other.len() && self.offsets[..levels] == other.offsets[..levels]
    }

    /// Item `lane` of level `k` (a scalar when `k == depth`), copied out.
    pub fn item(&self, k: u32, lane: usize) -> Value {
        if k == self.depth {
            return Value::Scalar(Imm::from_bits(self.elem, self.data[lane]));
        }
        let mut b = ArrayBuilder::new(ValTy::array(self.elem, self.depth - k));
        b.push_item(self, k, lane);
        let mut one = b.finish();
        // `one` holds a single item; unwrap it.
        Value::Array(Rc::new(one.unwrap_single()))
    }

    /// The element `i` of the top level.
    pub fn get(&self, i: usize) -> Option<Value> {
        (i < self.len()).then(|| self.item(1, i))
    }

    /// An array with exactly one top item, as that item (an array).
    fn unwrap_single(&mut self) -> Array {
        let mut offsets = std::mem::take(&mut self.offsets);
        let first = offsets.remove(0);
        debug_assert_eq!(first.len(), 2);
        Array { elem: self.elem, depth: self.depth - 1, offsets, data: std::mem::take(&mut self.data) }
    }

    /// The range of level-`(k + 1)` items (or scalars) under item `lane`
    /// of level `k`, and recursively down to the scalars: one range per
    /// level below `k`.
    fn spans(&self, k: u32, lane: usize) -> Vec<(usize, usize)> {
        let mut spans = Vec::with_capacity((self.depth - k) as usize);
        let (mut a, mut b) = (lane, lane + 1);
        for level in (k as usize - 1)..self.offsets.len() {
            let o = &self.offsets[level];
            (a, b) = (o[a] as usize, o[b] as usize);
            spans.push((a, b));
        }
        spans
    }
}

/// Builds an array by appending items of one type.
#[derive(Clone, Debug)]
pub struct ArrayBuilder {
    item: ValTy,
    offsets: Vec<Vec<u32>>,
    data: Vec<u64>,
    len: usize,
}

impl ArrayBuilder {
    /// A builder of `array<item>`.
    pub fn new(item: ValTy) -> ArrayBuilder {
        ArrayBuilder { item, offsets: vec![vec![0]; item.depth as usize], data: Vec::new(), len: 0 }
    }

    /// The item type.
    pub fn item_ty(&self) -> ValTy {
        self.item
    }

    /// Items so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a scalar item (bits canonical for the item type).
    pub fn push_scalar(&mut self, v: Imm) {
        debug_assert!(self.item.depth == 0 && v.ty() == self.item.scalar);
        self.data.push(v.bits());
        self.len += 1;
    }

    /// Appends a value of the item type; `false` (and nothing appended)
    /// when its type differs.
    pub fn push(&mut self, v: &Value) -> bool {
        match v {
            Value::Scalar(x) if self.item == ValTy::scalar(x.ty()) => {
                self.push_scalar(*x);
                true
            }
            Value::Array(a) if a.ty() == self.item => {
                self.push_whole(a);
                true
            }
            _ => false,
        }
    }

    /// Appends a whole array as one item.
    fn push_whole(&mut self, a: &Array) {
        let n = a.len() as u32;
        let first = &mut self.offsets[0];
        first.push(first.last().copied().unwrap_or(0) + n);
        for (level, o) in a.offsets.iter().enumerate() {
            let dst = &mut self.offsets[level + 1];
            let base = dst.last().copied().unwrap_or(0);
            dst.extend(o[1..].iter().map(|&x| base + x));
        }
        self.data.extend_from_slice(&a.data);
        self.len += 1;
    }

    /// Appends item `lane` of level `k` of `src` (whose items at that level
    /// have the builder's item type), copying without allocating a value.
    pub fn push_item(&mut self, src: &Array, k: u32, lane: usize) {
        if k == src.depth {
            self.data.push(src.data[lane]);
            self.len += 1;
            return;
        }
        let spans = src.spans(k, lane);
        // spans[0]: the item's elements (level k+1); spans[i]: level k+1+i.
        let first = &mut self.offsets[0];
        first.push(first.last().copied().unwrap_or(0) + (spans[0].1 - spans[0].0) as u32);
        for i in 1..spans.len() {
            let o = &src.offsets[k as usize - 1 + i];
            let (a, b) = spans[i - 1];
            let dst = &mut self.offsets[i];
            let base = dst.last().copied().unwrap_or(0);
            let origin = o[a];
            dst.extend(o[a + 1..=b].iter().map(|&x| base + (x - origin)));
        }
        let (a, b) = *spans.last().unwrap_or(&(0, 0));
        self.data.extend_from_slice(&src.data[a..b]);
        self.len += 1;
    }

    /// Appends the zero of the item type: scalar zero, or an empty array.
    pub fn push_zero(&mut self) {
        if self.item.depth == 0 {
            self.data.push(0);
        } else {
            let first = &mut self.offsets[0];
            first.push(first.last().copied().unwrap_or(0));
        }
        self.len += 1;
    }

    /// The array of the items pushed.
    pub fn finish(self) -> Array {
        let ArrayBuilder { item, offsets, data, .. } = self;
        Array { elem: item.scalar, depth: item.depth + 1, offsets, data }
    }
}

impl Value {
    /// An `f32` scalar.
    pub fn f32(v: f32) -> Value {
        Value::Scalar(Imm::f32(v))
    }

    /// An `i64` scalar.
    pub fn i64(v: i64) -> Value {
        Value::Scalar(Imm::int(ScalarTy::I64, v))
    }

    /// A flat array of `f32`.
    pub fn f32s(v: &[f32]) -> Value {
        Value::Array(Rc::new(Array::from_bits(ScalarTy::F32, v.iter().map(|x| u64::from(x.to_bits())))))
    }

    /// A flat array of integers of type `elem`.
    pub fn ints(elem: ScalarTy, v: &[i64]) -> Value {
        Value::Array(Rc::new(Array::from_bits(elem, v.iter().map(|&x| x as u64))))
    }

    /// `array<item>` of the given items (all of type `item`).
    pub fn array_of(item: ValTy, items: &[Value]) -> Result<Value, ArrayError> {
        let mut b = ArrayBuilder::new(item);
        for (index, v) in items.iter().enumerate() {
            if !b.push(v) {
                return Err(ArrayError::ItemType { index, item });
            }
        }
        Ok(Value::Array(Rc::new(b.finish())))
    }

    /// The value's type (`None` for a tuple).
    pub fn ty(&self) -> Option<ValTy> {
        match self {
            Value::Scalar(x) => Some(ValTy::scalar(x.ty())),
            Value::Array(a) => Some(a.ty()),
            Value::Tuple(_) => None,
        }
    }

    /// The scalar, if this is one.
    pub fn scalar(&self) -> Option<Imm> {
        match self {
            Value::Scalar(x) => Some(*x),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn array(&self) -> Option<&Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The zero of a type: scalar zero, or an empty array.
    pub fn zero(ty: ValTy) -> Value {
        if ty.depth == 0 {
            Value::Scalar(Imm::from_bits(ty.scalar, 0))
        } else {
            Value::Array(Rc::new(Array::empty(ty)))
        }
    }

    /// Elements of an array value, copied out (empty for anything else).
    pub fn elements(&self) -> Vec<Value> {
        match self {
            Value::Array(a) => (0..a.len()).map(|i| a.item(1, i)).collect(),
            Value::Tuple(t) => t.to_vec(),
            Value::Scalar(_) => Vec::new(),
        }
    }
}

impl From<Imm> for Value {
    fn from(x: Imm) -> Value {
        Value::Scalar(x)
    }
}

impl From<Array> for Value {
    fn from(a: Array) -> Value {
        Value::Array(Rc::new(a))
    }
}

/// Writes `[1.0, 2.0]`, `[[1], []]`, `(1, [2])`: the literal syntax of the
/// text format, without types.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Scalar(x) => write!(f, "{x}"),
            Value::Array(a) => write!(f, "{a}"),
            Value::Tuple(t) => {
                f.write_str("(")?;
                for (i, v) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Iterative: one frame (level, first item, next item, end) per open bracket.
        let mut stack: Vec<(u32, usize, usize, usize)> = vec![(1, 0, 0, self.len())];
        f.write_str("[")?;
        while let Some(top) = stack.last_mut() {
            let (level, first, i, end) = *top;
            if i == end {
                stack.pop();
                f.write_str("]")?;
                continue;
            }
            top.2 += 1;
            if i > first {
                f.write_str(", ")?;
            }
            if level == self.depth {
                write!(f, "{}", Imm::from_bits(self.elem, self.data[i]))?;
            } else {
                let o = &self.offsets[level as usize - 1];
                stack.push((level + 1, o[i] as usize, o[i] as usize, o[i + 1] as usize));
                f.write_str("[")?;
            }
        }
        Ok(())
    }
}
