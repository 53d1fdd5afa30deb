//! The executor: frames, control flow, and dispatch by format.
//!
//! Invariants: one loop runs every instruction of every frame; a call
//! pushes a [`Frame`] and a `ret` pops one, so IR recursion never becomes
//! Rust recursion. Fuel is checked before each instruction and before each
//! tensor instruction's element work, so no run exceeds its fuel by more
//! than one instruction's worth of bookkeeping.

use super::config::{Config, Stats};
use super::memory::{Memory, WriteError};
use super::observe::{MemEvent, Observer, StackEntry};
use super::ops::{self, truthy};
use super::tensor;
use super::trap::{Trap, TrapKind};
use crate::access::scalar_access_width;
use crate::entities::{Block, FuncId, Inst, Var};
use crate::function::Function;
use crate::imm::Imm;
use crate::instructions::{Callee, Operand};
use crate::module::Module;
use crate::opcode::{Format, Opcode};
use crate::types::Type;
use cranelift_entity::EntityRef;

/// Executes calls to external functions on the interpreter's behalf.
pub trait ExternHandler {
    /// Calls external function `name` with `args`; returns its results (of
    /// the declared types) or why it failed, which the interpreter turns
    /// into a [`TrapKind::ExternCall`] trap naming the function.
    fn call(&mut self, name: &str, args: &[Imm], memory: &mut Memory) -> Result<Vec<Imm>, ExternError>;
}

/// Why an external function failed ([`ExternHandler::call`]).
///
/// The handler is the client's code, so the library cannot enumerate its
/// reasons: the cases the interpreter's own API produces are typed (the
/// handler has no such function; a [`Memory::write`] it made failed, kept
/// as the [`WriteError`], so `?` works on it), and anything else is the
/// handler's own error, boxed and kept typed for [`Error::source`](std::error::Error::source).
#[derive(Debug)]
pub enum ExternError {
    /// The handler implements no external function of this name.
    Unknown,
    /// A write to the interpreter's memory failed.
    Memory(WriteError),
    /// The handler's own error.
    Handler(Box<dyn std::error::Error + Send + Sync>),
}

impl core::fmt::Display for ExternError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ExternError::Unknown => f.write_str("the extern handler does not implement it"),
            ExternError::Memory(e) => e.fmt(f),
            ExternError::Handler(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ExternError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExternError::Unknown => None,
            ExternError::Memory(e) => Some(e),
            ExternError::Handler(e) => Some(&**e),
        }
    }
}

impl From<WriteError> for ExternError {
    fn from(e: WriteError) -> ExternError {
        ExternError::Memory(e)
    }
}

struct Frame<'m> {
    func: FuncId,
    code: &'m Function,
    regs: Vec<Option<Imm>>,
    block: Block,
    next: Option<Inst>,
    /// The caller's `call` instruction, whose results receive our return values.
    call_site: Option<Inst>,
    /// This frame's serial number (for observers).
    serial: u64,
}

/// A reference interpreter over one module, keeping memory and statistics
/// across calls.
pub struct Interpreter<'m> {
    module: &'m Module,
    config: Config,
    memory: Memory,
    stats: Stats,
    fuel_left: u64,
    handler: Option<Box<dyn ExternHandler + 'm>>,
    /// Scratch for phi values on block entry.
    phi_scratch: Vec<(Var, Option<Imm>)>,
    /// The observer, if one is installed, and the call stack it is shown.
    observer: Option<Box<dyn Observer + 'm>>,
    obs_stack: Vec<StackEntry>,
    frames_made: u64,
}

impl core::fmt::Debug for Interpreter<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Interpreter").field("fuel_left", &self.fuel_left).field("stats", &self.stats).finish()
    }
}

type R<T> = Result<T, Trap>;

