//! The symbolic checker: does an [`Allocation`] compute what the code
//! computes? regalloc2's `checker` is the model: abstract interpretation
//! where every register and spill slot holds a *set of symbols*, and every
//! use must read a location holding its own.
//!
//! Symbols. Inside a block a symbol is a *value*: `(x, entry)`, the value
//! var `x` had when the block began, or `(x, i)`, the value instruction `i`
//! gave `x`. The value a use must read is fixed by the **original**
//! statement order (the definition of `x` reaching the use within the
//! block, else `(x, entry)`), so reordering is checked too: an instruction
//! moved above a definition it reads, or a write to a register moved above
//! a read of the value it held, leaves the use without its value. Between
//! blocks a symbol is a var name: a location holds `x` at a block's end
//! when it holds the block's last value of `x`.
//!
//! Transfer: an instruction writes each definition's register with its new
//! value (a guarded one keeps it only if the register already held the
//! var's previous value, since a failed guard leaves it; a copy's register
//! holds the source's value as well, and so does each slot the allocation
//! lists for the destination (`SlotInfo::vars`) that holds the source's
//! value at the copy: a slot a copy group shares); an edit copies
//! its source's set to its destination; edges apply their edits; a block's
//! entry is the intersection over its reachable predecessors (and, for the
//! entry block, the function's start: params where `entry_locs` puts them,
//! and the vars live in before any definition, undefined there, wherever
//! the allocation says — any content is a valid undefined value). A
//! worklist in reverse postorder runs to the fixpoint; unreachable blocks
//! are not checked (nothing runs them).
//!
//! Structure is checked first: each block's new order is a permutation of
//! its instructions, effects keep their relative order, the terminator
//! stays last, every operand has a register of its var's class, every
//! edit stays within one class and refers to existing slots.

use crate::check_error::{CheckError, OffsetList, OrderViolation, ShapeError};
use crate::class::{Loc, PReg, RegClass};
use crate::input::{InstKind, RegCode};
use crate::output::{Allocation, ProgPoint};
use cfg_dom::{Dfs, Graph, Input, InputBuffers, InstId, Node, VarId};

/// A symbol inside a block: `var << 32 | tag`, tag 0 for the entry value,
/// `inst + 1` for a definition.
type Sym = u64;

fn sym(var: VarId, tag: u32) -> Sym {
    (u64::from(var) << 32) | u64::from(tag)
}

/// Checks `alloc` against `code` on `graph` (see the module doc), within
/// [`DEFAULT_MAX_MEMORY`](crate::DEFAULT_MAX_MEMORY) ([`check_within`]).
pub fn check<G: Graph, C: RegCode>(graph: &G, code: &C, alloc: &Allocation) -> Result<(), CheckError> {
    check_within(graph, code, alloc, crate::options::DEFAULT_MAX_MEMORY)
}

/// [`check`] with a memory budget: the states kept per block (the names
/// of each register and slot, flat: 4 bytes per location plus 4 per name)
/// are estimated before the run and counted during it; over
/// `max_memory` the allocation is refused unchecked
/// ([`CheckError::TooLarge`]).
pub fn check_within<G: Graph, C: RegCode>(
    graph: &G,
    code: &C,
    alloc: &Allocation,
    max_memory: u64,
) -> Result<(), CheckError> {
    let mut buffers = InputBuffers::default();
    let input = Input::new(graph, code, &mut buffers).map_err(CheckError::Input)?;
    Checker::new(&input, alloc)?.run(max_memory)
}

/// Bytes one location takes in a stored block state, besides its names
/// (its offset in [`Flat`]).
const STATE_SLOT_BYTES: u64 = 4;

/// A block's exit state as stored between visits: the names each location
/// holds, flat (CSR by location), so an empty location costs one offset.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
struct Flat {
    start: Vec<u32>,
    names: Vec<VarId>,
}

impl Flat {
    fn of(st: &[Vec<VarId>]) -> Flat {
        let mut f = Flat { start: Vec::with_capacity(st.len() + 1), names: Vec::new() };
        for l in st {
            f.start.push(f.names.len() as u32);
            f.names.extend_from_slice(l);
        }
        f.start.push(f.names.len() as u32);
        f
    }

