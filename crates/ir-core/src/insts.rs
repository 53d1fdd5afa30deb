//! A function's instructions: reading them (opcode, guard, results,
//! operands, uses, successors, phi incoming lists, per-format extras) and
//! creating and editing them (the builder's primitives and the `set_*`
//! editors).
//!
//! Invariants: every edit goes through `&mut Function` and touches the
//! function's epoch; edits that may change the CFG (terminators,
//! successors) also touch the CFG epoch. Readers answer an empty list or
//! `None` for an instruction this function did not create, except
//! [`Function::opcode`], which has nothing to answer and panics (documented
//! there).

use crate::entities::{Block, Inst, Mem, Var};
use crate::function::Function;
use crate::instructions::{Callee, Extra, Guard, InstData, JumpTableData, Operand, UseSite};
use crate::opcode::{FloatCC, IntCC, Opcode};
use cranelift_entity::EntityList;

impl Function {
    // ---- instructions: reading -------------------------------------------------

    /// Number of instructions ever created (ids `0..num_insts()`).
    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }

    /// True when `inst` was created by this function.
    pub fn inst_exists(&self, inst: Inst) -> bool {
        self.insts.is_valid(inst)
    }

    /// An instruction's data, or `None` if it does not exist.
    #[inline]
    pub fn inst(&self, inst: Inst) -> Option<&InstData> {
        self.insts.get(inst)
    }

    /// The opcode of an instruction of this function.
    ///
    /// # Panics
    ///
    /// When `inst` was not created by this function (there is no opcode to
    /// give; [`Function::inst`] is the checked form). Other accessors taking
    /// an `Inst` answer an empty list or `None` for such an id.
    #[track_caller]
    pub fn opcode(&self, inst: Inst) -> Opcode {
        match self.insts.get(inst) {
            Some(d) => d.opcode,
            None => panic!("{inst} is not an instruction of @{}", self.name()),
        }
    }

    /// The guard, if any.
    pub fn guard(&self, inst: Inst) -> Option<Guard> {
        self.insts.get(inst).and_then(InstData::guard)
    }

    /// The vars the instruction defines, in result order.
    pub fn results(&self, inst: Inst) -> &[Var] {
        self.insts.get(inst).map_or(&[], |d| d.results.as_slice(&self.var_pool))
    }

    /// The scalar operands, in the format's order (see `docs/ir.md`).
    pub fn operands(&self, inst: Inst) -> &[Operand] {
        self.insts.get(inst).map_or(&[], |d| d.args.as_slice(&self.operand_pool))
    }

    /// Every var the instruction reads, with its use site: operands, then
    /// the guard, then fallbacks.
    pub fn uses(&self, inst: Inst) -> impl Iterator<Item = (UseSite, Var)> + '_ {
        let (ops, guard, keeps) = self.use_parts(inst);
        let ops = ops.iter().enumerate().filter_map(|(i, op)| op.as_var().map(|v| (UseSite::Operand(i as u32), v)));
        let keeps =
            keeps.iter().enumerate().filter_map(|(i, op)| op.as_var().map(|v| (UseSite::Fallback(i as u32), v)));
        ops.chain(guard.map(|g| (UseSite::Guard, g))).chain(keeps)
    }

    /// The operands, guard var and fallbacks of `inst`, from one lookup.
    #[inline]
    pub(crate) fn use_parts(&self, inst: Inst) -> (&[Operand], Option<Var>, &[Operand]) {
        match self.insts.get(inst) {
            Some(d) => {
                (d.args.as_slice(&self.operand_pool), d.guard.expand(), d.fallbacks.as_slice(&self.operand_pool))
            }
            None => (&[], None, &[]),
        }
    }

    /// The fallbacks of a guarded instruction (parallel to its results), or
    /// an empty slice.
    pub fn fallbacks(&self, inst: Inst) -> &[Operand] {
        self.insts.get(inst).map_or(&[], |d| d.fallbacks.as_slice(&self.operand_pool))
    }

    /// Sets the fallbacks of an instruction (empty to remove them). Returns
    /// `false` if `inst` does not exist.
    pub fn set_fallbacks(&mut self, inst: Inst, values: &[Operand]) -> bool {
        let Some(data) = self.insts.get_mut(inst) else { return false };
        data.fallbacks.clear(&mut self.operand_pool);
        data.fallbacks.extend(values.iter().copied(), &mut self.operand_pool);
        self.epoch.touch();
        true
    }

    /// The operand at a use site.
    pub fn use_operand(&self, inst: Inst, site: UseSite) -> Option<Operand> {
        match site {
            UseSite::Operand(i) => self.operands(inst).get(i as usize).copied(),
            UseSite::Guard => self.guard(inst).map(|g| Operand::var(g.var)),
            UseSite::Fallback(i) => self.fallbacks(inst).get(i as usize).copied(),
        }
    }

    /// The integer condition of a `setp`.
    pub fn int_cc(&self, inst: Inst) -> Option<IntCC> {
        match self.insts.get(inst)?.extra {
            Extra::IntCC(cc) => Some(cc),
            _ => None,
        }
    }

    /// The float condition of an `fsetp`.
    pub fn float_cc(&self, inst: Inst) -> Option<FloatCC> {
        match self.insts.get(inst)?.extra {
            Extra::FloatCC(cc) => Some(cc),
            _ => None,
        }
    }

    /// The callee of a `call`.
    pub fn callee(&self, inst: Inst) -> Option<Callee> {
        match self.insts.get(inst)?.extra {
            Extra::Call(c) => Some(c),
            _ => None,
        }
    }

    /// The name of an `intrinsic`.
    pub fn intrinsic_name(&self, inst: Inst) -> Option<&str> {
        match self.insts.get(inst)?.extra {
            Extra::Intrinsic(n) => self.intrinsics.get(n).map(|s| &**s),
            _ => None,
        }
    }

    /// The memory object of a `load` or `store`.
    pub fn scalar_mem(&self, inst: Inst) -> Option<Mem> {
        match self.insts.get(inst)?.extra {
            Extra::Mem(m) => Some(m),
            _ => None,
        }
    }

    /// The `switch` table of a `switch`.
    pub fn switch_table(&self, inst: Inst) -> Option<&JumpTableData> {
        match self.insts.get(inst)?.extra {
            Extra::Switch(jt) => self.jump_tables.get(jt),
            _ => None,
        }
    }

    /// The incoming blocks of a phi, parallel to its operands.
    pub fn phi_blocks(&self, inst: Inst) -> &[Block] {
        match self.insts.get(inst).map(|d| &d.extra) {
            Some(Extra::Phi(list)) => list.as_slice(&self.block_pool),
            _ => &[],
        }
    }

    /// The `(predecessor, value)` pairs of a phi.
    pub fn phi_incoming(&self, inst: Inst) -> impl Iterator<Item = (Block, Operand)> + '_ {
        self.phi_blocks(inst).iter().copied().zip(self.operands(inst).iter().copied())
    }

    /// The successor blocks named by a terminator, in order, duplicates kept
    /// (a `switch` lists its default first, then its cases).
    pub fn successors(&self, inst: Inst) -> Successors<'_> {
        let (fixed, n, cases): ([Block; 2], u8, &[(i64, Block)]) = match self.insts.get(inst).map(|d| &d.extra) {
            Some(Extra::Jump(b)) => ([*b, *b], 1, &[]),
            Some(Extra::Branch(t)) => (*t, 2, &[]),
            Some(Extra::Switch(jt)) => match self.jump_tables.get(*jt) {
                Some(t) => ([t.default, t.default], 1, &t.cases[..]),
                None => ([Block::from_u32(0); 2], 0, &[]),
            },
            _ => ([Block::from_u32(0); 2], 0, &[]),
        };
        Successors { fixed, fixed_len: n, pos: 0, cases: cases.iter() }
    }

    /// The successors of `block` (through its terminator).
    pub fn block_successors(&self, block: Block) -> Successors<'_> {
        match self.terminator(block) {
            Some(t) => self.successors(t),
            None => Successors { fixed: [block; 2], fixed_len: 0, pos: 0, cases: [].iter() },
        }
    }

    // ---- instructions: creating and editing -------------------------------------

    pub(crate) fn push_inst(
        &mut self,
        opcode: Opcode,
        guard: Option<Guard>,
        results: &[Var],
        args: &[Operand],
        extra: Extra,
    ) -> Inst {
        let data = InstData {
            opcode,
            guard_negated: guard.is_some_and(|g| g.negated),
            guard: guard.map(|g| g.var).into(),
            results: EntityList::from_slice(results, &mut self.var_pool),
            args: EntityList::from_slice(args, &mut self.operand_pool),
            fallbacks: EntityList::new(),
            extra,
        };
        self.touch();
        self.insts.push(data)
    }

    /// A new instruction equal to `inst` (same opcode, guard, results,
    /// operands, fallbacks and targets; a switch gets its own copy of the
    /// jump table), not yet in the layout: place it with
    /// [`Function::append_inst`] or an insert. `None` when `inst` was not
    /// created by this function. Loop unrolling and block cloning use it.
    pub fn duplicate_inst(&mut self, inst: Inst) -> Option<Inst> {
        let d = self.insts.get(inst)?.clone();
        let results: Vec<Var> = d.results.as_slice(&self.var_pool).to_vec();
        let args: Vec<Operand> = d.args.as_slice(&self.operand_pool).to_vec();
        let fallbacks: Vec<Operand> = d.fallbacks.as_slice(&self.operand_pool).to_vec();
        let extra = match &d.extra {
            Extra::Phi(blocks) => {
                let b: Vec<Block> = blocks.as_slice(&self.block_pool).to_vec();
                Extra::Phi(EntityList::from_slice(&b, &mut self.block_pool))
            }
            Extra::Tensor { mems, scalars } => {
                let m: Vec<Mem> = mems.as_slice(&self.mem_pool).to_vec();
                Extra::Tensor { mems: EntityList::from_slice(&m, &mut self.mem_pool), scalars: *scalars }
            }
            Extra::Switch(jt) => {
                let table = self.jump_tables.get(*jt)?.clone();
                Extra::Switch(self.jump_tables.push(table))
            }
            other => other.clone(),
        };
        let data = InstData {
            opcode: d.opcode,
            guard_negated: d.guard_negated,
            guard: d.guard,
            results: EntityList::from_slice(&results, &mut self.var_pool),
            args: EntityList::from_slice(&args, &mut self.operand_pool),
            fallbacks: EntityList::from_slice(&fallbacks, &mut self.operand_pool),
            extra,
        };
        self.touch();
        Some(self.insts.push(data))
    }

    pub(crate) fn overwrite_inst(
        &mut self,
        inst: Inst,
        opcode: Opcode,
        guard: Option<Guard>,
        results: &[Var],
        args: &[Operand],
        extra: Extra,
    ) {
        let was_term = self.insts[inst].opcode.is_terminator();
        let old = &mut self.insts[inst];
        old.results.clear(&mut self.var_pool);
        old.args.clear(&mut self.operand_pool);
        old.fallbacks.clear(&mut self.operand_pool);
        match &mut old.extra {
            Extra::Phi(list) => list.clear(&mut self.block_pool),
            Extra::Tensor { mems, .. } => mems.clear(&mut self.mem_pool),
            _ => {}
        }
        *old = InstData {
            opcode,
            guard_negated: guard.is_some_and(|g| g.negated),
            guard: guard.map(|g| g.var).into(),
            results: EntityList::from_slice(results, &mut self.var_pool),
            args: EntityList::from_slice(args, &mut self.operand_pool),
            fallbacks: EntityList::new(),
            extra,
        };
        if was_term || opcode.is_terminator() {
            self.touch_cfg();
        } else {
            self.touch();
        }
    }

    pub(crate) fn make_block_list(&mut self, blocks: &[Block]) -> EntityList<Block> {
        EntityList::from_slice(blocks, &mut self.block_pool)
    }

    pub(crate) fn make_mem_list(&mut self, mems: &[Mem]) -> EntityList<Mem> {
        EntityList::from_slice(mems, &mut self.mem_pool)
    }

    /// Replaces operand `index` of `inst`. Returns `false` if there is none.
    pub fn set_operand(&mut self, inst: Inst, index: usize, op: Operand) -> bool {
        let Some(data) = self.insts.get_mut(inst) else {
            return false;
        };
        match data.args.get_mut(index, &mut self.operand_pool) {
            Some(slot) => {
                *slot = op;
                self.epoch.touch();
                true
            }
            None => false,
        }
    }

    /// Replaces result `index` of `inst`. Returns `false` if there is none.
    pub fn set_result(&mut self, inst: Inst, index: usize, var: Var) -> bool {
        let Some(data) = self.insts.get_mut(inst) else {
            return false;
        };
        match data.results.get_mut(index, &mut self.var_pool) {
            Some(slot) => {
                *slot = var;
                self.epoch.touch();
                true
            }
            None => false,
        }
    }

    /// Sets or clears the guard. Returns `false` if `inst` does not exist.
    pub fn set_guard(&mut self, inst: Inst, guard: Option<Guard>) -> bool {
        let Some(data) = self.insts.get_mut(inst) else {
            return false;
        };
        data.guard = guard.map(|g| g.var).into();
        data.guard_negated = guard.is_some_and(|g| g.negated);
        self.epoch.touch();
        true
    }

    /// Redirects successor `index` (in [`Function::successors`] order) of a
    /// terminator. Returns `false` if there is no such successor.
    pub fn set_successor(&mut self, inst: Inst, index: usize, target: Block) -> bool {
        let Some(data) = self.insts.get_mut(inst) else {
            return false;
        };
        let done = match &mut data.extra {
            Extra::Jump(b) if index == 0 => {
                *b = target;
                true
            }
            Extra::Branch(t) if index < 2 => {
                t[index] = target;
                true
            }
            Extra::Switch(jt) => match self.jump_tables.get_mut(*jt) {
                Some(t) if index == 0 => {
                    t.default = target;
                    true
                }
                Some(t) => match t.cases.get_mut(index - 1) {
                    Some(c) => {
                        c.1 = target;
                        true
                    }
                    None => false,
                },
                None => false,
            },
            _ => false,
        };
        if done {
            self.touch_cfg();
        }
        done
    }

    /// Appends an incoming `(block, value)` pair to a phi. Returns `false`
    /// if `inst` is not a phi.
    pub fn phi_add_incoming(&mut self, inst: Inst, block: Block, value: Operand) -> bool {
        let Some(data) = self.insts.get_mut(inst) else {
            return false;
        };
        let Extra::Phi(list) = &mut data.extra else {
            return false;
        };
        list.push(block, &mut self.block_pool);
        data.args.push(value, &mut self.operand_pool);
        self.epoch.touch();
        true
    }

    /// Changes the block of the `index`-th incoming pair of a phi (after an
    /// edge split, say). Returns `false` if there is no such pair.
    pub fn set_phi_block(&mut self, inst: Inst, index: usize, block: Block) -> bool {
        let Some(data) = self.insts.get_mut(inst) else { return false };
        let Extra::Phi(list) = &mut data.extra else { return false };
        match list.get_mut(index, &mut self.block_pool) {
            Some(slot) => {
                *slot = block;
                self.epoch.touch();
                true
            }
            None => false,
        }
    }

    /// Removes the `index`-th incoming pair of a phi. Returns `false` if
    /// there is none.
    pub fn phi_remove_incoming(&mut self, inst: Inst, index: usize) -> bool {
        let Some(data) = self.insts.get_mut(inst) else {
            return false;
        };
        let Extra::Phi(list) = &mut data.extra else {
            return false;
        };
        if index >= list.len(&self.block_pool) {
            return false;
        }
        list.remove(index, &mut self.block_pool);
        data.args.remove(index, &mut self.operand_pool);
        self.epoch.touch();
        true
    }

    pub(crate) fn extra(&self, inst: Inst) -> Option<&Extra> {
        self.insts.get(inst).map(|d| &d.extra)
    }

    /// Total instructions in the layout (walks every block).
    pub fn count_inserted_insts(&self) -> usize {
        self.blocks().map(|b| self.block_insts(b).count()).sum()
    }
}

/// The successors of a terminator.
#[derive(Clone, Debug)]
pub struct Successors<'a> {
    fixed: [Block; 2],
    fixed_len: u8,
    pos: u8,
    cases: core::slice::Iter<'a, (i64, Block)>,
}

impl Iterator for Successors<'_> {
    type Item = Block;
    fn next(&mut self) -> Option<Block> {
        if self.pos < self.fixed_len {
            self.pos += 1;
            return Some(self.fixed[usize::from(self.pos - 1)]);
        }
        self.cases.next().map(|c| c.1)
    }
}
