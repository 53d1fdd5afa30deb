//! Copies (`dma`, `dma2d`): checks, fuel, race check, then the bytes, one
//! row at a time.
//!
//! A copy of `rows` rows of `bytes` bytes acts as if every source row were
//! read before any destination row is written (later rows win where
//! destination rows overlap). Nothing here grows with `rows × bytes`
//! (issue 30: one `dma2d` of 10^8 one-byte rows used to gather every row
//! and list every row's access before its fuel was charged, and aborted at
//! 3.2 GB):
//! - the fuel (one unit per row and per 64 bytes) is charged before any
//!   per-row work, so a copy the fuel does not cover stops at once;
//! - the race detector is handed each row's access as an iterator, never
//!   a list, and charges what it records against the host memory budget;
//! - rows are copied in place, in order, when the source and destination
//!   ranges are in different memories or disjoint (the source is then
//!   never written, so this equals reading every row first); only when
//!   they overlap is the source staged in a scratch buffer, of
//!   `min(rows × bytes, source extent)` bytes (the rows, or the whole
//!   source range when the rows overlap each other), which is at most the
//!   memory's size and is charged against the budget before it is taken.
//!
//! Invariant: every check (bounds, alignment, budget, fuel, races) comes
//! before the first byte is written, as for every instruction.

use super::{Machine, Step};
use crate::memory::Memory;
use crate::race::{INTERVAL_BYTES, MemAccess};
use crate::trap::Trap;
use mlu_isa::cost::{self, RowShape};
use mlu_isa::{Addr, Route, Space};

/// Scratch capacity kept between instructions; a larger staging buffer is
/// released after its copy, so it is not held outside the budget.
const KEEP_SCRATCH: usize = 1 << 20;

impl Machine<'_> {
    /// A 1-D or 2-D copy.
    pub(super) fn copy(&mut self, c: usize, pc: u32, dst: Addr, src: Addr, shape: RowShape) -> Result<Step, Trap> {
        let route = Route::new(src.space, dst.space);
        let extent = |stride: u64| {
            if shape.rows == 0 { 0 } else { (shape.rows - 1).saturating_mul(stride).saturating_add(shape.bytes) }
        };
        let (de, se) = (extent(shape.dst_stride), extent(shape.src_stride));
        let wa = |s: Space| if s == Space::Wram { self.cfg.wram_align } else { 1 };
        let d = self.range(c, pc, &dst, de, wa(dst.space), "the destination")?;
        let s = self.range(c, pc, &src, se, wa(src.space), "the source")?;
        let contiguous = shape.rows <= 1 || (shape.dst_stride == shape.bytes && shape.src_stride == shape.bytes);
        let total = shape.bytes.saturating_mul(shape.rows);
        // Both ranges were checked against one memory: they fit in usize.
        let overlap = !contiguous && dst.space == src.space && d < s + se as usize && s < d + de as usize;
        let stage = if overlap { total.min(se) } else { 0 };
        let race_bytes = self.race.intervals.saturating_mul(INTERVAL_BYTES);
        if stage > 0 && self.host_memories.saturating_add(race_bytes).saturating_add(stage) > self.host_limit {
            let what = format!(
                "staging this copy's source ({stage} bytes; it overlaps the destination) with the race \
                 detector's {} recorded byte ranges",
                self.race.intervals
            );
            return Err(self.host_memory_trap(c, pc, &what, stage.saturating_add(race_bytes)));
        }
        self.burn(c, pc, total / 64 + shape.rows)?;
        // A contiguous copy is one access per side (even of 0 bytes).
        let sides = if contiguous { RowShape { bytes: total, rows: 1, dst_stride: 0, src_stride: 0 } } else { shape };
        let reads = row_accesses(src.space, s, sides.rows, sides.bytes, sides.src_stride, false);
        let writes = row_accesses(dst.space, d, sides.rows, sides.bytes, sides.dst_stride, true);
        self.race_check(c, route.pipe(), pc, reads.chain(writes))?;
        let core = c as u32;
        if contiguous {
            self.mem.copy(core, dst.space, d, src.space, s, total as usize);
        } else if overlap {
            staged_rows(&mut self.mem, &mut self.scratch, core, dst.space, (d, s), shape, se);
        } else {
            rows_in_place(&mut self.mem, core, (dst.space, d), (src.space, s), shape);
        }
        let charged = if self.timing { cost::copy_charged(&self.cfg, route, d as u64, s as u64, shape) } else { total };
        if let Some(ri) = route.index() {
            let r = &mut self.counters.routes[ri];
            r.0 += 1;
            r.1 += total;
            r.2 += charged;
            self.counters.core_route_charged[c][ri] += charged;
        }
        Ok(Step::Copy { route, charged })
    }
}

/// The accesses of `rows` rows of `bytes` bytes from `start`, `stride`
/// apart, in row order.
fn row_accesses(
    space: Space,
    start: usize,
    rows: u64,
    bytes: u64,
    stride: u64,
    write: bool,
) -> impl Iterator<Item = MemAccess> {
    let start = start as u64;
    (0..rows).map(move |i| {
        let at = start + i * stride;
        MemAccess { space, start: at, end: at + bytes, write }
    })
}

/// Copies the rows in order straight from source to destination (checked
/// ranges that do not overlap, or are in different memories).
fn rows_in_place(mem: &mut Memory, core: u32, (ds, d): (Space, usize), (ss, s): (Space, usize), shape: RowShape) {
    let b = shape.bytes as usize;
    let row = |i: u64| (s + (i * shape.src_stride) as usize, d + (i * shape.dst_stride) as usize);
    if ds == ss {
        let buf = mem.buf_mut(ds, core);
        for i in 0..shape.rows {
            let (from, to) = row(i);
            buf.copy_within(from..from + b, to);
        }
    } else {
        let mut out = std::mem::take(mem.buf_mut(ds, core));
        let input = mem.buf(ss, core);
        for i in 0..shape.rows {
            let (from, to) = row(i);
            out[to..to + b].copy_from_slice(&input[from..from + b]);
        }
        *mem.buf_mut(ds, core) = out;
    }
}

/// Copies rows whose source range `se` bytes from `s` overlaps the
/// destination in one memory: stages the rows (or, when they overlap each
/// other, the source range, which is then smaller) in `scratch`, then
/// writes the destination rows in order.
fn staged_rows(
    mem: &mut Memory,
    scratch: &mut Vec<u8>,
    core: u32,
    space: Space,
    (d, s): (usize, usize),
    shape: RowShape,
    se: u64,
) {
    let b = shape.bytes as usize;
    let buf = mem.buf_mut(space, core);
    let gather = shape.bytes.saturating_mul(shape.rows) <= se;
    scratch.clear();
    if gather {
        for i in 0..shape.rows {
            let at = s + (i * shape.src_stride) as usize;
            scratch.extend_from_slice(&buf[at..at + b]);
        }
    } else {
        scratch.extend_from_slice(&buf[s..s + se as usize]);
    }
    for i in 0..shape.rows {
        let from = (i * if gather { shape.bytes } else { shape.src_stride }) as usize;
        let at = d + (i * shape.dst_stride) as usize;
        buf[at..at + b].copy_from_slice(&scratch[from..from + b]);
    }
    if scratch.capacity() > KEEP_SCRATCH {
        *scratch = Vec::new();
    }
}