    fn loc(&self, i: usize) -> &[VarId] {
        &self.names[self.start[i] as usize..self.start[i + 1] as usize]
    }

    fn unflatten(&self) -> Vec<Vec<VarId>> {
        (0..self.start.len() - 1).map(|i| self.loc(i).to_vec()).collect()
    }

    fn bytes(&self) -> u64 {
        (self.start.len() as u64 * STATE_SLOT_BYTES) + 4 * self.names.len() as u64
    }
}

struct Checker<'a, 'i, G, C> {
    input: &'a Input<'i, G, C>,
    alloc: &'a Allocation,
    nregs: [u32; 2],
    nlocs: usize,
    /// Per instruction: the expected symbol of each use, then of each
    /// guarded definition's previous value (CSR by instruction).
    want_start: Vec<u32>,
    want: Vec<Sym>,
    /// Per block: the final symbol of each var it writes, sorted by var.
    finals: Vec<Vec<(VarId, Sym)>>,
    /// Per var: the slots the allocation says may hold it
    /// ([`crate::SlotInfo::vars`]), CSR by var.
    slots_start: Vec<u32>,
    slots_of: Vec<u32>,
}

impl<'a, 'i, G: Graph, C: RegCode> Checker<'a, 'i, G, C> {
    fn new(input: &'a Input<'i, G, C>, alloc: &'a Allocation) -> Result<Self, CheckError> {
        let n = input.num_blocks();
        if alloc.num_blocks() != n {
            return Err(CheckError::Shape(ShapeError::BlockCount { allocation: alloc.num_blocks(), code: n }));
        }
        let ni = input.num_insts();
        // The CSR arrays themselves: offsets that never decrease and end at
        // their list's length; edits in program-point order.
        let csr_ok = |start: &[u32], len: usize| {
            start.first() == Some(&0) && start.windows(2).all(|w| w[0] <= w[1]) && start.last() == Some(&(len as u32))
        };
        if !csr_ok(&alloc.order_start, alloc.order.len()) {
            return Err(CheckError::Shape(ShapeError::Offsets { list: OffsetList::Order }));
        }
        if !csr_ok(&alloc.alloc_start, alloc.allocs.len()) {
            return Err(CheckError::Shape(ShapeError::Offsets { list: OffsetList::Allocs }));
        }
        if !alloc.edits.windows(2).all(|w| w[0].0 <= w[1].0) {
            return Err(CheckError::Shape(ShapeError::EditsUnordered));
        }
        if alloc.alloc_start.len() != ni + 1 {
            let allocation = alloc.alloc_start.len().saturating_sub(1);
            return Err(CheckError::Shape(ShapeError::InstCount { allocation, code: ni }));
        }
        let nregs = alloc.regs_used();
        let nlocs = (nregs[0] + nregs[1]) as usize + alloc.slots().len();
        let mut c = Checker {
            input,
            alloc,
            nregs,
            nlocs,
            want_start: Vec::new(),
            want: Vec::new(),
            finals: vec![Vec::new(); n],
            slots_start: Vec::new(),
            slots_of: Vec::new(),
        };
        c.slot_index();
        c.structure()?;
        c.expectations();
        Ok(c)
    }

    /// The slots of each var, from the allocation's slot list (vars out of
    /// range are left out: no copy names them), bucketed by var.
    fn slot_index(&mut self) {
        let nv = self.input.num_vars();
        let pairs: Vec<(u32, u32)> = (self.alloc.slots().iter().enumerate())
            .flat_map(|(k, info)| info.vars.iter().filter(|&&x| (x as usize) < nv).map(move |&x| (x, k as u32)))
            .collect();
        cfg_dom::csr::bucket(nv, &pairs, &mut self.slots_start, &mut self.slots_of);
    }

