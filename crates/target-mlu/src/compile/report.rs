//! The compile report: placement map, buffers, syncs with their reasons,
//! registers, and a static cycle estimate from the cost model.
//!
//! Invariant: plain data, printed deterministically (objects in address
//! order per space, sync reasons in first-seen order).

use super::emit::SyncNote;
use super::place::{Placed, PlacedKind};
use super::regalloc::{Allocation, VirtualCode};
use mlu_isa::{Inst, MachineConfig, Operand, Pipe, Route, Space, cost};
use std::io::{self, Write};

/// What a compile did.
#[derive(Clone, Debug)]
pub struct Report {
    /// Every object with its address.
    pub placement: Vec<Placed>,
    /// Bytes of each NRAM staging buffer.
    pub tile_bytes: u64,
    /// Every inserted sync, with its reason.
    pub syncs: Vec<SyncNote>,
    /// How each tensor map was buffered, and why (one line per map).
    pub buffering: Vec<String>,
    /// How the kernel uses the cores asked for, and why.
    pub cores: String,
    /// Instructions of the program.
    pub instructions: usize,
    /// Virtual registers (webs) of the lowered code.
    pub vregs: u32,
    /// GPRs the allocation uses.
    pub in_registers: u32,
    /// The allocator that made the allocation (and why, for a fallback).
    pub allocator: String,
    /// Spill slots.
    pub spill_slots: u32,
    /// Instructions the allocator added (reloads, spills, moves, jumps).
    pub spill_code: usize,
    /// The cost model's cycles for one pass over the code, each instruction
    /// once (loops counted once, register counts as one tile): a size
    /// measure, not a prediction; `keel run-mlu` gives simulated cycles.
    pub static_cycles: u64,
}

impl Report {
    pub(crate) fn new(
        alloc: &Allocation,
        vcode: &VirtualCode,
        mut placement: Vec<Placed>,
        syncs: Vec<SyncNote>,
        buffering: Vec<String>,
        tile_bytes: u64,
        config: &MachineConfig,
    ) -> Report {
        placement.sort_by_key(|p| (p.space.index(), p.addr));
        let static_cycles = alloc.program.insts.iter().map(|i| static_cost(config, i, tile_bytes)).sum();
        Report {
            placement,
            tile_bytes,
            syncs,
            buffering,
            cores: String::new(),
            instructions: alloc.program.insts.len(),
            vregs: vcode.vregs,
            in_registers: alloc.in_registers,
            allocator: alloc.allocator.clone(),
            spill_slots: alloc.spill_slots,
            spill_code: alloc.program.insts.len() - vcode.program.insts.len(),
            static_cycles,
        }
    }

    /// Prints the report as text.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "; placement (space, address, bytes, object, kind)")?;
        for p in &self.placement {
            writeln!(
                out,
                ";   {:<5} {:>10} {:>10}  @{}  ({})",
                p.space.name(),
                p.addr,
                p.bytes,
                p.name,
                p.kind.name()
            )?;
        }
        for sp in Space::ALL {
            let used: u64 =
                self.placement.iter().filter(|p| p.space == sp).map(|p| p.addr + p.bytes).max().unwrap_or(0);
            writeln!(out, ";   {} used: {used} bytes", sp.name())?;
        }
        let buffers = self.placement.iter().filter(|p| matches!(p.kind, PlacedKind::Stage | PlacedKind::MatmulBuffer));
        writeln!(out, "; buffers ({} bytes per staging buffer)", self.tile_bytes)?;
        for b in buffers {
            writeln!(out, ";   @{}: {} bytes in {}", b.name, b.bytes, b.space.name())?;
        }
        for (line, n) in counted(self.buffering.iter().map(String::as_str)) {
            writeln!(out, ";   {n:>4} × {line}")?;
        }
        writeln!(out, "; cores: {}", self.cores)?;
        writeln!(out, "; syncs and barriers: {} inserted", self.syncs.len())?;
        let lines: Vec<String> = self.syncs.iter().map(|s| format!("{}: {}", s.inst.mnemonic(), s.reason)).collect();
        for (line, n) in counted(lines.iter().map(String::as_str)) {
            writeln!(out, ";   {n:>4} × {line}")?;
        }
        writeln!(
            out,
            "; registers ({}): {} virtual (webs), {} GPRs used, {} spill slots, {} inserted instructions (reloads, spills, moves, jumps)",
            self.allocator, self.vregs, self.in_registers, self.spill_slots, self.spill_code
        )?;
        writeln!(out, "; instructions: {}", self.instructions)?;
        writeln!(out, "; static cycles (each instruction once, cost model): {}", self.static_cycles)
    }
}

/// Distinct lines with their counts, in first-seen order.
fn counted<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
    let mut out: Vec<(&str, usize)> = Vec::new();
    let mut index: rustc_hash::FxHashMap<&str, usize> = Default::default();
    for l in lines {
        match index.get(l) {
            Some(&k) => out[k].1 += 1,
            None => {
                index.insert(l, out.len());
                out.push((l, 1));
            }
        }
    }
    out
}

fn imm(o: &Operand, default: u64) -> u64 {
    match o {
        Operand::Imm(v) => *v,
        Operand::Reg(_) => default,
    }
}

/// One instruction's cycles in the cost model, ignoring overlap.
fn static_cost(c: &MachineConfig, inst: &Inst, tile: u64) -> u64 {
    match inst {
        Inst::Dma { dst, src, bytes } => {
            let route = Route::new(src.space, dst.space);
            let b = imm(bytes, tile);
            u64::from(cost::copy_latency(c, route)) + cost::copy_cycles_alone(c, route, b)
        }
        Inst::Matmul { ty, m, k, n, .. } => {
            let d = |o: &Operand| imm(o, (tile / ty.bytes()).max(1));
            cost::matmul_cycles(c, d(m), d(k), d(n))
        }
        Inst::VBinary { ty, n, op, .. } => cost::vector_cycles(c, imm(n, tile / ty.bytes()) * ty.bytes(), op.slow()),
        Inst::VUnary { ty, n, op, .. } => cost::vector_cycles(c, imm(n, tile / ty.bytes()) * ty.bytes(), op.slow()),
        Inst::VFma { ty, n, .. } | Inst::VFill { ty, n, .. } | Inst::VReduce { ty, n, .. } => {
            cost::vector_cycles(c, imm(n, tile / ty.bytes()) * ty.bytes(), false)
        }
        i if i.pipe() == Pipe::Scalar => u64::from(cost::scalar_latency(c, i)),
        _ => 1,
    }
}
