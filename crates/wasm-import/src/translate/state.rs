//! The translator's state, shared by every concern: the operand stack, the
//! control stack, the vars standing for stack depths and locals, and dead
//! code.
//!
//! - **The operand stack**, one [`Entry`] per IR value part (a `v128` is two
//!   `i64` parts). An entry is an immediate, the *slot var* of its depth
//!   (`%sD.T`: stack depth `D`, type `T`), a lazy read of a local, a
//!   comparison result held as an `i1` (`%cD`), or a var nothing redefines
//!   while the entry lives. Operations write their result into the slot var
//!   of the depth it lands at, so the wasm stack becomes a small set of
//!   non-SSA vars with many definitions, and locals stay vars (`%l3`).
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

use super::env::{ModuleEnv, flatten, local_base_name, parts, push_part_names};
use crate::error::{FuncErrorKind, Inconsistency, StackUse};
use ir_core::{Arg, Block, Function, FunctionBuilder, Imm, Inst, IntCC, Opcode, Type, Var};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use wasmparser::{FuncType, ValType};

/// A translation step's result: the reason the function cannot be
/// imported on failure.
pub(super) type R<T> = Result<T, FuncErrorKind>;

/// One operand-stack entry: one IR value part.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Entry {
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

/// What opened a control frame (`Else` is an `if` past its `else`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Func,
    Block,
    Loop,
    If,
    Else,
}

/// One entry of the control stack (`control.rs`).
#[derive(Debug)]
pub(super) struct Frame {
    pub(super) kind: Kind,
    /// Stack height below the frame's parameters.
    pub(super) height: usize,
    pub(super) params: SmallVec<[Type; 4]>,
    pub(super) results: SmallVec<[Type; 4]>,
    /// Loop: its header. Others: the join after `end`, once something
    /// branches there.
    pub(super) label: Option<Block>,
    /// `if`: the `br` whose false edge is set at `else`/`end`.
    pub(super) branch: Option<Inst>,
    /// `if`: the parameter values the `else` arm starts from.
    pub(super) saved: SmallVec<[Entry; 2]>,
}

/// A local: its part vars (created when first used) and pending reads.
#[derive(Debug)]
pub(super) struct LocalInfo {
    ty: ValType,
    vars: SmallVec<[Var; 2]>,
    param: bool,
    pub(super) read: bool,
    /// Stack positions of pending reads (`Entry::Local`), increasing.
    refs: Vec<u32>,
}

/// Translates one function body.
pub(crate) struct Translator<'e, 'f> {
    pub(super) env: &'e ModuleEnv,
    pub(super) b: FunctionBuilder<'f>,
    pub(super) stack: Vec<Entry>,
    pub(super) ctrl: Vec<Frame>,
    pub(super) dead: bool,
    pub(super) dead_nesting: u32,
    /// Entries below this position are not `Local`.
    watermark: usize,
    pub(super) locals: Vec<LocalInfo>,
    local_names: Option<&'e FxHashMap<u32, &'e str>>,
    slots: [Vec<Option<Var>>; 7],
    conds: Vec<Option<Var>>,
    addrs: Vec<Option<Var>>,
    addrs_hi: Vec<Option<Var>>,
    pub(super) saved_count: u32,
    entry: Block,
    scratch: String,
}

impl core::fmt::Debug for Translator<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Translator").field("depth", &self.stack.len()).field("frames", &self.ctrl.len()).finish()
    }
}