    fn loc_index(&self, l: Loc) -> usize {
        match l {
            Loc::Reg(PReg { class: RegClass::Scalar, index }) => index as usize,
            Loc::Reg(PReg { class: RegClass::Vector, index }) => (self.nregs[0] + index) as usize,
            Loc::Slot(s) => (self.nregs[0] + self.nregs[1]) as usize + s as usize,
        }
    }

    fn loc_ok(&self, l: Loc) -> bool {
        match l {
            Loc::Reg(r) => r.index < self.nregs[r.class.index()],
            Loc::Slot(s) => (s as usize) < self.alloc.slots().len(),
        }
    }

    fn structure(&self) -> Result<(), CheckError> {
        let input = self.input;
        let code = input.code();
        let a = self.alloc;
        for i in 0..input.num_insts() as InstId {
            let regs = a.allocs(i);
            let (uses, defs) = (input.uses(i), input.defs(i));
            if input.block_of(i).is_none() {
                continue;
            }
            if regs.len() != uses.len() + defs.len() {
                let (registers, needs) = (regs.len(), uses.len() + defs.len());
                return Err(CheckError::Shape(ShapeError::OperandCount { inst: i, registers, needs }));
            }
            let vars = uses.iter().map(|u| u.var).chain(defs.iter().copied());
            for (k, (x, r)) in vars.zip(regs).enumerate() {
                if r.class != code.class(x) || !self.loc_ok(Loc::Reg(*r)) {
                    return Err(CheckError::Shape(ShapeError::OperandRegister {
                        inst: i,
                        operand: k,
                        reg: *r,
                        var: x,
                    }));
                }
            }
            let dregs = &regs[uses.len()..];
            for (k, r) in dregs.iter().enumerate() {
                if dregs[..k].contains(r) {
                    return Err(CheckError::Clash { inst: i });
                }
            }
        }
        for b in 0..input.num_blocks() as Node {
            let orig = input.block_insts(b);
            let new = a.order(b);
            let mut sorted_o = orig.to_vec();
            let mut sorted_n = new.to_vec();
            sorted_o.sort_unstable();
            sorted_n.sort_unstable();
            if sorted_o != sorted_n {
                return Err(CheckError::Order { block: b, violation: OrderViolation::NotPermutation });
            }
            let eff = |list: &[InstId]| -> Vec<InstId> {
                list.iter().copied().filter(|&i| code.inst_kind(i) == InstKind::Effect).collect()
            };
            if eff(orig) != eff(new) {
                return Err(CheckError::Order { block: b, violation: OrderViolation::EffectsReordered });
            }
            if let Some(&last) = orig.last()
                && code.inst_kind(last) == InstKind::Terminator
                && new.last() != Some(&last)
            {
                return Err(CheckError::Order { block: b, violation: OrderViolation::TerminatorNotLast });
            }
        }
        for (p, e) in a.edits() {
            if !self.loc_ok(e.from) || !self.loc_ok(e.to) {
                return Err(CheckError::Shape(ShapeError::EditLocation { edit: *e }));
            }
            if let (Loc::Reg(x), Loc::Reg(y)) = (e.from, e.to)
                && x.class != y.class
            {
                return Err(CheckError::Shape(ShapeError::EditClasses { edit: *e }));
            }
            match *p {
                ProgPoint::Before { block, index } => {
                    if block as usize >= input.num_blocks() || index as usize > a.order(block).len() {
                        return Err(CheckError::Shape(ShapeError::EditPoint { edit: *e, at: *p }));
                    }
                }
                ProgPoint::OnEdge { from, to } => {
                    if from as usize >= input.num_blocks() || !input.graph().successors(from).any(|s| s == to) {
                        return Err(CheckError::Shape(ShapeError::EditEdge { edit: *e, from, to }));
                    }
                }
            }
        }
        for (x, l) in a.entry_locs() {
            if !self.loc_ok(*l) || (*x as usize) >= input.num_vars() {
                return Err(CheckError::Shape(ShapeError::EntryLocation { var: *x, loc: *l }));
            }
        }
        Ok(())
    }

