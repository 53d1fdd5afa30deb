//! Import (feature `keel`): a scalar Keel function as a graph-IR function,
//! so that it can be vectorized. Keel's types, constants and opcodes become
//! the graph's through the conversions of `bridge.rs`.
//!
//! Supported: acyclic control flow (straight-line code, if/else diamonds,
//! any acyclic branching, `switch`, several `ret`s, `trap`), phis, guarded
//! instructions, every scalar operation of `docs/ir.md` §6.1–6.4, `load`
//! from a memory object, and `tsum`/`tredmax` over `@M[0, %n]`.
//! Everything else (loops, stores, tensor maps, calls) is an
//! [`ImportError`] naming the instruction.
//!
//! The method is if-conversion: blocks are visited in reverse postorder,
//! each under a predicate (`true` at the entry; at a block, the `or` of its
//! incoming edges' predicates; along `br c`, the block's predicate `and`
//! `c` or `not c`). A value that differs along the incoming edges of a join
//! becomes a chain of `select`s on the edges' predicates (exactly one of
//! them holds whenever the join runs). Operations that may trap (division,
//! trapping conversions, `load`) are masked with their block's predicate
//! (and their guard), so they run only where the Keel program runs them;
//! everything else runs unconditionally. A guarded definition is the
//! operation and a `select` on its guard. `trap` becomes `assert(not P)`.
//!
//! Memory objects the function reads become array parameters, after the
//! scalar ones, in module order. A scalar parameter used as the size of
//! `@M[0, %n]` is `M`'s length: it is dropped from the parameters and
//! computed as `length` of the array, so `@mean(%n)` over `@arr` imports as
//! `mean(arr) = sum(arr) / sitofp(length(arr))`, source document 003's
//! program (`@mean` in `docs/examples/vectorize_examples.kir`).
//! Calling the import on `(x.., arr)` computes what the Keel function
//! computes on `x..` with `arr` written at the start of `@M` and `%n =
//! length(arr)`, for every input on which the Keel program reads no
//! undefined value (the importer rejects a read of a var that may be
//! undefined, since the graph has no undefined values).
//!
//! Invariant: never panics, on any function (verified or not); no
//! recursion (the DFS is iterative).

use crate::graph::{Graph, Sym};
use crate::planted::{Bug, planted};
use crate::scalar::{ConvertOp, ScalarTy};
use crate::types::ValTy;
use convert::{Importer, Term, VState, err};
use ir_core::entity::EntityRef;
use ir_core::{Block, Format, FuncId, Mem, Module, Opcode, Slot, Type, Var};
use rustc_hash::{FxHashMap, FxHashSet};

pub use error::{ImportError, ImportErrorKind};

mod convert;
mod error;

/// Where a parameter of the imported function comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ImportedParam {
    /// A scalar parameter of the Keel function.
    Scalar(Var),
    /// A memory object the function reads; `length` is the Keel parameter
    /// that holds its length, if one does.
    Array {
        /// The object.
        mem: Mem,
        /// The parameter it replaces.
        length: Option<Var>,
    },
}

/// An imported function.
#[derive(Debug)]
pub struct Imported {
    /// A graph holding the function (named like the Keel function).
    pub graph: Graph,
    /// The function.
    pub func: Sym,
    /// Where each of its parameters comes from.
    pub params: Vec<ImportedParam>,
}

/// The edges into a block: predicate, the vars' states, the source.
type Incoming = Vec<(Option<Sym>, Vec<VState>, Block)>;

