//! The lowering of scalar code and control flow: Keel vars to virtual
//! registers, instructions one to one, blocks to labels, phis to parallel
//! copies on edges, guards to branches, calls to inlined instances.
//!
//! Invariants: each Keel var of each inlined instance has one virtual
//! register for its whole life (vars are storage locations, not SSA
//! values); every register read or written canonically (the ISA's register
//! form is Keel's immediate form, so no conversion is ever needed between
//! them). Instances are processed from a FIFO queue, never by recursion,
//! and the call graph is checked acyclic first (an iterative DFS).
//! Algorithm: a direct syntax-directed translation (A. W. Appel, *Modern
//! Compiler Implementation*, Cambridge University Press, 1998, ch. 9
//! "instruction selection" by tree tiling, here with one tile per IR
//! operation) plus out-of-SSA parallel copies (P. Briggs, K. D. Cooper,
//! T. J. Harvey and L. T. Simpson, "Practical improvements to the
//! construction and destruction of static single assignment form",
//! Software—Practice and Experience 28(8), 1998: edge copies through
//! temporaries, critical edges split). Both are in `docs/references.md`.
//!
//! This module is the driver, the top of the lowering: [`Lowered`] and the
//! entry point, the instance queue, and the dispatch of each instruction
//! (scalar operations here; memory, control flow, tensor operations and
//! fused runs in the modules below it). The lowering's state and
//! primitives are the base module `lowerer` (its doc describes the
//! layering; [`ty`], [`space`] and [`MAX_INSTANCES`] are re-exported
//! from it).

pub use super::lowerer::{MAX_INSTANCES, space, ty};

use super::abi::{ARGS_OBJECT, RESULTS_OBJECT};
use super::cores::{Cores, Region};
use super::emit::{Emitter, SyncNote, at};
use super::error::{CompileError, Site, Unlowerable};
use super::lowerer::{Instance, Lowerer, Move};
use super::options::{CompileOptions, SyncPolicy};
use super::place::PlacedKind;
use super::split::why_single_core;
use crate::planted::{Bug, Plants};
use ir_core::{Block, Callee, FuncId, Function, Module, Opcode};
use mlu_isa::{
    BinOp, ConvOp, FloatCC, Inst, IntCC, MachineConfig, MemId, Operand, Program, Space, Ty, UnOp, is_plain_name,
};
use std::collections::{HashMap, VecDeque};

/// What the lowering produced: virtual-register code with unplaced
/// objects.
#[derive(Debug)]
pub struct Lowered {
    /// The code over virtual registers `%r0 .. %r(vregs-1)`; object
    /// addresses are not assigned yet.
    pub program: Program,
    /// Virtual registers used.
    pub vregs: u32,
    /// The syncs inserted, with reasons.
    pub syncs: Vec<SyncNote>,
    /// What each object is (parallel to `program.mems`).
    pub kinds: Vec<PlacedKind>,
    /// How each tensor map was buffered, and why.
    pub buffering: Vec<String>,
    /// Multi-core code: the core count and regions (for `syncs`).
    pub(crate) cores: Option<Cores>,
    /// How the kernel uses the cores asked for, and why.
    pub cores_note: String,
}

