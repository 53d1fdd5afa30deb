//! Entity references: `u32` newtypes indexing dense arenas.
//!
//! Invariants: an entity is only meaningful together with the arena that
//! created it (a [`crate::Function`] for blocks, vars, instructions, constants,
//! jump tables and intrinsic names; a [`crate::Module`] for functions,
//! external functions and memory objects). `u32::MAX` is reserved so that
//! `PackedOption<E>` fits in four bytes.
//!
//! The `Display` prefix of each entity equals its sigil in the text format
//! (`bb` for blocks, `%` for vars, `@` for module-level names), so debug
//! output and diagnostics read like the text format. This is the
//! cranelift-entity model (Cranelift's `ir::entities`), used through that crate.

use cranelift_entity::entity_impl;

/// A basic block. Printed as `bbN`; the text format preserves the number.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "bb");

/// A variable: a typed storage location (a virtual register) that any number
/// of instructions may define. Printed by its name; `Display` shows `%N`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(u32);
entity_impl!(Var, "%");

/// An instruction. Its id is stable for the life of the function, whatever
/// the layout does. Instructions have no sigil in the text format.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// An immediate in a function's constant pool (typed, deduplicated).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Const(u32);
entity_impl!(Const, "const");

/// A `switch` table: a default target and `(value, target)` cases.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JumpTable(u32);
entity_impl!(JumpTable, "jt");

/// An interned `intrinsic "name"` of one function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IntrinsicName(u32);
entity_impl!(IntrinsicName, "intrinsic");

/// A function defined in a module. `Display` shows `@fnN`; text uses its name.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "@fn");

/// An external function declared in a module (`extern @name(...)`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExtFuncId(u32);
entity_impl!(ExtFuncId, "@ext");

/// A module-level memory object (a tensor). `Display` shows `@memN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mem(u32);
entity_impl!(Mem, "@mem");
