//! One wasm function body → one `ir-core` function.
//!
//! The translator walks the operators once, in lockstep with wasmparser's
//! function validator (which has already accepted each operator when the
//! translator sees it), keeping three explicit stacks and no recursion:
//!
//! - **The operand stack**, one [`Entry`] per IR value part (a `v128` is two
//!   `i64` parts). An entry is an immediate, the *slot var* of its depth
//!   (`%sD.T`: stack depth `D`, type `T`), a lazy read of a local, a
//!   comparison result held as an `i1` (`%cD`), or a var nothing redefines
//!   while the entry lives. Operations write their result into the slot var
//!   of the depth it lands at, so the wasm stack becomes a small set of
//!   non-SSA vars with many definitions, and locals stay vars (`%l3`).
//! - **The control stack** of [`Frame`]s (function, `block`, `loop`, `if`,
//!   `else`). A branch to a frame writes the label's values into the frame's
//!   result (or, for a loop, parameter) slots on the branch's own edge, then
//!   jumps; every incoming edge of a join assigns the join's vars.
//! - **Dead code**: after `br`, `br_table`, `return`, `unreachable` or a
//!   statically out-of-bounds access, nothing is emitted until the enclosing
//!   frame's `else`/`end`; nested frames opened meanwhile are only counted.
//!
//! Invariants (what makes the lazy entries sound):
//! - A `Slot` entry at stack position `p` holds `%sp.T`: only the entry at
//!   depth `p` uses that var, so writing a result or a branch copy into a
//!   slot var never clobbers a live value (branch copies go from higher
//!   depths to lower ones, in increasing order).
//! - `Local` entries (a pending `local.get`) never survive a change of the
//!   local: `local.set`/`local.tee` first copies every pending read of that
//!   local into its slot (each local keeps the stack positions of its reads),
//!   and entering any `block`/`loop`/`if` copies all pending reads (a
//!   watermark makes that amortised O(1) per entry), so no lazy read crosses
//!   control flow.
//! - A `Cond` entry at depth `d` holds `%cd`, which only comparisons at
//!   depth `d` write, and those need the entry popped first.
//! - Every block ends in exactly one terminator; blocks are created when
//!   first named and enter the layout when code is first placed in them, so
//!   no empty or unreachable block is left behind (a join block exists only
//!   if some edge reaches it).
//! - Errors are values: an operator the translator cannot express, or an
//!   internal inconsistency (which validated input cannot cause), is an
//!   `Err(reason)` for this function only. Nothing here panics on input.

use crate::generic::generic;
use ir_core::{
    Arg, Block, Callee, Desc, FloatCC, Function, FunctionBuilder, Imm, Inst, IntCC, Mem, MemDesc, Opcode, TensorArg,
    Type, Var,
};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use wasmparser::{BlockType, FuncType, FuncValidator, MemArg, MemArgTarget, Operator, ValType, ValidatorResources};

type R<T> = Result<T, String>;

/// IR part types of a block's parameters or results.
type Types = SmallVec<[Type; 4]>;

/// The IR parts of a wasm value type: one scalar, except `v128`, which is
/// two `i64` halves (low first). References are opaque `i64` handles.
pub(crate) fn parts(t: ValType) -> &'static [Type] {
    match t {
        ValType::I32 => &[Type::I32],
        ValType::I64 => &[Type::I64],
        ValType::F32 => &[Type::F32],
        ValType::F64 => &[Type::F64],
        ValType::V128 => &[Type::I64, Type::I64],
        ValType::Ref(_) => &[Type::I64],
    }
}

/// The IR parts of a list of wasm value types.
pub(crate) fn flatten(types: &[ValType]) -> SmallVec<[Type; 4]> {
    types.iter().flat_map(|&t| parts(t).iter().copied()).collect()
}

/// What a function body may refer to, resolved to IR entities.
#[derive(Debug)]
pub(crate) struct ModuleEnv {
    /// Function types by type index (`None` for non-function types).
    pub(crate) types: Vec<Option<FuncType>>,
    /// The type index of every function, imports first.
    pub(crate) func_types: Vec<u32>,
    /// The callee of every function index (see `lib.rs` for how failed
    /// functions are remapped).
    pub(crate) callees: Vec<Callee>,
    /// Linear memories.
    pub(crate) memories: Vec<MemEnv>,
    /// Globals.
    pub(crate) globals: Vec<GlobalEnv>,
    /// The memory object and length of each data segment that has one
    /// (the passive ones).
    pub(crate) data: Vec<Option<(Mem, u64)>>,
}

/// A linear memory as the IR sees it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct MemEnv {
    /// The `i8` object.
    pub(crate) mem: Mem,
    /// Addresses are `i64`.
    pub(crate) memory64: bool,
    /// The object's length in bytes.
    pub(crate) len: u64,
}

/// A global as the IR sees it.
#[derive(Clone, Debug)]
pub(crate) enum GlobalEnv {
    /// Immutable with a constant initial value: reads fold to immediates.
    Const(SmallVec<[Imm; 2]>),
    /// A memory object of one element per part, read and written at index 0 (1).
    Mem(Mem, SmallVec<[Type; 2]>),
}

/// What the validator knew before an operator: its arity and the types of
/// the operands it pops (deepest first).
#[derive(Debug, Default)]
pub(crate) struct Pre {
    arity: Option<(u32, u32)>,
    inputs: SmallVec<[ValType; 4]>,
    inputs_known: bool,
}

impl Pre {
    /// True when translating `op` may need [`Pre`]: `drop`, `select` and the
    /// generic lowering do. Capturing costs about as much as translating,
    /// so the operators that make up most code skip it.
    pub(crate) fn wanted(op: &Operator<'_>) -> bool {
        use Operator as W;
        let skip = numeric(op).is_some()
            || access(op).is_some()
            || matches!(
                op,
                W::LocalGet { .. }
                    | W::LocalSet { .. }
                    | W::LocalTee { .. }
                    | W::GlobalGet { .. }
                    | W::GlobalSet { .. }
                    | W::I32Const { .. }
                    | W::I64Const { .. }
                    | W::F32Const { .. }
                    | W::F64Const { .. }
                    | W::Block { .. }
                    | W::Loop { .. }
                    | W::If { .. }
                    | W::Else
                    | W::End
                    | W::Br { .. }
                    | W::BrIf { .. }
                    | W::BrTable { .. }
                    | W::Return
                    | W::Call { .. }
                    | W::CallIndirect { .. }
                    | W::Nop
                    | W::Unreachable
            );
        !skip
    }

    /// Captures the operand types `op` is about to pop.
    pub(crate) fn capture(op: &Operator<'_>, v: &mut FuncValidator<ValidatorResources>, offset: u64) -> Pre {
        let arity = op.operator_arity(&v.visitor(offset));
        let mut pre = Pre { arity, inputs: SmallVec::new(), inputs_known: true };
        if let Some((pops, _)) = arity {
            for depth in (0..pops as usize).rev() {
                match v.get_operand_type(depth) {
                    Some(Some(t)) => pre.inputs.push(t),
                    _ => {
                        pre.inputs_known = false;
                        break;
                    }
                }
            }
        }
        pre
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Entry {
    /// An immediate.
    Imm(Imm),
    /// The slot var of the entry's own depth.
    Slot(Var),
    /// A pending read of a local's part var (local index).
    Local(Var, u32),
    /// An `i32` 0/1 held as the `i1` var of the entry's depth.
    Cond(Var),
    /// A var no instruction redefines while the entry lives.
    Fixed(Var),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Func,
    Block,
    Loop,
    If,
    Else,
}

#[derive(Debug)]
struct Frame {
    kind: Kind,
    /// Stack height below the frame's parameters.
    height: usize,
    params: SmallVec<[Type; 4]>,
    results: SmallVec<[Type; 4]>,
    /// Loop: its header. Others: the join after `end`, once something
    /// branches there.
    label: Option<Block>,
    /// `if`: the `br` whose false edge is set at `else`/`end`.
    branch: Option<Inst>,
    /// `if`: the parameter values the `else` arm starts from.
    saved: SmallVec<[Entry; 2]>,
}

#[derive(Debug)]
struct LocalInfo {
    ty: ValType,
    vars: SmallVec<[Var; 2]>,
    param: bool,
    read: bool,
    /// Stack positions of pending reads (`Entry::Local`), increasing.
    refs: Vec<u32>,
}

/// Translates one function body.
pub(crate) struct Translator<'e, 'f> {
    env: &'e ModuleEnv,
    b: FunctionBuilder<'f>,
    stack: Vec<Entry>,
    ctrl: Vec<Frame>,
    dead: bool,
    dead_nesting: u32,
    /// Entries below this position are not `Local`.
    watermark: usize,
    locals: Vec<LocalInfo>,
    local_names: Option<&'e FxHashMap<u32, &'e str>>,
    slots: [Vec<Option<Var>>; 7],
    conds: Vec<Option<Var>>,
    addrs: Vec<Option<Var>>,
    addrs_hi: Vec<Option<Var>>,
    saved_count: u32,
    entry: Block,
    scratch: String,
}

impl core::fmt::Debug for Translator<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Translator").field("depth", &self.stack.len()).field("frames", &self.ctrl.len()).finish()
    }
}