/// Imports function `func` of `module` (see the module doc).
pub fn import_function(module: &Module, func: FuncId) -> Result<Imported, ImportError> {
    let Some(f) = module.function(func) else { return err(None, ImportErrorKind::NoSuchFunction(func)) };
    let Some(entry) = f.entry_block() else { return err(None, ImportErrorKind::NoBlocks) };
    // Length parameters and the objects read.
    let mut lengths: FxHashMap<Var, Mem> = FxHashMap::default();
    let mut read: Vec<Mem> = Vec::new();
    for b in f.blocks() {
        for i in f.block_insts(b) {
            match f.opcode(i).format() {
                Format::TensorReduce => {
                    if let Some(Slot::Desc(d)) = f.tensor_slots(i).first() {
                        if let Some(v) = d.size.as_var().filter(|v| f.params().contains(v)) {
                            match lengths.insert(v, d.mem) {
                                Some(m) if m != d.mem => {
                                    let var = f.var_name(v).to_string();
                                    return err(Some(i), ImportErrorKind::SharedLength(var));
                                }
                                _ => {}
                            }
                        }
                        read.push(d.mem);
                    }
                }
                Format::Load => read.extend(f.scalar_mem(i)),
                _ => {}
            }
        }
    }
    read.sort();
    read.dedup();
    let mut params = Vec::new();
    let mut tys = Vec::new();
    for &p in f.params() {
        if !lengths.contains_key(&p) {
            params.push(ImportedParam::Scalar(p));
            tys.push(ValTy::scalar(f.var_type(p).unwrap_or(Type::I64).into()));
        }
    }
    for &m in &read {
        let length = lengths.iter().find(|(_, mm)| **mm == m).map(|(v, _)| *v);
        params.push(ImportedParam::Array { mem: m, length });
        tys.push(ValTy::array(module.mem(m).map_or(ScalarTy::I64, |o| o.elem.into()), 1));
    }
    let mut g = Graph::new();
    let gf = g.add_function(f.name(), &tys).map_err(|e| ImportError { inst: None, kind: ImportErrorKind::Name(e) })?;
    let gparams = g.lambda(gf).map_or_else(Vec::new, |l| l.params.clone());
    let mut imp = Importer {
        f,
        g,
        func: gf,
        env: vec![VState::Undef; f.num_vars()],
        arrays: FxHashMap::default(),
        lengths: lengths.clone(),
        used_names: FxHashSet::default(),
        next_suffix: FxHashMap::default(),
        swap_joins: planted(Bug::JoinSelectSwapped),
        unmask_traps: planted(Bug::TrapsUnmasked),
        consts: FxHashMap::default(),
    };
    for (p, &s) in params.iter().zip(&gparams) {
        match *p {
            ImportedParam::Scalar(v) => {
                imp.env[v.index()] = VState::Def(s);
                let n = f.var_name(v).to_string();
                if imp.g.set_name(s, &n).is_ok() {
                    imp.used_names.insert(n);
                }
            }
            ImportedParam::Array { mem, .. } => {
                imp.arrays.insert(mem, s);
                let n = module.mem(mem).map_or("arr".into(), |o| o.name.to_string());
                if imp.g.set_name(s, &n).is_ok() {
                    imp.used_names.insert(n);
                }
            }
        }
    }
    for (&v, &m) in &lengths {
        let xs = imp.arrays[&m];
        let r = imp.b().length(xs);
        let mut n = imp.typed(r, None)?;
        if f.var_type(v) != Some(Type::I64) {
            let t = f.var_type(v).unwrap_or(Type::I64);
            let r = imp.b().convert(ConvertOp::Trunc, n, t.into());
            n = imp.typed(r, None)?;
        }
        imp.env[v.index()] = VState::Def(n);
        let name = f.var_name(v).to_string();
        imp.name(n, &name);
    }
    // Reverse postorder, rejecting cycles.
    let mut order = Vec::new();
    let mut state: FxHashMap<Block, u8> = FxHashMap::default();
    let mut stack: Vec<(Block, Vec<Block>, usize)> = vec![(entry, f.block_successors(entry).collect(), 0)];
    state.insert(entry, 1);
    while let Some(top) = stack.last_mut() {
        if let Some(&s) = top.1.get(top.2) {
            top.2 += 1;
            match state.get(&s) {
                Some(1) => {
                    return err(f.terminator(top.0), ImportErrorKind::Loop);
                }
                Some(_) => {}
                None => {
                    state.insert(s, 1);
                    let succ = f.block_successors(s).collect();
                    stack.push((s, succ, 0));
                }
            }
        } else {
            let (b, _, _) = stack.pop().expect("a block");
            state.insert(b, 2);
            order.push(b);
        }
    }
    order.reverse();
    // If-conversion.
    let mut incoming: FxHashMap<Block, Incoming> = FxHashMap::default();
    let mut rets: Vec<(Option<Sym>, Vec<Sym>)> = Vec::new();
    for (bi, &b) in order.iter().enumerate() {
        let pred = if bi == 0 {
            None
        } else {
            let ins = incoming.remove(&b).unwrap_or_default();
            if ins.is_empty() {
                continue;
            }
            let preds: Vec<Option<Sym>> = ins.iter().map(|i| i.0).collect();
            let p = imp.or_all(&preds)?;
            for v in 0..imp.env.len() {
                let states: Vec<(Option<Sym>, VState)> = ins.iter().map(|i| (i.0, i.1[v])).collect();
                imp.env[v] = imp.merge(&states)?;
            }
            // Phis: their values per incoming edge.
            for i in f.block_insts(b) {
                if f.opcode(i) != Opcode::Phi {
                    break;
                }
                let mut vals = Vec::new();
                for (pb, o) in f.phi_incoming(i) {
                    let Some(edge) = ins.iter().find(|e| e.2 == pb) else { continue };
                    let saved = std::mem::replace(&mut imp.env, edge.1.clone());
                    let v = imp.read(o, i);
                    imp.env = saved;
                    vals.push((edge.0, v?));
                }
                if vals.is_empty() {
                    return err(Some(i), ImportErrorKind::PhiWithoutValue);
                }
                let s = imp.chain(&vals)?;
                if let Some(&x) = f.results(i).first() {
                    imp.env[x.index()] = VState::Def(s);
                }
            }
            p
        };
        for i in f.block_insts(b) {
            if f.opcode(i) == Opcode::Phi {
                continue;
            }
            match imp.inst(i, pred, module)? {
                None => {}
                Some(Term::Ret(p, vals)) => rets.push((p, vals)),
                Some(Term::Edges(edges)) => {
                    for (t, p) in edges {
                        incoming.entry(t).or_default().push((p, imp.env.clone(), b));
                    }
                }
            }
        }
    }
    if rets.is_empty() {
        return err(None, ImportErrorKind::NoReturn);
    }
    let n = f.signature().returns.len();
    let mut results = Vec::with_capacity(n);
    for r in 0..n {
        let vals: Vec<(Option<Sym>, Sym)> = rets.iter().map(|(p, v)| (*p, v.get(r).copied().unwrap_or(v[0]))).collect();
        results.push(imp.chain(&vals)?);
    }
    imp.g.set_results(gf, &results);
    Ok(Imported { graph: imp.g, func: gf, params })
}
