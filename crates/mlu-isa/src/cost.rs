//! The cost model: cycles per instruction and bytes charged per copy, from
//! a [`MachineConfig`]. The simulator's cycle model is built on these
//! formulas, and the lowering's estimates can use them; `docs/mlu-isa.md`
//! states them (each instruction's cost in §4, the cycle model in §5).
//!
//! - Scalar instructions take their latency on the scalar pipe; the front
//!   end issues one instruction per cycle and waits for scalar loads and
//!   stores to finish.
//! - A vector instruction on `b` bytes (its widest operand) takes
//!   `vector_latency + max(1, ⌈b / vector_bytes_per_cycle⌉) · f` cycles, `f`
//!   being `vector_slow_factor` for division, square root and
//!   transcendentals and 1 otherwise: "shorter operands cost 128 bytes".
//! - `mmul` takes `matmul_latency + max(1, ⌈m·k·n / matmul_macs_per_cycle⌉)`.
//! - A copy is charged its bytes, except that DRAM moves whole granules: a
//!   row touching DRAM is charged every granule it touches, and a write
//!   that covers a granule only partly is charged one more granule (the
//!   read of the read-modify-write).
//!
//! Invariant: every function is total (saturating arithmetic, no division
//! by a configuration value that [`MachineConfig::validate`] allows to be
//! zero).

use crate::config::MachineConfig;
use crate::inst::Inst;
use crate::ops::{BinOp, Route, UnOp};
use crate::types::{Space, Ty};

/// The shared bandwidth a copy draws on.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Resource {
    /// The chip's DRAM bandwidth (every copy with a DRAM end).
    Dram,
    /// The cluster's SRAM bandwidth (copies between SRAM and NRAM).
    Sram,
    /// Nothing shared: the core's own Move-DMA between NRAM and WRAM.
    Private,
}

/// The resource a route's bytes flow through.
pub fn resource(route: Route) -> Resource {
    if route.src == Space::Dram || route.dst == Space::Dram {
        Resource::Dram
    } else if route.src == Space::Sram || route.dst == Space::Sram {
        Resource::Sram
    } else {
        Resource::Private
    }
}

/// The latency of a scalar-pipe instruction (other instructions take one
/// issue cycle there).
pub fn scalar_latency(c: &MachineConfig, inst: &Inst) -> u32 {
    match *inst {
        Inst::Binary { op, ty, .. } => match op {
            BinOp::Mul => c.lat_mul,
            BinOp::Sdiv | BinOp::Udiv | BinOp::Srem | BinOp::Urem => c.lat_div,
            BinOp::Fadd | BinOp::Fsub | BinOp::Fmin | BinOp::Fmax | BinOp::Fcopysign => c.lat_fadd,
            BinOp::Fmul => c.lat_fmul,
            BinOp::Fdiv => {
                if ty == Ty::F32 {
                    c.lat_fdiv
                } else {
                    c.lat_div
                }
            }
            _ => c.lat_alu,
        },
        Inst::Unary { op, .. } => match op {
            UnOp::Fceil | UnOp::Ffloor | UnOp::Ftrunc | UnOp::Fnearest => c.lat_fadd,
            UnOp::Fsqrt => c.lat_sqrt,
            UnOp::Fexp | UnOp::Flog => c.lat_exp,
            UnOp::Ftanh | UnOp::Fsigmoid => c.lat_tanh,
            _ => c.lat_alu,
        },
        Inst::Load { addr, .. } => access_latency(c, addr.space),
        // A scalar store to DRAM is always under a granule: read-modify-write.
        Inst::Store { addr, .. } if addr.space == Space::Dram => c.lat_dram.saturating_mul(2),
        Inst::Store { addr, .. } => access_latency(c, addr.space),
        _ => c.lat_alu,
    }
}

fn access_latency(c: &MachineConfig, space: Space) -> u32 {
    match space {
        Space::Nram | Space::Wram => c.lat_nram,
        Space::Sram => c.lat_sram,
        Space::Dram => c.lat_dram,
    }
}

/// Cycles of a vector instruction over `bytes` bytes.
pub fn vector_cycles(c: &MachineConfig, bytes: u64, slow: bool) -> u64 {
    let beats = bytes.div_ceil(c.vector_bytes_per_cycle).max(1);
    let factor = if slow { u64::from(c.vector_slow_factor) } else { 1 };
    u64::from(c.vector_latency).saturating_add(beats.saturating_mul(factor))
}

/// Cycles of `mmul` with dimensions `m`, `k`, `n`.
pub fn matmul_cycles(c: &MachineConfig, m: u64, k: u64, n: u64) -> u64 {
    let macs = m.saturating_mul(k).saturating_mul(n);
    u64::from(c.matmul_latency).saturating_add(macs.div_ceil(c.matmul_macs_per_cycle).max(1))
}

