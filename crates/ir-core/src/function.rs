//! A function: signature, vars, instructions, constants, and the layout.
//!
//! Invariants:
//! - Data and order are separate ([`Layout`]): instruction and block ids are
//!   stable, and passes insert, remove and move in O(1).
//! - Var names are unique within the function. Whether a var is an SSA
//!   *version* of another is recorded when it is created
//!   ([`Function::add_version`], [`Function::try_add_version`]; see
//!   [`VarData::origin`]), never inferred from its name; the text format
//!   writes it out (`var %x.2: i32 of %x`).
//! - Params are the first vars, in order (ids `0..params.len()`).
//! - Every mutation goes through `&mut self` methods that touch the
//!   function's epoch; those that may change the CFG (block layout,
//!   terminators, successors) also touch the CFG epoch. See [`crate::stamp`].
//! - Immediates are interned in a typed constant pool, so operands stay
//!   32-bit and equal immediates share one [`Const`].

use crate::entities::{Block, Const, Inst, IntrinsicName, JumpTable, Mem, Var};
use crate::imm::Imm;
use crate::instructions::{Arg, InstData, JumpTableData, Operand};
use crate::layout::{Layout, LayoutError};
use crate::stamp::{Epoch, Stamp};
use crate::types::Type;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{ListPool, PrimaryMap};
use rustc_hash::FxHashMap;

/// Parameter and return types of a function.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Signature {
    /// Parameter types.
    pub params: Vec<Type>,
    /// Return types (a function may return several values, or none).
    pub returns: Vec<Type>,
}

impl Signature {
    /// A signature from parameter and return types.
    pub fn new(params: impl Into<Vec<Type>>, returns: impl Into<Vec<Type>>) -> Signature {
        Signature { params: params.into(), returns: returns.into() }
    }
}

/// A variable's declaration.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct VarData {
    name: Box<str>,
    ty: Type,
    origin: PackedOption<Var>,
}

impl VarData {
    /// The name, without the `%` sigil.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The type.
    pub fn ty(&self) -> Type {
        self.ty
    }

    /// For an SSA version (made by [`Function::add_version`] or
    /// [`Function::try_add_version`]; `of %x` in text), the original var.
    pub fn origin(&self) -> Option<Var> {
        self.origin.expand()
    }
}

/// A function body.
#[derive(Clone, Debug)]
pub struct Function {
    name: Box<str>,
    sig: Signature,
    params: Vec<Var>,
    vars: PrimaryMap<Var, VarData>,
    var_names: FxHashMap<Box<str>, Var>,
    /// Per base name, the last suffix `k` [`Function::add_var`] gave out
    /// (`base_k`): every `base_j` with `j ≤ k` is taken and names are never
    /// freed, so the next search starts after it (linear, not quadratic,
    /// when a pass adds many vars with one base name; same names).
    name_suffix: FxHashMap<Box<str>, u64>,
    next_version: FxHashMap<Var, u32>,
    num_blocks: u32,
    pub(crate) insts: PrimaryMap<Inst, InstData>,
    consts: PrimaryMap<Const, Imm>,
    const_ids: FxHashMap<Imm, Const>,
    pub(crate) jump_tables: PrimaryMap<JumpTable, JumpTableData>,
    pub(crate) intrinsics: PrimaryMap<IntrinsicName, Box<str>>,
    intrinsic_ids: FxHashMap<Box<str>, IntrinsicName>,
    pub(crate) var_pool: ListPool<Var>,
    pub(crate) operand_pool: ListPool<Operand>,
    pub(crate) block_pool: ListPool<Block>,
    pub(crate) mem_pool: ListPool<Mem>,
    layout: Layout,
    pub(crate) epoch: Stamp,
    pub(crate) cfg_epoch: Stamp,
}

/// Why a name cannot be used.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NameError {
    /// The name is empty.
    Empty,
    /// Another entity in the same namespace has the name.
    Taken(String),
}

impl core::fmt::Display for NameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NameError::Empty => f.write_str("names must not be empty"),
            NameError::Taken(n) => write!(f, "the name `{n}` is already taken"),
        }
    }
}

impl std::error::Error for NameError {}

