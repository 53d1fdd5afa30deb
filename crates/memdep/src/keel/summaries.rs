//! Call summaries: per function of a module, what it may read and write,
//! including through its callees, as per-object hulls of elements (and
//! "anything" when it reaches an external function or an intrinsic). A
//! round-robin fixed point over the call graph (recursion included): a
//! summary only grows, and hulls and flags are finite, so it stops.

use super::descriptors::{descriptors, ival};
use crate::code::{ObjectId, Offset};
use ir_core::{Arg, Callee, Format, FuncId, Module};

/// What a function may touch, including through its callees: used for the
/// calls to it.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Summary {
    /// It may read anything (it calls an external function or an
    /// intrinsic, directly or not).
    pub reads_anything: bool,
    /// It may write anything.
    pub writes_anything: bool,
    /// Per object it may read: the hull `[lo, hi)` of the elements.
    pub reads: Vec<(ObjectId, u64, u64)>,
    /// Per object it may write: the hull of the elements.
    pub writes: Vec<(ObjectId, u64, u64)>,
}

/// Summaries of every function of a module, to a fixed point over the
/// call graph (recursion included).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Summaries {
    per_func: Vec<Summary>,
}

impl Summaries {
    /// Summaries of `module`'s functions.
    pub fn of(module: &Module) -> Summaries {
        let lens: Vec<u64> = module.mems().map(|(_, m)| m.len).collect();
        let nf = module.num_functions();
        let mut own: Vec<Summary> = Vec::with_capacity(nf);
        let mut callees: Vec<Vec<usize>> = Vec::with_capacity(nf);
        for (_, func) in module.functions() {
            let mut s = Summary::default();
            let mut calls = Vec::new();
            for b in func.blocks() {
                for inst in func.block_insts(b) {
                    match func.opcode(inst).format() {
                        Format::Call => match func.callee(inst) {
                            Some(Callee::Func(g)) => calls.push(g.as_u32() as usize),
                            _ => {
                                s.reads_anything = true;
                                s.writes_anything = true;
                            }
                        },
                        Format::Intrinsic => {
                            s.reads_anything = true;
                            s.writes_anything = true;
                        }
                        _ => {
                            for (write, obj, offset, size) in descriptors(func, inst, module) {
                                let len = lens.get(obj as usize).copied().unwrap_or(0);
                                let off = match offset {
                                    Arg::Imm(i) => Offset::Exact(ival(i)),
                                    Arg::Var(_) => Offset::Unknown,
                                };
                                let size = match size {
                                    Arg::Imm(i) => u64::try_from(ival(i)).ok(),
                                    Arg::Var(_) => None,
                                };
                                let (lo, hi) = hull(off, size, len);
                                let list = if write { &mut s.writes } else { &mut s.reads };
                                widen(list, obj, lo, hi);
                            }
                        }
                    }
                }
            }
            calls.sort_unstable();
            calls.dedup();
            own.push(s);
            callees.push(calls);
        }
        let mut per_func = own.clone();
        loop {
            let mut changed = false;
            for f in 0..nf {
                let mut s = own[f].clone();
                for &g in &callees[f] {
                    let Some(c) = per_func.get(g) else { continue };
                    s.reads_anything |= c.reads_anything;
                    s.writes_anything |= c.writes_anything;
                    for &(o, lo, hi) in &c.reads {
                        widen(&mut s.reads, o, lo, hi);
                    }
                    for &(o, lo, hi) in &c.writes {
                        widen(&mut s.writes, o, lo, hi);
                    }
                }
                if s != per_func[f] {
                    per_func[f] = s;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Summaries { per_func }
    }

    /// The summary of `f`.
    pub fn get(&self, f: FuncId) -> Option<&Summary> {
        self.per_func.get(f.as_u32() as usize)
    }
}

/// The in-bounds hull of an access: what it can touch without trapping.
fn hull(offset: Offset, size: Option<u64>, len: u64) -> (u64, u64) {
    match (offset, size) {
        (Offset::Exact(o), Some(s)) => {
            let lo = u64::try_from(o).unwrap_or(0).min(len);
            (lo, lo.saturating_add(s).min(len).max(lo))
        }
        (Offset::Exact(o), None) => (u64::try_from(o).unwrap_or(0).min(len), len),
        _ => (0, len),
    }
}

/// Grows the hull of `obj` in a sorted per-object list.
fn widen(list: &mut Vec<(ObjectId, u64, u64)>, obj: ObjectId, lo: u64, hi: u64) {
    if lo >= hi {
        return;
    }
    match list.binary_search_by_key(&obj, |e| e.0) {
        Ok(k) => {
            let e = &mut list[k];
            e.1 = e.1.min(lo);
            e.2 = e.2.max(hi);
        }
        Err(k) => list.insert(k, (obj, lo, hi)),
    }
}
