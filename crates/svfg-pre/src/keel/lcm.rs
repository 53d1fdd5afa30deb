//! The baseline: lazy code motion (Knoop, Rüthing and Steffen, "Lazy Code
//! Motion", PLDI 1992), in the edge-based bit-vector formulation of
//! K.-H. Drechsler and M. P. Stadel ("A variation of Knoop, Rüthing, and
//! Steffen's Lazy Code Motion", ACM SIGPLAN Notices, 1993;
//! `docs/references.md` has both), over **lexically** equal expressions:
//! same opcode, condition code, result type and operands (vars or immediates),
//! as written. On SSA input an expression is killed only where one of its
//! operand vars is defined.
//!
//! Local properties per block: ANTLOC (computed before any operand is
//! defined in the block), COMP (computed after the last definition),
//! TRANSP (no operand defined). Global: availability (forward, ∩),
//! anticipability (backward, ∩), EARLIEST per edge, LATER/LATERIN
//! (forward, ∩), then INSERT per edge and DELETE per block; a virtual edge
//! enters the entry block. Each expression gets a temporary `%lcm.N`:
//! insertions assign it (on split critical edges), deleted computations
//! copy from it, kept computations save into it. The result is valid Keel
//! IR at the base level (the temporaries have several definitions).
//!
//! The same safety rules as the SVFG PRE apply: trapping operations,
//! loads, guarded instructions and calls are not candidates.
//!
//! LCM stays a Keel-only baseline (feature `keel`), not a pass on
//! [`crate::PreCode`]: it matches expressions by their operands *as
//! written* (vars and immediates), not by value numbers, and its output is
//! not SSA (each temporary is assigned on every insertion edge and after
//! every kept computation), which the plan's edits (phis and copies of
//! single definitions) cannot express; it exists to be compared with,
//! by the benchmarks, the tests and `keel pre --method lcm`.
//!
//! Bit vectors are `u64` words per block; the three fixpoints iterate in
//! reverse postorder (or postorder) until nothing changes.

use super::apply::split_edge;
use super::code::{can_trap, is_computation};
use cfg_dom::{Dfs, Graph, Node};
use ir_core::{Arg, Block, Function, FunctionBuilder, Inst, Opcode, Operand, Type, Var, block};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// What an LCM run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LcmStats {
    /// Lexically distinct candidate expressions.
    pub expressions: usize,
    /// Computations deleted (turned into copies).
    pub removed: usize,
    /// Computations inserted on edges.
    pub inserted: usize,
    /// Critical edges split.
    pub edges_split: usize,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct LexKey {
    opcode: Opcode,
    cc: SmallVec<[u8; 1]>,
    ty: Type,
    args: SmallVec<[Operand; 3]>,
}

struct Bits {
    words: usize,
    data: Vec<u64>,
}

impl Bits {
    fn new(rows: usize, bits: usize, fill: bool) -> Bits {
        let words = bits.div_ceil(64);
        Bits { words, data: vec![if fill { !0 } else { 0 }; rows * words] }
    }
    fn row(&self, r: usize) -> &[u64] {
        &self.data[r * self.words..(r + 1) * self.words]
    }
    fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.data[r * self.words..(r + 1) * self.words]
    }
    fn get(&self, r: usize, i: usize) -> bool {
        self.row(r)[i / 64] >> (i % 64) & 1 == 1
    }
    fn set(&mut self, r: usize, i: usize) {
        self.row_mut(r)[i / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self, r: usize, i: usize) {
        self.row_mut(r)[i / 64] &= !(1 << (i % 64));
    }
}

fn cc_key(func: &Function, inst: Inst) -> SmallVec<[u8; 1]> {
    let mut v = SmallVec::new();
    if let Some(cc) = func.int_cc(inst) {
        v.push(ir_core::IntCC::ALL.iter().position(|&c| c == cc).unwrap_or(0) as u8);
    } else if let Some(cc) = func.float_cc(inst) {
        v.push(100 + ir_core::FloatCC::ALL.iter().position(|&c| c == cc).unwrap_or(0) as u8);
    }
    v
}