/// The names of a function's params: `%lN` or the name section's local
/// name, and `.lo`/`.hi` for the halves of a `v128`.
pub(crate) fn param_names(params: &[ValType], names: Option<&FxHashMap<u32, &str>>) -> Vec<String> {
    let mut out = Vec::new();
    for (i, &t) in params.iter().enumerate() {
        let base = local_base_name(i as u32, names);
        push_part_names(&mut out, &base, t);
    }
    out
}

fn local_base_name(index: u32, names: Option<&FxHashMap<u32, &str>>) -> String {
    names.and_then(|m| m.get(&index)).and_then(|n| crate::names::local_name(n)).unwrap_or_else(|| format!("l{index}"))
}

fn push_part_names(out: &mut Vec<String>, base: &str, t: ValType) {
    if t == ValType::V128 {
        out.push(format!("{base}.lo"));
        out.push(format!("{base}.hi"));
    } else {
        out.push(base.to_string());
    }
}

fn zero(t: Type) -> Imm {
    Imm::from_bits(t, 0)
}

/// How an operator maps onto a scalar IR operation.
enum Num {
    Unary(Opcode, Type),
    Binary(Opcode, Type),
    Setp(IntCC),
    Fsetp(FloatCC),
    Eqz,
    Convert(Opcode, Type),
    /// Sign-extend the low bits of a value in place: `trunc` to the narrow
    /// type, then `sext` back.
    ExtendLow(Type, Type),
}

fn numeric(op: &Operator<'_>) -> Option<Num> {
    use Num::*;
    use Opcode as O;
    use Operator as W;
    use Type::{F32, F64, I8, I16, I32, I64};
    Some(match op {
        W::I32Eqz | W::I64Eqz => Eqz,
        W::I32Eq | W::I64Eq => Setp(IntCC::Eq),
        W::I32Ne | W::I64Ne => Setp(IntCC::Ne),
        W::I32LtS | W::I64LtS => Setp(IntCC::Slt),
        W::I32LtU | W::I64LtU => Setp(IntCC::Ult),
        W::I32GtS | W::I64GtS => Setp(IntCC::Sgt),
        W::I32GtU | W::I64GtU => Setp(IntCC::Ugt),
        W::I32LeS | W::I64LeS => Setp(IntCC::Sle),
        W::I32LeU | W::I64LeU => Setp(IntCC::Ule),
        W::I32GeS | W::I64GeS => Setp(IntCC::Sge),
        W::I32GeU | W::I64GeU => Setp(IntCC::Uge),
        W::F32Eq | W::F64Eq => Fsetp(FloatCC::Eq),
        W::F32Ne | W::F64Ne => Fsetp(FloatCC::Ne),
        W::F32Lt | W::F64Lt => Fsetp(FloatCC::Lt),
        W::F32Gt | W::F64Gt => Fsetp(FloatCC::Gt),
        W::F32Le | W::F64Le => Fsetp(FloatCC::Le),
        W::F32Ge | W::F64Ge => Fsetp(FloatCC::Ge),

        W::I32Clz => Unary(O::Clz, I32),
        W::I32Ctz => Unary(O::Ctz, I32),
        W::I32Popcnt => Unary(O::Popcnt, I32),
        W::I64Clz => Unary(O::Clz, I64),
        W::I64Ctz => Unary(O::Ctz, I64),
        W::I64Popcnt => Unary(O::Popcnt, I64),

        W::I32Add => Binary(O::Add, I32),
        W::I32Sub => Binary(O::Sub, I32),
        W::I32Mul => Binary(O::Mul, I32),
        W::I32DivS => Binary(O::Sdiv, I32),
        W::I32DivU => Binary(O::Udiv, I32),
        W::I32RemS => Binary(O::Srem, I32),
        W::I32RemU => Binary(O::Urem, I32),
        W::I32And => Binary(O::And, I32),
        W::I32Or => Binary(O::Or, I32),
        W::I32Xor => Binary(O::Xor, I32),
        W::I32Shl => Binary(O::Shl, I32),
        W::I32ShrS => Binary(O::Ashr, I32),
        W::I32ShrU => Binary(O::Lshr, I32),
        W::I32Rotl => Binary(O::Rotl, I32),
        W::I32Rotr => Binary(O::Rotr, I32),
        W::I64Add => Binary(O::Add, I64),
        W::I64Sub => Binary(O::Sub, I64),
        W::I64Mul => Binary(O::Mul, I64),
        W::I64DivS => Binary(O::Sdiv, I64),
        W::I64DivU => Binary(O::Udiv, I64),
        W::I64RemS => Binary(O::Srem, I64),
        W::I64RemU => Binary(O::Urem, I64),
        W::I64And => Binary(O::And, I64),
        W::I64Or => Binary(O::Or, I64),
        W::I64Xor => Binary(O::Xor, I64),
        W::I64Shl => Binary(O::Shl, I64),
        W::I64ShrS => Binary(O::Ashr, I64),
        W::I64ShrU => Binary(O::Lshr, I64),
        W::I64Rotl => Binary(O::Rotl, I64),
        W::I64Rotr => Binary(O::Rotr, I64),

        W::F32Abs => Unary(O::Fabs, F32),
        W::F32Neg => Unary(O::Fneg, F32),
        W::F32Ceil => Unary(O::Fceil, F32),
        W::F32Floor => Unary(O::Ffloor, F32),
        W::F32Trunc => Unary(O::Ftrunc, F32),
        W::F32Nearest => Unary(O::Fnearest, F32),
        W::F32Sqrt => Unary(O::Fsqrt, F32),
        W::F64Abs => Unary(O::Fabs, F64),
        W::F64Neg => Unary(O::Fneg, F64),
        W::F64Ceil => Unary(O::Fceil, F64),
        W::F64Floor => Unary(O::Ffloor, F64),
        W::F64Trunc => Unary(O::Ftrunc, F64),
        W::F64Nearest => Unary(O::Fnearest, F64),
        W::F64Sqrt => Unary(O::Fsqrt, F64),
        W::F32Add => Binary(O::Fadd, F32),
        W::F32Sub => Binary(O::Fsub, F32),
        W::F32Mul => Binary(O::Fmul, F32),
        W::F32Div => Binary(O::Fdiv, F32),
        W::F32Min => Binary(O::Fmin, F32),
        W::F32Max => Binary(O::Fmax, F32),
        W::F32Copysign => Binary(O::Fcopysign, F32),
        W::F64Add => Binary(O::Fadd, F64),
        W::F64Sub => Binary(O::Fsub, F64),
        W::F64Mul => Binary(O::Fmul, F64),
        W::F64Div => Binary(O::Fdiv, F64),
        W::F64Min => Binary(O::Fmin, F64),
        W::F64Max => Binary(O::Fmax, F64),
        W::F64Copysign => Binary(O::Fcopysign, F64),

        W::I32WrapI64 => Convert(O::Trunc, I32),
        W::I32TruncF32S | W::I32TruncF64S => Convert(O::Fptosi, I32),
        W::I32TruncF32U | W::I32TruncF64U => Convert(O::Fptoui, I32),
        W::I64ExtendI32S => Convert(O::Sext, I64),
        W::I64ExtendI32U => Convert(O::Zext, I64),
        W::I64TruncF32S | W::I64TruncF64S => Convert(O::Fptosi, I64),
        W::I64TruncF32U | W::I64TruncF64U => Convert(O::Fptoui, I64),
        W::F32ConvertI32S | W::F32ConvertI64S => Convert(O::Sitofp, F32),
        W::F32ConvertI32U | W::F32ConvertI64U => Convert(O::Uitofp, F32),
        W::F32DemoteF64 => Convert(O::Fptrunc, F32),
        W::F64ConvertI32S | W::F64ConvertI64S => Convert(O::Sitofp, F64),
        W::F64ConvertI32U | W::F64ConvertI64U => Convert(O::Uitofp, F64),
        W::F64PromoteF32 => Convert(O::Fpext, F64),
        W::I32ReinterpretF32 => Convert(O::Bitcast, I32),
        W::I64ReinterpretF64 => Convert(O::Bitcast, I64),
        W::F32ReinterpretI32 => Convert(O::Bitcast, F32),
        W::F64ReinterpretI64 => Convert(O::Bitcast, F64),

        W::I32Extend8S => ExtendLow(I8, I32),
        W::I32Extend16S => ExtendLow(I16, I32),
        W::I64Extend8S => ExtendLow(I8, I64),
        W::I64Extend16S => ExtendLow(I16, I64),
        W::I64Extend32S => ExtendLow(I32, I64),

        W::I32TruncSatF32S | W::I32TruncSatF64S => Convert(O::FptosiSat, I32),
        W::I32TruncSatF32U | W::I32TruncSatF64U => Convert(O::FptouiSat, I32),
        W::I64TruncSatF32S | W::I64TruncSatF64S => Convert(O::FptosiSat, I64),
        W::I64TruncSatF32U | W::I64TruncSatF64U => Convert(O::FptouiSat, I64),
        _ => return None,
    })
}

