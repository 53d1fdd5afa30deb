//! Keel IR's binding (feature `keel`, on by default): Keel functions and
//! modules, end to end: out of SSA if needed, allocate (by pebbling or the
//! Chaitin-Briggs baseline), check, rewrite ([`rewrite`]), with loop
//! unrolling under a bound ([`unroll`]); and `ir_core::Function` as
//! [`crate::RegCode`].
//!
//! Invariant: the allocation itself is the IR-independent
//! [`crate::allocate`] / [`crate::briggs::allocate`] on the function's CFG
//! and its `RegCode`; nothing here decides a register.
//!
//! # Example: a whole Keel function
//!
//! ```
//! let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/pebble_block.kir")).unwrap();
//! let (module, _) = ir_core::text::parse(&src).unwrap();
//! let options = regalloc_pebble::Options::with_regs(3);
//! let (allocated, results) = regalloc_pebble::allocate_module(&module, regalloc_pebble::Method::Pebble, &options);
//! let done = results[0].1.as_ref().unwrap();
//! assert_eq!(done.allocation.costs.total(), 0); // params arrive in registers
//! assert!(allocated.function_by_name("pebble").is_some());
//! ```

use crate::alloc::Allocator;
use crate::check_error::CheckError;
use crate::checker::check_within;
use crate::error::AllocError;
use crate::options::Options;
use crate::output::Allocation;
mod function;
pub mod rewrite;
pub mod unroll;

use cfg_dom::Graph;
use core::fmt;
use ir_core::{Arg, Block, FuncId, Function, FunctionBuilder, Inst, Module, Opcode, Operand, Var, block, node};
use rewrite::{Rewritten, rewrite};
use unroll::{Unrolled, cheaper, unroll_loops, unrolled_cost};

/// Which allocator.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Method {
    /// Red-blue pebbling with the global step (this crate's method).
    #[default]
    Pebble,
    /// The Chaitin-Briggs baseline ([`crate::briggs`]).
    Briggs,
}

/// Why a Keel function could not be allocated.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum KeelError {
    /// The allocator refused the function.
    Alloc(AllocError),
    /// The allocation failed the checker (a bug: never expected), or was
    /// too large to check within the budget ([`CheckError::TooLarge`]).
    Check(CheckError),
}

impl fmt::Display for KeelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeelError::Alloc(e) => e.fmt(f),
            KeelError::Check(e @ CheckError::TooLarge { .. }) => e.fmt(f),
            KeelError::Check(e) => write!(f, "the allocation fails the checker: {e}"),
        }
    }
}

impl std::error::Error for KeelError {}

/// True when `func` has phis or fallbacks, which allocation takes out
/// first ([`lower_phis`]).
pub fn needs_destruct(func: &Function) -> bool {
    func.blocks()
        .flat_map(|b| func.block_insts(b))
        .any(|i| func.opcode(i) == Opcode::Phi || !func.fallbacks(i).is_empty())
}

/// Takes phis and fallbacks out of `func`, keeping what it computes.
///
/// A function with fallbacks is in SSA form, and `ssa::destruct` takes it
/// out. Phis of non-SSA code (Keel's vars are not SSA; `ir-gen` makes such
/// phis) are lowered here instead, because `ssa::destruct` assumes SSA
/// (there, a phi that receives only its own var is undefined; here it
/// keeps the var's value): each edge into a block with phis gets the
/// phis' parallel copy (a later phi of the same var wins, as the
/// interpreter assigns them in order), sequenced with a temporary per
/// cycle, at the predecessor's end when it has one successor and its
/// terminator reads none of the copied vars, else in a new block on the
/// edge.
pub fn lower_phis(func: &mut Function) {
    let has_fallbacks = func.blocks().flat_map(|b| func.block_insts(b)).any(|i| !func.fallbacks(i).is_empty());
    if has_fallbacks {
        ssa::destruct(func);
        return;
    }
    let joins: Vec<Block> =
        func.blocks().filter(|&b| func.layout().first_inst(b).is_some_and(|i| func.opcode(i) == Opcode::Phi)).collect();
    let cfg = func.cfg();
    let mut temps = 0usize;
    for s in joins {
        let phis: Vec<Inst> = func.block_insts(s).take_while(|&i| func.opcode(i) == Opcode::Phi).collect();
        for &p in cfg.pred_slice(node(s)) {
            let pred = block(p);
            // The parallel copy of this edge: (dst, src), last phi per dst.
            let mut copies: Vec<(Var, Operand)> = Vec::new();
            for &phi in &phis {
                let Some(&dst) = func.results(phi).first() else { continue };
                let Some((_, src)) = func.phi_incoming(phi).find(|&(b, _)| b == pred) else { continue };
                copies.retain(|&(d, _)| d != dst);
                copies.push((dst, src));
            }
            copies.retain(|&(d, src)| src.as_var() != Some(d));
            if copies.is_empty() {
                continue;
            }
            let term = func.terminator(pred);
            let term_reads = |f: &Function, v: Var| term.is_some_and(|t| f.uses(t).any(|(_, u)| u == v));
            let single = cfg.succ_slice(p).len() == 1 && !copies.iter().any(|&(d, _)| term_reads(func, d));
            let at = if single {
                term.expect("a block with a successor has a terminator")
            } else {
                let mid = func.create_block();
                let _ = func.insert_block_after(mid, pred);
                let mut b = FunctionBuilder::new(func);
                b.switch_to_block(mid);
                let j = b.ins().jump(s);
                if let Some(t) = term {
                    let n = func.successors(t).count();
                    for k in 0..n {
                        if func.successors(t).nth(k) == Some(s) {
                            func.set_successor(t, k, mid);
                        }
                    }
                }
                // The phis now come from `mid`.
                for &phi in &phis {
                    let n = func.phi_blocks(phi).len();
                    for k in 0..n {
                        if func.phi_blocks(phi)[k] == pred {
                            func.set_phi_block(phi, k, mid);
                        }
                    }
                }
                j
            };
            // Sequence: a copy goes once no pending copy reads its
            // destination; a cycle is broken through a temporary.
            while !copies.is_empty() {
                if let Some(k) =
                    copies.iter().position(|&(d, _)| !copies.iter().any(|&(_, src)| src.as_var() == Some(d)))
                {
                    let (d, src) = copies.remove(k);
                    let arg = func.arg(src).expect("an operand of this function");
                    let mut b = FunctionBuilder::new(func);
                    b.position_before(at);
                    b.ins().copy(d, arg);
                    continue;
                }
                let (d, _) = copies[0];
                let t = func.var_type(d).unwrap_or(ir_core::Type::I32);
                let tmp = loop {
                    temps += 1;
                    if let Ok(v) = func.try_add_var(&format!("phi.tmp{temps}"), t) {
                        break v;
                    }
                };
                let mut b = FunctionBuilder::new(func);
                b.position_before(at);
                b.ins().copy(tmp, Arg::Var(d));
                for c in copies.iter_mut() {
                    if c.1.as_var() == Some(d) {
                        c.1 = Operand::var(tmp);
                    }
                }
            }
        }
        for phi in phis {
            let _ = func.remove_inst(phi);
        }
    }
}

