//! Slice 2's allocator (issue 17): `regalloc-pebble` on the lowering's
//! virtual code, through that crate's small input trait. The allocator
//! follows source document 004, *Register allocation and assignment by
//! two-colour (red-blue) pebbling*, which plays the red-blue pebble game of
//! J.-W. Hong and H. T. Kung ("I/O complexity: the red-blue pebble game",
//! STOC 1981) on each block; `docs/references.md` lists both.
//!
//! The virtual program is cut into blocks at its leaders (the entry, every
//! label, every instruction after a jump, branch, `exit` or `trap`), the
//! CFG follows jumps, branch targets and fall-through, and [`MluCode`]
//! answers `regalloc_pebble::RegCode` for it: each virtual register is a
//! scalar variable; moves and pure scalar operations may move within their
//! block; memory, DMA, syncs, division and conversions are effects; jumps,
//! branches, `exit` and `trap` end their block. The allocation comes back
//! as plain data (per-instruction registers, the new order of each block,
//! and inserted moves, loads and stores at program points), which
//! [`PebbleAllocator`] turns into MLU code:
//!
//! - an instruction gets its registers from the allocation (uses, then its
//!   definition, in `map_regs` order, which is `Inst::uses` order);
//! - a load from slot `s` is `ld.i64 %r, nram[@keel.spill + 8 s]`, a store
//!   the reverse, a register move `mov.i64`;
//! - edits before an instruction go right before it; edits on a
//!   fall-through edge go after the block's last instruction (only that
//!   path runs them); edits on a taken edge go to a stub after the code
//!   (`edits; jmp TARGET`) and the jump or branch is retargeted to it.
//!
//! Every inserted instruction has its [`Origin`], so
//! [`check_allocation`](super::check_allocation) verifies the result as it
//! verifies [`super::HomeAllocator`]'s (in debug builds, on every compile,
//! and whenever [`super::CompileOptions::check`] asks);
//! `regalloc_pebble::check` runs first, on the allocator's own output.
//!
//! A function with a block longer than [`PebbleAllocator::max_block`]
//! virtual instructions is allocated by [`super::HomeAllocator`] instead
//! (the pebble game is superlinear in a block's length under pressure);
//! the compile report names the allocator used and why.
//!
//! Invariants: deterministic; the physical registers are `%r0 ..
//! %r(gprs − 1)`; no panic on any virtual program the lowering produces (a
//! malformed one is a [`CompileError`]).

use super::blocks::Blocks;
use super::error::CompileError;
use super::regalloc::{Allocation, Allocator, Origin, VirtualCode, add_spill_object, map_regs, slot_addr};
use crate::planted::{Bug, planted};
use cfg_dom::{Graph, Node, Use, VarCode, Versioned};
use mlu_isa::{BinOp, Inst, Label, LabelId, MachineConfig, Operand, Program, Reg, Ty};
use regalloc_pebble::{InstKind, Loc, Options, ProgPoint, RegClass, RegCode, Regs};

/// The virtual program as `regalloc-pebble` sees it: blocks, CFG, and the
/// registers each instruction reads and writes.
#[derive(Debug)]
pub struct MluCode<'a> {
    code: &'a VirtualCode,
    blocks: Blocks,
    /// Per instruction: its uses then its definition (virtual registers).
    uses: Vec<Vec<u32>>,
    defs: Vec<Option<u32>>,
}

impl<'a> MluCode<'a> {
    /// Cuts `code` into blocks; an error names a jump to a missing label.
    pub fn new(code: &'a VirtualCode) -> Result<MluCode<'a>, CompileError> {
        let p = &code.program;
        let blocks = Blocks::new(p)?;
        let uses = p.insts.iter().map(|i| i.uses().as_slice().iter().map(|r| u32::from(r.0)).collect()).collect();
        let defs = p.insts.iter().map(|i| i.def().map(|r| u32::from(r.0))).collect();
        Ok(MluCode { code, blocks, uses, defs })
    }

    /// The instructions of block `b`, as indices of the virtual program.
    fn range(&self, b: Node) -> std::ops::Range<u32> {
        self.blocks.range(b)
    }
}

impl Graph for MluCode<'_> {
    fn num_nodes(&self) -> usize {
        self.blocks.len()
    }
    fn entry(&self) -> Option<Node> {
        self.blocks.graph.entry()
    }
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.blocks.graph.successors(n)
    }
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.blocks.graph.predecessors(n)
    }
}

