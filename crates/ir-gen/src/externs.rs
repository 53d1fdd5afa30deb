//! The external function generated modules may call (the `extern_calls`
//! knob): `@ext_touch(a: i64, b: i64) -> i64` reads one element and writes
//! one element of the module's memory objects, chosen by its arguments,
//! and returns `a + b`. [`ExternMemory`] is the handler a run of such a
//! module installs; [`ext_touch`] also says which elements it touched, for
//! oracles that track memory.
//!
//! Invariants: the effect is a pure function of the arguments and memory,
//! touches only elements in bounds, and never fails for a module with at
//! least one non-empty object.

use ir_core::interp::{ExternHandler, Memory};
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

/// Runs `@ext_touch` on `args`: reads element `a mod len` of object
/// `b mod n`, writes element `(a >> 8) mod len'` of object `(b >> 8) mod n`
/// (the value read if the types agree, zero otherwise); returns `a + b`
/// and the touches, read first.
pub fn ext_touch(name: &str, args: &[Imm], memory: &mut Memory) -> Result<(Vec<Imm>, [Touch; 2]), String> {
    let (&[a, b], EXT_TOUCH) = (args, name) else {
        return Err(format!("@{name} is not the generated external function, or has the wrong arguments"));
    };
    let (a, b) = (a.as_u64(), b.as_u64());
    let objects: Vec<Mem> = (0..u32::MAX).map(Mem::from_u32).take_while(|&m| memory.elem_type(m).is_some()).collect();
    let nonempty: Vec<Mem> = objects.into_iter().filter(|&m| memory.len(m) > 0).collect();
    if nonempty.is_empty() {
        return Err("no memory to touch".into());
    }
    let ro = nonempty[(b % nonempty.len() as u64) as usize];
    let ri = a % memory.len(ro) as u64;
    let wo = nonempty[((b >> 8) % nonempty.len() as u64) as usize];
    let wi = (a >> 8) % memory.len(wo) as u64;
    let read = memory.get(ro, ri as usize).ok_or("read out of bounds")?;
    let elem = memory.elem_type(wo).unwrap_or(Type::I64);
    let value = if read.ty() == elem { read } else { Imm::from_bits(elem, 0) };
    if !memory.set(wo, wi as usize, value) {
        return Err("write out of bounds".into());
    }
    let touches = [Touch { write: false, mem: ro, index: ri }, Touch { write: true, mem: wo, index: wi }];
    Ok((vec![Imm::int(Type::I64, a.wrapping_add(b) as i64)], touches))
}

/// The handler for `@ext_touch` (see [`ext_touch`]).
#[derive(Copy, Clone, Debug, Default)]
pub struct ExternMemory;

impl ExternHandler for ExternMemory {
    fn call(&mut self, name: &str, args: &[Imm], memory: &mut Memory) -> Result<Vec<Imm>, String> {
        ext_touch(name, args, memory).map(|(r, _)| r)
    }
}
