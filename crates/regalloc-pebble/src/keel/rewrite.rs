//! Keel IR out: an [`Allocation`] applied to a Keel function, giving an
//! allocated function the reference interpreter runs.
//!
//! - **Registers are vars.** Physical register `k` of the scalar class is
//!   the var `%rk` (`%vk` for vector registers). A Keel var has one type, so
//!   a register that holds values of several types over the function gets
//!   one var per type, `%rk.i32`, `%rk.f64`: its typed views, one location
//!   for the checker.
//! - **Spill slots** live in one memory object per function, `@spill.NAME:
//!   i8[bytes] nram`; slot `s` is a byte range sized for the widest type
//!   stored in it, reached with a scalar `load`/`store` at an immediate
//!   index (an `i8` object takes any scalar type, little-endian) — except
//!   `i1` values, which an `i8` object does not take: they go to
//!   `@spill.NAME.i1: i1[n] nram`. The checker verifies that every edit
//!   moves a value of the var it names, so a slot's type is known at each
//!   access.
//! - **Edits** become instructions: a load `%rk = load @spill.f[off]`, a
//!   store `store @spill.f[off], %rk`, a move `%rj = copy %rk`.
//! - **Params** keep their names (they are the signature); a prologue at
//!   the top of the entry block copies each into its register or stores it
//!   to its slot (the entry convention, not counted as allocator work).
//! - **Undefined values** are refined to zero: a spill may save a var on a
//!   path where it is undefined, and a Keel `store` of an undefined value
//!   traps, so `undef` becomes `const 0` and a var read before any
//!   definition that starts in a register is zeroed there (in a slot it
//!   reads the object's zeros). Results are unchanged wherever the original
//!   does not trap.
//! - Each block's instructions are put in the allocation's order; an edge
//!   whose fix-up could sit at neither end is split by a new block
//!   (`jump` to the successor).
//!
//! Invariant (tested on 10^4 generated programs at 2, 4, 8 and 16
//! registers): the result verifies and the interpreter gives the same
//! results and memory as the original (the spill object aside). The spill
//! area is static, one per function, as on machines without a stack for
//! spills (and source document 004's): a function that calls itself while values
//! of an outer activation sit in its spill slots would see them
//! overwritten. `ir-gen`'s call graphs are acyclic; [`call_cycles`] lists
//! the functions of a module on a call cycle.

use crate::class::{Loc, PReg};
use crate::output::{Allocation, Edit, ProgPoint};
use cfg_dom::Node;
use ir_core::{
    Arg, Block, Callee, FuncId, Function, FunctionBuilder, Guard, Inst, MemSpace, Module, Operand, Type, Var,
};
use ir_core::{block, node};
use std::collections::BTreeMap;

/// Where the rewrite put things.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rewritten {
    /// The spill object's name, if the function spills.
    pub spill_mem: Option<String>,
    /// Its size in bytes.
    pub spill_bytes: u64,
    /// Blocks added to split edges.
    pub split_blocks: usize,
    /// The prologue's copies of params into their registers (the entry
    /// convention: not in [`crate::Costs`], but in the printed code).
    pub param_copies: u32,
    /// The prologue's stores of params into their slots (likewise).
    pub param_stores: u32,
}