impl Versioned for MluCode<'_> {}

impl VarCode for MluCode<'_> {
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn num_vars(&self) -> usize {
        self.code.vregs as usize
    }
    fn num_insts(&self) -> usize {
        self.code.program.insts.len()
    }
    fn params(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::empty()
    }
    fn block_insts(&self, b: Node) -> impl Iterator<Item = u32> + '_ {
        self.range(b)
    }
    fn defs(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        self.defs[i as usize].into_iter()
    }
    fn uses(&self, i: u32) -> impl Iterator<Item = Use> + '_ {
        self.uses[i as usize].iter().map(|&v| Use::at(v))
    }
    fn is_guarded(&self, _: u32) -> bool {
        false
    }
}

impl RegCode for MluCode<'_> {
    fn class(&self, _: u32) -> RegClass {
        RegClass::Scalar
    }

    fn inst_kind(&self, i: u32) -> InstKind {
        match &self.code.program.insts[i as usize] {
            inst if inst.target().is_some() || inst.ends_flow() => InstKind::Terminator,
            Inst::Mov { .. } | Inst::Unary { .. } | Inst::Setp { .. } | Inst::Fsetp { .. } | Inst::Select { .. } => {
                InstKind::Pure
            }
            Inst::Binary { op, .. } if !matches!(op, BinOp::Sdiv | BinOp::Udiv | BinOp::Srem | BinOp::Urem) => {
                InstKind::Pure
            }
            _ => InstKind::Effect,
        }
    }

    fn is_copy(&self, i: u32) -> bool {
        matches!(&self.code.program.insts[i as usize], Inst::Mov { src: Operand::Reg(_), .. })
    }
}

/// `code` with every virtual register split into its *webs* (the "names"
/// of G. J. Chaitin, "Register allocation & spilling via graph coloring",
/// SIGPLAN '82: the definitions joined by the uses they reach together,
/// `regalloc_pebble::webs`), renumbered densely: what [`PebbleAllocator`]
/// allocates, and returns in [`Allocation::renamed`]. The virtual code reuses
/// registers for unrelated values; as webs, each value has its own name,
/// which is what the allocation checker follows (one abstract value per
/// name) and what lets the allocator reorder two unrelated definitions of
/// one register. Semantics are unchanged: every read reads one web. The
/// webs' working memory is held to `max_memory` bytes.
pub fn rename_webs(code: &VirtualCode, max_memory: u64) -> Result<VirtualCode, CompileError> {
    let mlu = MluCode::new(code)?;
    let webs = regalloc_pebble::webs::Webs::compute(&mlu, &mlu, max_memory).map_err(|e| match e {
        regalloc_pebble::AllocError::Input(e) => CompileError::MalformedVirtualCode(e),
        e => CompileError::Regalloc(e),
    })?;
    if webs.len() > super::emit::MAX_VREGS as usize {
        return Err(CompileError::TooManyWebs { webs: webs.len(), limit: super::emit::MAX_VREGS });
    }
    let mut program = code.program.clone();
    for (i, inst) in program.insts.iter_mut().enumerate() {
        let (uses, defs) = (webs.uses(i as u32), webs.defs(i as u32));
        let (mut u, mut d) = (0, 0);
        map_regs(inst, |r, def| {
            let w = if def {
                d += 1;
                defs.get(d - 1)
            } else {
                u += 1;
                uses.get(u - 1)
            };
            w.map_or(r, |&w| Reg(w as u16))
        });
    }
    Ok(VirtualCode { program, vregs: webs.len() as u32 })
}

/// The default [`PebbleAllocator::max_block`].
pub const DEFAULT_MAX_BLOCK: u32 = 512;

/// Slice 2's allocator (see the module doc).
#[derive(Clone, Debug)]
pub struct PebbleAllocator {
    /// `regalloc-pebble`'s options; `regs` is set from the configuration.
    pub options: Options,
    /// The longest block (in virtual instructions) handed to
    /// `regalloc-pebble`: its game is superlinear in a block's length under
    /// high register pressure (about 0.4 s for a 700-instruction block with
    /// 200 live values, 55 s at 20,000), so a function with a longer block
    /// is allocated by [`super::HomeAllocator`] instead, and the report
    /// says so. Default [`DEFAULT_MAX_BLOCK`].
    pub max_block: u32,
    /// Run `regalloc_pebble::check` on the allocator's output even in
    /// release builds (it always runs in debug builds).
    pub check: bool,
}