/// A scalar memory access: the loaded or stored IR type, and for narrow
/// accesses the extension (loads) or the full type (stores).
enum Access {
    Load(Type),
    LoadExt(Type, Opcode, Type),
    Store(Type),
    StoreNarrow(Type),
}

fn access(op: &Operator<'_>) -> Option<(MemArg, Access)> {
    use Access::*;
    use Opcode::{Sext, Zext};
    use Operator as W;
    use Type::{F32, F64, I8, I16, I32, I64};
    Some(match *op {
        W::I32Load { memarg } => (memarg, Load(I32)),
        W::I64Load { memarg } => (memarg, Load(I64)),
        W::F32Load { memarg } => (memarg, Load(F32)),
        W::F64Load { memarg } => (memarg, Load(F64)),
        W::I32Load8S { memarg } => (memarg, LoadExt(I8, Sext, I32)),
        W::I32Load8U { memarg } => (memarg, LoadExt(I8, Zext, I32)),
        W::I32Load16S { memarg } => (memarg, LoadExt(I16, Sext, I32)),
        W::I32Load16U { memarg } => (memarg, LoadExt(I16, Zext, I32)),
        W::I64Load8S { memarg } => (memarg, LoadExt(I8, Sext, I64)),
        W::I64Load8U { memarg } => (memarg, LoadExt(I8, Zext, I64)),
        W::I64Load16S { memarg } => (memarg, LoadExt(I16, Sext, I64)),
        W::I64Load16U { memarg } => (memarg, LoadExt(I16, Zext, I64)),
        W::I64Load32S { memarg } => (memarg, LoadExt(I32, Sext, I64)),
        W::I64Load32U { memarg } => (memarg, LoadExt(I32, Zext, I64)),
        W::I32Store { memarg } => (memarg, Store(I32)),
        W::I64Store { memarg } => (memarg, Store(I64)),
        W::F32Store { memarg } => (memarg, Store(F32)),
        W::F64Store { memarg } => (memarg, Store(F64)),
        W::I32Store8 { memarg } | W::I64Store8 { memarg } => (memarg, StoreNarrow(I8)),
        W::I32Store16 { memarg } | W::I64Store16 { memarg } => (memarg, StoreNarrow(I16)),
        W::I64Store32 { memarg } => (memarg, StoreNarrow(I32)),
        _ => return None,
    })
}

impl<'e, 'f> Translator<'e, 'f> {
    /// A translator for a function whose IR params already exist in `func`.
    pub(crate) fn new(
        env: &'e ModuleEnv,
        func: &'f mut Function,
        ty: &FuncType,
        local_names: Option<&'e FxHashMap<u32, &'e str>>,
    ) -> Translator<'e, 'f> {
        let params: Vec<Var> = func.params().to_vec();
        let mut b = FunctionBuilder::new(func);
        let entry = b.func().create_block();
        let _ = b.func().append_block(entry);
        b.switch_to_block(entry);
        let mut locals = Vec::with_capacity(ty.params().len());
        let mut next = params.into_iter();
        for &t in ty.params() {
            let vars = parts(t).iter().filter_map(|_| next.next()).collect();
            locals.push(LocalInfo { ty: t, vars, param: true, read: false, refs: Vec::new() });
        }
        let results = flatten(ty.results());
        Translator {
            env,
            b,
            stack: Vec::new(),
            ctrl: vec![Frame {
                kind: Kind::Func,
                height: 0,
                params: SmallVec::new(),
                results,
                label: None,
                branch: None,
                saved: SmallVec::new(),
            }],
            dead: false,
            dead_nesting: 0,
            watermark: 0,
            locals,
            local_names,
            slots: Default::default(),
            conds: Vec::new(),
            addrs: Vec::new(),
            addrs_hi: Vec::new(),
            saved_count: 0,
            entry,
            scratch: String::new(),
        }
    }

    /// Declares `count` more locals of type `ty`.
    pub(crate) fn add_locals(&mut self, count: u32, ty: ValType) {
        for _ in 0..count {
            self.locals.push(LocalInfo { ty, vars: SmallVec::new(), param: false, read: false, refs: Vec::new() });
        }
    }

    /// True while the current code is reachable: only then does an operator
    /// need its operand types captured.
    pub(crate) fn live(&self) -> bool {
        !self.dead
    }

    /// Finishes the function: every local that is read gets its zero
    /// initialisation at the top of the entry block (locals never read
    /// need none; `docs/design/wasm-import.md`).
    pub(crate) fn finish(mut self) -> R<()> {
        if !self.ctrl.is_empty() {
            return Err("the body ends inside a block".into());
        }
        let first = self.b.func().layout().first_inst(self.entry).ok_or("the entry block is empty")?;
        self.b.position_before(first);
        for l in 0..self.locals.len() {
            let info = &self.locals[l];
            if info.param || !info.read {
                continue;
            }
            let vars = info.vars.clone();
            for v in vars {
                let ty = self.b.func().var_type(v).ok_or("a local without a type")?;
                self.b.ins().constant(v, zero(ty));
            }
        }
        Ok(())
    }

    // ---- vars ---------------------------------------------------------------

    fn named_var(&mut self, ty: Type, args: core::fmt::Arguments<'_>) -> Var {
        use core::fmt::Write;
        self.scratch.clear();
        let _ = self.scratch.write_fmt(args);
        let name = core::mem::take(&mut self.scratch);
        let v = self.b.var(&name, ty);
        self.scratch = name;
        v
    }

    fn slot(&mut self, depth: usize, ty: Type) -> Var {
        if let Some(v) = cached(&self.slots[ty.index()], depth) {
            return v;
        }
        let v = self.named_var(ty, format_args!("s{depth}.{ty}"));
        remember(&mut self.slots[ty.index()], depth, v)
    }

    fn cond(&mut self, depth: usize) -> Var {
        if let Some(v) = cached(&self.conds, depth) {
            return v;
        }
        let v = self.named_var(Type::I1, format_args!("c{depth}"));
        remember(&mut self.conds, depth, v)
    }

    fn addr(&mut self, depth: usize, hi: bool) -> Var {
        if let Some(v) = cached(if hi { &self.addrs_hi } else { &self.addrs }, depth) {
            return v;
        }
        let v = self.named_var(Type::I64, format_args!("a{depth}{}", if hi { ".hi" } else { "" }));
        remember(if hi { &mut self.addrs_hi } else { &mut self.addrs }, depth, v)
    }

