//! What a run may use ([`Config`]: fuel, call depth, memory) and what it
//! counted ([`Stats`]: executions per opcode and per instruction).
//!
//! Invariant: counts are two indexed increments per instruction executed,
//! in tables sized when a function is first entered.

use crate::entities::{FuncId, Inst};
use crate::opcode::Opcode;

/// Limits of one interpreter.
#[derive(Copy, Clone, Debug)]
pub struct Config {
    /// Fuel for the whole run (see the module doc for what costs fuel).
    pub fuel: u64,
    /// Deepest IR call stack.
    pub max_call_depth: u32,
    /// Largest interpreter storage for memory objects, in bytes.
    pub max_memory_bytes: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config { fuel: 100_000_000, max_call_depth: 1000, max_memory_bytes: 1 << 30 }
    }
}

/// Dynamic counts of one run.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    /// Instructions executed (guard passed or absent), phis and terminators
    /// included.
    pub executed: u64,
    /// Guarded instructions whose guard failed.
    pub guard_skipped: u64,
    /// Tensor elements processed.
    pub elements: u64,
    /// IR calls made (to module functions and externals).
    pub calls: u64,
    /// Fuel consumed.
    pub fuel_used: u64,
    by_opcode: Vec<u64>,
    by_inst: Vec<Vec<u64>>,
}

impl Stats {
    /// Sizes the counters of `func` (done when a frame is created, so that
    /// counting is two indexed increments).
    pub(crate) fn reserve(&mut self, func: FuncId, insts: usize) {
        if self.by_opcode.is_empty() {
            self.by_opcode = vec![0; Opcode::ALL.len()];
        }
        let f = func.as_u32() as usize;
        if self.by_inst.len() <= f {
            self.by_inst.resize(f + 1, Vec::new());
        }
        if self.by_inst[f].len() < insts {
            self.by_inst[f].resize(insts, 0);
        }
    }

    #[inline]
    pub(crate) fn count(&mut self, func: FuncId, inst: Inst, op: Opcode) {
        self.executed += 1;
        if let Some(n) = self.by_opcode.get_mut(op as usize) {
            *n += 1;
        }
        if let Some(n) = self.by_inst.get_mut(func.as_u32() as usize).and_then(|v| v.get_mut(inst.as_u32() as usize)) {
            *n += 1;
        }
    }

    /// How many times instructions with this opcode executed.
    pub fn opcode_count(&self, op: Opcode) -> u64 {
        self.by_opcode.get(op as usize).copied().unwrap_or(0)
    }

    /// How many times one instruction executed.
    pub fn inst_count(&self, func: FuncId, inst: Inst) -> u64 {
        self.by_inst.get(func.as_u32() as usize).and_then(|v| v.get(inst.as_u32() as usize)).copied().unwrap_or(0)
    }

    /// `(opcode, count)` for every opcode that executed, in opcode order.
    pub fn opcode_counts(&self) -> Vec<(Opcode, u64)> {
        Opcode::ALL.iter().map(|&op| (op, self.opcode_count(op))).filter(|&(_, n)| n > 0).collect()
    }

    /// `(function, instruction, count)` for every instruction that
    /// executed, in id order.
    pub fn inst_counts(&self) -> Vec<(FuncId, Inst, u64)> {
        let mut out = Vec::new();
        for (f, per) in self.by_inst.iter().enumerate() {
            for (i, &n) in per.iter().enumerate() {
                if n > 0 {
                    out.push((FuncId::from_u32(f as u32), Inst::from_u32(i as u32), n));
                }
            }
        }
        out
    }
}