impl Default for PebbleAllocator {
    fn default() -> PebbleAllocator {
        PebbleAllocator { options: Options::default(), max_block: DEFAULT_MAX_BLOCK, check: false }
    }
}

impl Allocator for PebbleAllocator {
    fn allocate(&mut self, code: &VirtualCode, config: &MachineConfig) -> Result<Allocation, CompileError> {
        let longest = {
            let mlu = MluCode::new(code)?;
            (0..mlu.num_blocks() as Node).map(|b| mlu.range(b).len()).max().unwrap_or(0)
        };
        if longest > self.max_block as usize {
            let mut home = super::regalloc::HomeAllocator;
            let mut alloc = home.allocate(code, config)?;
            alloc.allocator = format!(
                "home: a block of {longest} virtual instructions is longer than the {} regalloc-pebble takes",
                self.max_block
            );
            return Ok(alloc);
        }
        let webbed = rename_webs(code, self.options.max_memory)?;
        let code = &webbed;
        let mlu = MluCode::new(code)?;
        let options = Options { regs: Regs::new(config.gprs, 0), ..self.options.clone() };
        let out = regalloc_pebble::allocate(&mlu, &mlu, &options).map_err(CompileError::Regalloc)?;
        if cfg!(debug_assertions) || self.check {
            regalloc_pebble::check(&mlu, &mlu, &out).map_err(CompileError::PebbleCheck)?;
        }
        let mut emitter = Emitter::new(code, &mlu, &out);
        emitter.drop_one = planted(Bug::DroppedEdit);
        let mut alloc = emitter.emit()?;
        alloc.renamed = Some(webbed.clone());
        Ok(alloc)
    }
}

/// Builds the physical program from an allocation.
struct Emitter<'a> {
    code: &'a VirtualCode,
    mlu: &'a MluCode<'a>,
    out: &'a regalloc_pebble::Allocation,
    program: Program,
    origins: Vec<Origin>,
    spill: Option<mlu_isa::MemId>,
    slots: u32,
    /// The planted bug: drop the next move or reload.
    drop_one: bool,
    /// A slot-to-slot edit (never produced; refused if it is).
    mem_move: bool,
}