    fn local_vars(&mut self, l: u32) -> R<SmallVec<[Var; 2]>> {
        let info = self.locals.get(l as usize).ok_or_else(|| format!("local {l} does not exist"))?;
        if info.vars.is_empty() {
            let ty = info.ty;
            let base = local_base_name(l, self.local_names);
            let mut names = Vec::new();
            push_part_names(&mut names, &base, ty);
            let vars: SmallVec<[Var; 2]> = names.iter().zip(parts(ty)).map(|(n, &t)| self.b.var(n, t)).collect();
            self.locals[l as usize].vars = vars;
        }
        Ok(self.locals[l as usize].vars.clone())
    }

    fn var_ty(&mut self, v: Var) -> R<Type> {
        self.b.func().var_type(v).ok_or_else(|| "a var without a type".to_string())
    }

    // ---- the operand stack --------------------------------------------------

    fn push(&mut self, e: Entry) {
        if let Entry::Local(_, l) = e
            && let Some(info) = self.locals.get_mut(l as usize)
        {
            info.refs.push(self.stack.len() as u32);
        }
        self.stack.push(e);
    }

    fn pop(&mut self) -> R<Entry> {
        let e = self.stack.pop().ok_or("operand stack underflow")?;
        if let Entry::Local(_, l) = e
            && let Some(info) = self.locals.get_mut(l as usize)
        {
            info.refs.pop();
        }
        self.watermark = self.watermark.min(self.stack.len());
        Ok(e)
    }

    fn truncate(&mut self, height: usize) {
        while self.stack.len() > height {
            if self.pop().is_err() {
                break;
            }
        }
    }

    /// The value of entry `e` (at `depth`) as an operand; a `Cond` becomes
    /// its `i32` in the slot of its depth.
    fn read(&mut self, e: Entry, depth: usize) -> Arg {
        match e {
            Entry::Imm(i) => Arg::Imm(i),
            Entry::Slot(v) | Entry::Local(v, _) | Entry::Fixed(v) => Arg::Var(v),
            Entry::Cond(c) => {
                let s = self.slot(depth, Type::I32);
                self.b.ins().convert(Opcode::Zext, s, c);
                Arg::Var(s)
            }
        }
    }

    /// Assigns the value of entry `e` to `dst`.
    fn write_to(&mut self, dst: Var, e: Entry) {
        match e {
            Entry::Imm(i) => {
                self.b.ins().constant(dst, i);
            }
            Entry::Slot(v) | Entry::Local(v, _) | Entry::Fixed(v) => {
                if v != dst {
                    self.b.ins().copy(dst, v);
                }
            }
            Entry::Cond(c) => {
                self.b.ins().convert(Opcode::Zext, dst, c);
            }
        }
    }

    fn pop_arg(&mut self) -> R<Arg> {
        let e = self.pop()?;
        let depth = self.stack.len();
        Ok(self.read(e, depth))
    }

    /// Pops `n` parts; returns them deepest first.
    fn pop_args(&mut self, n: usize) -> R<SmallVec<[Arg; 4]>> {
        let mut out: SmallVec<[Arg; 4]> = SmallVec::with_capacity(n);
        for _ in 0..n {
            out.push(self.pop_arg()?);
        }
        out.reverse();
        Ok(out)
    }

    /// Pops an `i32` condition as an `i1`.
    fn pop_cond(&mut self) -> R<Arg> {
        let e = self.pop()?;
        let depth = self.stack.len();
        Ok(match e {
            Entry::Cond(c) => Arg::Var(c),
            Entry::Imm(i) => Arg::Imm(Imm::bool(i.as_u64() != 0)),
            Entry::Slot(v) | Entry::Local(v, _) | Entry::Fixed(v) => {
                let ty = self.var_ty(v)?;
                let c = self.cond(depth);
                self.b.ins().setp(IntCC::Ne, c, v, zero(ty));
                Arg::Var(c)
            }
        })
    }

    /// Pushes the slot of the next depth and returns it (the caller writes it).
    fn push_result(&mut self, ty: Type) -> Var {
        let v = self.slot(self.stack.len(), ty);
        self.stack.push(Entry::Slot(v));
        v
    }

    /// Copies every pending read of local `l` into its slot (before `l`
    /// changes).
    fn materialize_local(&mut self, l: u32) -> R<()> {
        let refs = match self.locals.get_mut(l as usize) {
            Some(info) => core::mem::take(&mut info.refs),
            None => return Err(format!("local {l} does not exist")),
        };
        for pos in refs {
            let pos = pos as usize;
            if let Some(&Entry::Local(v, _)) = self.stack.get(pos) {
                let ty = self.var_ty(v)?;
                let s = self.slot(pos, ty);
                self.b.ins().copy(s, v);
                self.stack[pos] = Entry::Slot(s);
            }
        }
        Ok(())
    }

    /// Copies every pending local read into its slot (entering a frame).
    fn materialize_all(&mut self) -> R<()> {
        for pos in self.watermark..self.stack.len() {
            if let Entry::Local(v, l) = self.stack[pos] {
                let ty = self.var_ty(v)?;
                let s = self.slot(pos, ty);
                self.b.ins().copy(s, v);
                self.stack[pos] = Entry::Slot(s);
                if let Some(info) = self.locals.get_mut(l as usize) {
                    info.refs.clear();
                }
            }
        }
        self.watermark = self.stack.len();
        Ok(())
    }

    // ---- blocks and frames --------------------------------------------------

    fn new_block(&mut self) -> Block {
        self.b.func().create_block()
    }

    fn switch_to(&mut self, block: Block) {
        let _ = self.b.func().append_block(block);
        self.b.switch_to_block(block);
        self.dead = false;
    }

    fn become_dead(&mut self) {
        self.dead = true;
        let height = self.ctrl.last().map_or(0, |f| f.height);
        self.truncate(height);
    }

    fn frame_index(&self, depth: u32) -> R<usize> {
        (self.ctrl.len()).checked_sub(1 + depth as usize).ok_or_else(|| format!("branch depth {depth} out of range"))
    }

    fn label(&mut self, fi: usize) -> Block {
        if let Some(b) = self.ctrl[fi].label {
            return b;
        }
        let b = self.new_block();
        self.ctrl[fi].label = Some(b);
        b
    }

    fn label_types(&self, fi: usize) -> SmallVec<[Type; 4]> {
        let f = &self.ctrl[fi];
        if f.kind == Kind::Loop { f.params.clone() } else { f.results.clone() }
    }

    /// True when a branch to frame `fi` needs no copies: its values are
    /// already the slots of the frame's label.
    fn in_place(&self, fi: usize) -> bool {
        let f = &self.ctrl[fi];
        let n = if f.kind == Kind::Loop { f.params.len() } else { f.results.len() };
        f.kind != Kind::Func
            && self.stack.len().checked_sub(n) == Some(f.height)
            && self.stack[f.height..].iter().all(|e| matches!(e, Entry::Slot(_)))
    }

    /// Emits a branch to frame `fi` from the current block: the label's
    /// values go into the frame's slots (or are returned), then a jump.
    /// The stack is left as it is.
    fn branch(&mut self, fi: usize) -> R<()> {
        let types = self.label_types(fi);
        let n = types.len();
        let base = self.stack.len().checked_sub(n).ok_or("operand stack underflow at a branch")?;
        if self.ctrl[fi].kind == Kind::Func {
            let mut values: SmallVec<[Arg; 4]> = SmallVec::with_capacity(n);
            for i in 0..n {
                let e = self.stack[base + i];
                values.push(self.read(e, base + i));
            }
            self.b.ins().ret(&values);
            return Ok(());
        }
        let height = self.ctrl[fi].height;
        for (i, &ty) in types.iter().enumerate() {
            let dst = self.slot(height + i, ty);
            let e = self.stack[base + i];
            self.write_to(dst, e);
        }
        let target = self.label(fi);
        self.b.ins().jump(target);
        Ok(())
    }

