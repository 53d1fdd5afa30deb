//! Lowering (feature `keel`): a vectorized graph function to a Keel
//! function whose arrays are memory objects and whose element-wise work is
//! tensor instructions over descriptors, so that `ir-core`'s interpreter
//! and the MLU backend run it. The graph's types, constants and scalar
//! operations become Keel's through the conversions of `bridge.rs`.
//!
//! The data model of the lowered code:
//! - a value the same in every lane is a Keel var (a scalar);
//! - a batched value (one scalar per lane: `array<S>` of the batch's
//!   length) is a memory object of `S` holding `lanes` elements: the
//!   inputs and results in `dram`, the intermediates in `nram` while they
//!   fit [`LowerOptions::on_chip_bytes`] (256 KiB by default), then in
//!   `dram`;
//! - a batched array parameter (`array<array<S>>`: one array per lane) is
//!   two objects, the lanes' elements one after another (`@x_data`) and
//!   the offsets of each lane's first element (`@x_offsets`, `lanes + 1`
//!   `i64`s), the segmented layout of [`crate::Array`].
//!
//! With [`Lanes::Fixed`] every descriptor is exact (`@t[0, 64]`); with
//! [`Lanes::Dynamic`] the lane count is the function's first parameter and
//! descriptors are `@t[0, %lanes]` over objects of the given capacity.
//! Every object must fit Keel IR ([`ir_core::MAX_MEM_LEN`] elements): lanes
//! or a capacity past it are [`LowerErrorKind::LanesOverLimit`], and an
//! object the options make longer (the offsets, `lanes + 1`, or the data,
//! [`LowerOptions::elements`]) is [`LowerErrorKind::MemTooLong`] naming it,
//! its length and the limit, computed without overflow; the lowering never
//! prints a module that Keel's parser would reject.
//!
//! Lifted element-wise nodes become one tensor instruction each where one
//! computes exactly the same bits: `add`/`fadd` → `tadd`, `sub` → `tsub`,
//! `mul` → `tmul`, `sdiv`/`fdiv` → `tdiv`, `smin`/`fmin` → `tmin`,
//! `smax`/`fmax` → `tmax`, `neg`/`fneg` → `tneg`, `fabs` → `tabs`, `fsqrt`
//! → `tsqrt`, `copy` → `dma`, a product used once as the first operand of a
//! sum → `tfma` (unfused, as `tfma` is), a same-in-every-lane operand → a
//! scalar slot, a broadcast → `tfill`, a row `sum`/`max` → `tsum`/`tredmax`
//! per row (left to right, the scalar program's order). The others
//! (compares, `select`, bit operations, conversions, masked operations, row
//! lengths, `any`) become a loop over the lanes of scalar `load`/op/`store`,
//! a masked one guarding its operation (`@%m`, the lane's result 0 when the
//! guard fails, as a masked node's is). `apply` is inlined; `if` on a value
//! the same in every lane becomes a diamond, `while` a loop, with loop
//! state in vars and objects.
//!
//! Anything else (arrays that are not one value per lane, `map`, `index`,
//! `concat`, `partition`, constant arrays, masks the same in every lane on
//! lifted nodes) is a [`LowerError`] naming the node. The vectorizer's
//! output for first-order scalar programs, `if`s and `while`s, and for
//! `mean` over an array, is in the subset.
//!
//! Invariants: never panics; no recursion (lambda bodies are inlined from
//! an explicit stack of frames, like the vectorizer's); the lowered function
//! verifies.

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::planted::{Bug, planted};
use crate::scalar::BinaryOp;
use crate::schedule::Schedule;
use crate::value::{Array, Value};
use emit::{LVal, Lower, err};
use ir_core::interp::{Config, Interpreter, Trap, TrapKind};
use ir_core::{Arg, FuncId, Function, FunctionBuilder, Imm, Mem, MemSpace, Module, Opcode, Signature, TensorArg, Type};
use rustc_hash::FxHashMap;

pub use error::{LowerError, LowerErrorKind};

mod control;
mod emit;
mod error;

