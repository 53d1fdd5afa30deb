//! The toy IR as `memdep`'s [`MemCode`]: each statement's buffer ranges,
//! its guard and its opaque effects; each symbol's changes.
//!
//! Invariant: a pure translation of [`Toy`]'s fields, nothing computed.

use crate::{Guard, Start, Toy};
use memdep::{Access, Effects, MemCode, Offset, SymbolChange};

impl MemCode for Toy {
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn num_insts(&self) -> usize {
        self.stmts.len()
    }
    fn num_objects(&self) -> usize {
        self.bufs.len()
    }
    fn object_len(&self, o: u32) -> Option<u64> {
        self.bufs.get(o as usize).map(|b| b.1)
    }
    fn num_symbols(&self) -> usize {
        self.symbols.len()
    }
    fn block_insts(&self, b: u32) -> impl Iterator<Item = u32> + '_ {
        self.blocks[b as usize].0.iter().copied()
    }
    fn accesses(&self, i: u32, out: &mut Vec<Access>) -> Effects {
        let s = &self.stmts[i as usize];
        for t in &s.touches {
            let offset = match t.start {
                Start::At(x) => Offset::Exact(x),
                Start::Symbol { symbol, scale, add } => Offset::Affine { sym: symbol, scale, add },
                Start::Unknown => Offset::Unknown,
            };
            out.push(if t.write { Access::write(t.buf, offset, t.len) } else { Access::read(t.buf, offset, t.len) });
        }
        Effects { guarded: s.guard != Guard::None, reads_anything: s.reads_all, writes_anything: s.writes_all }
    }
    fn symbol_changes(&self, symbol: u32, out: &mut Vec<SymbolChange>) {
        let v = &self.symbols[symbol as usize];
        out.extend(v.set_by.iter().map(|&s| SymbolChange::Inst(s)));
        out.extend(v.set_on_entry.iter().map(|&b| SymbolChange::Block(b)));
        out.extend(v.counter.map(|(header, step)| SymbolChange::Induction { header, step }));
    }
}