    /// The symbol each use must read, from the original order.
    fn expectations(&mut self) {
        let input = self.input;
        let ni = input.num_insts();
        let mut want_at: Vec<Vec<Sym>> = vec![Vec::new(); ni];
        let mut cur: Vec<(VarId, Sym)> = Vec::new();
        for b in 0..input.num_blocks() as Node {
            cur.clear();
            let now = |cur: &Vec<(VarId, Sym)>, x: VarId| {
                cur.iter().rev().find(|&&(y, _)| y == x).map_or(sym(x, 0), |&(_, s)| s)
            };
            for &i in input.block_insts(b) {
                let w = &mut want_at[i as usize];
                for u in input.uses(i) {
                    w.push(now(&cur, u.var));
                }
                if input.is_guarded(i) {
                    for &d in input.defs(i) {
                        w.push(now(&cur, d));
                    }
                }
                for &d in input.defs(i) {
                    cur.push((d, sym(d, i + 1)));
                }
            }
            let mut fin: Vec<(VarId, Sym)> = Vec::new();
            for &(x, s) in cur.iter().rev() {
                if !fin.iter().any(|&(y, _)| y == x) {
                    fin.push((x, s));
                }
            }
            fin.sort_unstable();
            self.finals[b as usize] = fin;
        }
        self.want_start.clear();
        self.want.clear();
        for w in want_at {
            self.want_start.push(self.want.len() as u32);
            self.want.extend(w);
        }
        self.want_start.push(self.want.len() as u32);
    }

    fn run(&self, max_memory: u64) -> Result<(), CheckError> {
        let input = self.input;
        let g = input.graph();
        let n = input.num_blocks();
        let dfs = Dfs::of(g);
        let order: Vec<Node> = dfs.reverse_postorder().collect();
        // Every reachable block keeps a state of every location: refuse
        // before the run when even their empty lists exceed the budget.
        let too_large =
            |bytes: u64| CheckError::TooLarge { blocks: n, locations: self.nlocs, bytes, limit: max_memory };
        let floor = (order.len() as u64).saturating_mul(self.nlocs as u64).saturating_mul(STATE_SLOT_BYTES);
        if floor > max_memory {
            return Err(too_large(floor));
        }
        let mut held: u64 = 0;
        let mut reachable = vec![false; n];
        for &b in &order {
            reachable[b as usize] = true;
        }
        // Boundary states in var names; `None` = not reached yet (top).
        let mut out: Vec<Option<Flat>> = vec![None; n];
        let mut start_state: Vec<Vec<VarId>> = vec![Vec::new(); self.nlocs];
        for &(x, l) in self.alloc.entry_locs() {
            insert(&mut start_state[self.loc_index(l)], x);
        }
        let mut pos = vec![0usize; n];
        for (k, &b) in order.iter().enumerate() {
            pos[b as usize] = k;
        }
        let mut queued = vec![false; n];
        let mut work: std::collections::BTreeSet<usize> = std::collections::BTreeSet::new();
        for (k, &b) in order.iter().enumerate() {
            work.insert(k);
            queued[b as usize] = true;
        }
        while let Some(k) = work.pop_first() {
            let b = order[k];
            queued[b as usize] = false;
            // Meet of the predecessors (after their edge edits).
            let mut entry: Option<Vec<Vec<VarId>>> = (g.entry() == Some(b)).then(|| start_state.clone());
            for p in g.predecessors(b) {
                if !reachable[p as usize] {
                    continue;
                }
                let Some(ps) = &out[p as usize] else { continue };
                let mut st = ps.unflatten();
                for &(at, e) in self.alloc.edits_at(ProgPoint::OnEdge { from: p, to: b }) {
                    let v = st[self.loc_index(e.from)].clone();
                    if v.binary_search(&e.var).is_err() {
                        return Err(CheckError::Mislabelled { at, edit: e });
                    }
                    st[self.loc_index(e.to)] = v;
                }
                entry = Some(match entry {
                    None => st,
                    Some(mut acc) => {
                        for (a, s) in acc.iter_mut().zip(&st) {
                            a.retain(|x| s.binary_search(x).is_ok());
                        }
                        acc
                    }
                });
            }
            let Some(entry) = entry else { continue };
            let exit = Flat::of(&self.block(b, &entry)?);
            if out[b as usize].as_ref() != Some(&exit) {
                let old = out[b as usize].as_ref().map_or(0, Flat::bytes);
                held = held - old + exit.bytes();
                if held > max_memory {
                    return Err(too_large(held));
                }
                out[b as usize] = Some(exit);
                for s in g.successors(b) {
                    if reachable[s as usize] && !queued[s as usize] {
                        queued[s as usize] = true;
                        work.insert(pos[s as usize]);
                    }
                }
            }
        }
        Ok(())
    }