/// How many lanes the lowered function handles.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Lanes {
    /// Exactly this many (exact descriptors).
    Fixed(u64),
    /// Any number up to `capacity`, passed as the first parameter.
    Dynamic {
        /// Size of each per-lane object.
        capacity: u64,
    },
}

/// Options of [`lower`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct LowerOptions {
    /// The lanes.
    pub lanes: Lanes,
    /// Size of the data object of each `array<array<S>>` parameter (the
    /// most elements all lanes' arrays may hold together).
    pub elements: u64,
    /// Bytes of intermediates kept on chip: each intermediate object goes
    /// to `nram` while the intermediates placed there so far, with it, fit
    /// in this many bytes, and to `dram` otherwise (so large lane counts
    /// still fit a core's NRAM). [`DEFAULT_ON_CHIP`] by default.
    pub on_chip_bytes: u64,
}

/// The default [`LowerOptions::on_chip_bytes`]: 256 KiB, a third of an
/// `mlu370` core's NRAM (the rest is left for the backend's staging).
pub const DEFAULT_ON_CHIP: u64 = 256 * 1024;

/// Where a parameter of the graph function went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LoweredParam {
    /// A parameter of the Keel function (its index).
    Scalar(usize),
    /// A per-lane object.
    Lanes(Mem),
    /// Per-lane arrays: data and offsets.
    Rows {
        /// The elements.
        data: Mem,
        /// `lanes + 1` offsets.
        offsets: Mem,
    },
}

/// Where a result of the graph function went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LoweredResult {
    /// A returned value (its index).
    Scalar(usize),
    /// A per-lane object.
    Lanes(Mem),
}

/// A lowered function.
#[derive(Debug)]
pub struct Lowered {
    /// The module: the function and its memory objects.
    pub module: Module,
    /// The function.
    pub func: FuncId,
    /// Where each parameter went.
    pub params: Vec<LoweredParam>,
    /// Where each result went.
    pub results: Vec<LoweredResult>,
    /// The options it was lowered with.
    pub options: LowerOptions,
}