/// Bit-vector tables of `blocks × expressions` bits LCM keeps at once:
/// ANTLOC, COMP, TRANSP, AVOUT, ANTIN, ANTOUT and LATERIN.
const TABLES: u64 = 7;

/// Lazy code motion's bit-vector tables would take more than the memory
/// budget: the function was left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LcmTooLarge {
    /// Blocks of the function.
    pub blocks: usize,
    /// Lexically distinct candidate expressions.
    pub expressions: usize,
    /// Bytes the tables would take.
    pub bytes: u64,
    /// The budget.
    pub limit: u64,
}

impl core::fmt::Display for LcmTooLarge {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "lazy code motion needs {} bytes of bit vectors ({TABLES} tables of {} blocks x {} expressions), over the limit of {}",
            self.bytes, self.blocks, self.expressions, self.limit
        )
    }
}

impl std::error::Error for LcmTooLarge {}

/// Lazy code motion on `func` (SSA form expected for the kill model; see
/// the module doc). `max_memory` bounds the bit-vector tables (blocks ×
/// expressions bits, seven of them): a function that needs more is
/// refused before they are allocated, unchanged.
pub fn lcm(func: &mut Function, max_memory: u64) -> Result<LcmStats, LcmTooLarge> {
    let cfg = func.cfg();
    let Some(entry) = cfg.entry() else { return Ok(LcmStats::default()) };
    let n = cfg.num_nodes();
    let dfs = Dfs::of(&cfg);
    let rpo: Vec<Node> = dfs.reverse_postorder().collect();

    // Candidate expressions and their occurrences.
    let mut keys: FxHashMap<LexKey, u32> = FxHashMap::default();
    let mut exprs: Vec<(LexKey, Inst)> = Vec::new();
    let mut occ_of: FxHashMap<Inst, u32> = FxHashMap::default();
    for &b in &rpo {
        for inst in func.block_insts(block(b)) {
            let op = func.opcode(inst);
            if !is_computation(func, inst) || can_trap(op) {
                continue;
            }
            let Some(ty) = func.var_type(func.results(inst)[0]) else { continue };
            let key =
                LexKey { opcode: op, cc: cc_key(func, inst), ty, args: func.operands(inst).iter().copied().collect() };
            let e = *keys.entry(key.clone()).or_insert_with(|| {
                exprs.push((key, inst));
                (exprs.len() - 1) as u32
            });
            occ_of.insert(inst, e);
        }
    }
    let ne = exprs.len();
    let mut stats = LcmStats { expressions: ne, ..LcmStats::default() };
    if ne == 0 {
        return Ok(stats);
    }
    let bytes = TABLES.saturating_mul(n as u64).saturating_mul(ne.div_ceil(64) as u64).saturating_mul(8);
    if bytes > max_memory {
        return Err(LcmTooLarge { blocks: n, expressions: ne, bytes, limit: max_memory });
    }
    // Expressions by operand var.
    let mut by_var: FxHashMap<Var, SmallVec<[u32; 2]>> = FxHashMap::default();
    for (e, (k, _)) in exprs.iter().enumerate() {
        for a in k.args.iter().filter_map(|o| o.as_var()) {
            by_var.entry(a).or_default().push(e as u32);
        }
    }
    let mut antloc = Bits::new(n, ne, false);
    let mut comp = Bits::new(n, ne, false);
    let mut transp = Bits::new(n, ne, true);
    for &b in &rpo {
        let b = b as usize;
        for inst in func.block_insts(block(b as Node)) {
            if let Some(&e) = occ_of.get(&inst) {
                if transp.get(b, e as usize) {
                    antloc.set(b, e as usize);
                }
                comp.set(b, e as usize);
            }
            for r in func.results(inst) {
                if let Some(es) = by_var.get(r) {
                    for &e in es {
                        transp.clear(b, e as usize);
                        comp.clear(b, e as usize);
                    }
                }
            }
        }
    }
    let reachable = |b: Node| dfs.is_reachable(b);
    let preds = |b: Node| cfg.pred_slice(b).iter().copied().filter(move |&p| reachable(p));
    let w = antloc.words;
    // Availability.
    let mut avout = Bits::new(n, ne, true);
    let mut tmp = vec![0u64; w];
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &rpo {
            tmp.iter_mut().for_each(|x| *x = !0);
            if b == entry {
                tmp.iter_mut().for_each(|x| *x = 0);
            }
            for p in preds(b) {
                for (t, a) in tmp.iter_mut().zip(avout.row(p as usize)) {
                    *t &= a;
                }
            }
            let bi = b as usize;
            let new: Vec<u64> = (0..w).map(|i| comp.row(bi)[i] | (tmp[i] & transp.row(bi)[i])).collect();
            if new != avout.row(bi) {
                avout.row_mut(bi).copy_from_slice(&new);
                changed = true;
            }
        }
    }
    // Anticipability.
    let mut antin = Bits::new(n, ne, true);
    let mut antout = Bits::new(n, ne, true);
    changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().rev() {
            let bi = b as usize;
            let succ = cfg.succ_slice(b);
            tmp.iter_mut().for_each(|x| *x = if succ.is_empty() { 0 } else { !0 });
            for &s in succ {
                for (t, a) in tmp.iter_mut().zip(antin.row(s as usize)) {
                    *t &= a;
                }
            }
            antout.row_mut(bi).copy_from_slice(&tmp);
            let new: Vec<u64> = (0..w).map(|i| antloc.row(bi)[i] | (tmp[i] & transp.row(bi)[i])).collect();
            if new != antin.row(bi) {
                antin.row_mut(bi).copy_from_slice(&new);
                changed = true;
            }
        }
    }
    // EARLIEST per edge (p, s), and on the virtual edge into the entry.
    let earliest = |p: Option<Node>, s: Node, i: usize| -> u64 {
        let a = antin.row(s as usize)[i];
        match p {
            None => a,
            Some(p) => {
                let p = p as usize;
                a & !avout.row(p)[i] & (!transp.row(p)[i] | !antout.row(p)[i])
            }
        }
    };
    // LATERIN (forward, ∩ over incoming edges).
    let mut laterin = Bits::new(n, ne, true);
    changed = true;
    while changed {
        changed = false;
        for &b in &rpo {
            let bi = b as usize;
            let new: Vec<u64> = (0..w)
                .map(|i| {
                    let mut x = !0u64;
                    if b == entry {
                        x &= earliest(None, b, i);
                    }
                    for p in preds(b) {
                        x &= earliest(Some(p), b, i) | (laterin.row(p as usize)[i] & !antloc.row(p as usize)[i]);
                    }
                    x
                })
                .collect();
            if new != laterin.row(bi) {
                laterin.row_mut(bi).copy_from_slice(&new);
                changed = true;
            }
        }
    }
    let insert_word = |p: Option<Node>, s: Node, i: usize| -> u64 {
        let later = match p {
            None => earliest(None, s, i),
            Some(p) => earliest(Some(p), s, i) | (laterin.row(p as usize)[i] & !antloc.row(p as usize)[i]),
        };
        later & !laterin.row(s as usize)[i]
    };

    // Rewrite: temporaries, insertions, deletions and saves.
    let temps: Vec<Var> = exprs.iter().enumerate().map(|(e, (k, _))| func.add_var(&format!("lcm.{e}"), k.ty)).collect();
    let mut inserts: Vec<(Option<Node>, Node, u32)> = Vec::new();
    for &s in &rpo {
        let mut edges: SmallVec<[Option<Node>; 4]> = preds(s).map(Some).collect();
        if s == entry {
            edges.push(None);
        }
        for p in edges {
            for i in 0..w {
                let mut word = insert_word(p, s, i);
                while word != 0 {
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    inserts.push((p, s, (i * 64 + bit) as u32));
                }
            }
        }
    }
    // Deletions and saves, decided before the CFG changes.
    let mut rewrites: Vec<(Inst, u32, bool)> = Vec::new();
    for &b in &rpo {
        let bi = b as usize;
        let mut seen: SmallVec<[u32; 8]> = SmallVec::new();
        for inst in func.block_insts(block(b)) {
            if let Some(&e) = occ_of.get(&inst) {
                let redundant = seen.contains(&e) || (antloc.get(bi, e as usize) && !laterin.get(bi, e as usize));
                rewrites.push((inst, e, redundant));
                seen.push(e);
            }
        }
    }
    let mut split: FxHashMap<(Node, Node), Block> = FxHashMap::default();
    for (p, s, e) in inserts {
        let (k, model) = &exprs[e as usize];
        let at = p.map(|p| edge_block(func, &cfg, p, s, &mut split, &mut stats));
        let (b, at_end) = at.unwrap_or((block(s), false));
        let first = func.block_insts(b).find(|&i| func.opcode(i) != Opcode::Phi);
        let term = func.terminator(b);
        let mut fb = FunctionBuilder::new(func);
        match (at_end, term, first) {
            (true, Some(t), _) | (false, _, Some(t)) => fb.position_before(t),
            _ => fb.switch_to_block(b),
        }
        let args: SmallVec<[Arg; 3]> =
            k.args.iter().map(|&o| fb.func().arg(o).unwrap_or(Arg::Var(temps[e as usize]))).collect();
        clone_computation(&mut fb, *model, temps[e as usize], &args);
        stats.inserted += 1;
    }
    for (inst, e, redundant) in rewrites {
        let t = temps[e as usize];
        let r = func.results(inst)[0];
        if redundant {
            FunctionBuilder::new(func).replace(inst).copy(r, t);
            stats.removed += 1;
        } else {
            let mut fb = FunctionBuilder::new(func);
            fb.position_after(inst);
            fb.ins().copy(t, r);
        }
    }
    Ok(stats)
}

