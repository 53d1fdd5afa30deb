//! The edit plan: what PRE (or GVN) does to a function, as plain data the
//! IR's own adapter applies (source document 001 step 5: the Insert set, the phis
//! of the SVFG that stay, and the computations that become copies).
//!
//! A [`Plan`] names the code it was made from by ids only: blocks are CFG
//! nodes, instructions and values the [`crate::PreCode`] ids. What it
//! creates is named by plan-local ids: new blocks by their index in
//! [`Plan::splits`] ([`PlanBlock::New`]), new values by [`PlanValue`]
//! (dense, listed in [`Plan::values`]) that the adapter maps to values of
//! its own. Applying it, in this order, gives the transformed function
//! (Keel's `apply` and the `foreign-ir` package's `ssa_toy::apply` do exactly this):
//!
//! 1. create a value for each entry of [`Plan::values`], in order;
//! 2. split each edge of [`Plan::splits`], in order: a new block that the
//!    edge's source branches to instead of its target, which jumps to the
//!    target, and whose target's existing phis read from it instead of
//!    the source;
//! 3. append each [`Insertion`], in order, at the end of its block (before
//!    the terminator): `def = op(args)`;
//! 4. add each [`PlanPhi`], in order, at the top of its block (each before
//!    the block's first instruction, Keel's choice; any order of the new
//!    phis is equally correct);
//! 5. replace each instruction of [`Plan::replacements`] by a copy into its
//!    result.
//!
//! Invariants: an insertion reads only values defined before it on every
//! path to its block (existing values available there, immediates, or new
//! values of earlier insertions and phis of the plan); a new phi has one
//! incoming value per predecessor of its block, on the predecessor as it
//! is after the splits; a replacement's value dominates the instruction.
//! The result is in SSA form again. Building the plan is linear in the
//! SVFG's phis and operands.

use crate::construct::{Method, Repl};
use crate::flat::InputError;
use crate::input::{Key, PreCode, ValueId};
use crate::pre::{Walk, walk};
use crate::svfg::{ArgSource, Source};
use crate::vn::{ValueKind, ValueNumber};
use cfg_dom::{Graph, InstId, Node, Stale, Versioned};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::time::{Duration, Instant};

/// A value the plan creates: an index into [`Plan::values`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct PlanValue(pub u32);

impl PlanValue {
    /// The index of this value in [`Plan::values`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An operand in the plan.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum PlanArg<I> {
    /// A value of the code.
    Value(ValueId),
    /// A value the plan creates.
    New(PlanValue),
    /// An immediate.
    Imm(I),
    /// Any value of the right type: the incoming value of a new phi from a
    /// predecessor no path from the entry reaches (Keel uses zero).
    Any,
}

/// A block in the plan.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum PlanBlock {
    /// A block of the code.
    Existing(Node),
    /// The new block on the edge `splits[i]`.
    New(u32),
}

/// An edge to split: a new block between `from` and `to` (see the module
/// doc for what that changes).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct EdgeSplit {
    /// The source of the edge.
    pub from: Node,
    /// Its target.
    pub to: Node,
}

/// A value the plan creates.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct NewValue<O> {
    /// The operation whose value it holds (its type is that operation's
    /// result type).
    pub op: O,
    /// The value number it holds on the paths through it: the phi's
    /// number, or for an insertion the number of the phi it feeds (see
    /// [`Insertion::counts_for`]).
    pub number: ValueNumber,
    /// True for a phi, false for an insertion.
    pub phi: bool,
}

/// A computation to insert: `def = op(args)` at the end of `at`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Insertion<O, I> {
    /// Where: the end of this block, before its terminator.
    pub at: PlanBlock,
    /// The value it defines.
    pub def: PlanValue,
    /// The operation.
    pub op: O,
    /// Its operands, in order.
    pub args: SmallVec<[PlanArg<I>; 3]>,
    /// The value number it computes.
    pub number: ValueNumber,
    /// The value number of the phi it feeds: on this path it stands for a
    /// computation of that value (different from `number` for an
    /// extension phi, whose operand on this edge is the translation).
    pub counts_for: ValueNumber,
}

/// A phi to add at the top of `block`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PlanPhi<I> {
    /// The block.
    pub block: Node,
    /// The value it defines.
    pub def: PlanValue,
    /// One incoming value per predecessor of `block`, in the graph's
    /// predecessor order, each named by the block it comes from (a new
    /// block where the edge was split).
    pub incoming: Vec<(PlanBlock, PlanArg<I>)>,
}

/// An instruction to replace by a copy of a value into its result.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Replacement<I> {
    /// The instruction (a pure operation or a load).
    pub inst: InstId,
    /// The value it copies: a value of the code or a new phi.
    pub by: PlanArg<I>,
}