    fn block_type(&self, bt: BlockType) -> R<(Types, Types)> {
        Ok(match bt {
            BlockType::Empty => (SmallVec::new(), SmallVec::new()),
            BlockType::Type(t) => (SmallVec::new(), flatten(&[t])),
            BlockType::FuncType(i) => {
                let ty = self
                    .env
                    .types
                    .get(i as usize)
                    .and_then(Option::as_ref)
                    .ok_or_else(|| format!("type {i} is not a function type"))?;
                (flatten(ty.params()), flatten(ty.results()))
            }
        })
    }

    fn open(&mut self, kind: Kind, bt: BlockType) -> R<usize> {
        let (params, results) = self.block_type(bt)?;
        self.materialize_all()?;
        let height = self.stack.len().checked_sub(params.len()).ok_or("operand stack underflow at a block")?;
        self.ctrl.push(Frame { kind, height, params, results, label: None, branch: None, saved: SmallVec::new() });
        Ok(self.ctrl.len() - 1)
    }

    fn op_block(&mut self, bt: BlockType) -> R<()> {
        self.open(Kind::Block, bt).map(|_| ())
    }

    fn op_loop(&mut self, bt: BlockType) -> R<()> {
        let fi = self.open(Kind::Loop, bt)?;
        // Branches back to the header bring the parameters in the slots, so
        // the first entry must too.
        let (height, params) = (self.ctrl[fi].height, self.ctrl[fi].params.clone());
        for (i, &ty) in params.iter().enumerate() {
            let e = self.stack[height + i];
            if !matches!(e, Entry::Slot(_)) {
                let dst = self.slot(height + i, ty);
                self.write_to(dst, e);
                self.stack[height + i] = Entry::Slot(dst);
            }
        }
        let header = self.new_block();
        self.ctrl[fi].label = Some(header);
        self.b.ins().jump(header);
        self.switch_to(header);
        Ok(())
    }

    fn op_if(&mut self, bt: BlockType) -> R<()> {
        let c = self.pop_cond()?;
        let fi = self.open(Kind::If, bt)?;
        // The `else` arm starts from the same parameters, which the `then`
        // arm may overwrite in their slots: keep them in vars of their own.
        let (height, params) = (self.ctrl[fi].height, self.ctrl[fi].params.clone());
        let mut saved = SmallVec::new();
        for (i, &ty) in params.iter().enumerate() {
            let e = self.stack[height + i];
            saved.push(match e {
                Entry::Imm(_) | Entry::Fixed(_) => e,
                _ => {
                    let n = self.saved_count;
                    self.saved_count += 1;
                    let v = self.named_var(ty, format_args!("ifp{n}"));
                    self.write_to(v, e);
                    Entry::Fixed(v)
                }
            });
        }
        let then_block = self.new_block();
        let br = self.b.ins().br(c, then_block, then_block);
        self.ctrl[fi].branch = Some(br);
        self.ctrl[fi].saved = saved;
        self.switch_to(then_block);
        Ok(())
    }

    fn op_else(&mut self) -> R<()> {
        let fi = self.ctrl.len().checked_sub(1).ok_or("`else` outside a block")?;
        if self.ctrl[fi].kind != Kind::If {
            return Err("`else` without `if`".into());
        }
        if !self.dead {
            self.branch(fi)?;
        }
        let else_block = self.new_block();
        let br = self.ctrl[fi].branch.ok_or("`if` without its branch")?;
        self.b.func().set_successor(br, 1, else_block);
        self.switch_to(else_block);
        let height = self.ctrl[fi].height;
        self.truncate(height);
        let saved = core::mem::take(&mut self.ctrl[fi].saved);
        for e in saved {
            self.push(e);
        }
        self.ctrl[fi].kind = Kind::Else;
        Ok(())
    }

    fn op_end(&mut self) -> R<()> {
        let fi = self.ctrl.len().checked_sub(1).ok_or("`end` outside a block")?;
        let kind = self.ctrl[fi].kind;
        match kind {
            Kind::Func => {
                if !self.dead {
                    self.branch(fi)?;
                }
                self.ctrl.pop();
                self.dead = true;
            }
            Kind::Loop => {
                // The loop's results are simply the stack after it.
                self.ctrl.pop();
            }
            Kind::Block | Kind::If | Kind::Else => {
                if !self.dead && (self.ctrl[fi].label.is_some() || kind == Kind::If) {
                    self.branch(fi)?;
                }
                if kind == Kind::If {
                    // No `else`: the false edge carries the parameters,
                    // which equal the results, to the join.
                    let end = self.label(fi);
                    let br = self.ctrl[fi].branch.ok_or("`if` without its branch")?;
                    if self.ctrl[fi].params.is_empty() {
                        self.b.func().set_successor(br, 1, end);
                    } else {
                        let edge = self.new_block();
                        self.b.func().set_successor(br, 1, edge);
                        self.switch_to(edge);
                        let (height, results) = (self.ctrl[fi].height, self.ctrl[fi].results.clone());
                        let saved = core::mem::take(&mut self.ctrl[fi].saved);
                        for (i, (&ty, &e)) in results.iter().zip(saved.iter()).enumerate() {
                            let dst = self.slot(height + i, ty);
                            self.write_to(dst, e);
                        }
                        self.b.ins().jump(end);
                    }
                }
                let frame = self.ctrl.pop().ok_or("`end` outside a block")?;
                if let Some(join) = frame.label {
                    self.switch_to(join);
                    self.truncate(frame.height);
                    for (i, &ty) in frame.results.iter().enumerate() {
                        let v = self.slot(frame.height + i, ty);
                        self.stack.push(Entry::Slot(v));
                    }
                } else if self.dead {
                    self.truncate(frame.height);
                }
                // Otherwise nothing branched to the end: the code goes on in
                // the same block with the results where they are.
            }
        }
        Ok(())
    }

    fn op_br(&mut self, depth: u32) -> R<()> {
        let fi = self.frame_index(depth)?;
        self.branch(fi)?;
        self.become_dead();
        Ok(())
    }

    fn op_br_if(&mut self, depth: u32) -> R<()> {
        let c = self.pop_cond()?;
        let fi = self.frame_index(depth)?;
        let cont = self.new_block();
        if self.in_place(fi) {
            let target = self.label(fi);
            self.b.ins().br(c, target, cont);
        } else {
            // The copies belong to the taken edge only.
            let edge = self.new_block();
            self.b.ins().br(c, edge, cont);
            self.switch_to(edge);
            self.branch(fi)?;
        }
        self.switch_to(cont);
        Ok(())
    }

    fn op_br_table(&mut self, table: &wasmparser::BrTable<'_>) -> R<()> {
        let index = self.pop_arg()?;
        let mut targets = Vec::with_capacity(table.len() as usize);
        for t in table.targets() {
            targets.push(t.map_err(|e| e.message().to_string())?);
        }
        let default = table.default();
        if let Arg::Imm(i) = index {
            let k = i.as_u64();
            let depth = usize::try_from(k).ok().and_then(|k| targets.get(k).copied()).unwrap_or(default);
            return self.op_br(depth);
        }
        // One IR block per distinct label: the label itself when no copies
        // are needed, else an edge block holding them.
        let mut resolved: FxHashMap<usize, Block> = FxHashMap::default();
        let mut edges: SmallVec<[(usize, Block); 4]> = SmallVec::new();
        let mut resolve = |this: &mut Self, depth: u32| -> R<Block> {
            let fi = this.frame_index(depth)?;
            if let Some(&b) = resolved.get(&fi) {
                return Ok(b);
            }
            let b = if this.in_place(fi) {
                this.label(fi)
            } else {
                let e = this.new_block();
                edges.push((fi, e));
                e
            };
            resolved.insert(fi, b);
            Ok(b)
        };
        let default_block = resolve(self, default)?;
        let mut cases = Vec::new();
        for (k, &depth) in targets.iter().enumerate() {
            let b = resolve(self, depth)?;
            if b != default_block {
                cases.push((k as i64, b));
            }
        }
        if cases.is_empty() {
            self.b.ins().jump(default_block);
        } else {
            self.b.ins().switch(index, default_block, &cases);
        }
        for (fi, e) in edges {
            self.switch_to(e);
            self.branch(fi)?;
        }
        self.become_dead();
        Ok(())
    }

    // ---- locals and globals -------------------------------------------------