impl<'m> Interpreter<'m> {
    /// An interpreter with fresh memory (the module's initial values).
    pub fn new(module: &'m Module, config: Config) -> R<Interpreter<'m>> {
        let memory = Memory::new(module, config.max_memory_bytes)?;
        Ok(Interpreter {
            module,
            config,
            memory,
            stats: Stats::default(),
            fuel_left: config.fuel,
            handler: None,
            phi_scratch: Vec::new(),
            observer: None,
            obs_stack: Vec::new(),
            frames_made: 0,
        })
    }

    /// Installs a handler for calls to external functions.
    pub fn set_extern_handler(&mut self, handler: Box<dyn ExternHandler + 'm>) {
        self.handler = Some(handler);
    }

    /// Installs an observer of memory accesses and block entries (see
    /// [`Observer`]); replaces any previous one.
    pub fn set_observer(&mut self, observer: Box<dyn Observer + 'm>) {
        self.observer = Some(observer);
    }

    /// Removes the observer and returns it.
    pub fn take_observer(&mut self) -> Option<Box<dyn Observer + 'm>> {
        self.observer.take()
    }

    /// The memory, to read or to set up before a call.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The memory, for editing.
    pub fn memory_mut(&mut self) -> &mut Memory {
        &mut self.memory
    }

    /// Counts so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Memory and counts, consuming the interpreter.
    pub fn into_parts(self) -> (Memory, Stats) {
        (self.memory, self.stats)
    }