/// Lowers `func` with staging buffers of `tile_bytes`.
pub(crate) fn lower(
    module: &Module,
    func: FuncId,
    config: &MachineConfig,
    tile_bytes: u64,
    options: &CompileOptions,
) -> Result<Lowered, CompileError> {
    let reachable = check_acyclic(module, func)?;
    let mut l = Lowerer {
        module,
        config,
        e: Emitter::new(options.syncs == SyncPolicy::Naive),
        mems: Vec::new(),
        kinds: Vec::new(),
        mem_map: Vec::new(),
        tile_bytes,
        stage: [[None; 8]; 2],
        buffering: Vec::new(),
        mm: [None; 3],
        alias: vec![None; module.mems().len()],
        plants: Plants::read(),
        double: !options.single_buffer,
        cores: options.cores.max(1),
        split: false,
        core: None,
        partials: None,
        queue: VecDeque::new(),
        instances: 0,
        args_mem: MemId(0),
        ret_mem: MemId(0),
        here: Site::default(),
        phi_moves: HashMap::new(),
    };
    let mut used: Vec<String> = module.mems().map(|(_, m)| m.name.to_string()).collect();
    used.sort_unstable();
    for (i, (_, m)) in module.mems().enumerate() {
        let name = if is_plain_name(&m.name) && !m.name.starts_with("keel.") {
            m.name.to_string()
        } else {
            // Names the assembler cannot spell get a fresh plain one.
            let mut k = i;
            loop {
                let n = format!("mem{k}");
                if used.binary_search(&n).is_err() {
                    break n;
                }
                k += 1;
            }
        };
        let init = m.init.iter().map(|v| v.bits()).collect();
        let id = l.object(&name, ty(m.elem), m.len, space(m.space), init, PlacedKind::Program)?;
        l.mem_map.push(id);
    }
    let f = module.function(func).ok_or(CompileError::NoSuchFunction { func })?;
    let nparams = f.signature().params.len() as u64;
    let nrets = f.signature().returns.len() as u64;
    l.args_mem = l.object(ARGS_OBJECT, Ty::I64, nparams.max(1), Space::Dram, Vec::new(), PlacedKind::Abi)?;
    l.ret_mem = l.object(RESULTS_OBJECT, Ty::I64, nrets.max(1), Space::Dram, Vec::new(), PlacedKind::Abi)?;
    // A single-core kernel: every core but task 0 leaves at once, so the
    // program is also right when a whole cluster is launched (`keel sim`).
    // A split kernel: cores past the count leave.
    let cores_note = if l.cores > 1 {
        match why_single_core(module, &reachable, l.cores) {
            None => {
                l.split = true;
                format!("{} cores: tile loops split by %taskid (module split)", l.cores)
            }
            Some(why) => format!("single-core (of {} asked for): {why}", l.cores),
        }
    } else {
        "single-core".to_string()
    };
    let others = l.e.label();
    l.core_prologue(others)?;
    let main = l.instance(func, None)?;
    for (i, &p) in f.params().iter().enumerate() {
        let dst = main.vars[p.as_u32() as usize];
        let addr = at(Space::Dram, l.args_mem, None, 8 * i as i64);
        l.e.push(Inst::Load { ty: Ty::I64, dst, addr })?;
    }
    l.queue.push_back(main);
    while let Some(inst) = l.queue.pop_front() {
        l.lower_instance(&inst)?;
    }
    l.e.bind(others);
    l.e.push(Inst::Exit)?;
    let vregs = l.e.vregs;
    let syncs = std::mem::take(&mut l.e.syncs);
    let shift = l.e.prologue.len() as u32;
    let cores = l.split.then(|| Cores {
        count: l.cores,
        regions: l
            .e
            .regions
            .iter()
            .map(|r| Region { start: r.start + shift, end: r.end + shift, ..r.clone() })
            .collect(),
    });
    let program = l.e.finish(l.mems);
    Ok(Lowered { program, vregs, syncs, kinds: l.kinds, buffering: l.buffering, cores, cores_note })
}