    fn op_local_get(&mut self, l: u32) -> R<()> {
        let vars = self.local_vars(l)?;
        self.locals[l as usize].read = true;
        for v in vars {
            self.push(Entry::Local(v, l));
        }
        Ok(())
    }

    fn op_local_set(&mut self, l: u32) -> R<()> {
        let vars = self.local_vars(l)?;
        let mut values: SmallVec<[Entry; 2]> = SmallVec::new();
        for _ in 0..vars.len() {
            values.push(self.pop()?);
        }
        values.reverse();
        self.materialize_local(l)?;
        for (&dst, &e) in vars.iter().zip(values.iter()) {
            self.assign(dst, e)?;
        }
        Ok(())
    }

    /// `dst = e`, retargeting the instruction that just computed `e` when
    /// it can (so `local.set` after an `add` is one instruction).
    fn assign(&mut self, dst: Var, e: Entry) -> R<()> {
        if let Entry::Slot(v) = e {
            let block = self.b.current_block();
            let func = self.b.func();
            let last = block.and_then(|blk| func.layout().last_inst(blk));
            if let Some(inst) = last
                && func.results(inst) == [v]
                && func.opcode(inst) != Opcode::Phi
                && func.guard(inst).is_none()
            {
                func.set_result(inst, 0, dst);
                return Ok(());
            }
        }
        self.write_to(dst, e);
        Ok(())
    }

    fn op_local_tee(&mut self, l: u32) -> R<()> {
        self.op_local_set(l)?;
        let vars = self.local_vars(l)?;
        for v in vars {
            self.push(Entry::Local(v, l));
        }
        Ok(())
    }

    fn op_global_get(&mut self, g: u32) -> R<()> {
        // The environment outlives the translator: borrow it, not `self`.
        let env = self.env;
        match env.globals.get(g as usize) {
            Some(GlobalEnv::Const(values)) => {
                for &i in values.iter() {
                    self.push(Entry::Imm(i));
                }
            }
            Some(&GlobalEnv::Mem(mem, ref types)) => {
                for (i, &ty) in types.iter().enumerate() {
                    let r = self.push_result(ty);
                    self.b.ins().load(r, mem, i as i64);
                }
            }
            None => return Err(format!("global {g} does not exist")),
        }
        Ok(())
    }

    fn op_global_set(&mut self, g: u32) -> R<()> {
        let Some(GlobalEnv::Mem(mem, types)) = self.env.globals.get(g as usize) else {
            return Err(format!("global {g} is not mutable"));
        };
        let (mem, n) = (*mem, types.len());
        let values = self.pop_args(n)?;
        for (i, v) in values.into_iter().enumerate() {
            self.b.ins().store(mem, i as i64, v);
        }
        Ok(())
    }

    // ---- memory -------------------------------------------------------------

    fn memory(&self, memarg: &MemArg) -> R<MemEnv> {
        match memarg.target {
            MemArgTarget::Memory(m) => self.memory_at(m),
            MemArgTarget::Array(_) => Err("a memory access to a GC array".into()),
        }
    }

    fn memory_at(&self, m: u32) -> R<MemEnv> {
        self.env.memories.get(m as usize).copied().ok_or_else(|| format!("memory {m} does not exist"))
    }

    /// The index of an access of `width` bytes at `addr + offset` (the
    /// address entry was at `depth`), or `None` when every execution traps
    /// (the caller emits `trap`). With a 32-bit memory smaller than 2^31
    /// bytes and no offset, the `i32` address itself is the index: a
    /// negative index then traps exactly where the unsigned address would
    /// be out of bounds. Otherwise the effective address is computed in
    /// `i64` so that it never wraps (see `effective_var`).
    fn effective(&mut self, mem: MemEnv, offset: u64, addr: Arg, depth: usize, width: u64) -> R<Option<Arg>> {
        match addr {
            Arg::Imm(i) => {
                let a = i.as_u64();
                let ea = a.checked_add(offset);
                Ok(ea
                    .filter(|&ea| ea.checked_add(width).is_some_and(|end| end <= mem.len))
                    .map(|ea| Arg::Imm(Imm::int(Type::I64, ea as i64))))
            }
            Arg::Var(v) => {
                if offset.saturating_add(width) > mem.len {
                    return Ok(None);
                }
                if offset == 0 && width <= 8 && (mem.memory64 || mem.len < 1 << 31) {
                    return Ok(Some(Arg::Var(v)));
                }
                Ok(Some(Arg::Var(self.effective_var(mem, offset, v, depth))))
            }
        }
    }

    /// `%aD = addr + offset` in `i64`, without wrapping. A 32-bit address
    /// is zero-extended first. A 64-bit one is first clamped to the
    /// memory's length (`umin`): an address beyond it is out of bounds
    /// either way, and the clamp keeps `add` from wrapping a huge unsigned
    /// address back into the memory.
    fn effective_var(&mut self, mem: MemEnv, offset: u64, v: Var, depth: usize) -> Var {
        let a = self.addr(depth, false);
        let offset = Imm::int(Type::I64, offset as i64);
        if mem.memory64 {
            self.b.ins().binary(Opcode::Umin, a, v, Imm::int(Type::I64, mem.len as i64));
            self.b.ins().binary(Opcode::Add, a, a, offset);
        } else {
            self.b.ins().convert(Opcode::Zext, a, v);
            if offset.as_i64() != 0 {
                self.b.ins().binary(Opcode::Add, a, a, offset);
            }
        }
        a
    }

    fn trap_here(&mut self) {
        self.b.ins().trap();
        self.become_dead();
    }

    fn op_access(&mut self, memarg: &MemArg, access: Access) -> R<()> {
        let mem = self.memory(memarg)?;
        match access {
            Access::Load(ty) | Access::LoadExt(ty, ..) => {
                let addr = self.pop_arg()?;
                let depth = self.stack.len();
                let Some(index) = self.effective(mem, memarg.offset, addr, depth, u64::from(ty.bytes()))? else {
                    self.trap_here();
                    return Ok(());
                };
                if let Access::LoadExt(_, ext, full) = access {
                    let narrow = self.slot(depth, ty);
                    self.b.ins().load(narrow, mem.mem, index);
                    let r = self.push_result(full);
                    self.b.ins().convert(ext, r, narrow);
                } else {
                    let r = self.push_result(ty);
                    self.b.ins().load(r, mem.mem, index);
                }
            }
            Access::Store(ty) | Access::StoreNarrow(ty) => {
                let value = self.pop_arg()?;
                let addr = self.pop_arg()?;
                let depth = self.stack.len();
                let Some(index) = self.effective(mem, memarg.offset, addr, depth, u64::from(ty.bytes()))? else {
                    self.trap_here();
                    return Ok(());
                };
                let value = match (access, value) {
                    (Access::StoreNarrow(_), Arg::Imm(i)) => Arg::Imm(Imm::int(ty, i.as_i64())),
                    (Access::StoreNarrow(_), Arg::Var(v)) => {
                        let t = self.slot(depth + 1, ty);
                        self.b.ins().convert(Opcode::Trunc, t, v);
                        Arg::Var(t)
                    }
                    _ => value,
                };
                self.b.ins().store(mem.mem, index, value);
            }
        }
        Ok(())
    }

    fn hi_index(&mut self, index: Arg, depth: usize) -> Arg {
        match index {
            Arg::Imm(i) => Arg::Imm(Imm::int(Type::I64, i.as_i64().wrapping_add(8))),
            Arg::Var(a) => {
                let hi = self.addr(depth, true);
                self.b.ins().binary(Opcode::Add, hi, a, Imm::int(Type::I64, 8));
                Arg::Var(hi)
            }
        }
    }

    fn op_v128_load(&mut self, memarg: &MemArg) -> R<()> {
        let mem = self.memory(memarg)?;
        let addr = self.pop_arg()?;
        let depth = self.stack.len();
        let Some(index) = self.effective(mem, memarg.offset, addr, depth, 16)? else {
            self.trap_here();
            return Ok(());
        };
        let hi = self.hi_index(index, depth);
        let lo_var = self.push_result(Type::I64);
        self.b.ins().load(lo_var, mem.mem, index);
        let hi_var = self.push_result(Type::I64);
        self.b.ins().load(hi_var, mem.mem, hi);
        Ok(())
    }