    /// Walks block `b` from `entry`; returns its exit state in var names.
    fn block(&self, b: Node, entry: &[Vec<VarId>]) -> Result<Vec<Vec<VarId>>, CheckError> {
        let input = self.input;
        let a = self.alloc;
        let mut st: Vec<Vec<Sym>> = entry.iter().map(|l| l.iter().map(|&x| sym(x, 0)).collect()).collect();
        let order = a.order(b);
        let edits = {
            let lo = a.edits.partition_point(|(p, _)| *p < ProgPoint::Before { block: b, index: 0 });
            let hi = a.edits.partition_point(|(p, _)| *p < ProgPoint::Before { block: b + 1, index: 0 });
            &a.edits[lo..hi]
        };
        let mut e = 0usize;
        for idx in 0..=order.len() {
            while e < edits.len() && edits[e].0 == (ProgPoint::Before { block: b, index: idx as u32 }) {
                let ed = edits[e].1;
                let v = st[self.loc_index(ed.from)].clone();
                if !v.iter().any(|&s| (s >> 32) as VarId == ed.var) {
                    return Err(CheckError::Mislabelled { at: edits[e].0, edit: ed });
                }
                st[self.loc_index(ed.to)] = v;
                e += 1;
            }
            let Some(&i) = order.get(idx) else { break };
            let regs = a.allocs(i);
            let uses = input.uses(i);
            let want = &self.want[self.want_start[i as usize] as usize..self.want_start[i as usize + 1] as usize];
            for (k, u) in uses.iter().enumerate() {
                let l = Loc::Reg(regs[k]);
                if st[self.loc_index(l)].binary_search(&want[k]).is_err() {
                    return Err(CheckError::WrongValue { block: b, inst: i, use_index: k as u32, var: u.var, loc: l });
                }
            }
            let defs = input.defs(i);
            let guarded = input.is_guarded(i);
            let copy = !guarded && defs.len() == 1 && uses.len() == 1 && input.code().is_copy(i);
            let mut writes: Vec<(usize, Vec<Sym>)> = Vec::with_capacity(defs.len());
            for (k, &d) in defs.iter().enumerate() {
                let li = self.loc_index(Loc::Reg(regs[uses.len() + k]));
                // A later definition of the same var in one instruction
                // supersedes an earlier one.
                let last = !defs[k + 1..].contains(&d);
                let new = sym(d, i + 1);
                let set = if !last {
                    Vec::new()
                } else if copy {
                    // A copy's destination holds the source's value too
                    // (an allocator may give both one register).
                    let mut v = vec![new, want[0]];
                    v.sort_unstable();
                    v.dedup();
                    v
                } else if guarded {
                    let prev = want[uses.len() + k];
                    if st[li].binary_search(&prev).is_ok() { vec![new] } else { Vec::new() }
                } else {
                    vec![new]
                };
                writes.push((li, set));
            }
            for (li, set) in writes {
                st[li] = set;
            }
            // A copy makes its destination's value equal to the source's:
            // a slot of the destination that holds the source's value
            // holds the destination's new value as well (a slot shared by
            // a copy group, `crate::slot_share`).
            if copy {
                let d = defs[0] as usize;
                let new = sym(defs[0], i + 1);
                for &k in cfg_dom::csr::row(&self.slots_start, &self.slots_of, d) {
                    let set = &mut st[self.loc_index(Loc::Slot(k))];
                    if set.binary_search(&want[0]).is_ok()
                        && let Err(at) = set.binary_search(&new)
                    {
                        set.insert(at, new);
                    }
                }
            }
        }
        // Into var names: the block's last value of each var.
        let fin = &self.finals[b as usize];
        let mut exit: Vec<Vec<VarId>> = Vec::with_capacity(st.len());
        for l in st {
            let mut names: Vec<VarId> = Vec::new();
            for s in l {
                let (x, tag) = ((s >> 32) as VarId, s as u32);
                let final_sym = fin.binary_search_by_key(&x, |&(y, _)| y).map_or(sym(x, 0), |k| fin[k].1);
                if s == final_sym {
                    let _ = tag;
                    names.push(x);
                }
            }
            names.sort_unstable();
            names.dedup();
            exit.push(names);
        }
        Ok(exit)
    }
}