/// Lowers function `func` of `g` (a verified graph; see the module doc).
pub fn lower(g: &Graph, func: Sym, options: LowerOptions) -> Result<Lowered, LowerError> {
    if let Err(mut e) = crate::verify(g) {
        return err(None, LowerErrorKind::Unverified(e.swap_remove(0)));
    }
    let Some(name) = g.function_name(func) else { return err(Some(func), LowerErrorKind::NotAFunction) };
    let sched = Schedule::new(g).map_err(|s| LowerError { sym: Some(s), kind: LowerErrorKind::Cycle })?;
    let (lanes_param, capacity, lanes) = match options.lanes {
        Lanes::Fixed(n) => (false, n, Arg::Imm(Imm::int(Type::I64, n as i64))),
        Lanes::Dynamic { capacity } => (true, capacity, Arg::Imm(Imm::int(Type::I64, 0))),
    };
    // Every per-lane object holds `capacity` elements (offsets one more,
    // checked where they are made): refused before any is made, so that
    // the lane count also fits the `i64`s it is written in.
    if capacity > ir_core::MAX_MEM_LEN {
        return err(None, LowerErrorKind::LanesOverLimit { lanes: capacity, limit: ir_core::MAX_MEM_LEN });
    }
    let ptys = g.param_types(func);
    let rtys = g.result_types(func);
    let mut sig_params = Vec::new();
    let mut names: Vec<String> = Vec::new();
    if lanes_param {
        sig_params.push(Type::I64);
        names.push("lanes".into());
    }
    let params = g.lambda(func).map_or_else(Vec::new, |l| l.params.clone());
    for (i, t) in ptys.iter().enumerate() {
        if t.depth == 0 {
            sig_params.push(t.scalar.into());
            names.push(g.name(params[i]).map_or(format!("p{i}"), str::to_string));
        }
    }
    let returns: Vec<Type> = rtys.iter().filter(|t| t.depth == 0).map(|t| t.scalar.into()).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut f = Function::new(name, Signature::new(sig_params, returns), &name_refs);
    let entry = FunctionBuilder::new(&mut f).create_block();
    let mut uses = vec![0u32; g.len()];
    for s in g.syms() {
        for &a in g.args(s) {
            uses[a.index()] += 1;
        }
        if let Some(m) = g.data(s).mask {
            uses[m.index()] += 1;
        }
    }
    for l in g.lambdas() {
        for &r in &l.results {
            uses[r.index()] += 1;
        }
    }
    let mut lw = Lower {
        g,
        sched,
        module: Module::new(),
        f,
        block: entry,
        vals: FxHashMap::default(),
        lanes,
        lanes_syms: Default::default(),
        capacity,
        on_chip_left: options.on_chip_bytes,
        temps: 0,
        uses,
        fused: Default::default(),
        skip_last_lane: planted(Bug::LaneLoopSkipsLastLane),
        swap_tsub: planted(Bug::TsubSwapsOperands),
    };
    if lanes_param {
        lw.lanes = Arg::Var(lw.f.params()[0]);
    }
    // Products that a sum reads first (and nothing else reads) become tfma.
    for s in g.syms() {
        let n = g.data(s);
        if matches!(n.op, Op::Binary(BinaryOp::Add | BinaryOp::Fadd)) && n.depth == 1 && n.mask.is_none() {
            let float = n.ty.val().is_some_and(|t| t.scalar.is_float());
            for (i, &a) in g.args(s).iter().enumerate() {
                if n.is_bcast(i) || (float && i == 1) {
                    continue;
                }
                let an = g.data(a);
                if matches!(an.op, Op::Binary(BinaryOp::Mul | BinaryOp::Fmul))
                    && an.depth == 1
                    && an.mask.is_none()
                    && lw.uses[a.index()] == 1
                {
                    lw.fused.insert(a);
                }
            }
        }
    }
    let mut lparams = Vec::new();
    let mut next_scalar = usize::from(lanes_param);
    for (i, (&p, t)) in params.iter().zip(&ptys).enumerate() {
        let pname = g.name(p).map_or(format!("p{i}"), str::to_string);
        let v = match t.depth {
            0 => {
                let v = lw.f.params()[next_scalar];
                lparams.push(LoweredParam::Scalar(next_scalar));
                next_scalar += 1;
                LVal::Scalar(v)
            }
            1 => {
                let m = lw.mem(&pname, t.scalar.into(), capacity.into(), MemSpace::Dram)?;
                lparams.push(LoweredParam::Lanes(m));
                LVal::Lanes(m)
            }
            2 => {
                let data =
                    lw.mem(&format!("{pname}_data"), t.scalar.into(), options.elements.into(), MemSpace::Dram)?;
                let offsets =
                    lw.mem(&format!("{pname}_offsets"), Type::I64, u128::from(capacity) + 1, MemSpace::Dram)?;
                lparams.push(LoweredParam::Rows { data, offsets });
                LVal::Rows { data, offsets }
            }
            _ => return err(Some(p), LowerErrorKind::DeepParam(t.depth)),
        };
        lw.vals.insert(p, v);
    }
    let results = lw.run(func)?;
    let mut lresults = Vec::new();
    let mut rets = Vec::new();
    let mut taken: Vec<Mem> = lparams
        .iter()
        .flat_map(|p| match p {
            LoweredParam::Lanes(m) => vec![*m],
            LoweredParam::Rows { data, offsets } => vec![*data, *offsets],
            LoweredParam::Scalar(_) => vec![],
        })
        .collect();
    for (r, v) in results.iter().enumerate() {
        match v {
            LVal::Scalar(x) => {
                lresults.push(LoweredResult::Scalar(rets.len()));
                rets.push(Arg::Var(*x));
            }
            LVal::Lanes(m) => {
                let out = if taken.contains(m) {
                    let o = lw.mem(&format!("{name}_out{r}"), lw.elem(*m), capacity.into(), MemSpace::Dram)?;
                    let (d, s) = (lw.all(o), lw.all(*m));
                    lw.fb().ins().tensor(Opcode::Dma, d, &[TensorArg::Desc(s)]);
                    o
                } else {
                    *m
                };
                taken.push(out);
                lresults.push(LoweredResult::Lanes(out));
            }
            _ => return err(None, LowerErrorKind::ResultForm),
        }
    }
    lw.fb().ins().ret(&rets);
    let Lower { mut module, f, .. } = lw;
    let fid = module.push_function(f).map_err(|e| LowerError { sym: None, kind: LowerErrorKind::Name(e) })?;
    let lowered = Lowered { module, func: fid, params: lparams, results: lresults, options };
    if let Err(mut e) = ir_core::verify_module(&lowered.module, &ir_core::VerifyOptions::default()) {
        return err(None, LowerErrorKind::LoweredInvalid(e.0.swap_remove(0)));
    }
    Ok(lowered)
}