    fn func(&self, f: FuncId) -> R<&'m Function> {
        let module: &'m Module = self.module;
        module.function(f).ok_or_else(|| Trap::new(TrapKind::Malformed, format!("{f} is not a function of the module")))
    }

    /// Runs `func` on `args` (which must match its signature) to completion.
    pub fn call(&mut self, func: FuncId, args: &[Imm]) -> R<Vec<Imm>> {
        let f = self.func(func)?;
        let sig = &f.signature().params;
        if args.len() != sig.len() || args.iter().zip(sig).any(|(a, &t)| a.ty() != t) {
            let got: Vec<String> = args.iter().map(|a| a.ty().to_string()).collect();
            let want: Vec<String> = sig.iter().map(|t| t.to_string()).collect();
            let mut t =
                Trap::new(TrapKind::BadArguments, format!("expected ({}), got ({})", want.join(", "), got.join(", ")));
            t.func = Some(func);
            return Err(t);
        }
        let mut frames = vec![self.new_frame(func, args)?];
        self.run(&mut frames)
    }

    fn new_frame(&mut self, func: FuncId, args: &[Imm]) -> R<Frame<'m>> {
        let f = self.func(func)?;
        let Some(entry) = f.entry_block() else {
            let mut t = Trap::new(TrapKind::Malformed, "the function has no blocks");
            t.func = Some(func);
            return Err(t);
        };
        let mut regs = vec![None; f.num_vars()];
        for (&p, &a) in f.params().iter().zip(args) {
            if let Some(slot) = regs.get_mut(p.index()) {
                *slot = Some(a);
            }
        }
        self.stats.reserve(func, f.num_insts());
        self.frames_made += 1;
        let serial = self.frames_made;
        Ok(Frame { func, code: f, regs, block: entry, next: f.layout().first_inst(entry), call_site: None, serial })
    }

    fn burn(&mut self, amount: u64) -> R<()> {
        if self.fuel_left < amount {
            self.stats.fuel_used += self.fuel_left;
            self.fuel_left = 0;
            return Err(Trap::new(TrapKind::FuelExhausted, format!("ran out of fuel after {}", self.config.fuel)));
        }
        self.fuel_left -= amount;
        self.stats.fuel_used += amount;
        Ok(())
    }

    fn run(&mut self, frames: &mut Vec<Frame<'m>>) -> R<Vec<Imm>> {
        loop {
            let depth = frames.len();
            let frame = frames.last_mut().expect("run is called with a frame and returns when the last pops");
            let (fid, block, f) = (frame.func, frame.block, frame.code);
            let Some(inst) = frame.next else {
                let mut t = Trap::new(TrapKind::Malformed, format!("{block} ends without a terminator"));
                t.func = Some(fid);
                return Err(t);
            };
            frame.next = f.layout().next_inst(inst);
            self.burn(1).map_err(|t| t.at(fid, inst))?;
            match self.step(f, fid, inst, frames, depth).map_err(|t| t.at(fid, inst))? {
                Flow::Next => {}
                Flow::Return(values) => {
                    let done = frames.pop().expect("the returning frame");
                    let Some(caller) = frames.last_mut() else { return Ok(values) };
                    let cf = caller.code;
                    let site = done.call_site.expect("callee frames record their call site");
                    write_results(cf, caller, site, &values).map_err(|t| t.at(caller.func, site))?;
                }
            }
        }
    }

    fn step(&mut self, f: &'m Function, fid: FuncId, inst: Inst, frames: &mut Vec<Frame<'m>>, depth: usize) -> R<Flow> {
        if self.observer.is_some() {
            // The stack an observer sees: each frame's current instruction
            // is the call site recorded by the frame above it.
            self.obs_stack.clear();
            for (k, fr) in frames.iter().enumerate() {
                let at = frames.get(k + 1).and_then(|c| c.call_site).unwrap_or(inst);
                self.obs_stack.push(StackEntry { activation: fr.serial, func: fr.func, inst: at });
            }
        }
        let frame = frames.last_mut().expect("a frame is executing");
        let data = f.inst(inst).expect("the layout only holds existing instructions");
        let op = data.opcode();
        if let Some(g) = data.guard() {
            let v = read_var(f, frame, g.var)?;
            if truthy(v) == g.negated {
                self.stats.guard_skipped += 1;
                // SSA form: the results take their fallbacks (read first,
                // then written, like phis); without fallbacks they keep
                // their values.
                let keeps = f.fallbacks(inst);
                if !keeps.is_empty() {
                    let values: Vec<Option<Imm>> = keeps.iter().map(|&k| read_maybe(f, frame, k)).collect::<R<_>>()?;
                    let results = f.results(inst);
                    for (i, v) in values.into_iter().enumerate() {
                        set(frame, results, i, v)?;
                    }
                }
                return Ok(Flow::Next);
            }
        }
        self.stats.count(fid, inst, op);
        let ops = f.operands(inst);
        let results = f.results(inst);
        let arg = |frame: &Frame<'_>, i: usize| -> R<Imm> {
            let o = *ops.get(i).ok_or_else(|| malformed(op, "too few operands"))?;
            read(f, frame, o)
        };
        match op.format() {
            Format::Undef => set(frame, results, 0, None)?,
            Format::Const | Format::Unary => {
                let v = if op == Opcode::Copy || op == Opcode::Const {
                    // `copy` passes an undefined value on (docs/ir.md §6).
                    let o = *ops.first().ok_or_else(|| malformed(op, "no operand"))?;
                    read_maybe(f, frame, o)?
                } else {
                    Some(ops::unary(op, arg(frame, 0)?).map_err(op_trap)?)
                };
                set(frame, results, 0, v)?;
            }
            Format::Binary => {
                let v = ops::binary(op, arg(frame, 0)?, arg(frame, 1)?).map_err(op_trap)?;
                set(frame, results, 0, Some(v))?;
            }
            Format::Select => {
                let (c, a, b) = (arg(frame, 0)?, arg(frame, 1)?, arg(frame, 2)?);
                set(frame, results, 0, Some(if truthy(c) { a } else { b }))?;
            }
            Format::Compare => {
                let (a, b) = (arg(frame, 0)?, arg(frame, 1)?);
                let v = match (f.int_cc(inst), f.float_cc(inst)) {
                    (Some(cc), _) => ops::int_compare(cc, a, b),
                    (_, Some(cc)) => ops::float_compare(cc, a, b),
                    _ => return Err(malformed(op, "no condition")),
                };
                set(frame, results, 0, Some(v))?;
            }
            Format::Convert => {
                let dst = results.first().and_then(|&r| f.var_type(r)).ok_or_else(|| malformed(op, "no result"))?;
                let v = ops::convert(op, arg(frame, 0)?, dst).map_err(op_trap)?;
                set(frame, results, 0, Some(v))?;
            }
            Format::Load | Format::Store => {
                let mem = f.scalar_mem(inst).ok_or_else(|| malformed(op, "no memory object"))?;
                let index = ops::sval(arg(frame, 0)?);
                let elem = self.memory.elem_type(mem).ok_or_else(|| malformed(op, "no such object"))?;
                let (value_ty, stored) = if op == Opcode::Load {
                    (results.first().and_then(|&r| f.var_type(r)).ok_or_else(|| malformed(op, "no result"))?, None)
                } else {
                    let v = arg(frame, 1)?;
                    (v.ty(), Some(v))
                };
                // One element of the element type, or `bytes(T)` elements of
                // an `i8` object, little-endian (docs/ir.md §6.6).
                let width = scalar_access_width(elem, value_ty)
                    .ok_or_else(|| malformed(op, &format!("a {value_ty} access to an object of {elem}")))?;
                let len = self.memory.len(mem);
                if index < 0 || index as u64 + u64::from(width) > len as u64 {
                    let what = if width == 1 { format!("index {index}") } else { format!("{width} bytes at {index}") };
                    return Err(Trap::new(TrapKind::OutOfBounds, format!("{what} outside {len} elements")));
                }
                let at = index as usize;
                if let Some(obs) = self.observer.as_mut() {
                    let write = stored.is_some();
                    let ev = MemEvent {
                        stack: &self.obs_stack,
                        access: 0,
                        step: self.stats.executed,
                        write,
                        mem,
                        start: at as u64,
                        len: u64::from(width),
                    };
                    obs.memory(&ev);
                }
                match stored {
                    None if width == 1 => {
                        let v = self.memory.get(mem, at).ok_or_else(|| malformed(op, "no such object"))?;
                        set(frame, results, 0, Some(v))?;
                    }
                    None => {
                        let bytes = &self.memory.raw(mem)[at..at + width as usize];
                        // Each element holds a canonical `i8`; its low byte is the byte.
                        let bits = bytes.iter().rev().fold(0u64, |acc, &b| (acc << 8) | (b & 0xff));
                        set(frame, results, 0, Some(Imm::from_bits(value_ty, bits)))?;
                    }
                    Some(v) if width == 1 => {
                        if !self.memory.set(mem, at, v) {
                            return Err(malformed(op, "stored value has the wrong type"));
                        }
                    }
                    Some(v) => {
                        let bits = v.as_u64();
                        for (k, slot) in self.memory.raw_mut(mem)[at..at + width as usize].iter_mut().enumerate() {
                            *slot = Imm::int(Type::I8, (bits >> (8 * k)) as i64).bits();
                        }
                    }
                }
            }
            Format::TensorMap | Format::TensorReduce | Format::Matmul => {
                let frame_ref = &*frame;
                let read_op = |o: Operand| read(f, frame_ref, o);
                let mut fuel = |n: u64| -> R<()> {
                    self.stats.elements += n;
                    burn(&mut self.fuel_left, &mut self.stats.fuel_used, self.config.fuel, n)
                };
                let observer = &mut self.observer;
                let stack = &self.obs_stack;
                let step = self.stats.executed;
                let mut observe = |access: u32, write: bool, mem, start: usize, len: usize| {
                    if let Some(obs) = observer.as_mut() {
                        let ev = MemEvent { stack, access, step, write, mem, start: start as u64, len: len as u64 };
                        obs.memory(&ev);
                    }
                };
                let value = tensor::execute(f, inst, &mut self.memory, &read_op, &mut fuel, &mut observe)?;
                if let Some(v) = value {
                    set(frame, results, 0, Some(v))?;
                }
            }
            Format::Call => {
                let callee = f.callee(inst).ok_or_else(|| malformed(op, "no callee"))?;
                if let Some(obs) = self.observer.as_mut() {
                    obs.call(&self.obs_stack, self.stats.executed);
                }
                let args: Vec<Imm> = (0..ops.len()).map(|i| arg(frame, i)).collect::<R<_>>()?;
                self.stats.calls += 1;
                match callee {
                    Callee::Func(g) => {
                        if depth >= self.config.max_call_depth as usize {
                            return Err(Trap::new(
                                TrapKind::CallDepthExceeded,
                                format!("more than {} nested calls", self.config.max_call_depth),
                            ));
                        }
                        let gf = self.func(g)?;
                        if gf.signature().params.len() != args.len() {
                            return Err(malformed(op, "argument count differs from the callee's"));
                        }
                        let mut callee_frame = self.new_frame(g, &args)?;
                        callee_frame.call_site = Some(inst);
                        frames.push(callee_frame);
                    }
                    Callee::Ext(e) => {
                        let ext = self.module.ext_func(e).ok_or_else(|| malformed(op, "unknown external function"))?;
                        let Some(handler) = self.handler.as_mut() else {
                            return Err(Trap::new(
                                TrapKind::ExternCall,
                                format!("call to external function @{} and no handler is installed", ext.name),
                            ));
                        };
                        let values = handler
                            .call(&ext.name, &args, &mut self.memory)
                            .map_err(|why| Trap::new(TrapKind::ExternCall, format!("@{}: {why}", ext.name)))?;
                        let frame = frames.last_mut().expect("the calling frame");
                        write_results(f, frame, inst, &values)?;
                    }
                }
            }
            Format::Intrinsic => {
                return Err(Trap::new(
                    TrapKind::Unsupported,
                    format!("intrinsic \"{}\" is not modelled", f.intrinsic_name(inst).unwrap_or("?")),
                ));
            }
            Format::Phi => return Err(malformed(op, "phi after a non-phi instruction")),
            Format::Jump | Format::Branch | Format::Switch => {
                let target = match op {
                    Opcode::Jump => f.successors(inst).next(),
                    Opcode::Br => f.successors(inst).nth(if truthy(arg(frame, 0)?) { 0 } else { 1 }),
                    _ => {
                        let v = arg(frame, 0)?.as_i64();
                        let jt = f.switch_table(inst).ok_or_else(|| malformed(op, "no switch table"))?;
                        Some(jt.cases.iter().find(|c| c.0 == v).map_or(jt.default, |c| c.1))
                    }
                };
                let target = target.ok_or_else(|| malformed(op, "no target"))?;
                self.enter_block(f, fid, frame, target)?;
            }
            Format::Ret => {
                let values: Vec<Imm> = (0..ops.len()).map(|i| arg(frame, i)).collect::<R<_>>()?;
                return Ok(Flow::Return(values));
            }
            Format::Trap => return Err(Trap::new(TrapKind::Trap, "reached a `trap` instruction")),
        }
        Ok(Flow::Next)
    }

    /// Moves `frame` into `to`, executing its phis in parallel.
    fn enter_block(&mut self, f: &Function, fid: FuncId, frame: &mut Frame<'_>, to: Block) -> R<()> {
        if !f.layout().is_block_inserted(to) {
            return Err(Trap::new(TrapKind::Malformed, format!("branch to {to}, which is not in the layout")));
        }
        let from = frame.block;
        if let Some(obs) = self.observer.as_mut() {
            obs.block(frame.serial, fid, from, to);
        }
        self.phi_scratch.clear();
        let mut cursor = f.layout().first_inst(to);
        while let Some(inst) = cursor.filter(|&i| f.opcode(i) == Opcode::Phi) {
            self.burn(1).map_err(|t| t.at(fid, inst))?;
            self.stats.count(fid, inst, Opcode::Phi);
            let incoming = f.phi_incoming(inst).find(|&(b, _)| b == from);
            let Some((_, value)) = incoming else {
                return Err(Trap::new(TrapKind::Malformed, format!("phi has no value for {from}")).at(fid, inst));
            };
            let v = read_maybe(f, frame, value).map_err(|t| t.at(fid, inst))?;
            let dst = *f.results(inst).first().ok_or_else(|| malformed(Opcode::Phi, "no result").at(fid, inst))?;
            self.phi_scratch.push((dst, v));
            cursor = f.layout().next_inst(inst);
        }
        for &(dst, v) in &self.phi_scratch {
            if let Some(slot) = frame.regs.get_mut(dst.index()) {
                *slot = v;
            }
        }
        frame.block = to;
        frame.next = cursor;
        Ok(())
    }
}

