//! The primitives of the graph IR ([`Op`], with its payload) and their
//! payload-free keys ([`Prim`]), which key the rule table: one
//! vectorization rule per primitive.
//!
//! Every scalar operation of the scalar layer ([`UnaryOp`], [`BinaryOp`],
//! [`ConvertOp`], the compares by [`IntCC`] and [`FloatCC`], and `select`)
//! is a primitive, plus the array operations (`length`, `sum`, `max`, `any`,
//! `index`, `broadcast`, `concat`, `partition`, `assert`), the higher-order
//! ones over lambdas (`map`, `apply`, `if`, `while`), tuple projection
//! (`get`), constants (`const`, `array`) and the two non-terminals of
//! source document 003 (`param`, `lambda`; `docs/references.md`).
//!
//! Invariant: [`Prim::all`] lists every primitive exactly once, in a fixed
//! order (the payload-free primitives of [`Prim::FIXED`] around the scalar
//! operations in their tables' order), and [`Prim::index`] is the position
//! in it, computed in O(1) from the tables' lengths; the rule table is a
//! dense array over that index, so a missing rule is a `None` entry that
//! [`crate::RuleSet::missing`] reports and a test asserts empty.
//!
//! Adding a primitive: a variant in [`Op`] and [`Prim`] (a payload-free
//! one also in [`Prim::FIXED`] and `word`), its arity and flags here, its
//! type rule in `infer/mod.rs`, its semantics in `eval/prims.rs`, its rule in
//! `rules/default.rules`; a scalar operation is one line in its table in
//! `scalar/ops.rs` plus its arm in `scalar/semantics.rs`.

use crate::scalar::{BinaryOp, ConvertOp, FloatCC, Imm, IntCC, UnaryOp};
use core::fmt;

/// An operation with its payload.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// Parameter `i` of the lambda owning the node (a non-terminal).
    Param(u32),
    /// A lambda: the payload indexes [`crate::Graph::lambda`] (a
    /// non-terminal).
    Lambda(u32),
    /// A scalar constant.
    Const(Imm),
    /// A constant array: the payload indexes the graph's constant pool.
    Array(u32),
    /// A unary operation (`copy`, `neg` ... `fnearest`).
    Unary(UnaryOp),
    /// A binary operation (`add` ... `fcopysign`).
    Binary(BinaryOp),
    /// `select c, a, b`: `c ? a : b`, for a value of any type.
    Select,
    /// `setp.cc a, b` on integers.
    Setp(IntCC),
    /// `fsetp.cc a, b` on floats.
    Fsetp(FloatCC),
    /// A conversion (`sext` ... `bitcast`); the node's type is the target
    /// type.
    Convert(ConvertOp),
    /// `length xs`: the number of elements of an array (`i64`).
    Length,
    /// `sum xs`: the sum of an array of scalars, left to right from the
    /// first element (`tsum`'s order); `+0` when empty.
    Sum,
    /// `max xs`: the NaN-propagating maximum (`tredmax`); the lowest value
    /// when empty.
    Max,
    /// `any xs`: true when some element of an array of `i1` is true.
    Any,
    /// `index xs, i`: element `i` (signed); traps out of bounds.
    Index,
    /// `broadcast x, n`: an array of `n` copies of `x`; traps if `n < 0`.
    Broadcast,
    /// `concat xss`: the rows of an array of arrays, one after another.
    Concat,
    /// `partition xs, lens`: `xs` cut into rows of the given lengths;
    /// traps unless the lengths are non-negative and add up to `xs`'s.
    Partition,
    /// `assert c`: traps when `c` is false; otherwise `c`.
    Assert,
    /// `map l, args...`: `l` applied to each element of the mapped
    /// arguments (equal lengths), the broadcast ones passed whole.
    Map,
    /// `apply l, args...`: a call of lambda `l`.
    Apply,
    /// `if c, lt, le, args...`: `lt(args)` when `c`, else `le(args)`.
    If,
    /// `while lc, lb, init...`: the state starts at `init`; while
    /// `lc(state)`, `state = lb(state)`.
    While,
    /// `get.i t`: component `i` of a tuple.
    Get(u32),
}