/// Applies `alloc` (computed on `module`'s function `f` as it is now) to
/// that function in place, adding its spill object to the module.
///
/// # Panics
///
/// If `alloc` was not computed for this function (a precondition: check it
/// with [`crate::check`] first; `debug_assert`s catch a mismatch).
pub fn rewrite(module: &mut Module, f: FuncId, alloc: &Allocation) -> Rewritten {
    let func = module.function(f).expect("a function of the module").clone();
    let mut out = Rewritten::default();
    // Slots: byte offsets in an `i8` object, each sized for its widest
    // var; `i1` values (which no `i8` object holds) get an `i1` object of
    // their own, so a slot may have a place in each.
    let mut offsets = Offsets::default();
    let (mut size, mut bits) = (0u64, 0u64);
    for s in alloc.slots() {
        let types: Vec<Type> = s.vars.iter().filter_map(|&x| func.var_type(Var::from_u32(x))).collect();
        let w = types.iter().filter(|&&t| t != Type::I1).map(|t| u64::from(t.bytes())).max();
        offsets.bytes.push(size);
        size += w.unwrap_or(0);
        offsets.bits.push(bits);
        bits += u64::from(types.contains(&Type::I1));
    }
    let mut object = |module: &mut Module, suffix: &str, elem: Type, len: u64| -> Option<ir_core::Mem> {
        if len == 0 {
            return None;
        }
        let mut name = format!("spill.{}{suffix}", func.name());
        while module.lookup(&name).is_some() {
            name.push('_');
        }
        let m = module.add_mem(&name, elem, len, MemSpace::Nram).expect("a fresh name");
        if out.spill_mem.is_none() {
            out.spill_mem = Some(name);
        }
        out.spill_bytes += len;
        Some(m)
    };
    offsets.byte_mem = object(module, "", Type::I8, size);
    offsets.bit_mem = object(module, ".i1", Type::I1, bits);
    let spill = &offsets;
    let mut nf = func.clone();
    let mut views = Views::new(&func, alloc);
    let ty = |x: u32| func.var_type(Var::from_u32(x)).unwrap_or(Type::I32);
    // Operands, guards and results onto registers.
    let insts: Vec<Inst> = func.blocks().flat_map(|b| func.block_insts(b).collect::<Vec<_>>()).collect();
    for &i in &insts {
        let regs = alloc.allocs(i.as_u32());
        let mut k = 0usize;
        let ops: Vec<Operand> = func.operands(i).to_vec();
        for (idx, op) in ops.iter().enumerate() {
            if let Some(v) = op.as_var() {
                let r = views.var(&mut nf, regs[k], ty(v.as_u32()));
                nf.set_operand(i, idx, Operand::var(r));
                k += 1;
            }
        }
        if let Some(g) = func.guard(i) {
            let r = views.var(&mut nf, regs[k], Type::I1);
            nf.set_guard(i, Some(Guard { var: r, negated: g.negated }));
            k += 1;
        }
        debug_assert!(func.fallbacks(i).is_empty(), "fallbacks are taken out before allocation");
        for (idx, &d) in func.results(i).iter().enumerate() {
            let r = views.var(&mut nf, regs[k], ty(d.as_u32()));
            nf.set_result(i, idx, r);
            k += 1;
        }
    }
    // New order and edits, block by block.
    let blocks: Vec<Block> = func.blocks().collect();
    for &blk in &blocks {
        let bn = node(blk);
        let order = alloc.order(bn);
        for &i in order {
            let inst = Inst::from_u32(i);
            let _ = nf.remove_inst(inst);
            let _ = nf.append_inst(inst, blk);
        }
        for (p, e) in alloc.edits_at_block(bn) {
            let ProgPoint::Before { index, .. } = *p else { continue };
            let at = match order.get(index as usize) {
                Some(&i) => Place::Before(Inst::from_u32(i)),
                None => Place::End(blk),
            };
            emit(&mut nf, &mut views, e, ty(e.var), spill, at);
        }
    }
    // An undefined value may be saved to a spill slot, and a Keel store of
    // an undefined value traps: `undef` is refined to zero (a value
    // `undef` allows).
    for &i in &insts {
        if func.opcode(i) == ir_core::Opcode::Undef
            && let Some(&dst) = nf.results(i).first()
        {
            let t = nf.var_type(dst).unwrap_or(Type::I32);
            FunctionBuilder::new(&mut nf).replace(i).constant(dst, ir_core::Imm::from_bits(t, 0));
        }
    }
    // The prologue: params into their places, before everything; a var
    // read before any definition (undefined) that starts in a register gets
    // zero there (in a slot it reads the object's zeros).
    if let Some(entry) = nf.entry_block() {
        let first = nf.layout().first_inst(entry);
        for &(x, loc) in alloc.entry_locs() {
            let Loc::Reg(r) = loc else { continue };
            if func.params().contains(&Var::from_u32(x)) {
                continue;
            }
            let t = ty(x);
            let mut b = FunctionBuilder::new(&mut nf);
            match first {
                Some(i) => b.position_before(i),
                None => b.switch_to_block(entry),
            }
            let dst = views.var(b.func(), r, t);
            b.ins().constant(dst, ir_core::Imm::from_bits(t, 0));
        }
    }
    // The prologue: params into their places, before everything.
    if let Some(entry) = nf.entry_block() {
        let first = nf.layout().first_inst(entry);
        for (k, loc) in alloc.param_locs().iter().enumerate() {
            let Some(loc) = *loc else { continue };
            let p = func.params()[k];
            let t = ty(p.as_u32());
            let mut b = FunctionBuilder::new(&mut nf);
            match first {
                Some(i) => b.position_before(i),
                None => b.switch_to_block(entry),
            }
            match loc {
                Loc::Reg(r) => {
                    let dst = views.var(b.func(), r, t);
                    b.ins().copy(dst, Arg::Var(p));
                    out.param_copies += 1;
                }
                Loc::Slot(s) => {
                    let (m, at) = spill.place(s, t);
                    b.ins().store(m, Arg::from(at), Arg::Var(p));
                    out.param_stores += 1;
                }
            }
        }
    }
    // A register view read but written nowhere (a read of an undefined
    // value in code nothing reaches) still needs a definition to verify.
    if let Some(entry) = nf.entry_block() {
        let mut written = std::collections::BTreeSet::new();
        let mut read = std::collections::BTreeSet::new();
        for b in nf.blocks() {
            for i in nf.block_insts(b) {
                written.extend(nf.results(i).iter().copied());
                read.extend(nf.uses(i).map(|(_, v)| v));
            }
        }
        let views_made: Vec<Var> = views.made.values().copied().collect();
        let first = nf.layout().first_inst(entry);
        for v in views_made {
            if read.contains(&v) && !written.contains(&v) {
                let t = nf.var_type(v).unwrap_or(Type::I32);
                let mut b = FunctionBuilder::new(&mut nf);
                match first {
                    Some(i) => b.position_before(i),
                    None => b.switch_to_block(entry),
                }
                b.ins().constant(v, ir_core::Imm::from_bits(t, 0));
            }
        }
    }
    // Edges no end could hold: split.
    let mut by_edge: BTreeMap<(Node, Node), Vec<Edit>> = BTreeMap::new();
    for (p, e) in alloc.edits() {
        if let ProgPoint::OnEdge { from, to } = *p {
            by_edge.entry((from, to)).or_default().push(*e);
        }
    }
    for ((from, to), edits) in by_edge {
        let (pb, sb) = (block(from), block(to));
        let mid = nf.create_block();
        let _ = nf.insert_block_after(mid, pb);
        {
            let mut b = FunctionBuilder::new(&mut nf);
            b.switch_to_block(mid);
            b.ins().jump(sb);
        }
        let jump = nf.layout().last_inst(mid).expect("the jump");
        for e in &edits {
            emit(&mut nf, &mut views, e, ty(e.var), spill, Place::Before(jump));
        }
        if let Some(t) = nf.terminator(pb) {
            let n = nf.successors(t).count();
            for k in 0..n {
                if nf.successors(t).nth(k) == Some(sb) {
                    nf.set_successor(t, k, mid);
                }
            }
        }
        out.split_blocks += 1;
    }
    *module.function_mut(f).expect("a function of the module") = nf;
    out
}