/// What the plan does, counted, and what the run took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanStats {
    /// Computations replaced by copies.
    pub removed: usize,
    /// Computations inserted.
    pub inserted: usize,
    /// For each new extension phi of a value `t`, the pairs `(t, t_k)` of
    /// `t` and the translation each operand carries (on the path through
    /// that operand, `t_k` is `t`).
    pub translations: Vec<(ValueNumber, ValueNumber)>,
    /// Values the extension step extended (phis placed at their `dn`).
    pub extended: usize,
    /// Rebuilds of the semi-SVFG the extension step made.
    pub extension_rounds: u32,
    /// Phis of value numbers placed in the semi-SVFG.
    pub phis_placed: usize,
    /// Placed phis the plan adds.
    pub phis_created: usize,
    /// Placed phis dropped (unused or unavailable).
    pub phis_deleted: usize,
    /// Edges split for insertions.
    pub edges_split: usize,
    /// Time numbering values (checking the input included).
    pub time_vn: Duration,
    /// Time building the SVFG and its properties.
    pub time_svfg: Duration,
    /// Time making the plan.
    pub time_plan: Duration,
}

/// The edits of one run (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan<O, I> {
    /// The values the plan creates, by [`PlanValue`] id: every phi value,
    /// then every insertion's, in the order an adapter should create them.
    pub values: Vec<NewValue<O>>,
    /// The edges to split, by [`PlanBlock::New`] index.
    pub splits: Vec<EdgeSplit>,
    /// The computations to insert, in order.
    pub inserts: Vec<Insertion<O, I>>,
    /// The phis to add, in order.
    pub phis: Vec<PlanPhi<I>>,
    /// The instructions to replace by copies, in the order of a preorder
    /// walk of the dominator tree.
    pub replacements: Vec<Replacement<I>>,
    /// Counts and times.
    pub stats: PlanStats,
    /// The code stamp of the function the plan was made for
    /// ([`Versioned::code_stamp`]).
    pub stamp: Option<u64>,
}

impl<O, I> Plan<O, I> {
    /// `Ok` when the plan was made for `code` as it is now (its code stamp
    /// is unchanged); an IR without versions gets [`Stale::Unstamped`].
    pub fn check(&self, code: &impl Versioned) -> Result<(), Stale> {
        cfg_dom::check_stamp(self.stamp, code.code_stamp())
    }

    /// True when the plan changes nothing.
    pub fn is_empty(&self) -> bool {
        self.splits.is_empty() && self.inserts.is_empty() && self.phis.is_empty() && self.replacements.is_empty()
    }
}

/// The edits of `method` on `code` (SSA form, on its CFG `graph`): value
/// numbering, the SVFG and its properties, then the plan (see the crate
/// doc). The code is only read. Fails, naming the offending entity, when
/// the input is malformed ([`InputError`]).
pub fn plan<G: Graph, C: PreCode>(graph: &G, code: &C, method: Method) -> Result<Plan<C::Op, C::Imm>, InputError> {
    let w = walk(graph, code, method)?;
    let t = Instant::now();
    let mut plan = from_walk(&w);
    plan.stats.time_vn = w.time_vn;
    plan.stats.time_svfg = w.time_svfg;
    plan.stats.time_plan = t.elapsed();
    plan.stamp = code.code_stamp();
    Ok(plan)
}

/// A phi to add: its block, `(predecessor, value)` pairs, its value.
type PendingPhi<I> = (Node, Vec<(Node, PlanArg<I>)>, PlanValue);

