//! Scalar memory indices as a root plus a constant, for the memory walk
//! ([`super::memory`]): `%t = add %r, 16` (or `sub %r, c`, or a copy),
//! followed through SSA definitions in 64-bit arithmetic, reads
//! "`%r` + 16"; `%r = zext %x` is the root "`zext %x`", so that two
//! zero-extensions of one value are one root (the WebAssembly importer
//! writes `zext` then `add` for every address with an offset).
//!
//! Invariants: only `i64` adds, subs and copies are followed (their
//! arithmetic wraps in 64 bits, which [`disjoint`] accounts for); at most
//! [`MAX_CHAIN`] steps, so a lookup is O(1); the definition table is built
//! once per function (SSA form: one definition per var).

use ir_core::{Arg, Format, Function, Imm, Inst, Module, Opcode, Type, Var};

/// Definitions followed per index, at most.
pub const MAX_CHAIN: usize = 8;

/// What an index is a constant away from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Root {
    /// Nothing: the index is the constant.
    Zero,
    /// The value of this var.
    Var(Var),
    /// The zero-extension of this var's value.
    Zext(Var),
}

/// A scalar access's index as `root + add` (wrapping in 64 bits), and its
/// width in elements.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct IndexForm {
    /// The root.
    pub root: Root,
    /// The constant.
    pub add: i64,
    /// Elements read or written.
    pub width: u64,
}

/// Per var, its defining instruction (SSA form), or `None` for params and
/// vars nothing defines.
#[derive(Debug)]
pub struct Definitions {
    def: Vec<Option<Inst>>,
}

impl Definitions {
    /// The table of `func` (one pass over its instructions).
    pub fn of(func: &Function) -> Definitions {
        let mut def = vec![None; func.num_vars()];
        for b in func.blocks() {
            for i in func.block_insts(b) {
                for &r in func.results(i) {
                    if let Some(slot) = def.get_mut(r.as_u32() as usize) {
                        *slot = Some(i);
                    }
                }
            }
        }
        Definitions { def }
    }

    /// The index of the scalar load or store `inst` as a root plus a
    /// constant; `None` for other instructions or an index that is not a
    /// var or an integer immediate.
    pub fn index_form(&self, func: &Function, module: &Module, inst: Inst) -> Option<IndexForm> {
        if !matches!(func.opcode(inst).format(), Format::Load | Format::Store) {
            return None;
        }
        let access = func.accesses(inst, module).into_iter().next()?;
        let width = match access.size {
            Arg::Imm(w) => u64::try_from(w.as_i64()).ok()?,
            Arg::Var(_) => return None,
        };
        let (root, add) = match access.offset {
            Arg::Imm(c) => (Root::Zero, c.as_i64()),
            Arg::Var(v) => self.follow(func, v),
        };
        Some(IndexForm { root, add, width })
    }

    /// `v` as a root plus a constant, through at most [`MAX_CHAIN`]
    /// definitions.
    fn follow(&self, func: &Function, mut v: Var) -> (Root, i64) {
        let mut add = 0i64;
        for _ in 0..MAX_CHAIN {
            let Some(Some(i)) = self.def.get(v.as_u32() as usize).copied() else { break };
            if func.var_type(v) != Some(Type::I64) || func.guard(i).is_some() {
                break;
            }
            let ops = func.operands(i);
            let imm =
                |k: usize| ops.get(k).and_then(|o| o.as_const()).and_then(|c| func.imm(c)).map(|c: Imm| c.as_i64());
            let var = |k: usize| ops.get(k).and_then(|o| o.as_var());
            match func.opcode(i) {
                Opcode::Zext => match var(0) {
                    Some(x) => return (Root::Zext(x), add),
                    None => break,
                },
                Opcode::Copy => match var(0) {
                    Some(x) => v = x,
                    None => break,
                },
                Opcode::Add => match (var(0), imm(1), imm(0), var(1)) {
                    (Some(x), Some(c), _, _) | (_, _, Some(c), Some(x)) => {
                        add = add.wrapping_add(c);
                        v = x;
                    }
                    _ => break,
                },
                Opcode::Sub => match (var(0), imm(1)) {
                    (Some(x), Some(c)) => {
                        add = add.wrapping_sub(c);
                        v = x;
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        (Root::Var(v), add)
    }
}

/// Whether two accesses at `a.root + a.add` and `b.root + b.add` (one root,
/// one value of it) touch no common element. The indices wrap in 64 bits;
/// an access outside its object traps and writes nothing, so inside the
/// object (far below 2^63 elements) the true distance is the signed
/// wrapping difference.
pub fn disjoint(a: IndexForm, b: IndexForm) -> bool {
    let d = b.add.wrapping_sub(a.add);
    let (wa, wb) = (i64::try_from(a.width).unwrap_or(i64::MAX), i64::try_from(b.width).unwrap_or(i64::MAX));
    d >= wa || d <= -wb
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(add: i64, width: u64) -> IndexForm {
        IndexForm { root: Root::Zero, add, width }
    }

    #[test]
    fn disjoint_counts_widths_on_both_sides_and_wraps() {
        assert!(disjoint(at(0, 4), at(4, 4)) && disjoint(at(4, 4), at(0, 4)));
        assert!(!disjoint(at(0, 4), at(3, 4)) && !disjoint(at(3, 4), at(0, 4)));
        assert!(!disjoint(at(2, 1), at(0, 4)), "inside the wider one");
        assert!(disjoint(at(i64::MAX, 1), at(i64::MIN, 1)), "one apart across the wrap");
        assert!(!disjoint(at(-1, 2), at(0, 1)), "-1 and 0 with width 2");
    }
}
