//! Helpers shared by the ir-gen tests: verification with readable failures,
//! the print/parse round trip, and a small CFG view (successors,
//! predecessors, reachability) to recognise the generated shapes.

#![allow(dead_code)]

use ir_core::entity::EntityRef;
use ir_core::text::{parse, print_module};
use ir_core::{Block, Function, Module, Opcode, VerifyOptions, verify_module};
use ir_gen::Generated;

/// Panics with the verifier's messages and the module text unless `g`
/// verifies at the base level.
pub fn assert_verifies(g: &Generated) {
    if let Err(errs) = verify_module(&g.module, &VerifyOptions::default()) {
        let msgs: Vec<String> = errs.0.iter().map(|e| e.describe(&g.module)).collect();
        panic!("generated module does not verify:\n{}\n{g:?}", msgs.join("\n"));
    }
}

/// The printed module, after checking that it parses back to the same text.
pub fn round_trip(m: &Module) -> String {
    let text = print_module(m);
    let (again, _) = parse(&text).unwrap_or_else(|d| panic!("printed module does not parse: {d:?}\n{text}"));
    assert_eq!(print_module(&again), text, "print(parse(print(m))) differs");
    text
}

/// The CFG of one function, by block index, with edges deduplicated per
/// predecessor block.
#[derive(Debug)]
pub struct Cfg {
    pub blocks: Vec<Block>,
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
    pub reachable: Vec<bool>,
    /// Layout position of each block index.
    pub pos: Vec<usize>,
}

impl Cfg {
    pub fn new(f: &Function) -> Cfg {
        let n = f.num_blocks();
        let blocks: Vec<Block> = f.blocks().collect();
        let mut pos = vec![usize::MAX; n];
        for (i, b) in blocks.iter().enumerate() {
            pos[b.index()] = i;
        }
        let mut succs = vec![Vec::new(); n];
        let mut preds = vec![Vec::new(); n];
        for &b in &blocks {
            for s in f.block_successors(b) {
                if !succs[b.index()].contains(&s.index()) {
                    succs[b.index()].push(s.index());
                    preds[s.index()].push(b.index());
                }
            }
        }
        let mut reachable = vec![false; n];
        let mut stack = vec![f.entry_block().expect("entry").index()];
        while let Some(b) = stack.pop() {
            if !reachable[b] {
                reachable[b] = true;
                stack.extend(succs[b].iter().copied());
            }
        }
        Cfg { blocks, succs, preds, reachable, pos }
    }

    /// The block holding `ret`.
    pub fn ret_block(&self, f: &Function) -> usize {
        self.blocks
            .iter()
            .find(|&&b| f.terminator(b).is_some_and(|t| f.opcode(t) == Opcode::Ret))
            .expect("a return block")
            .index()
    }

    /// Back edges in layout order `u -> h` with `h` at or before `u`.
    pub fn back_edges(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for &b in &self.blocks {
            for &s in &self.succs[b.index()] {
                if self.reachable[b.index()] && self.pos[s] <= self.pos[b.index()] {
                    out.push((b.index(), s));
                }
            }
        }
        out
    }

    /// Two-block cycles `A <-> B` entered from outside at both `A` and `B`
    /// along reachable edges: an irreducible region.
    pub fn irreducible_pairs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for &a in self.blocks.iter().map(|b| b.index()).collect::<Vec<_>>().iter() {
            for &b in &self.succs[a] {
                let entered_from_outside =
                    |x: usize| self.preds[x].iter().any(|&p| p != a && p != b && self.reachable[p]);
                if a < b && self.succs[b].contains(&a) && entered_from_outside(a) && entered_from_outside(b) {
                    out.push((a, b));
                }
            }
        }
        out
    }
}

/// Every instruction of `m`, with its function, in layout order.
pub fn all_insts(m: &Module) -> Vec<(&Function, ir_core::Inst)> {
    let mut out = Vec::new();
    for (_, f) in m.functions() {
        for b in f.blocks() {
            out.extend(f.block_insts(b).map(|i| (f, i)));
        }
    }
    out
}