impl Function {
    /// A new function with no blocks. `param_names` names the params (missing
    /// or duplicate names are replaced, as by [`Function::add_var`]).
    pub fn new(name: &str, sig: Signature, param_names: &[&str]) -> Function {
        let mut f = Function {
            name: name.into(),
            sig: Signature::default(),
            params: Vec::new(),
            vars: PrimaryMap::new(),
            var_names: FxHashMap::default(),
            name_suffix: FxHashMap::default(),
            next_version: FxHashMap::default(),
            num_blocks: 0,
            insts: PrimaryMap::new(),
            consts: PrimaryMap::new(),
            const_ids: FxHashMap::default(),
            jump_tables: PrimaryMap::new(),
            intrinsics: PrimaryMap::new(),
            intrinsic_ids: FxHashMap::default(),
            var_pool: ListPool::new(),
            operand_pool: ListPool::new(),
            block_pool: ListPool::new(),
            mem_pool: ListPool::new(),
            layout: Layout::new(),
            epoch: Stamp::new(),
            cfg_epoch: Stamp::new(),
        };
        for (i, &ty) in sig.params.iter().enumerate() {
            let name = param_names.get(i).copied().unwrap_or("");
            let v = f.add_var(name, ty);
            f.params.push(v);
        }
        f.sig = sig;
        f
    }

    // ---- identity and versions -------------------------------------------------