/// The plan of an analysed function (see the module doc).
fn from_walk<O: Key, I: Key>(w: &Walk<O, I>) -> Plan<O, I> {
    let svfg = &w.svfg;
    let mut plan = Plan {
        values: Vec::new(),
        splits: Vec::new(),
        inserts: Vec::new(),
        phis: Vec::new(),
        replacements: Vec::new(),
        stats: PlanStats {
            phis_placed: svfg.phis.len(),
            extended: svfg.extended.len(),
            extension_rounds: svfg.extension_rounds,
            ..PlanStats::default()
        },
        stamp: None,
    };
    let new_value = |values: &mut Vec<NewValue<O>>, op: O, number: ValueNumber, phi: bool| {
        values.push(NewValue { op, number, phi });
        PlanValue(values.len() as u32 - 1)
    };
    let mut phi_def: Vec<Option<PlanValue>> = vec![None; svfg.phis.len()];
    for (i, phi) in svfg.phis.iter().enumerate() {
        if phi.used
            && phi.can_be_avail
            && let Some(ValueKind::Expr(k)) = w.vns.kind(phi.value)
        {
            phi_def[i] = Some(new_value(&mut plan.values, k.op, phi.value, true));
        }
    }
    let mut split_of: FxHashMap<(Node, Node), u32> = FxHashMap::default();
    let mut pending: Vec<PendingPhi<I>> = Vec::new();
    // The value each new phi takes on each edge (sub-values inserted on
    // an edge are reused by the values built on them).
    let mut edge_value: Vec<SmallVec<[Option<PlanArg<I>>; 2]>> = vec![SmallVec::new(); svfg.phis.len()];
    // Value by value, so that a sub-value phi's edge values are ready
    // before the insertions that read them (construct.rs only lets an
    // insertion read a phi of a smaller value).
    let mut order: Vec<u32> = (0..svfg.phis.len() as u32).collect();
    order.sort_by_key(|&i| (svfg.phis[i as usize].value, i));
    for i in order {
        let i = i as usize;
        let phi = &svfg.phis[i];
        let Some(dst) = phi_def[i] else { continue };
        let s = phi.node;
        let mut incoming = Vec::with_capacity(phi.sources.len());
        for (k, &src) in phi.sources.iter().enumerate() {
            let p = w.preds[s as usize][k];
            // The value this operand carries: `t`, or its translation for
            // an extension phi.
            let number = phi.operand_value(k);
            let Some(ValueKind::Expr(key)) = w.vns.kind(number) else { continue };
            let arg = match src {
                Source::Real(v) => PlanArg::Value(v),
                Source::Phi(q) if phi_def[q as usize].is_some() => PlanArg::New(phi_def[q as usize].unwrap_or(dst)),
                Source::Unreachable => PlanArg::Any,
                Source::Bottom | Source::Phi(_) => {
                    let at = if w.multi_succ[p as usize] {
                        let next = plan.splits.len() as u32;
                        let idx = *split_of.entry((p, s)).or_insert(next);
                        if idx == next {
                            plan.splits.push(EdgeSplit { from: p, to: s });
                        }
                        PlanBlock::New(idx)
                    } else {
                        PlanBlock::Existing(p)
                    };
                    let def = new_value(&mut plan.values, key.op, phi.value, false);
                    let args = key
                        .args
                        .iter()
                        .zip(phi.insert_args[k].iter().flatten())
                        .map(|(&a, &from)| match (from, w.vns.kind(a)) {
                            (ArgSource::Value(v), _) => PlanArg::Value(v),
                            (ArgSource::Imm, Some(ValueKind::Const(imm))) => PlanArg::Imm(*imm),
                            (ArgSource::Phi(q), _) => {
                                let e = edge_value[q as usize].get(k).copied().flatten();
                                debug_assert!(e.is_some(), "sub-value phi {q} is planned first");
                                e.unwrap_or(PlanArg::Any)
                            }
                            // Not reached: `insert_args` gives `Imm` for
                            // constants only.
                            _ => PlanArg::Any,
                        })
                        .collect();
                    plan.inserts.push(Insertion { at, def, op: key.op, args, number, counts_for: phi.value });
                    PlanArg::New(def)
                }
            };
            incoming.push((p, arg));
        }
        for &v in &phi.operand_values {
            if v != phi.value && !plan.stats.translations.contains(&(phi.value, v)) {
                plan.stats.translations.push((phi.value, v));
            }
        }
        edge_value[i] = incoming.iter().map(|&(_, v)| Some(v)).collect();
        pending.push((s, incoming, dst));
    }
    // Incoming blocks after every split (a later phi may split an edge an
    // earlier one reads from).
    plan.phis = pending
        .into_iter()
        .map(|(s, incoming, def)| PlanPhi {
            block: s,
            def,
            incoming: incoming
                .into_iter()
                .map(|(p, v)| (split_of.get(&(p, s)).map_or(PlanBlock::Existing(p), |&i| PlanBlock::New(i)), v))
                .collect(),
        })
        .collect();
    for &(inst, repl) in &w.occurrences {
        let by = match repl {
            Repl::Value(v) => PlanArg::Value(v),
            Repl::Phi(p) => match phi_def[p as usize] {
                Some(d) => PlanArg::New(d),
                None => continue,
            },
            Repl::Keep => continue,
        };
        plan.replacements.push(Replacement { inst, by });
    }
    let st = &mut plan.stats;
    st.removed = plan.replacements.len();
    st.inserted = plan.inserts.len();
    st.phis_created = plan.phis.len();
    st.phis_deleted = st.phis_placed - st.phis_created;
    st.edges_split = plan.splits.len();
    plan
}