enum Flow {
    Next,
    Return(Vec<Imm>),
}

fn burn(left: &mut u64, used: &mut u64, total: u64, amount: u64) -> R<()> {
    if *left < amount {
        *used += *left;
        *left = 0;
        return Err(Trap::new(TrapKind::FuelExhausted, format!("ran out of fuel after {total}")));
    }
    *left -= amount;
    *used += amount;
    Ok(())
}

fn malformed(op: Opcode, why: &str) -> Trap {
    Trap::new(TrapKind::Malformed, format!("`{op}`: {why}"))
}

fn op_trap((kind, message): (TrapKind, String)) -> Trap {
    Trap::new(kind, message)
}

fn read_var(f: &Function, frame: &Frame<'_>, v: Var) -> R<Imm> {
    match frame.regs.get(v.index()) {
        Some(Some(x)) => Ok(*x),
        Some(None) => Err(Trap::new(
            TrapKind::UndefinedValue,
            format!("%{} is read before any definition on this path", f.var_name(v)),
        )),
        None => Err(Trap::new(TrapKind::Malformed, format!("{v} is not a var of this function"))),
    }
}

fn read(f: &Function, frame: &Frame<'_>, op: Operand) -> R<Imm> {
    match op.as_var() {
        Some(v) => read_var(f, frame, v),
        None => constant(f, op),
    }
}