/// Where an edit goes.
#[derive(Copy, Clone, Debug)]
enum Place {
    Before(Inst),
    End(Block),
}

/// Where spill slots live.
#[derive(Debug, Default)]
struct Offsets {
    bytes: Vec<u64>,
    bits: Vec<u64>,
    byte_mem: Option<ir_core::Mem>,
    bit_mem: Option<ir_core::Mem>,
}

impl Offsets {
    /// The object and index of slot `s` for a value of type `t`.
    fn place(&self, s: u32, t: Type) -> (ir_core::Mem, i64) {
        if t == Type::I1 {
            (self.bit_mem.expect("an i1 slot has the i1 object"), self.bits[s as usize] as i64)
        } else {
            (self.byte_mem.expect("a slot has the spill object"), self.bytes[s as usize] as i64)
        }
    }
}

fn emit(nf: &mut Function, views: &mut Views, e: &Edit, t: Type, spill: &Offsets, at: Place) {
    let from = match e.from {
        Loc::Reg(r) => Some(views.var(nf, r, t)),
        Loc::Slot(_) => None,
    };
    let to = match e.to {
        Loc::Reg(r) => Some(views.var(nf, r, t)),
        Loc::Slot(_) => None,
    };
    let mut b = FunctionBuilder::new(nf);
    match at {
        Place::Before(i) => b.position_before(i),
        Place::End(blk) => b.switch_to_block(blk),
    }
    match (e.from, e.to) {
        (Loc::Slot(s), Loc::Reg(_)) => {
            let (m, i) = spill.place(s, t);
            b.ins().load(to.expect("a register"), m, Arg::from(i));
        }
        (Loc::Reg(_), Loc::Slot(s)) => {
            let (m, i) = spill.place(s, t);
            b.ins().store(m, Arg::from(i), Arg::Var(from.expect("a register")));
        }
        (Loc::Reg(_), Loc::Reg(_)) => {
            b.ins().copy(to.expect("a register"), Arg::Var(from.expect("a register")));
        }
        (Loc::Slot(_), Loc::Slot(_)) => unreachable!("the allocator makes no memory-to-memory edit"),
    }
}