fn insert(v: &mut Vec<VarId>, x: VarId) {
    if let Err(k) = v.binary_search(&x) {
        v.insert(k, x);
    }
}

#[cfg(all(test, feature = "keel"))]
mod tests {
    use super::*;
    use crate::{Options, allocate};

    const SRC: &str = "func @f(%a: i32, %b: i32) -> i32 {
    var %x: i32
    var %y: i32
bb0:
    %x = add %a, %b
    %y = mul %x, %a
    ret %y
}
";

    /// Damages the allocation of `SRC` with `damage` and returns the
    /// checker's verdict.
    fn damaged(damage: impl FnOnce(&mut Allocation)) -> Result<(), CheckError> {
        let (m, _) = ir_core::text::parse(SRC).unwrap();
        let func = m.function(m.function_by_name("f").unwrap()).unwrap();
        let cfg = func.cfg();
        let mut alloc = allocate(&cfg, func, &Options::with_regs(4)).unwrap();
        check(&cfg, func, &alloc).unwrap();
        damage(&mut alloc);
        check(&cfg, func, &alloc)
    }

    #[test]
    fn states_over_the_budget_are_refused_unchecked() {
        let (m, _) = ir_core::text::parse(SRC).unwrap();
        let f = m.function(m.function_by_name("f").unwrap()).unwrap();
        let cfg = f.cfg();
        let a = allocate(&cfg, f, &Options::with_regs(4)).expect("allocates");
        assert_eq!(check_within(&cfg, f, &a, u64::MAX), Ok(()));
        let e = check_within(&cfg, f, &a, 0).unwrap_err();
        assert!(matches!(e, CheckError::TooLarge { blocks: 1, limit: 0, .. }), "{e:?}");
        assert!(e.to_string().contains("too large to check"), "{e}");
    }

    #[test]
    fn each_damage_is_named() {
        let e = damaged(|a| a.order_start.push(3)).unwrap_err();
        assert_eq!(e, CheckError::Shape(ShapeError::BlockCount { allocation: 2, code: 1 }));
        assert_eq!(e.to_string(), "malformed allocation: 2 blocks, the code has 1");
        let e = damaged(|a| a.alloc_start[1] = 99).unwrap_err();
        assert_eq!(e, CheckError::Shape(ShapeError::Offsets { list: OffsetList::Allocs }));
        let e = damaged(|a| a.allocs[0] = PReg::scalar(99)).unwrap_err();
        assert!(
            matches!(e, CheckError::Shape(ShapeError::OperandRegister { inst: 0, operand: 0, reg, .. }) if reg.index == 99),
            "{e:?}"
        );
        let e = damaged(|a| a.order[0] = a.order[1]).unwrap_err();
        assert_eq!(e, CheckError::Order { block: 0, violation: OrderViolation::NotPermutation });
        let e = damaged(|a| a.order.swap(1, 2)).unwrap_err();
        assert_eq!(e, CheckError::Order { block: 0, violation: OrderViolation::TerminatorNotLast });
        assert_eq!(e.to_string(), "block 0: the terminator is not last");
        let e = damaged(|a| a.order.swap(0, 1)).unwrap_err();
        assert!(matches!(e, CheckError::WrongValue { block: 0, inst: 1, .. }), "{e:?}");
    }
}