/// One allocated function.
#[derive(Clone, Debug)]
pub struct Allocated {
    /// The allocation, computed on the function as it was after taking it
    /// out of SSA (when it had phis).
    pub allocation: Allocation,
    /// What the rewrite added.
    pub rewritten: Rewritten,
    /// The unroll factor the search kept (`Options::unroll`); 1 when the
    /// function was allocated as it was.
    pub unroll_factor: u32,
}

/// Allocates function `f` of `module` in place: out of SSA if needed,
/// allocate with `method`, check, rewrite (the spill object is added to
/// the module).
pub fn allocate_in_module(
    module: &mut Module,
    f: FuncId,
    method: Method,
    options: &Options,
    ctx: &mut Allocator,
) -> Result<Allocated, KeelError> {
    let func = module.function_mut(f).expect("a function of the module");
    if needs_destruct(func) {
        lower_phis(func);
    }
    let unroll_factor =
        if method == Method::Pebble && options.unroll > 1 { unroll_search(module, f, options, ctx)? } else { 1 };
    let func = module.function(f).expect("a function of the module");
    let cfg = func.cfg();
    let allocation = match method {
        Method::Pebble => ctx.compute(&cfg, func, options),
        Method::Briggs => crate::briggs::allocate(&cfg, func, options),
    }
    .map_err(KeelError::Alloc)?;
    check_within(&cfg, func, &allocation, options.max_memory).map_err(KeelError::Check)?;
    let rewritten = rewrite(module, f, &allocation);
    Ok(Allocated { allocation, rewritten, unroll_factor })
}

/// `Options::unroll`: allocates function `f` (out of SSA form) as it is
/// and with its innermost loops unrolled 2, 3, ... `options.unroll` times,
/// and keeps the function whose allocation is cheapest per original
/// iteration ([`unroll::unrolled_cost`]; ties keep the smaller
/// factor, so a loop is unrolled only when that pays). The search stops at
/// the first factor whose unrolled loops carry no cost at all.
fn unroll_search(module: &mut Module, f: FuncId, options: &Options, ctx: &mut Allocator) -> Result<u32, KeelError> {
    let base = module.function(f).expect("a function of the module").clone();
    let cfg = base.cfg();
    let none = Unrolled { factor: 1, loops: 0, in_unrolled: vec![false; cfg.num_nodes()] };
    let first = ctx.compute(&cfg, &base, options).map_err(KeelError::Alloc)?;
    let mut best = (unrolled_cost(&cfg, &first, &none, options.loop_weight), None, 1);
    for k in 2..=options.unroll {
        let mut func = base.clone();
        let u = unroll_loops(&mut func, k);
        if u.loops == 0 {
            break;
        }
        let cfg = func.cfg();
        let Ok(a) = ctx.compute(&cfg, &func, options) else { continue };
        let cost = unrolled_cost(&cfg, &a, &u, options.loop_weight);
        if cheaper(cost, best.0) {
            let done = cost.0 == 0;
            best = (cost, Some(func), k);
            if done {
                break;
            }
        }
    }
    if let (_, Some(func), _) = best {
        *module.function_mut(f).expect("a function of the module") = func;
    }
    Ok(best.2)
}

/// Each function's result, in function order (from [`allocate_module`]).
pub type ModuleResults = Vec<(FuncId, Result<Allocated, KeelError>)>;

/// Allocates every function of `module`; returns the allocated module and
/// each function's result, in function order.
pub fn allocate_module(module: &Module, method: Method, options: &Options) -> (Module, ModuleResults) {
    let mut out = module.clone();
    let mut ctx = Allocator::new();
    let ids: Vec<FuncId> = module.function_ids().collect();
    let mut results = Vec::with_capacity(ids.len());
    for f in ids {
        let r = allocate_in_module(&mut out, f, method, options, &mut ctx);
        if r.is_err() {
            // Leave a function that could not be allocated as it was.
            *out.function_mut(f).expect("listed") = module.function(f).expect("listed").clone();
        }
        results.push((f, r));
    }
    (out, results)
}