    fn op_v128_store(&mut self, memarg: &MemArg) -> R<()> {
        let mem = self.memory(memarg)?;
        let values = self.pop_args(2)?;
        let addr = self.pop_arg()?;
        let depth = self.stack.len();
        let Some(index) = self.effective(mem, memarg.offset, addr, depth, 16)? else {
            self.trap_here();
            return Ok(());
        };
        let hi = self.hi_index(index, depth);
        self.b.ins().store(mem.mem, index, values[0]);
        self.b.ins().store(mem.mem, hi, values[1]);
        Ok(())
    }

    /// An offset or size operand of a bulk-memory instruction on `mem`
    /// (the entry was at `depth`): an immediate becomes its unsigned value,
    /// a var is used as it is when the memory is small enough for its
    /// signed reading to be exact (see `effective`), else zero-extended.
    fn bulk_operand(&mut self, mem: MemEnv, arg: Arg, depth: usize) -> Arg {
        match arg {
            Arg::Imm(i) => Arg::Imm(Imm::int(Type::I64, i.as_u64() as i64)),
            Arg::Var(v) if mem.memory64 || mem.len < 1 << 31 => Arg::Var(v),
            Arg::Var(v) => {
                let a = self.addr(depth, false);
                self.b.ins().convert(Opcode::Zext, a, v);
                Arg::Var(a)
            }
        }
    }

    /// True when the verifier would reject the descriptor statically
    /// (`MemDesc::statically_out_of_bounds`); the access then always traps.
    fn static_out_of_bounds(offset: Arg, size: Arg, len: u64) -> bool {
        let exact = |a: Arg| match a {
            Arg::Imm(i) => Some(i.as_i64()),
            Arg::Var(_) => None,
        };
        MemDesc::statically_out_of_bounds(exact(offset), exact(size), len)
    }

    fn op_memory_copy(&mut self, dst_mem: u32, src_mem: u32) -> R<()> {
        let (dm, sm) = (self.memory_at(dst_mem)?, self.memory_at(src_mem)?);
        let n = self.pop_arg()?;
        let s = self.pop_arg()?;
        let d = self.pop_arg()?;
        let depth = self.stack.len();
        let d = self.bulk_operand(dm, d, depth);
        let s = self.bulk_operand(sm, s, depth + 1);
        let n = self.bulk_operand(if dm.len < sm.len { dm } else { sm }, n, depth + 2);
        if Self::static_out_of_bounds(d, n, dm.len) || Self::static_out_of_bounds(s, n, sm.len) {
            self.trap_here();
            return Ok(());
        }
        self.b.ins().tensor(Opcode::Dma, Desc::new(dm.mem, d, n), &[TensorArg::Desc(Desc::new(sm.mem, s, n))]);
        Ok(())
    }

    fn op_memory_fill(&mut self, m: u32) -> R<()> {
        let mem = self.memory_at(m)?;
        let n = self.pop_arg()?;
        let value = self.pop_arg()?;
        let d = self.pop_arg()?;
        let depth = self.stack.len();
        let d = self.bulk_operand(mem, d, depth);
        let n = self.bulk_operand(mem, n, depth + 2);
        if Self::static_out_of_bounds(d, n, mem.len) {
            self.trap_here();
            return Ok(());
        }
        let byte = match value {
            Arg::Imm(i) => Arg::Imm(Imm::int(Type::I8, i.as_i64())),
            Arg::Var(v) => {
                let t = self.slot(depth + 1, Type::I8);
                self.b.ins().convert(Opcode::Trunc, t, v);
                Arg::Var(t)
            }
        };
        self.b.ins().tensor(Opcode::Tfill, Desc::new(mem.mem, d, n), &[TensorArg::Scalar(byte)]);
        Ok(())
    }

    /// `memory.init` of a passive segment is a `dma` from the segment's
    /// object; other segments go through the generic lowering.
    fn op_memory_init(&mut self, seg: u32, m: u32) -> R<bool> {
        let Some(Some((data, seg_len))) = self.env.data.get(seg as usize).copied() else { return Ok(false) };
        let mem = self.memory_at(m)?;
        let n = self.pop_arg()?;
        let s = self.pop_arg()?;
        let d = self.pop_arg()?;
        let depth = self.stack.len();
        let d = self.bulk_operand(mem, d, depth);
        // The segment is small (it came from the input): its offsets are
        // `i32` in any memory.
        let small = MemEnv { mem: data, memory64: false, len: 0 };
        let s = self.bulk_operand(small, s, depth + 1);
        let n = self.bulk_operand(small, n, depth + 2);
        if Self::static_out_of_bounds(d, n, mem.len) || Self::static_out_of_bounds(s, n, seg_len) {
            self.trap_here();
            return Ok(true);
        }
        self.b.ins().tensor(Opcode::Dma, Desc::new(mem.mem, d, n), &[TensorArg::Desc(Desc::new(data, s, n))]);
        Ok(true)
    }

    // ---- calls --------------------------------------------------------------