/// The bytes a DRAM access of `len` bytes at `addr` is charged: every
/// granule touched, plus one granule per partly written granule when
/// `write`.
pub fn dram_charged(c: &MachineConfig, addr: u64, len: u64, write: bool) -> u64 {
    if len == 0 {
        return 0;
    }
    let g = c.dram_granule;
    let end = addr.saturating_add(len);
    let first = addr / g;
    let last = (end - 1) / g;
    let granules = last - first + 1;
    let mut charged = granules.saturating_mul(g);
    if write {
        let head_partial = !addr.is_multiple_of(g);
        let tail_partial = !end.is_multiple_of(g);
        let partial = if granules == 1 {
            u64::from(head_partial || tail_partial)
        } else {
            u64::from(head_partial) + u64::from(tail_partial)
        };
        charged = charged.saturating_add(partial.saturating_mul(g));
    }
    charged
}

/// The bytes a copy is charged: per row, the DRAM end's granules (see
/// [`dram_charged`]) or the row's bytes when no end is in DRAM.
pub fn copy_charged(c: &MachineConfig, route: Route, dst: u64, src: u64, row: RowShape) -> u64 {
    let mut total = 0u64;
    for i in 0..row.rows {
        let (d, s) =
            (dst.wrapping_add(i.wrapping_mul(row.dst_stride)), src.wrapping_add(i.wrapping_mul(row.src_stride)));
        let bytes = if route.src == Space::Dram {
            dram_charged(c, s, row.bytes, false)
        } else if route.dst == Space::Dram {
            dram_charged(c, d, row.bytes, true)
        } else {
            row.bytes
        };
        total = total.saturating_add(bytes);
    }
    total
}

/// The shape of a copy: `rows` rows of `bytes` bytes (a 1-D copy is one row).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct RowShape {
    /// Bytes per row.
    pub bytes: u64,
    /// Row count.
    pub rows: u64,
    /// Destination stride.
    pub dst_stride: u64,
    /// Source stride.
    pub src_stride: u64,
}

impl RowShape {
    /// A 1-D copy of `bytes` bytes.
    pub fn flat(bytes: u64) -> RowShape {
        RowShape { bytes, rows: 1, dst_stride: 0, src_stride: 0 }
    }
}

/// The engine rate of a route (bytes per cycle, before sharing).
pub fn copy_rate(c: &MachineConfig, route: Route) -> u64 {
    if route.pipe() == crate::Pipe::Io { c.io_dma_bytes_per_cycle } else { c.move_dma_bytes_per_cycle }
}

/// Cycles from a copy's issue to its first byte.
pub fn copy_latency(c: &MachineConfig, route: Route) -> u32 {
    if route.pipe() == crate::Pipe::Io { c.io_dma_latency } else { c.move_dma_latency }
}

/// The uncontended cycles of a copy's data phase: its charged bytes at the
/// smaller of its engine rate and its resource's bandwidth.
pub fn copy_cycles_alone(c: &MachineConfig, route: Route, charged: u64) -> u64 {
    let rate = match resource(route) {
        Resource::Dram => copy_rate(c, route).min(c.dram_bytes_per_cycle),
        Resource::Sram => copy_rate(c, route).min(c.sram_bytes_per_cycle),
        Resource::Private => copy_rate(c, route),
    };
    charged.div_ceil(rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn granules_and_read_modify_write() {
        let c = MachineConfig::mlu370();
        assert_eq!(dram_charged(&c, 0, 64, false), 64);
        assert_eq!(dram_charged(&c, 0, 1, false), 64);
        assert_eq!(dram_charged(&c, 60, 8, false), 128);
        assert_eq!(dram_charged(&c, 0, 64, true), 64);
        assert_eq!(dram_charged(&c, 0, 4, true), 128);
        assert_eq!(dram_charged(&c, 60, 8, true), 256);
        assert_eq!(dram_charged(&c, 64, 128, true), 128);
        assert_eq!(dram_charged(&c, 0, 0, true), 0);
        let r = Route::new(Space::Nram, Space::Dram);
        assert_eq!(
            copy_charged(&c, r, 4, 0, RowShape { bytes: 64, rows: 2, dst_stride: 128, src_stride: 64 }),
            2 * 256
        );
    }

    #[test]
    fn vector_and_matrix_cycles() {
        let c = MachineConfig::mlu370();
        assert_eq!(vector_cycles(&c, 4, false), 8 + 1);
        assert_eq!(vector_cycles(&c, 4096, false), 8 + 32);
        assert_eq!(vector_cycles(&c, 4096, true), 8 + 128);
        assert_eq!(matmul_cycles(&c, 16, 16, 16), 16 + 16);
        assert_eq!(copy_cycles_alone(&c, Route::new(Space::Dram, Space::Nram), 4096), 64);
    }
}
