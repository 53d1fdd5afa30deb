//! The external function generated modules may call (the `extern_calls`
//! knob): `@ext_touch(a: i64, b: i64) -> i64` reads one element and writes
//! one element of the module's memory objects, chosen by its arguments,
//! and returns `a + b`. [`ExternMemory`] is the handler a run of such a
//! module installs; [`ext_touch`] also says which elements it touched, for
//! oracles that track memory.
//!
//! Invariants: the effect is a pure function of the arguments and memory,
//! touches only elements in bounds, and never fails for a module with at
//! least one non-empty object; a failure is an [`ExtTouchError`] naming the
//! call or the element.

use core::fmt;
use ir_core::interp::{ExternError, ExternHandler, Memory};
use ir_core::{Imm, Mem, Type};

/// The name of the generated external function.
pub const EXT_TOUCH: &str = "ext_touch";

/// One element an external call touched.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Touch {
    /// True for a write.
    pub write: bool,
    /// The object.
    pub mem: Mem,
    /// The element.
    pub index: u64,
}

/// Why a call of [`ext_touch`] failed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ExtTouchError {
    /// The function called is not `@ext_touch`.
    WrongFunction {
        /// Its name.
        name: String,
    },
    /// `@ext_touch` called with other than two arguments.
    WrongArguments {
        /// How many it was given.
        given: usize,
    },
    /// The module has no non-empty memory object.
    NoMemory,
    /// The element to read is out of bounds.
    ReadOutOfBounds {
        /// The object.
        mem: Mem,
        /// The element.
        index: u64,
    },
    /// The element to write is out of bounds.
    WriteOutOfBounds {
        /// The object.
        mem: Mem,
        /// The element.
        index: u64,
    },
}

impl fmt::Display for ExtTouchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtTouchError::WrongFunction { name } => write!(f, "@{name} is not the generated external function"),
            ExtTouchError::WrongArguments { given } => {
                write!(f, "@{EXT_TOUCH} takes 2 arguments, not {given}")
            }
            ExtTouchError::NoMemory => f.write_str("no memory to touch"),
            ExtTouchError::ReadOutOfBounds { mem, index } => write!(f, "read of {mem}[{index}] out of bounds"),
            ExtTouchError::WriteOutOfBounds { mem, index } => write!(f, "write of {mem}[{index}] out of bounds"),
        }
    }
}

impl std::error::Error for ExtTouchError {}

impl From<ExtTouchError> for ExternError {
    /// [`ExternError::Unknown`] for a call of another function; the
    /// handler's own error otherwise.
    fn from(e: ExtTouchError) -> ExternError {
        match e {
            ExtTouchError::WrongFunction { .. } => ExternError::Unknown,
            e => ExternError::Handler(Box::new(e)),
        }
    }
}

/// Runs `@ext_touch` on `args`: reads element `a mod len` of object
/// `b mod n`, writes element `(a >> 8) mod len'` of object `(b >> 8) mod n`
/// (the value read if the types agree, zero otherwise); returns `a + b`
/// and the touches, read first.
pub fn ext_touch(name: &str, args: &[Imm], memory: &mut Memory) -> Result<(Vec<Imm>, [Touch; 2]), ExtTouchError> {
    if name != EXT_TOUCH {
        return Err(ExtTouchError::WrongFunction { name: name.to_string() });
    }
    let &[a, b] = args else { return Err(ExtTouchError::WrongArguments { given: args.len() }) };
    let (a, b) = (a.as_u64(), b.as_u64());
    let objects: Vec<Mem> = (0..u32::MAX).map(Mem::from_u32).take_while(|&m| memory.elem_type(m).is_some()).collect();
    let nonempty: Vec<Mem> = objects.into_iter().filter(|&m| memory.len(m) > 0).collect();
    if nonempty.is_empty() {
        return Err(ExtTouchError::NoMemory);
    }
    let ro = nonempty[(b % nonempty.len() as u64) as usize];
    let ri = a % memory.len(ro) as u64;
    let wo = nonempty[((b >> 8) % nonempty.len() as u64) as usize];
    let wi = (a >> 8) % memory.len(wo) as u64;
    let read = memory.get(ro, ri as usize).ok_or(ExtTouchError::ReadOutOfBounds { mem: ro, index: ri })?;
    let elem = memory.elem_type(wo).unwrap_or(Type::I64);
    let value = if read.ty() == elem { read } else { Imm::from_bits(elem, 0) };
    if !memory.set(wo, wi as usize, value) {
        return Err(ExtTouchError::WriteOutOfBounds { mem: wo, index: wi });
    }
    let touches = [Touch { write: false, mem: ro, index: ri }, Touch { write: true, mem: wo, index: wi }];
    Ok((vec![Imm::int(Type::I64, a.wrapping_add(b) as i64)], touches))
}

/// The handler for `@ext_touch` (see [`ext_touch`]).
#[derive(Copy, Clone, Debug, Default)]
pub struct ExternMemory;

impl ExternHandler for ExternMemory {
    fn call(&mut self, name: &str, args: &[Imm], memory: &mut Memory) -> Result<Vec<Imm>, ExternError> {
        Ok(ext_touch(name, args, memory)?.0)
    }
}