    fn func_type(&self, type_index: u32) -> R<&'e FuncType> {
        self.env
            .types
            .get(type_index as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| format!("type {type_index} is not a function type"))
    }

    /// One fresh result var per scalar part of `types`, pushed in order.
    fn results_of(&mut self, types: &[ValType]) -> SmallVec<[Var; 4]> {
        let mut out = SmallVec::new();
        for &t in types {
            for &p in parts(t) {
                out.push(self.push_result(p));
            }
        }
        out
    }

    fn op_call(&mut self, f: u32) -> R<SmallVec<[Var; 4]>> {
        let callee = *self.env.callees.get(f as usize).ok_or_else(|| format!("function {f} does not exist"))?;
        let ty_index = *self.env.func_types.get(f as usize).ok_or_else(|| format!("function {f} has no type"))?;
        let ty = self.func_type(ty_index)?;
        let args = self.pop_args(flatten(ty.params()).len())?;
        let results = self.results_of(ty.results());
        self.b.ins().call(callee, &results, &args);
        Ok(results)
    }

    fn op_call_indirect(&mut self, type_index: u32, table: u32) -> R<SmallVec<[Var; 4]>> {
        let ty = self.func_type(type_index)?;
        let index = self.pop_arg()?;
        let args = self.pop_args(flatten(ty.params()).len())?;
        let results = self.results_of(ty.results());
        let mut ops: SmallVec<[Arg; 8]> = SmallVec::new();
        ops.push(Arg::Imm(Imm::int(Type::I32, i64::from(table))));
        ops.push(Arg::Imm(Imm::int(Type::I32, i64::from(type_index))));
        ops.push(index);
        ops.extend(args);
        self.b.ins().intrinsic("wasm.call_indirect", &results, &ops);
        Ok(results)
    }

    fn tail(&mut self, results: SmallVec<[Var; 4]>) {
        let values: SmallVec<[Arg; 4]> = results.into_iter().map(Arg::Var).collect();
        self.b.ins().ret(&values);
        self.become_dead();
    }

    // ---- everything else ----------------------------------------------------

    fn op_generic(&mut self, op: &Operator<'_>, pre: Option<&Pre>, v: &FuncValidator<ValidatorResources>) -> R<()> {
        let g = generic(op);
        let mut name = String::new();
        g.intrinsic_name(&mut name);
        if let Some(why) = g.unsupported {
            return Err(format!("`{}` has {why}", &name["wasm.".len()..]));
        }
        let pre = pre.filter(|p| p.inputs_known).ok_or_else(|| format!("`{name}`: operand types unknown"))?;
        let (_, pushes) = pre.arity.ok_or_else(|| format!("`{name}`: arity unknown"))?;
        let inputs = flatten(&pre.inputs);
        let mut args = self.pop_args(inputs.len())?;
        if let Some(memarg) = g.memarg {
            let mem = self.memory(&memarg)?;
            let depth = self.stack.len();
            if let Some(first) = args.first_mut() {
                *first = match *first {
                    Arg::Imm(i) => Arg::Imm(Imm::int(Type::I64, i.as_u64().wrapping_add(memarg.offset) as i64)),
                    a @ Arg::Var(_) if memarg.offset == 0 && (mem.memory64 || mem.len < 1 << 31) => a,
                    Arg::Var(a) => Arg::Var(self.effective_var(mem, memarg.offset, a, depth)),
                };
            }
        }
        let mut outputs: SmallVec<[ValType; 2]> = SmallVec::new();
        for depth in (0..pushes as usize).rev() {
            match v.get_operand_type(depth) {
                Some(Some(t)) => outputs.push(t),
                _ => return Err(format!("`{name}`: result types unknown")),
            }
        }
        let results = self.results_of(&outputs);
        let mut ops: SmallVec<[Arg; 8]> = g.imms.iter().map(|&i| Arg::Imm(i)).collect();
        ops.extend(args);
        self.b.ins().intrinsic(&name, &results, &ops);
        Ok(())
    }

    /// Translates one operator (already accepted by the validator `v`;
    /// `pre` is what the validator knew before it, when the code is live).
    pub(crate) fn op(&mut self, op: &Operator<'_>, pre: Option<&Pre>, v: &FuncValidator<ValidatorResources>) -> R<()> {
        use Operator as W;
        if self.dead {
            // Only structure matters in dead code.
            match op {
                W::Block { .. } | W::Loop { .. } | W::If { .. } => self.dead_nesting += 1,
                W::Else if self.dead_nesting == 0 => self.op_else()?,
                W::End if self.dead_nesting > 0 => self.dead_nesting -= 1,
                W::End => self.op_end()?,
                W::Try { .. } | W::TryTable { .. } | W::Delegate { .. } | W::Catch { .. } | W::CatchAll => {
                    return Err("exception handling (`try`) is not supported".into());
                }
                _ => {}
            }
            return Ok(());
        }
        if let Some(num) = numeric(op) {
            return self.op_numeric(num);
        }
        if let Some((memarg, acc)) = access(op) {
            return self.op_access(&memarg, acc);
        }
        if let Some(parts) = crate::generic::constant_parts(op) {
            for i in parts {
                self.push(Entry::Imm(i));
            }
            return Ok(());
        }
        match op {
            W::Unreachable => self.trap_here(),
            W::Nop => {}
            W::Block { blockty } => self.op_block(*blockty)?,
            W::Loop { blockty } => self.op_loop(*blockty)?,
            W::If { blockty } => self.op_if(*blockty)?,
            W::Else => self.op_else()?,
            W::End => self.op_end()?,
            W::Br { relative_depth } => self.op_br(*relative_depth)?,
            W::BrIf { relative_depth } => self.op_br_if(*relative_depth)?,
            W::BrTable { targets } => self.op_br_table(targets)?,
            W::Return => {
                self.branch(0)?;
                self.become_dead();
            }
            W::Call { function_index } => {
                self.op_call(*function_index)?;
            }
            W::CallIndirect { type_index, table_index } => {
                self.op_call_indirect(*type_index, *table_index)?;
            }
            W::ReturnCall { function_index } => {
                let results = self.op_call(*function_index)?;
                self.tail(results);
            }
            W::ReturnCallIndirect { type_index, table_index } => {
                let results = self.op_call_indirect(*type_index, *table_index)?;
                self.tail(results);
            }
            W::Drop => {
                let ty = pre.and_then(|p| p.inputs.first().copied()).ok_or("`drop`: operand type unknown")?;
                for _ in parts(ty) {
                    self.pop()?;
                }
            }
            W::Select => {
                let ty = pre.and_then(|p| p.inputs.first().copied()).ok_or("`select`: operand type unknown")?;
                self.op_select(parts(ty))?;
            }
            W::TypedSelect { ty } => self.op_select(parts(*ty))?,
            W::TypedSelectMulti { tys } => self.op_select(&flatten(tys))?,
            W::LocalGet { local_index } => self.op_local_get(*local_index)?,
            W::LocalSet { local_index } => self.op_local_set(*local_index)?,
            W::LocalTee { local_index } => self.op_local_tee(*local_index)?,
            W::GlobalGet { global_index } => self.op_global_get(*global_index)?,
            W::GlobalSet { global_index } => self.op_global_set(*global_index)?,
            W::V128Load { memarg } => self.op_v128_load(memarg)?,
            W::V128Store { memarg } => self.op_v128_store(memarg)?,
            W::RefIsNull => {
                let a = self.pop_arg()?;
                let c = self.cond(self.stack.len());
                self.b.ins().setp(IntCC::Eq, c, a, Imm::int(Type::I64, 0));
                self.push(Entry::Cond(c));
            }
            W::MemoryCopy { dst_mem, src_mem } => self.op_memory_copy(*dst_mem, *src_mem)?,
            W::MemoryFill { mem } => self.op_memory_fill(*mem)?,
            W::MemoryInit { data_index, mem } => {
                if !self.op_memory_init(*data_index, *mem)? {
                    self.op_generic(op, pre, v)?;
                }
            }
            W::Try { .. } | W::TryTable { .. } | W::Delegate { .. } | W::Catch { .. } | W::CatchAll => {
                return Err("exception handling (`try`) is not supported".into());
            }
            W::Throw { .. } | W::ThrowRef | W::Rethrow { .. } => {
                // The exception leaves the function: an opaque effect, then
                // an abnormal exit.
                self.op_generic(op, pre, v)?;
                self.trap_here();
            }
            _ => self.op_generic(op, pre, v)?,
        }
        Ok(())
    }

    fn op_select(&mut self, types: &[Type]) -> R<()> {
        let c = self.pop_cond()?;
        let n = types.len();
        let b = self.pop_args(n)?;
        let a = self.pop_args(n)?;
        for (i, &ty) in types.iter().enumerate() {
            let r = self.push_result(ty);
            self.b.ins().select(r, c, a[i], b[i]);
        }
        Ok(())
    }

    fn op_numeric(&mut self, num: Num) -> R<()> {
        match num {
            Num::Unary(op, ty) => {
                let a = self.pop_arg()?;
                let r = self.push_result(ty);
                self.b.ins().unary(op, r, a);
            }
            Num::Binary(op, ty) => {
                let b = self.pop_arg()?;
                let a = self.pop_arg()?;
                let r = self.push_result(ty);
                self.b.ins().binary(op, r, a, b);
            }
            Num::Setp(cc) => {
                let b = self.pop_arg()?;
                let a = self.pop_arg()?;
                let c = self.cond(self.stack.len());
                self.b.ins().setp(cc, c, a, b);
                self.push(Entry::Cond(c));
            }
            Num::Fsetp(cc) => {
                let b = self.pop_arg()?;
                let a = self.pop_arg()?;
                let c = self.cond(self.stack.len());
                self.b.ins().fsetp(cc, c, a, b);
                self.push(Entry::Cond(c));
            }
            Num::Eqz => {
                let e = self.pop()?;
                let depth = self.stack.len();
                let c = self.cond(depth);
                match e {
                    // `eqz` of a comparison is its negation.
                    Entry::Cond(x) => {
                        self.b.ins().unary(Opcode::Not, c, x);
                    }
                    _ => {
                        let a = self.read(e, depth);
                        let ty = match a {
                            Arg::Imm(i) => i.ty(),
                            Arg::Var(v) => self.var_ty(v)?,
                        };
                        self.b.ins().setp(IntCC::Eq, c, a, zero(ty));
                    }
                }
                self.push(Entry::Cond(c));
            }
            Num::Convert(op, ty) => {
                let a = self.pop_arg()?;
                let r = self.push_result(ty);
                self.b.ins().convert(op, r, a);
            }
            Num::ExtendLow(narrow, ty) => {
                let a = self.pop_arg()?;
                let depth = self.stack.len();
                let t = self.slot(depth, narrow);
                self.b.ins().convert(Opcode::Trunc, t, a);
                let r = self.push_result(ty);
                self.b.ins().convert(Opcode::Sext, r, t);
            }
        }
        Ok(())
    }
}

/// The var a per-depth cache holds at `depth`, if any.
fn cached(table: &[Option<Var>], depth: usize) -> Option<Var> {
    table.get(depth).copied().flatten()
}

/// Stores `v` at `depth` in a per-depth cache (growing it) and returns it.
fn remember(table: &mut Vec<Option<Var>>, depth: usize, v: Var) -> Var {
    if table.len() <= depth {
        table.resize(depth + 1, None);
    }
    table[depth] = Some(v);
    v
}