/// A primitive: an [`Op`] without its payload (but with its scalar
/// operation or condition code). The rule table is keyed by it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Prim {
    /// `param` (non-terminal).
    Param,
    /// `lambda` (non-terminal).
    Lambda,
    /// `const`.
    Const,
    /// `array`.
    Array,
    /// A unary operation.
    Unary(UnaryOp),
    /// A binary operation.
    Binary(BinaryOp),
    /// `select`.
    Select,
    /// `setp.cc`.
    Setp(IntCC),
    /// `fsetp.cc`.
    Fsetp(FloatCC),
    /// A conversion.
    Convert(ConvertOp),
    /// `length`.
    Length,
    /// `sum`.
    Sum,
    /// `max`.
    Max,
    /// `any`.
    Any,
    /// `index`.
    Index,
    /// `broadcast`.
    Broadcast,
    /// `concat`.
    Concat,
    /// `partition`.
    Partition,
    /// `assert`.
    Assert,
    /// `map`.
    Map,
    /// `apply`.
    Apply,
    /// `if`.
    If,
    /// `while`.
    While,
    /// `get`.
    Get,
}

/// How a primitive's vectorization is decided.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PrimKind {
    /// A non-terminal of source document 003 (`param`, `lambda`): handled by the
    /// graph interpreter itself, never by a rule.
    NonTerminal,
    /// Takes no arguments (`const`, `array`), so its value is the same in
    /// every lane and it is copied, never batched.
    Leaf,
    /// Has arguments, so it needs a vectorization rule.
    Ruled,
}

impl Op {
    /// The primitive this operation is an instance of.
    pub fn prim(self) -> Prim {
        match self {
            Op::Param(_) => Prim::Param,
            Op::Lambda(_) => Prim::Lambda,
            Op::Const(_) => Prim::Const,
            Op::Array(_) => Prim::Array,
            Op::Unary(o) => Prim::Unary(o),
            Op::Binary(o) => Prim::Binary(o),
            Op::Select => Prim::Select,
            Op::Setp(c) => Prim::Setp(c),
            Op::Fsetp(c) => Prim::Fsetp(c),
            Op::Convert(o) => Prim::Convert(o),
            Op::Length => Prim::Length,
            Op::Sum => Prim::Sum,
            Op::Max => Prim::Max,
            Op::Any => Prim::Any,
            Op::Index => Prim::Index,
            Op::Broadcast => Prim::Broadcast,
            Op::Concat => Prim::Concat,
            Op::Partition => Prim::Partition,
            Op::Assert => Prim::Assert,
            Op::Map => Prim::Map,
            Op::Apply => Prim::Apply,
            Op::If => Prim::If,
            Op::While => Prim::While,
            Op::Get(_) => Prim::Get,
        }
    }

    /// True for operations that may carry a lane mask (`@%m`): every
    /// operation with a lift depth. Lambdas, constants and the
    /// higher-order operations may not.
    pub fn maskable(self) -> bool {
        self.prim().liftable()
    }

    /// True for operations that take a lift depth `.k` (mapped over `k`
    /// outer array levels).
    pub fn liftable(self) -> bool {
        self.prim().liftable()
    }

    /// True when the operation itself may trap whatever its lift depth:
    /// integer division and remainder, trapping float-to-int conversions,
    /// `index`, `broadcast`, `partition` and `assert`. (Lifted operations
    /// with two mapped arguments may also trap on a shape mismatch, and
    /// higher-order ones if their lambdas may: see
    /// [`crate::Purity`].)
    pub fn traps(self) -> bool {
        match self {
            Op::Binary(o) => o.traps(),
            Op::Convert(o) => o.traps(),
            _ => matches!(self, Op::Index | Op::Broadcast | Op::Partition | Op::Assert),
        }
    }
}

impl Prim {
    /// The primitives without a scalar operation or condition code, in
    /// [`Prim::all`]'s order: the first four come before the scalar
    /// operations, `select` between the binary operations and the
    /// compares, the rest after the conversions.
    pub const FIXED: [Prim; 19] = [
        Prim::Param,
        Prim::Lambda,
        Prim::Const,
        Prim::Array,
        Prim::Select,
        Prim::Length,
        Prim::Sum,
        Prim::Max,
        Prim::Any,
        Prim::Index,
        Prim::Broadcast,
        Prim::Concat,
        Prim::Partition,
        Prim::Assert,
        Prim::Map,
        Prim::Apply,
        Prim::If,
        Prim::While,
        Prim::Get,
    ];