/// Refuses recursion: the call graph reachable from `root` must be acyclic
/// (an iterative three-colour DFS).
fn check_acyclic(module: &Module, root: FuncId) -> Result<Vec<FuncId>, CompileError> {
    let n = module.num_functions();
    let callees: Vec<Vec<FuncId>> = module
        .functions()
        .map(|(_, f)| {
            let mut out: Vec<FuncId> = f
                .blocks()
                .flat_map(|b| f.block_insts(b))
                .filter_map(|i| match f.callee(i) {
                    Some(Callee::Func(g)) => Some(g),
                    _ => None,
                })
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect();
    let mut colour = vec![0u8; n];
    let mut stack: Vec<(FuncId, usize)> = vec![(root, 0)];
    colour[root.as_u32() as usize] = 1;
    while let Some(&mut (f, ref mut next)) = stack.last_mut() {
        let list = &callees[f.as_u32() as usize];
        if let Some(&g) = list.get(*next) {
            *next += 1;
            match colour[g.as_u32() as usize] {
                0 => {
                    colour[g.as_u32() as usize] = 1;
                    stack.push((g, 0));
                }
                1 => {
                    let name = |f: FuncId| module.function(f).map(|x| x.name().to_string()).unwrap_or_default();
                    return Err(CompileError::Recursive { callee: name(g), caller: name(f) });
                }
                _ => {}
            }
        } else {
            colour[f.as_u32() as usize] = 2;
            stack.pop();
        }
    }
    Ok(module.function_ids().filter(|g| colour[g.as_u32() as usize] == 2).collect())
}

impl Lowerer<'_> {
    fn lower_instance(&mut self, inst: &Instance) -> Result<(), CompileError> {
        let module = self.module;
        let f = module.function(inst.func).ok_or(CompileError::NoSuchFunction { func: inst.func })?;
        // Each edge's phi copies, gathered once (linear in the phis' sizes;
        // a lookup table only, never iterated, so output order is fixed).
        self.phi_moves.clear();
        for b in f.blocks() {
            for i in f.block_insts(b) {
                if !f.is_phi(i) {
                    break;
                }
                let Some(&r) = f.results(i).first() else { continue };
                let (dst, t) = (self.var(inst, r), Self::var_ty(f, r));
                for (p, v) in f.phi_incoming(i) {
                    let src = self.op(inst, f, v);
                    self.phi_moves.entry((p, b)).or_default().push((dst, t, src));
                }
            }
        }
        let mut insts = Vec::new();
        for b in f.blocks() {
            self.e.bind(inst.blocks[b.as_u32() as usize]);
            insts.clear();
            insts.extend(f.block_insts(b).filter(|&i| !f.is_phi(i)));
            let mut k = 0;
            while k < insts.len() {
                let i = insts[k];
                self.here = Site { func: f.name().to_string(), block: b.as_u32(), inst: i.as_u32() };
                // A run of maps over the same elements: one fused tile loop.
                let run = if self.double { self.group_len(f, &insts[k..]) } else { 0 };
                if run >= 2 && self.lower_fused(inst, f, &insts[k..k + run])? {
                    k += run;
                    continue;
                }
                self.lower_inst(inst, f, b, i)?;
                k += 1;
            }
        }
        Ok(())
    }

    fn lower_inst(&mut self, inst: &Instance, f: &Function, b: Block, i: ir_core::Inst) -> Result<(), CompileError> {
        let op = f.opcode(i);
        if op.is_terminator() {
            return self.lower_terminator(inst, f, b, i);
        }
        let guard = f.guard(i);
        let skip = self.e.label();
        let fallbacks = f.fallbacks(i);
        if let Some(g) = guard {
            let cond = self.var(inst, g.var);
            // Taken when the guard fails.
            self.e.push(Inst::Branch { on_zero: !g.negated, cond, target: skip })?;
        }
        self.lower_body(inst, f, i)?;
        if guard.is_some() {
            if fallbacks.is_empty() {
                self.e.bind(skip);
            } else {
                let end = self.e.label();
                self.e.push(Inst::Jump { target: end })?;
                self.e.bind(skip);
                let moves: Vec<Move> = f
                    .results(i)
                    .iter()
                    .zip(fallbacks)
                    .map(|(&r, &fb)| (self.var(inst, r), Self::var_ty(f, r), self.op(inst, f, fb)))
                    .collect();
                self.parallel_copy(&moves)?;
                self.e.bind(end);
            }
        }
        Ok(())
    }

    fn lower_body(&mut self, inst: &Instance, f: &Function, i: ir_core::Inst) -> Result<(), CompileError> {
        let op = f.opcode(i);
        let ops = f.operands(i);
        let res = f.results(i);
        let o = |k: usize| ops.get(k).copied();
        let dst = res.first().map(|&r| (self.var(inst, r), Self::var_ty(f, r)));
        let arg = |s: &Self, k: usize| o(k).map(|x| s.op(inst, f, x)).unwrap_or(Operand::Imm(0));
        let arg_ty = |k: usize| o(k).and_then(|x| f.operand_type(x)).map(ty).unwrap_or(Ty::I64);
        use ir_core::Format as F;
        match op.format() {
            F::Const | F::Unary if matches!(op, Opcode::Const | Opcode::Copy) => {
                let (d, t) = dst.ok_or_else(|| self.unsupported_op(op))?;
                self.e.push(Inst::Mov { ty: t, dst: d, src: arg(self, 0) })
            }
            F::Undef => Ok(()),
            F::Unary => {
                let (d, t) = dst.ok_or_else(|| self.unsupported_op(op))?;
                let u = UnOp::from_name(op.name()).ok_or_else(|| self.unsupported_op(op))?;
                self.e.push(Inst::Unary { op: u, ty: t, dst: d, a: arg(self, 0) })
            }
            F::Binary => {
                let (d, t) = dst.ok_or_else(|| self.unsupported_op(op))?;
                let bop = BinOp::from_name(op.name()).ok_or_else(|| self.unsupported_op(op))?;
                let (mut a, mut b) = (arg(self, 0), arg(self, 1));
                if bop == BinOp::Sub && self.plants.has(Bug::SwapSubOperands) {
                    std::mem::swap(&mut a, &mut b);
                }
                self.e.push(Inst::Binary { op: bop, ty: t, dst: d, a, b })
            }
            F::Select => {
                let (d, t) = dst.ok_or_else(|| self.unsupported_op(op))?;
                let cond = self.e.in_reg(Ty::I1, arg(self, 0))?;
                self.e.push(Inst::Select { ty: t, dst: d, cond, a: arg(self, 1), b: arg(self, 2) })
            }
            F::Compare => {
                let (d, _) = dst.ok_or_else(|| self.unsupported_op(op))?;
                let t = arg_ty(0);
                let (a, b) = (arg(self, 0), arg(self, 1));
                if op == Opcode::Setp {
                    let cc = f.int_cc(i).and_then(|c| IntCC::from_name(c.name()));
                    let cc = cc.ok_or_else(|| self.unsupported_op(Opcode::Setp))?;
                    self.e.push(Inst::Setp { cc, ty: t, dst: d, a, b })
                } else {
                    let cc = f.float_cc(i).and_then(|c| FloatCC::from_name(c.name()));
                    let cc = cc.ok_or_else(|| self.unsupported_op(Opcode::Fsetp))?;
                    self.e.push(Inst::Fsetp { cc, ty: t, dst: d, a, b })
                }
            }
            F::Convert => {
                let (d, to) = dst.ok_or_else(|| self.unsupported_op(op))?;
                let c = ConvOp::from_name(op.name()).ok_or_else(|| self.unsupported_op(op))?;
                self.e.push(Inst::Convert { op: c, to, from: arg_ty(0), dst: d, src: arg(self, 0) })
            }
            F::Call => self.lower_call(inst, f, i),
            F::Intrinsic => {
                let name = f.intrinsic_name(i).unwrap_or("?");
                Err(self.unsupported(Unlowerable::Intrinsic { name: name.to_string() }))
            }
            F::Load | F::Store => self.lower_scalar_access(inst, f, i),
            F::TensorMap | F::TensorReduce | F::Matmul => self.lower_tensor(inst, f, i),
            _ => Err(self.unsupported_op(op)),
        }
    }
}