/// A read that lets an undefined value through (for `copy` and phis).
fn read_maybe(f: &Function, frame: &Frame<'_>, op: Operand) -> R<Option<Imm>> {
    match op.as_var() {
        Some(v) => frame
            .regs
            .get(v.index())
            .copied()
            .ok_or_else(|| Trap::new(TrapKind::Malformed, format!("{v} is not a var of this function"))),
        None => constant(f, op).map(Some),
    }
}

/// The immediate of a constant operand (a trap for one the function lacks).
fn constant(f: &Function, op: Operand) -> R<Imm> {
    op.as_const()
        .and_then(|c| f.imm(c))
        .ok_or_else(|| Trap::new(TrapKind::Malformed, format!("{op:?} is not a constant of this function")))
}

fn set(frame: &mut Frame<'_>, results: &[Var], i: usize, v: Option<Imm>) -> R<()> {
    let dst = *results.get(i).ok_or_else(|| Trap::new(TrapKind::Malformed, "missing result"))?;
    let slot = frame.regs.get_mut(dst.index()).ok_or_else(|| Trap::new(TrapKind::Malformed, "unknown result var"))?;
    *slot = v;
    Ok(())
}

fn write_results(f: &Function, frame: &mut Frame<'_>, site: Inst, values: &[Imm]) -> R<()> {
    let results = f.results(site);
    if results.len() != values.len() {
        return Err(Trap::new(
            TrapKind::Malformed,
            format!("{} values returned to {} results", values.len(), results.len()),
        ));
    }
    for (i, &v) in values.iter().enumerate() {
        set(frame, results, i, Some(v))?;
    }
    Ok(())
}