impl<'a> Emitter<'a> {
    fn new(code: &'a VirtualCode, mlu: &'a MluCode<'a>, out: &'a regalloc_pebble::Allocation) -> Emitter<'a> {
        let mut program = Program { mems: code.program.mems.clone(), labels: Vec::new(), insts: Vec::new() };
        let slots = out.slots().len() as u32;
        let spill = add_spill_object(&mut program, slots);
        Emitter { code, mlu, out, program, origins: Vec::new(), spill, slots, drop_one: false, mem_move: false }
    }

    fn push(&mut self, inst: Inst, origin: Origin) {
        self.program.insts.push(inst);
        self.origins.push(origin);
    }

    /// The edits at `point`, as instructions.
    fn edits(&mut self, point: ProgPoint) {
        let spill = self.spill;
        let slot_addr = |slot: u32| slot_addr(spill, slot);
        for &(_, e) in self.out.edits_at(point) {
            let reg = |l: Loc| match l {
                Loc::Reg(p) => Some(Reg(p.index as u16)),
                Loc::Slot(_) => None,
            };
            let vreg = e.var;
            if self.drop_one && matches!(e.to, Loc::Reg(_)) {
                self.drop_one = false;
                continue;
            }
            match (e.from, e.to) {
                (Loc::Slot(slot), Loc::Reg(_)) => {
                    let r = reg(e.to).unwrap_or(Reg(0));
                    self.push(
                        Inst::Load { ty: Ty::I64, dst: r, addr: slot_addr(slot) },
                        Origin::Reload { slot, reg: r, vreg },
                    );
                }
                (Loc::Reg(_), Loc::Slot(slot)) => {
                    let r = reg(e.from).unwrap_or(Reg(0));
                    self.push(
                        Inst::Store { ty: Ty::I64, addr: slot_addr(slot), value: Operand::Reg(r) },
                        Origin::Spill { reg: r, slot, vreg },
                    );
                }
                (Loc::Reg(_), Loc::Reg(_)) => {
                    let (from, to) = (reg(e.from).unwrap_or(Reg(0)), reg(e.to).unwrap_or(Reg(0)));
                    self.push(
                        Inst::Mov { ty: Ty::I64, dst: to, src: Operand::Reg(from) },
                        Origin::Move { from, to, vreg },
                    );
                }
                (Loc::Slot(_), Loc::Slot(_)) => self.mem_move = true,
            }
        }
    }

    fn emit(mut self) -> Result<Allocation, CompileError> {
        let p = &self.code.program;
        let nb = self.mlu.num_blocks();
        let mut block_pos = vec![0u32; nb + 1];
        // Taken edges with edits: (branch position, target block).
        let mut stubs: Vec<(usize, Node, Node)> = Vec::new();
        for b in 0..nb as Node {
            block_pos[b as usize] = self.program.insts.len() as u32;
            let order: Vec<u32> = self.out.order(b).to_vec();
            for (idx, &i) in order.iter().enumerate() {
                self.edits(ProgPoint::Before { block: b, index: idx as u32 });
                let mut inst = p.insts[i as usize].clone();
                let regs = self.out.allocs(i);
                let mut k = 0;
                map_regs(&mut inst, |r, _| {
                    let phys = regs.get(k).map_or(r, |p| Reg(p.index as u16));
                    k += 1;
                    phys
                });
                if inst.target().is_some()
                    && let Some(to) = self.mlu.blocks.graph.successors(b).next()
                    && !self.out.edits_at(ProgPoint::OnEdge { from: b, to }).is_empty()
                {
                    stubs.push((self.program.insts.len(), b, to));
                }
                self.push(inst, Origin::Inst(i));
            }
            self.edits(ProgPoint::Before { block: b, index: order.len() as u32 });
            // A fall-through edge's edits run on that path only.
            let last = self.mlu.range(b).end.checked_sub(1).and_then(|i| p.insts.get(i as usize));
            let falls = !last.is_some_and(Inst::ends_flow) && (b as usize + 1) < nb;
            if falls {
                self.edits(ProgPoint::OnEdge { from: b, to: b + 1 });
            }
        }
        block_pos[nb] = self.program.insts.len() as u32;
        // Labels: each original label at its block's new start.
        let block_of = |at: u32| self.mlu.blocks.block_of(at);
        let mut labels: Vec<Label> = p
            .labels
            .iter()
            .map(|l| {
                let at = if l.at as usize >= p.insts.len() { block_pos[nb] } else { block_pos[block_of(l.at)] };
                Label { name: l.name.clone(), at }
            })
            .collect();
        // Stubs for taken edges with edits, after the code: the last block
        // ends the flow (the lowering ends with `exit`/`trap`), or a jump
        // over the stubs keeps its fall-through.
        if !stubs.is_empty() {
            let ends = self.program.insts.last().is_some_and(Inst::ends_flow);
            let end = LabelId(labels.len() as u32);
            if !ends {
                labels.push(Label { name: "keel.end".into(), at: 0 });
                self.push(Inst::Jump { target: end }, Origin::Jump);
            }
            for (at, from, to) in stubs {
                let stub = LabelId(labels.len() as u32);
                labels.push(Label { name: format!("keel.edge{from}_{to}"), at: self.program.insts.len() as u32 });
                self.edits(ProgPoint::OnEdge { from, to });
                let target = self.program.insts[at].target().unwrap_or(stub);
                self.push(Inst::Jump { target }, Origin::Jump);
                if let Inst::Jump { target } | Inst::Branch { target, .. } = &mut self.program.insts[at] {
                    *target = stub;
                }
            }
            if !ends {
                labels[end.index()].at = self.program.insts.len() as u32;
            }
        }
        self.program.labels = labels;
        if self.mem_move {
            // Never produced (the output's invariant); it would need a
            // register the allocation did not reserve.
            return Err(CompileError::SlotToSlotMove);
        }
        let in_registers = self.out.regs_used()[0];
        Ok(Allocation {
            program: self.program,
            origins: self.origins,
            spill: self.spill,
            spill_slots: self.slots,
            in_registers,
            allocator: "regalloc-pebble".into(),
            renamed: None,
        })
    }
}