/// Where an insertion on `p -> s` goes: `(block, at its end)`.
fn edge_block(
    func: &mut Function,
    cfg: &cfg_dom::CsrGraph,
    p: Node,
    s: Node,
    split: &mut FxHashMap<(Node, Node), Block>,
    stats: &mut LcmStats,
) -> (Block, bool) {
    if cfg.succ_slice(p).len() == 1 {
        return (block(p), true);
    }
    if cfg.pred_slice(s).len() == 1 {
        return (block(s), false);
    }
    if let Some(&b) = split.get(&(p, s)) {
        return (b, true);
    }
    let e = split_edge(func, block(p), block(s));
    split.insert((p, s), e);
    stats.edges_split += 1;
    (e, true)
}

/// `dst = (model's operation) args` at the builder's cursor.
fn clone_computation(fb: &mut FunctionBuilder<'_>, model: Inst, dst: Var, args: &[Arg]) {
    let op = fb.func().opcode(model);
    let a = |i: usize| args.get(i).copied().unwrap_or(Arg::Var(dst));
    let int_cc = fb.func().int_cc(model);
    let float_cc = fb.func().float_cc(model);
    match op.format() {
        ir_core::Format::Binary => fb.ins().binary(op, dst, a(0), a(1)),
        ir_core::Format::Unary => fb.ins().unary(op, dst, a(0)),
        ir_core::Format::Convert => fb.ins().convert(op, dst, a(0)),
        ir_core::Format::Select => fb.ins().select(dst, a(0), a(1), a(2)),
        _ => match (int_cc, float_cc) {
            (Some(cc), _) => fb.ins().setp(cc, dst, a(0), a(1)),
            (_, Some(cc)) => fb.ins().fsetp(cc, dst, a(0), a(1)),
            _ => fb.ins().copy(dst, a(0)),
        },
    };
}
