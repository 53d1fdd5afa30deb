//! A module: functions, external function declarations and memory objects.
//!
//! Invariants: the three kinds share one namespace (`@name` in the text
//! format), enforced by [`Module`]'s constructors; ids are dense and stable.
//! Order of declaration is preserved and is the print order.

use crate::entities::{ExtFuncId, FuncId, Mem};
use crate::function::{Function, NameError, Signature};
use crate::imm::Imm;
use crate::types::{MemSpace, Type};
use cranelift_entity::PrimaryMap;
use rustc_hash::FxHashMap;

/// Largest memory object, in elements (2^40: a terabyte of `i8`).
pub const MAX_MEM_LEN: u64 = 1 << 40;

/// A module-level memory object: a tensor of `len` elements of `elem` type.
#[derive(Clone, PartialEq, Debug)]
pub struct MemObject {
    /// Name, without `@`.
    pub name: Box<str>,
    /// Element type.
    pub elem: Type,
    /// Number of elements.
    pub len: u64,
    /// Memory space.
    pub space: MemSpace,
    /// Initial contents of the first `init.len()` elements (the rest are
    /// zero); each immediate has type `elem`.
    pub init: Vec<Imm>,
}

/// A declared external function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ExtFunc {
    /// Name, without `@`.
    pub name: Box<str>,
    /// Signature.
    pub sig: Signature,
}

/// What a module-level name refers to.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Global {
    /// A defined function.
    Func(FuncId),
    /// An external function.
    Ext(ExtFuncId),
    /// A memory object.
    Mem(Mem),
}

/// A compilation unit.
#[derive(Clone, Debug, Default)]
pub struct Module {
    funcs: PrimaryMap<FuncId, Function>,
    externs: PrimaryMap<ExtFuncId, ExtFunc>,
    mems: PrimaryMap<Mem, MemObject>,
    names: FxHashMap<Box<str>, Global>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module::default()
    }

    fn claim(&self, name: &str) -> Result<(), NameError> {
        if name.is_empty() {
            Err(NameError::Empty)
        } else if self.names.contains_key(name) {
            Err(NameError::Taken(name.to_owned()))
        } else {
            Ok(())
        }
    }

    /// Adds a function with no blocks; `param_names` names its params.
    pub fn add_function(&mut self, name: &str, sig: Signature, param_names: &[&str]) -> Result<FuncId, NameError> {
        self.claim(name)?;
        let id = self.funcs.push(Function::new(name, sig, param_names));
        self.names.insert(name.into(), Global::Func(id));
        Ok(id)
    }

    /// Adds a function built elsewhere, under its own name.
    pub fn push_function(&mut self, func: Function) -> Result<FuncId, NameError> {
        self.claim(func.name())?;
        let name: Box<str> = func.name().into();
        let id = self.funcs.push(func);
        self.names.insert(name, Global::Func(id));
        Ok(id)
    }

    /// Declares an external function.
    pub fn add_extern(&mut self, name: &str, sig: Signature) -> Result<ExtFuncId, NameError> {
        self.claim(name)?;
        let id = self.externs.push(ExtFunc { name: name.into(), sig });
        self.names.insert(name.into(), Global::Ext(id));
        Ok(id)
    }

    /// Declares a zero-initialised memory object.
    pub fn add_mem(&mut self, name: &str, elem: Type, len: u64, space: MemSpace) -> Result<Mem, NameError> {
        self.claim(name)?;
        let id = self.mems.push(MemObject { name: name.into(), elem, len, space, init: Vec::new() });
        self.names.insert(name.into(), Global::Mem(id));
        Ok(id)
    }

    /// Renames a function, keeping the namespace consistent.
    pub fn rename_function(&mut self, f: FuncId, name: &str) -> Result<(), NameError> {
        self.claim(name)?;
        let Some(func) = self.funcs.get_mut(f) else {
            return Err(NameError::Empty);
        };
        self.names.remove(func.name());
        func.set_name(name);
        self.names.insert(name.into(), Global::Func(f));
        Ok(())
    }

    /// Looks up a module-level name (without `@`).
    pub fn lookup(&self, name: &str) -> Option<Global> {
        self.names.get(name).copied()
    }

    /// Number of defined functions.
    pub fn num_functions(&self) -> usize {
        self.funcs.len()
    }

    /// Function ids in declaration order.
    pub fn function_ids(&self) -> impl ExactSizeIterator<Item = FuncId> + '_ {
        self.funcs.keys()
    }

    /// Functions in declaration order.
    pub fn functions(&self) -> impl ExactSizeIterator<Item = (FuncId, &Function)> + '_ {
        self.funcs.iter()
    }

    /// A function.
    pub fn function(&self, f: FuncId) -> Option<&Function> {
        self.funcs.get(f)
    }

    /// A function, for editing.
    pub fn function_mut(&mut self, f: FuncId) -> Option<&mut Function> {
        self.funcs.get_mut(f)
    }

    /// Looks a function up by name.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        match self.lookup(name)? {
            Global::Func(f) => Some(f),
            _ => None,
        }
    }

    /// External functions in declaration order.
    pub fn externs(&self) -> impl ExactSizeIterator<Item = (ExtFuncId, &ExtFunc)> + '_ {
        self.externs.iter()
    }

    /// An external function.
    pub fn ext_func(&self, e: ExtFuncId) -> Option<&ExtFunc> {
        self.externs.get(e)
    }

    /// Memory objects in declaration order.
    pub fn mems(&self) -> impl ExactSizeIterator<Item = (Mem, &MemObject)> + '_ {
        self.mems.iter()
    }

    /// A memory object.
    pub fn mem(&self, m: Mem) -> Option<&MemObject> {
        self.mems.get(m)
    }

    /// Sets a memory object's initial contents (each of type `elem`).
    /// Returns `false` if `m` does not exist.
    pub fn set_mem_init(&mut self, m: Mem, init: Vec<Imm>) -> bool {
        match self.mems.get_mut(m) {
            Some(obj) => {
                obj.init = init;
                true
            }
            None => false,
        }
    }

    /// The name of a callee, for messages.
    pub fn callee_name(&self, c: crate::Callee) -> &str {
        match c {
            crate::Callee::Func(f) => self.funcs.get(f).map_or("?", |f| f.name()),
            crate::Callee::Ext(e) => self.externs.get(e).map_or("?", |e| &e.name),
        }
    }

    /// The signature of a callee.
    pub fn callee_signature(&self, c: crate::Callee) -> Option<&Signature> {
        match c {
            crate::Callee::Func(f) => self.funcs.get(f).map(|f| f.signature()),
            crate::Callee::Ext(e) => self.externs.get(e).map(|e| &e.sig),
        }
    }
}