    /// The function's name, without the `@` sigil.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn set_name(&mut self, name: &str) {
        self.name = name.into();
        self.epoch.touch();
    }

    /// The signature.
    pub fn signature(&self) -> &Signature {
        &self.sig
    }

    /// The modification epoch: changes whenever the function changes, and
    /// is unique across functions. Analyses stamp their results with it.
    pub fn epoch(&self) -> Epoch {
        self.epoch.get()
    }

    /// The CFG epoch: changes whenever blocks, terminators or successors may
    /// have changed. Analyses of the CFG alone (dominators) stamp with it, so
    /// rewriting operands does not invalidate them.
    pub fn cfg_epoch(&self) -> Epoch {
        self.cfg_epoch.get()
    }

    pub(crate) fn touch(&mut self) {
        self.epoch.touch();
    }

    pub(crate) fn touch_cfg(&mut self) {
        self.epoch.touch();
        self.cfg_epoch.touch();
    }

    // ---- vars ------------------------------------------------------------------

    /// The params, in order; they are vars defined on entry.
    pub fn params(&self) -> &[Var] {
        &self.params
    }

    /// Number of vars ever created (var ids are `0..num_vars()`).
    pub fn num_vars(&self) -> usize {
        self.vars.len()
    }

    /// All vars in id order.
    pub fn vars(&self) -> impl ExactSizeIterator<Item = Var> + '_ {
        self.vars.keys()
    }

    /// A var's declaration, or `None` if `v` is not a var of this function.
    pub fn var_data(&self, v: Var) -> Option<&VarData> {
        self.vars.get(v)
    }

    /// A var's type. Returns `None` if `v` does not exist.
    pub fn var_type(&self, v: Var) -> Option<Type> {
        self.vars.get(v).map(|d| d.ty)
    }

    /// A var's name (without `%`).
    ///
    /// # Panics
    ///
    /// When `v` is not a var of this function (there is no name to give;
    /// [`Function::var_data`] is the checked form).
    #[track_caller]
    pub fn var_name(&self, v: Var) -> &str {
        match self.vars.get(v) {
            Some(d) => &d.name,
            None => panic!("{v} is not a var of @{}", self.name()),
        }
    }

    /// How the printer and the verifier show a var that may not exist (an
    /// operand of unverified code): its name, or `?` for a foreign id.
    pub(crate) fn shown_var_name(&self, v: Var) -> &str {
        self.vars.get(v).map_or("?", |d| &d.name)
    }

    /// Looks a var up by name (without `%`).
    pub fn var_by_name(&self, name: &str) -> Option<Var> {
        self.var_names.get(name).copied()
    }

    /// Declares a plain var (never a version, whatever its name). An empty
    /// or taken name is made unique (`x` becomes `x_1`, `x_2`, ...; an empty
    /// name becomes `vN`).
    pub fn add_var(&mut self, name: &str, ty: Type) -> Var {
        let id = self.vars.next_key();
        let base = if name.is_empty() { format!("v{}", id.as_u32()) } else { name.to_owned() };
        let unique = self.unique_var_name(base);
        self.push_var(unique.into_boxed_str(), ty, None)
    }

    /// Declares a var with exactly this name, or fails if it is empty or taken.
    pub fn try_add_var(&mut self, name: &str, ty: Type) -> Result<Var, NameError> {
        if name.is_empty() {
            return Err(NameError::Empty);
        }
        if self.var_names.contains_key(name) {
            return Err(NameError::Taken(name.to_owned()));
        }
        Ok(self.push_var(name.into(), ty, None))
    }

    /// Declares a var with exactly this name as an SSA version of `of`'s
    /// original (of `of` itself if it is not a version), with its type.
    /// Fails if the name is empty or taken; `Ok(None)` if `of` does not
    /// exist.
    pub fn try_add_version(&mut self, name: &str, of: Var) -> Result<Option<Var>, NameError> {
        let Some(data) = self.vars.get(of) else { return Ok(None) };
        let (original, ty) = (data.origin.expand().unwrap_or(of), data.ty);
        if name.is_empty() {
            return Err(NameError::Empty);
        }
        if self.var_names.contains_key(name) {
            return Err(NameError::Taken(name.to_owned()));
        }
        Ok(Some(self.push_var(name.into(), ty, Some(original))))
    }

    /// Declares a new SSA version of `var`'s original: `%x.1`, `%x.2`, ...
    /// Returns `None` if `var` does not exist.
    pub fn add_version(&mut self, var: Var) -> Option<Var> {
        let data = self.vars.get(var)?;
        let original = data.origin.expand().unwrap_or(var);
        let ty = data.ty;
        let counter = self.next_version.entry(original).or_insert(1);
        loop {
            let name = format!("{}.{}", self.vars[original].name, *counter);
            *counter += 1;
            if !self.var_names.contains_key(name.as_str()) {
                return Some(self.push_var(name.into_boxed_str(), ty, Some(original)));
            }
        }
    }

    fn unique_var_name(&mut self, base: String) -> String {
        if !self.var_names.contains_key(base.as_str()) {
            return base;
        }
        let start = self.name_suffix.get(base.as_str()).map_or(1, |&k| k + 1);
        let Some((k, name)) =
            (start..).map(|k| (k, format!("{base}_{k}"))).find(|(_, n)| !self.var_names.contains_key(n.as_str()))
        else {
            return base;
        };
        self.name_suffix.insert(base.into_boxed_str(), k);
        name
    }

    fn push_var(&mut self, name: Box<str>, ty: Type, origin: Option<Var>) -> Var {
        let v = self.vars.push(VarData { name: name.clone(), ty, origin: origin.into() });
        self.var_names.insert(name, v);
        self.touch();
        v
    }

    /// Changes a var's type. Returns `false` if `v` does not exist.
    pub fn set_var_type(&mut self, v: Var, ty: Type) -> bool {
        match self.vars.get_mut(v) {
            Some(d) => {
                d.ty = ty;
                self.epoch.touch();
                true
            }
            None => false,
        }
    }

    // ---- constants -------------------------------------------------------------

    /// Interns an immediate.
    pub fn intern(&mut self, imm: Imm) -> Const {
        if let Some(&c) = self.const_ids.get(&imm) {
            return c;
        }
        let c = self.consts.push(imm);
        self.const_ids.insert(imm, c);
        c
    }

    /// The immediate of a constant; `None` for a constant this function
    /// did not intern.
    pub fn imm(&self, c: Const) -> Option<Imm> {
        self.consts.get(c).copied()
    }

    /// Converts a client argument to a stored operand (interning immediates).
    pub fn operand(&mut self, arg: Arg) -> Operand {
        match arg {
            Arg::Var(v) => Operand::var(v),
            Arg::Imm(imm) => Operand::constant(self.intern(imm)),
        }
    }

    /// Expands a stored operand; `None` for a constant this function did
    /// not intern (vars are not checked: see [`Function::var_data`]).
    pub fn arg(&self, op: Operand) -> Option<Arg> {
        match (op.as_var(), op.as_const()) {
            (Some(v), _) => Some(Arg::Var(v)),
            (None, Some(c)) => self.imm(c).map(Arg::Imm),
            (None, None) => None,
        }
    }

    /// The type of an operand: the var's or the immediate's.
    pub fn operand_type(&self, op: Operand) -> Option<Type> {
        match op.as_var() {
            Some(v) => self.var_type(v),
            None => op.as_const().and_then(|c| self.consts.get(c)).map(|i| i.ty()),
        }
    }

    // ---- intrinsic names and jump tables ---------------------------------------

    /// Interns an intrinsic name.
    pub fn intern_intrinsic(&mut self, name: &str) -> IntrinsicName {
        if let Some(&id) = self.intrinsic_ids.get(name) {
            return id;
        }
        let id = self.intrinsics.push(name.into());
        self.intrinsic_ids.insert(name.into(), id);
        id
    }

    /// Adds a `switch` table.
    pub fn add_jump_table(&mut self, data: JumpTableData) -> JumpTable {
        self.touch();
        self.jump_tables.push(data)
    }

    /// A `switch` table.
    pub fn jump_table(&self, jt: JumpTable) -> Option<&JumpTableData> {
        self.jump_tables.get(jt)
    }

    // ---- blocks and layout -----------------------------------------------------

    /// Creates a block (not yet in the layout).
    pub fn create_block(&mut self) -> Block {
        let b = Block::from_u32(self.num_blocks);
        self.num_blocks += 1;
        self.touch();
        b
    }

    /// Creates blocks until `block` exists (the parser preserves block numbers).
    pub(crate) fn ensure_block(&mut self, block: Block) {
        if block.as_u32() >= self.num_blocks {
            self.num_blocks = block.as_u32() + 1;
            self.touch();
        }
    }

    /// Number of blocks ever created (block ids are `0..num_blocks()`),
    /// whether or not they are in the layout.
    pub fn num_blocks(&self) -> usize {
        self.num_blocks as usize
    }

    /// True when `block` was created by this function.
    pub fn block_exists(&self, block: Block) -> bool {
        block.as_u32() < self.num_blocks
    }

    /// The block and instruction order.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The entry block (first in the layout).
    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    /// Blocks in layout order.
    pub fn blocks(&self) -> crate::layout::Blocks<'_> {
        self.layout.blocks()
    }

    /// Instructions of `block` in order.
    pub fn block_insts(&self, block: Block) -> crate::layout::Insts<'_> {
        self.layout.block_insts(block)
    }

    /// The terminator of `block`: its last instruction, if that is one.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        self.layout.last_inst(block).filter(|&i| self.insts[i].opcode.is_terminator())
    }

    fn check_block(&self, b: Block) -> Result<(), LayoutError> {
        if self.block_exists(b) { Ok(()) } else { Err(LayoutError::UnknownBlock(b)) }
    }

    fn check_inst(&self, i: Inst) -> Result<(), LayoutError> {
        if self.insts.is_valid(i) { Ok(()) } else { Err(LayoutError::UnknownInst(i)) }
    }

    /// Appends `block` to the layout.
    pub fn append_block(&mut self, block: Block) -> Result<(), LayoutError> {
        self.check_block(block)?;
        self.layout.append_block(block)?;
        self.touch_cfg();
        Ok(())
    }

    /// Inserts `block` before `before` in the layout.
    pub fn insert_block_before(&mut self, block: Block, before: Block) -> Result<(), LayoutError> {
        self.check_block(block)?;
        self.check_block(before)?;
        self.layout.insert_block_before(block, before)?;
        self.touch_cfg();
        Ok(())
    }

    /// Inserts `block` after `after` in the layout.
    pub fn insert_block_after(&mut self, block: Block, after: Block) -> Result<(), LayoutError> {
        self.check_block(block)?;
        self.check_block(after)?;
        self.layout.insert_block_after(block, after)?;
        self.touch_cfg();
        Ok(())
    }

    /// Removes `block` from the layout; it keeps its instructions.
    pub fn remove_block(&mut self, block: Block) -> Result<(), LayoutError> {
        self.check_block(block)?;
        self.layout.remove_block(block)?;
        self.touch_cfg();
        Ok(())
    }

    /// Appends `inst` to `block`.
    pub fn append_inst(&mut self, inst: Inst, block: Block) -> Result<(), LayoutError> {
        self.check_inst(inst)?;
        self.check_block(block)?;
        self.layout.append_inst(inst, block)?;
        self.touch_for(inst);
        Ok(())
    }

    /// Inserts `inst` before `before`.
    pub fn insert_inst_before(&mut self, inst: Inst, before: Inst) -> Result<(), LayoutError> {
        self.check_inst(inst)?;
        self.check_inst(before)?;
        self.layout.insert_inst_before(inst, before)?;
        self.touch_for(inst);
        Ok(())
    }

    /// Inserts `inst` after `after`.
    pub fn insert_inst_after(&mut self, inst: Inst, after: Inst) -> Result<(), LayoutError> {
        self.check_inst(inst)?;
        self.check_inst(after)?;
        self.layout.insert_inst_after(inst, after)?;
        self.touch_for(inst);
        Ok(())
    }

    /// Removes `inst` from its block; its data stays and it can be reinserted.
    pub fn remove_inst(&mut self, inst: Inst) -> Result<(), LayoutError> {
        self.check_inst(inst)?;
        self.layout.remove_inst(inst)?;
        self.touch_for(inst);
        Ok(())
    }

    fn touch_for(&mut self, inst: Inst) {
        if self.insts[inst].opcode.is_terminator() {
            self.touch_cfg();
        } else {
            self.touch();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instructions::Extra;
    use crate::opcode::Opcode;

    #[test]
    fn names_are_unique_and_versions_remember_their_original() {
        let mut f = Function::new("f", Signature::new([Type::I32], []), &["x"]);
        let x = f.params()[0];
        let x2 = f.add_var("x", Type::I32);
        assert_eq!(f.var_name(x2), "x_1");
        let v1 = f.add_version(x).unwrap();
        let v2 = f.add_version(v1).unwrap();
        assert_eq!((f.var_name(v1), f.var_name(v2)), ("x.1", "x.2"));
        assert_eq!(f.var_data(v2).unwrap().origin(), Some(x));
        // A version's name says nothing: only how it was created counts.
        let by_name = f.add_var("x.7", Type::I32);
        assert_eq!(f.var_data(by_name).unwrap().origin(), None);
        let named = f.try_add_version("y", v2).unwrap().unwrap();
        assert_eq!(f.var_data(named).unwrap().origin(), Some(x));
        assert!(f.try_add_version("y", x).is_err());
        let anon = f.add_var("", Type::I1);
        assert_eq!(f.var_name(anon), format!("v{}", anon.as_u32()));
        assert!(f.try_add_var("x", Type::I32).is_err());
    }

    #[test]
    fn cfg_epoch_survives_operand_edits() {
        let mut f = Function::new("f", Signature::new([Type::I32], []), &["a"]);
        let b = f.create_block();
        f.append_block(b).unwrap();
        let a = f.params()[0];
        let i = f.push_inst(Opcode::Copy, None, &[a], &[Operand::var(a)], Extra::None);
        f.append_inst(i, b).unwrap();
        let (e, c) = (f.epoch(), f.cfg_epoch());
        let one = f.operand(Arg::Imm(Imm::from(1i32)));
        assert!(f.set_operand(i, 0, one));
        assert_ne!(f.epoch(), e);
        assert_eq!(f.cfg_epoch(), c);
        let other = f.create_block();
        f.append_block(other).unwrap();
        assert_ne!(f.cfg_epoch(), c);
    }

    #[test]
    fn layout_errors_instead_of_panics() {
        let mut f = Function::new("f", Signature::default(), &[]);
        let b = f.create_block();
        assert_eq!(f.remove_block(b), Err(LayoutError::BlockNotInserted(b)));
        assert_eq!(f.append_block(Block::from_u32(9)), Err(LayoutError::UnknownBlock(Block::from_u32(9))));
        f.append_block(b).unwrap();
        assert_eq!(f.append_block(b), Err(LayoutError::BlockAlreadyInserted(b)));
        assert_eq!(f.remove_inst(Inst::from_u32(3)), Err(LayoutError::UnknownInst(Inst::from_u32(3))));
    }
}
