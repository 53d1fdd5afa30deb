//! Structured control: `block`, `loop`, `if`/`else`, `end`, the branches
//! (`br`, `br_if`, `br_table`, `return`) and calls.
//!
//! - **The control stack** of [`Frame`]s (function, `block`, `loop`, `if`,
//!   `else`). A branch to a frame writes the label's values into the frame's
//!   result (or, for a loop, parameter) slots on the branch's own edge, then
//!   jumps; every incoming edge of a join assigns the join's vars.
//!
//! Invariants:
//! - Every block ends in exactly one terminator; blocks are created when
//!   first named and enter the layout when code is first placed in them, so
//!   no empty or unreachable block is left behind (a join block exists only
//!   if some edge reaches it).
//! - Entering a frame first materialises every pending local read (see
//!   `state.rs`), so no lazy read crosses control flow.

use super::env::flatten;
use super::state::{Entry, Frame, Kind, R, Translator};
use crate::error::{Inconsistency, StackUse};
use ir_core::{Arg, Block, Imm, Type, Var};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use wasmparser::{BlockType, FuncType};

/// IR part types of a block's parameters or results.
type Types = SmallVec<[Type; 4]>;

impl<'e> Translator<'e, '_> {
    // ---- blocks and frames --------------------------------------------------

    fn new_block(&mut self) -> Block {
        self.b.func().create_block()
    }

    fn switch_to(&mut self, block: Block) {
        let _ = self.b.func().append_block(block);
        self.b.switch_to_block(block);
        self.dead = false;
    }

    fn frame_index(&self, depth: u32) -> R<usize> {
        (self.ctrl.len()).checked_sub(1 + depth as usize).ok_or_else(|| Inconsistency::BranchDepth(depth).into())
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
        let base = self.stack.len().checked_sub(n).ok_or(Inconsistency::StackUnderflow(StackUse::Branch))?;
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
                    .ok_or(Inconsistency::NotAFunctionType(i))?;
                (flatten(ty.params()), flatten(ty.results()))
            }
        })
    }

    fn open(&mut self, kind: Kind, bt: BlockType) -> R<usize> {
        let (params, results) = self.block_type(bt)?;
        self.materialize_all()?;
        let height =
            self.stack.len().checked_sub(params.len()).ok_or(Inconsistency::StackUnderflow(StackUse::Block))?;
        self.ctrl.push(Frame { kind, height, params, results, label: None, branch: None, saved: SmallVec::new() });
        Ok(self.ctrl.len() - 1)
    }

    pub(super) fn op_block(&mut self, bt: BlockType) -> R<()> {
        self.open(Kind::Block, bt).map(|_| ())
    }

    pub(super) fn op_loop(&mut self, bt: BlockType) -> R<()> {
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

    pub(super) fn op_if(&mut self, bt: BlockType) -> R<()> {
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

    pub(super) fn op_else(&mut self) -> R<()> {
        let fi = self.ctrl.len().checked_sub(1).ok_or(Inconsistency::ElseOutsideBlock)?;
        if self.ctrl[fi].kind != Kind::If {
            return Err(Inconsistency::ElseWithoutIf.into());
        }
        if !self.dead {
            self.branch(fi)?;
        }
        let else_block = self.new_block();
        let br = self.ctrl[fi].branch.ok_or(Inconsistency::IfWithoutBranch)?;
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

    pub(super) fn op_end(&mut self) -> R<()> {
        let fi = self.ctrl.len().checked_sub(1).ok_or(Inconsistency::EndOutsideBlock)?;
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
                    let br = self.ctrl[fi].branch.ok_or(Inconsistency::IfWithoutBranch)?;
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
                let frame = self.ctrl.pop().ok_or(Inconsistency::EndOutsideBlock)?;
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

    pub(super) fn op_br(&mut self, depth: u32) -> R<()> {
        let fi = self.frame_index(depth)?;
        self.branch(fi)?;
        self.become_dead();
        Ok(())
    }

    pub(super) fn op_br_if(&mut self, depth: u32) -> R<()> {
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

    pub(super) fn op_br_table(&mut self, table: &wasmparser::BrTable<'_>) -> R<()> {
        let index = self.pop_arg()?;
        let mut targets = Vec::with_capacity(table.len() as usize);
        for t in table.targets() {
            let t = t.map_err(|e| Inconsistency::BranchTable {
                offset: e.offset() as usize,
                message: e.message().to_string(),
            })?;
            targets.push(t);
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

    /// `return`: a branch to the function frame.
    pub(super) fn op_return(&mut self) -> R<()> {
        self.branch(0)?;
        self.become_dead();
        Ok(())
    }

    // ---- calls --------------------------------------------------------------

    fn func_type(&self, type_index: u32) -> R<&'e FuncType> {
        self.env
            .types
            .get(type_index as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| Inconsistency::NotAFunctionType(type_index).into())
    }

    pub(super) fn op_call(&mut self, f: u32) -> R<SmallVec<[Var; 4]>> {
        let callee = *self.env.callees.get(f as usize).ok_or(Inconsistency::NoSuchFunction(f))?;
        let ty_index = *self.env.func_types.get(f as usize).ok_or(Inconsistency::FunctionWithoutType(f))?;
        let ty = self.func_type(ty_index)?;
        let args = self.pop_args(flatten(ty.params()).len())?;
        let results = self.results_of(ty.results());
        self.b.ins().call(callee, &results, &args);
        Ok(results)
    }

    pub(super) fn op_call_indirect(&mut self, type_index: u32, table: u32) -> R<SmallVec<[Var; 4]>> {
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

    /// The `ret` of a `return_call*`: returns what the call just produced.
    pub(super) fn tail(&mut self, results: SmallVec<[Var; 4]>) {
        let values: SmallVec<[Arg; 4]> = results.into_iter().map(Arg::Var).collect();
        self.b.ins().ret(&values);
        self.become_dead();
    }
}