impl Lowered {
    /// Runs the lowered function on the graph function's arguments (per-lane
    /// arrays written into their objects) with `ir-core`'s interpreter, and
    /// reads the results back as values.
    pub fn run(&self, args: &[Value], config: Config) -> Result<Vec<Value>, Trap> {
        let bad = |m: String| Trap { kind: TrapKind::BadArguments, func: None, inst: None, message: m };
        let mut interp = Interpreter::new(&self.module, config)?;
        let mut scalars = Vec::new();
        let mut lanes: Option<usize> = None;
        let mut set_lanes = |n: usize| -> Result<(), Trap> {
            match lanes {
                Some(m) if m != n => Err(bad(format!("per-lane arguments of {m} and {n} lanes"))),
                _ => {
                    lanes = Some(n);
                    Ok(())
                }
            }
        };
        if args.len() != self.params.len() {
            return Err(bad(format!("{} arguments for {} parameters", args.len(), self.params.len())));
        }
        for (p, a) in self.params.iter().zip(args) {
            match (p, a) {
                (LoweredParam::Scalar(_), Value::Scalar(x)) => scalars.push(Imm::from(*x)),
                (LoweredParam::Lanes(m), Value::Array(arr)) if arr.depth() == 1 => {
                    set_lanes(arr.len())?;
                    interp
                        .memory_mut()
                        .write(*m, &arr.scalars().map(Imm::from).collect::<Vec<_>>())
                        .map_err(|e| bad(e.to_string()))?;
                }
                (LoweredParam::Rows { data, offsets }, Value::Array(arr)) if arr.depth() == 2 => {
                    set_lanes(arr.len())?;
                    let elems: Vec<Imm> = arr.scalars().map(Imm::from).collect();
                    interp.memory_mut().write(*data, &elems).map_err(|e| bad(e.to_string()))?;
                    let offs: Vec<Imm> = arr.offsets(0).iter().map(|&o| Imm::int(Type::I64, i64::from(o))).collect();
                    interp.memory_mut().write(*offsets, &offs).map_err(|e| bad(e.to_string()))?;
                }
                _ => return Err(bad("an argument of another form than its parameter".into())),
            }
        }
        let n = match self.options.lanes {
            Lanes::Fixed(n) => {
                if lanes.is_some_and(|l| l as u64 != n) {
                    return Err(bad(format!("the function was lowered for {n} lanes")));
                }
                n as usize
            }
            Lanes::Dynamic { capacity } => {
                let l = lanes.unwrap_or(0);
                if l as u64 > capacity {
                    return Err(bad(format!("{l} lanes exceed the capacity {capacity}")));
                }
                scalars.insert(0, Imm::int(Type::I64, l as i64));
                l
            }
        };
        let rets = interp.call(self.func, &scalars)?;
        let memory = interp.memory();
        self.results
            .iter()
            .map(|r| match r {
                LoweredResult::Scalar(i) => {
                    rets.get(*i).map(|&x| Value::Scalar(x.into())).ok_or_else(|| bad("a missing result".into()))
                }
                LoweredResult::Lanes(m) => {
                    let elems = memory.elements(*m);
                    let elem = memory.elem_type(*m).unwrap_or(Type::I64).into();
                    let lanes: Vec<crate::scalar::Imm> =
                        elems[..n.min(elems.len())].iter().map(|&x| x.into()).collect();
                    Ok(Value::from(Array::from_imms(elem, &lanes).map_err(|e| bad(e.to_string()))?))
                }
            })
            .collect()
    }
}