/// The vars standing for registers: `%rk` when register `k` only ever holds
/// one type, else `%rk.TYPE` per type.
struct Views {
    multi: std::collections::BTreeSet<PReg>,
    made: BTreeMap<(PReg, Type), Var>,
}

impl Views {
    fn new(func: &Function, alloc: &Allocation) -> Views {
        let mut types: BTreeMap<PReg, std::collections::BTreeSet<Type>> = BTreeMap::new();
        let ty = |x: u32| func.var_type(Var::from_u32(x)).unwrap_or(Type::I32);
        for b in func.blocks() {
            for i in func.block_insts(b) {
                let regs = alloc.allocs(i.as_u32());
                let vars = func.uses(i).map(|(_, v)| v).chain(func.results(i).iter().copied());
                for (v, &r) in vars.zip(regs) {
                    types.entry(r).or_default().insert(ty(v.as_u32()));
                }
            }
        }
        for (_, e) in alloc.edits() {
            for l in [e.from, e.to] {
                if let Loc::Reg(r) = l {
                    types.entry(r).or_default().insert(ty(e.var));
                }
            }
        }
        for (k, l) in alloc.param_locs().iter().enumerate() {
            if let Some(Loc::Reg(r)) = l {
                types.entry(*r).or_default().insert(ty(func.params()[k].as_u32()));
            }
        }
        let multi = types.iter().filter(|(_, s)| s.len() > 1).map(|(&r, _)| r).collect();
        Views { multi, made: BTreeMap::new() }
    }

    fn var(&mut self, f: &mut Function, r: PReg, t: Type) -> Var {
        if let Some(&v) = self.made.get(&(r, t)) {
            return v;
        }
        let base = if self.multi.contains(&r) {
            format!("{}{}.{}", r.class.prefix(), r.index, t)
        } else {
            format!("{}{}", r.class.prefix(), r.index)
        };
        let mut name = base.clone();
        let v = loop {
            match f.try_add_var(&name, t) {
                Ok(v) => break v,
                Err(_) => name.insert(0, '_'),
            }
        };
        self.made.insert((r, t), v);
        v
    }
}

/// The functions of `module` that can reach themselves through calls
/// (their static spill areas would be shared by nested activations).
pub fn call_cycles(module: &Module) -> Vec<FuncId> {
    let ids: Vec<FuncId> = module.function_ids().collect();
    let index = |f: FuncId| ids.iter().position(|&g| g == f);
    let n = ids.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, &f) in ids.iter().enumerate() {
        let func = module.function(f).expect("listed");
        for b in func.blocks() {
            for i in func.block_insts(b) {
                if let Some(Callee::Func(g)) = func.callee(i)
                    && let Some(j) = index(g)
                    && !succ[k].contains(&j)
                {
                    succ[k].push(j);
                }
            }
        }
    }
    // f is on a cycle iff f reaches f: a search from each (small graphs).
    let mut out = Vec::new();
    for s in 0..n {
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = succ[s].clone();
        while let Some(x) = stack.pop() {
            if x == s {
                out.push(ids[s]);
                break;
            }
            if !seen[x] {
                seen[x] = true;
                stack.extend(succ[x].iter().copied());
            }
        }
    }
    out
}