/// The zero of `t` (locals' initial value, `eqz`, conditions).
pub(super) fn zero(t: Type) -> Imm {
    Imm::from_bits(t, 0)
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
            return Err(Inconsistency::UnclosedBlock.into());
        }
        let first = self.b.func().layout().first_inst(self.entry).ok_or(Inconsistency::EmptyEntryBlock)?;
        self.b.position_before(first);
        for l in 0..self.locals.len() {
            let info = &self.locals[l];
            if info.param || !info.read {
                continue;
            }
            let vars = info.vars.clone();
            for v in vars {
                let ty = self.b.func().var_type(v).ok_or(Inconsistency::UntypedLocal(v))?;
                self.b.ins().constant(v, zero(ty));
            }
        }
        Ok(())
    }

    // ---- vars ---------------------------------------------------------------

    pub(super) fn named_var(&mut self, ty: Type, args: core::fmt::Arguments<'_>) -> Var {
        use core::fmt::Write;
        self.scratch.clear();
        let _ = self.scratch.write_fmt(args);
        let name = core::mem::take(&mut self.scratch);
        let v = self.b.var(&name, ty);
        self.scratch = name;
        v
    }

    pub(super) fn slot(&mut self, depth: usize, ty: Type) -> Var {
        if let Some(v) = cached(&self.slots[ty.index()], depth) {
            return v;
        }
        let v = self.named_var(ty, format_args!("s{depth}.{ty}"));
        remember(&mut self.slots[ty.index()], depth, v)
    }

    pub(super) fn cond(&mut self, depth: usize) -> Var {
        if let Some(v) = cached(&self.conds, depth) {
            return v;
        }
        let v = self.named_var(Type::I1, format_args!("c{depth}"));
        remember(&mut self.conds, depth, v)
    }

    pub(super) fn addr(&mut self, depth: usize, hi: bool) -> Var {
        if let Some(v) = cached(if hi { &self.addrs_hi } else { &self.addrs }, depth) {
            return v;
        }
        let v = self.named_var(Type::I64, format_args!("a{depth}{}", if hi { ".hi" } else { "" }));
        remember(if hi { &mut self.addrs_hi } else { &mut self.addrs }, depth, v)
    }

    pub(super) fn local_vars(&mut self, l: u32) -> R<SmallVec<[Var; 2]>> {
        let info = self.locals.get(l as usize).ok_or(Inconsistency::NoSuchLocal(l))?;
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

    pub(super) fn var_ty(&mut self, v: Var) -> R<Type> {
        self.b.func().var_type(v).ok_or_else(|| Inconsistency::UntypedVar(v).into())
    }

    // ---- the operand stack --------------------------------------------------

    pub(super) fn push(&mut self, e: Entry) {
        if let Entry::Local(_, l) = e
            && let Some(info) = self.locals.get_mut(l as usize)
        {
            info.refs.push(self.stack.len() as u32);
        }
        self.stack.push(e);
    }

    pub(super) fn pop(&mut self) -> R<Entry> {
        let e = self.stack.pop().ok_or(Inconsistency::StackUnderflow(StackUse::Pop))?;
        if let Entry::Local(_, l) = e
            && let Some(info) = self.locals.get_mut(l as usize)
        {
            info.refs.pop();
        }
        self.watermark = self.watermark.min(self.stack.len());
        Ok(e)
    }

    pub(super) fn truncate(&mut self, height: usize) {
        while self.stack.len() > height {
            if self.pop().is_err() {
                break;
            }
        }
    }

    /// The value of entry `e` (at `depth`) as an operand; a `Cond` becomes
    /// its `i32` in the slot of its depth.
    pub(super) fn read(&mut self, e: Entry, depth: usize) -> Arg {
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
    pub(super) fn write_to(&mut self, dst: Var, e: Entry) {
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

    pub(super) fn pop_arg(&mut self) -> R<Arg> {
        let e = self.pop()?;
        let depth = self.stack.len();
        Ok(self.read(e, depth))
    }

    /// Pops `n` parts; returns them deepest first.
    pub(super) fn pop_args(&mut self, n: usize) -> R<SmallVec<[Arg; 4]>> {
        let mut out: SmallVec<[Arg; 4]> = SmallVec::with_capacity(n);
        for _ in 0..n {
            out.push(self.pop_arg()?);
        }
        out.reverse();
        Ok(out)
    }

    /// Pops an `i32` condition as an `i1`.
    pub(super) fn pop_cond(&mut self) -> R<Arg> {
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
    pub(super) fn push_result(&mut self, ty: Type) -> Var {
        let v = self.slot(self.stack.len(), ty);
        self.stack.push(Entry::Slot(v));
        v
    }

    /// Copies every pending read of local `l` into its slot (before `l`
    /// changes).
    pub(super) fn materialize_local(&mut self, l: u32) -> R<()> {
        let refs = match self.locals.get_mut(l as usize) {
            Some(info) => core::mem::take(&mut info.refs),
            None => return Err(Inconsistency::NoSuchLocal(l).into()),
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
    pub(super) fn materialize_all(&mut self) -> R<()> {
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

    /// One fresh result var per scalar part of `types`, pushed in order.
    pub(super) fn results_of(&mut self, types: &[ValType]) -> SmallVec<[Var; 4]> {
        let mut out = SmallVec::new();
        for &t in types {
            for &p in parts(t) {
                out.push(self.push_result(p));
            }
        }
        out
    }

    // ---- dead code ----------------------------------------------------------

    /// The rest of the current frame is unreachable: its operands go, and
    /// nothing is emitted until its `else`/`end`.
    pub(super) fn become_dead(&mut self) {
        self.dead = true;
        let height = self.ctrl.last().map_or(0, |f| f.height);
        self.truncate(height);
    }

    /// `trap`, after which the code is dead.
    pub(super) fn trap_here(&mut self) {
        self.b.ins().trap();
        self.become_dead();
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