    /// Every primitive, in a fixed order (the rule table's index order):
    /// `param`, `lambda`, `const`, `array`, the unary, then binary
    /// operations, `select`, the integer, then float compares, the
    /// conversions, then the array, higher-order and tuple primitives.
    pub fn all() -> &'static [Prim] {
        use std::sync::OnceLock;
        static ALL: OnceLock<Vec<Prim>> = OnceLock::new();
        ALL.get_or_init(|| {
            let mut v = Prim::FIXED[..4].to_vec();
            v.extend(UnaryOp::ALL.iter().map(|&o| Prim::Unary(o)));
            v.extend(BinaryOp::ALL.iter().map(|&o| Prim::Binary(o)));
            v.push(Prim::Select);
            v.extend(IntCC::ALL.iter().map(|&c| Prim::Setp(c)));
            v.extend(FloatCC::ALL.iter().map(|&c| Prim::Fsetp(c)));
            v.extend(ConvertOp::ALL.iter().map(|&o| Prim::Convert(o)));
            v.extend_from_slice(&Prim::FIXED[5..]);
            v
        })
    }

    /// The position in [`Prim::all`] (O(1): arithmetic on the tables'
    /// lengths).
    pub fn index(self) -> usize {
        const UNARY: usize = 4;
        const BINARY: usize = UNARY + UnaryOp::ALL.len();
        const SELECT: usize = BINARY + BinaryOp::ALL.len();
        const SETP: usize = SELECT + 1;
        const FSETP: usize = SETP + IntCC::ALL.len();
        const CONVERT: usize = FSETP + FloatCC::ALL.len();
        const REST: usize = CONVERT + ConvertOp::ALL.len();
        match self {
            Prim::Unary(o) => UNARY + o as usize,
            Prim::Binary(o) => BINARY + o as usize,
            Prim::Setp(c) => SETP + c as usize,
            Prim::Fsetp(c) => FSETP + c as usize,
            Prim::Convert(o) => CONVERT + o as usize,
            Prim::Select => SELECT,
            other => {
                let slot = other.slot();
                if slot < 4 { slot } else { REST + slot - 5 }
            }
        }
    }

    /// The position in [`Prim::FIXED`] of a primitive without a scalar
    /// operation or condition code (0 for the others).
    fn slot(self) -> usize {
        match self {
            Prim::Param => 0,
            Prim::Lambda => 1,
            Prim::Const => 2,
            Prim::Array => 3,
            Prim::Select => 4,
            Prim::Length => 5,
            Prim::Sum => 6,
            Prim::Max => 7,
            Prim::Any => 8,
            Prim::Index => 9,
            Prim::Broadcast => 10,
            Prim::Concat => 11,
            Prim::Partition => 12,
            Prim::Assert => 13,
            Prim::Map => 14,
            Prim::Apply => 15,
            Prim::If => 16,
            Prim::While => 17,
            Prim::Get => 18,
            Prim::Unary(_) | Prim::Binary(_) | Prim::Convert(_) | Prim::Setp(_) | Prim::Fsetp(_) => 0,
        }
    }

    /// How the primitive is vectorized.
    pub fn kind(self) -> PrimKind {
        match self {
            Prim::Param | Prim::Lambda => PrimKind::NonTerminal,
            Prim::Const | Prim::Array => PrimKind::Leaf,
            _ => PrimKind::Ruled,
        }
    }

    /// True for primitives that take a lift depth (`fadd.1`) and a mask.
    pub fn liftable(self) -> bool {
        !matches!(
            self,
            Prim::Param
                | Prim::Lambda
                | Prim::Const
                | Prim::Array
                | Prim::Map
                | Prim::Apply
                | Prim::If
                | Prim::While
                | Prim::Get
        )
    }

    /// True for the higher-order primitives (their first arguments are
    /// lambdas).
    pub fn higher_order(self) -> bool {
        matches!(self, Prim::Map | Prim::Apply | Prim::If | Prim::While)
    }

    /// The number of arguments, or `None` when variadic.
    pub fn arity(self) -> Option<usize> {
        Some(match self {
            Prim::Param | Prim::Lambda | Prim::Const | Prim::Array => 0,
            Prim::Unary(_)
            | Prim::Convert(_)
            | Prim::Length
            | Prim::Sum
            | Prim::Max
            | Prim::Any
            | Prim::Concat
            | Prim::Assert
            | Prim::Get => 1,
            Prim::Binary(_) | Prim::Setp(_) | Prim::Fsetp(_) | Prim::Index | Prim::Broadcast | Prim::Partition => 2,
            Prim::Select => 3,
            Prim::Map | Prim::Apply | Prim::If | Prim::While => return None,
        })
    }

    /// The text name (`fadd`, `setp.eq`, `length`, ...).
    pub fn name(self) -> String {
        match self {
            Prim::Unary(o) => o.name().to_string(),
            Prim::Binary(o) => o.name().to_string(),
            Prim::Convert(o) => o.name().to_string(),
            Prim::Setp(c) => format!("setp.{c}"),
            Prim::Fsetp(c) => format!("fsetp.{c}"),
            other => other.word().to_string(),
        }
    }

    /// The name of a primitive that has no scalar operation or condition
    /// code.
    fn word(self) -> &'static str {
        match self {
            Prim::Param => "param",
            Prim::Lambda => "lambda",
            Prim::Const => "const",
            Prim::Array => "array",
            Prim::Select => "select",
            Prim::Length => "length",
            Prim::Sum => "sum",
            Prim::Max => "max",
            Prim::Any => "any",
            Prim::Index => "index",
            Prim::Broadcast => "broadcast",
            Prim::Concat => "concat",
            Prim::Partition => "partition",
            Prim::Assert => "assert",
            Prim::Map => "map",
            Prim::Apply => "apply",
            Prim::If => "if",
            Prim::While => "while",
            Prim::Get => "get",
            Prim::Unary(_) | Prim::Binary(_) | Prim::Convert(_) | Prim::Setp(_) | Prim::Fsetp(_) => "",
        }
    }

    /// Looks a primitive up by its text name (`setp.eq` included).
    pub fn from_name(name: &str) -> Option<Prim> {
        if let Some(cc) = name.strip_prefix("setp.") {
            return IntCC::from_name(cc).map(Prim::Setp);
        }
        if let Some(cc) = name.strip_prefix("fsetp.") {
            return FloatCC::from_name(cc).map(Prim::Fsetp);
        }
        Prim::all().iter().copied().find(|p| !matches!(p, Prim::Setp(_) | Prim::Fsetp(_)) && p.name() == name)
    }

    /// The operation for a primitive whose payload is fixed by it
    /// (everything but `param`, `lambda`, `const`, `array` and `get`).
    pub fn op(self) -> Option<Op> {
        Some(match self {
            Prim::Unary(o) => Op::Unary(o),
            Prim::Binary(o) => Op::Binary(o),
            Prim::Select => Op::Select,
            Prim::Setp(c) => Op::Setp(c),
            Prim::Fsetp(c) => Op::Fsetp(c),
            Prim::Convert(o) => Op::Convert(o),
            Prim::Length => Op::Length,
            Prim::Sum => Op::Sum,
            Prim::Max => Op::Max,
            Prim::Any => Op::Any,
            Prim::Index => Op::Index,
            Prim::Broadcast => Op::Broadcast,
            Prim::Concat => Op::Concat,
            Prim::Partition => Op::Partition,
            Prim::Assert => Op::Assert,
            Prim::Map => Op::Map,
            Prim::Apply => Op::Apply,
            Prim::If => Op::If,
            Prim::While => Op::While,
            Prim::Param | Prim::Lambda | Prim::Const | Prim::Array | Prim::Get => return None,
        })
    }
}

impl fmt::Display for Prim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_is_the_position_in_all_and_names_round_trip() {
        let all = Prim::all();
        let expected = Prim::FIXED.len()
            + UnaryOp::ALL.len()
            + BinaryOp::ALL.len()
            + IntCC::ALL.len()
            + FloatCC::ALL.len()
            + ConvertOp::ALL.len();
        assert_eq!(all.len(), expected);
        for (i, &p) in all.iter().enumerate() {
            assert_eq!(p.index(), i, "{p}");
            assert_eq!(Prim::from_name(&p.name()), Some(p), "{p}");
            if let Some(op) = p.op() {
                assert_eq!(op.prim(), p);
            }
        }
    }
}
