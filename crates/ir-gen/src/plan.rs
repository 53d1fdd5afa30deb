//! Plans: builder-made modules with no guarantee beyond the builder's, for
//! property tests of the printer, parser and verifier (feature `fuzzing`).
//!
//! [`generate`](crate::generate) makes modules that verify, terminate and
//! never trap; a [`Plan`] makes what that contract rules out, so that the
//! text format and the verifier see it too: every instruction format
//! (`undef`, trapping conversions and divisions, intrinsics with names that
//! need quoting, calls to an extern, `trap`, fallbacks on guarded
//! definitions, reductions of a var size), arbitrary control flow (jumps
//! and branches to any non-entry block, switches with negative and
//! duplicate case values, phis on any block with predecessors), and memory
//! objects with and without initial values.
//!
//! A plan is plain data drawn by [`arb_plan`], so proptest shrinks it;
//! [`Plan::build`] interprets it through `FunctionBuilder`.
//!
//! Invariants:
//! - every var is defined in the entry block before anything else, and the
//!   entry block has no predecessors (no terminator targets it);
//! - with `noisy == false` every built module is **valid**: the verifier
//!   accepts it at the base level;
//! - with `noisy == true` immediates may get random types and operands vars
//!   of random types, so modules are often ill-typed; they still print and
//!   parse back to the same module;
//! - building is a pure function of the plan.

use crate::contents::{DIVISIONS, FLOAT_BINARY, FLOAT_UNARY, INT_BINARY, INT_UNARY, conversions_into};
use crate::memory::{FLOAT_MAPS, FLOAT_UNARY_MAPS};
use ir_core::{
    Arg, Block, Callee, Desc, FloatCC, FuncId, FunctionBuilder, Guard, Imm, IntCC, Mem, MemSpace, Module, Opcode,
    Signature, TensorArg, Type, Var,
};
use proptest::prelude::*;

/// One non-terminator instruction: a kind, a type, and raw picks that
/// select opcodes, vars and immediates.
#[derive(Clone, Debug)]
pub struct InstPlan {
    /// The instruction kind, modulo 17: `const`, `copy`, unary, binary,
    /// `select`, `setp`, `fsetp`, conversion, call, intrinsic, `load`,
    /// `store`, two kinds of tensor map, reduction, `matmul`, `undef`.
    pub kind: u8,
    /// The type, an index into `Type::ALL` modulo 7.
    pub ty: u8,
    /// Picks of opcodes, vars, operands and variants.
    pub picks: [u8; 6],
    /// Bits of immediates, offsets and sizes.
    pub bits: [u64; 3],
    /// A guard: the pick of an `i1` var, and whether it is negated.
    pub guard: Option<(u8, bool)>,
}

/// One terminator.
#[derive(Clone, Debug)]
pub struct TermPlan {
    /// The terminator kind, modulo 5: `jump`, `br`, `switch`, `ret`,
    /// `trap` (only `ret` or `trap` in a one-block function).
    pub kind: u8,
    /// Picks of targets, the condition or switch value, and the returned
    /// value.
    pub picks: [u8; 4],
    /// Switch cases: a value and the pick of its target. A value's first
    /// occurrence wins.
    pub cases: Vec<(i8, u8)>,
}

/// One block.
#[derive(Clone, Debug)]
pub struct BlockPlan {
    /// Phis (ignored in the entry block): type pick, destination pick, and
    /// a seed for the incoming values, one per predecessor block.
    pub phis: Vec<(u8, u8, u32)>,
    /// The instructions after the phis.
    pub insts: Vec<InstPlan>,
    /// The terminator.
    pub term: TermPlan,
}

/// A module with one planned function `@gen`, plus a callee `@callee`, an
/// extern `@ext` and three memory objects.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The blocks of `@gen`, the entry block first.
    pub blocks: Vec<BlockPlan>,
    /// Whether immediates and vars may be of the wrong type (see the
    /// module invariants).
    pub noisy: bool,
    /// Whether two memory objects get initial values.
    pub init: bool,
}

fn inst_plan() -> impl Strategy<Value = InstPlan> {
    (
        any::<u8>(),
        any::<u8>(),
        any::<[u8; 6]>(),
        any::<[u64; 3]>(),
        proptest::option::weighted(0.2, (any::<u8>(), any::<bool>())),
    )
        .prop_map(|(kind, ty, picks, bits, guard)| InstPlan { kind, ty, picks, bits, guard })
}

fn term_plan() -> impl Strategy<Value = TermPlan> {
    (any::<u8>(), any::<[u8; 4]>(), proptest::collection::vec((any::<i8>(), any::<u8>()), 0..4))
        .prop_map(|(kind, picks, cases)| TermPlan { kind, picks, cases })
}

fn block_plan() -> impl Strategy<Value = BlockPlan> {
    (
        proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u32>()), 0..3),
        proptest::collection::vec(inst_plan(), 0..8),
        term_plan(),
    )
        .prop_map(|(phis, insts, term)| BlockPlan { phis, insts, term })
}

/// Plans of `1..max_blocks` blocks (at least one), each with up to three
/// phis and seven instructions, valid or `noisy`:
///
/// ```
/// use ir_gen::plan::arb_plan;
/// use proptest::prelude::*;
///
/// proptest!(ProptestConfig::with_cases(8), |(p in arb_plan(6, false))| {
///     let m = p.build();
///     prop_assert!(ir_core::verify_module(&m, &ir_core::VerifyOptions::default()).is_ok());
/// });
/// ```
pub fn arb_plan(max_blocks: usize, noisy: bool) -> impl Strategy<Value = Plan> {
    (proptest::collection::vec(block_plan(), 1..max_blocks.max(2)), any::<bool>())
        .prop_map(move |(blocks, init)| Plan { blocks, noisy, init })
}

/// Vars of each type in `@gen`.
const VARS_PER_TYPE: usize = 3;

/// Every legal `(conversion, source, destination)`: the non-trapping ones
/// the generator uses, and `fptosi`/`fptoui`, which trap on NaN and
/// out-of-range values.
fn conversions() -> Vec<(Opcode, Type, Type)> {
    let mut out = Vec::new();
    for d in Type::ALL {
        out.extend(conversions_into(d).into_iter().map(|(op, s)| (op, s, d)));
        if d.is_int() && d != Type::I1 {
            for s in [Type::F32, Type::F64] {
                out.extend([(Opcode::Fptosi, s, d), (Opcode::Fptoui, s, d)]);
            }
        }
    }
    out
}

/// Picks the plan's vars and operands.
struct Ctx {
    vars: Vec<Vec<Var>>,
    noisy: bool,
}

impl Ctx {
    /// A var of type `ty` (of a random type when noisy).
    fn var(&self, ty: Type, pick: u8) -> Var {
        let t = if self.noisy && pick.is_multiple_of(7) { Type::ALL[usize::from(pick / 7) % 7] } else { ty };
        self.vars[t as usize][usize::from(pick) % VARS_PER_TYPE]
    }

    /// A var or an immediate of type `ty` (of a random type when noisy).
    fn arg(&self, ty: Type, pick: u8, bits: u64) -> Arg {
        if pick.is_multiple_of(3) {
            let t = if self.noisy && pick.is_multiple_of(2) { Type::ALL[(bits % 7) as usize] } else { ty };
            Arg::Imm(Imm::from_bits(t, bits))
        } else {
            Arg::Var(self.var(ty, pick / 3))
        }
    }
}

impl Plan {
    /// Builds the module the plan describes: memory objects `@mf: f32[64]`,
    /// `@mi: i32[64]`, `@mb: i8[16]` (the first two initialised when
    /// `init`), the extern `@ext(i64) -> (f32, i1)`, `@callee(i32, f64) ->
    /// i64`, and `@gen(i32, i64, i1, f32) -> i32` with the planned blocks.
    pub fn build(&self) -> Module {
        let mut m = Module::new();
        let mf = m.add_mem("mf", Type::F32, 64, MemSpace::Nram).expect("fresh");
        let mi = m.add_mem("mi", Type::I32, 64, MemSpace::Dram).expect("fresh");
        let mb = m.add_mem("mb", Type::I8, 16, MemSpace::Sram).expect("fresh");
        if self.init {
            m.set_mem_init(mi, (0..8).map(|k| Imm::int(Type::I32, k * 7 - 20)).collect());
            m.set_mem_init(mf, vec![Imm::f32(1.5), Imm::f32(-0.0), Imm::f32(f32::NAN), Imm::f32(1e-40)]);
        }
        let ext = m.add_extern("ext", Signature::new([Type::I64], [Type::F32, Type::I1])).expect("fresh");
        let callee =
            m.add_function("callee", Signature::new([Type::I32, Type::F64], [Type::I64]), &["a", "b"]).expect("fresh");
        {
            let func = m.function_mut(callee).expect("exists");
            let mut b = FunctionBuilder::new(func);
            let blk = b.create_block();
            b.switch_to_block(blk);
            let a = b.param(0).expect("param");
            let r = b.var("r", Type::I64);
            b.ins().convert(Opcode::Sext, r, a);
            b.ins().ret(&[Arg::Var(r)]);
        }
        let f = m
            .add_function(
                "gen",
                Signature::new([Type::I32, Type::I64, Type::I1, Type::F32], [Type::I32]),
                &["a", "n", "c", "fx"],
            )
            .expect("fresh");
        build_body(&mut m, f, self, [mf, mi, mb], (Callee::Func(callee), Callee::Ext(ext)));
        m
    }
}

fn build_body(m: &mut Module, f: FuncId, plan: &Plan, mems: [Mem; 3], callees: (Callee, Callee)) {
    let convs = conversions();
    let func = m.function_mut(f).expect("exists");
    let mut b = FunctionBuilder::new(func);
    let mut vars = Vec::new();
    for ty in Type::ALL {
        vars.push((0..VARS_PER_TYPE).map(|k| b.var(&format!("{ty}_{k}"), ty)).collect::<Vec<_>>());
    }
    let cx = Ctx { vars, noisy: plan.noisy };
    let n = plan.blocks.len();
    let blocks: Vec<Block> = (0..n).map(|_| b.create_block()).collect();
    // Define every var in the entry block so none is undefined.
    b.switch_to_block(blocks[0]);
    for ty in Type::ALL {
        for k in 0..VARS_PER_TYPE {
            b.ins().constant(cx.vars[ty as usize][k], Imm::from_bits(ty, k as u64));
        }
    }
    // Terminators first, so phis can match predecessors.
    let mut targets: Vec<Vec<Block>> = vec![Vec::new(); n];
    let pick_target = |p: u8| if n > 1 { blocks[1 + usize::from(p) % (n - 1)] } else { blocks[0] };
    for (i, bp) in plan.blocks.iter().enumerate() {
        let t = &bp.term;
        let kind = if n == 1 { 3 + t.kind % 2 } else { t.kind % 5 };
        let succ: Vec<Block> = match kind {
            0 => vec![pick_target(t.picks[0])],
            1 => vec![pick_target(t.picks[0]), pick_target(t.picks[1])],
            2 => {
                let mut s = vec![pick_target(t.picks[0])];
                s.extend(switch_cases(t, pick_target).iter().map(|c| c.1));
                s
            }
            _ => Vec::new(),
        };
        for &s in &succ {
            let idx = blocks.iter().position(|&x| x == s).expect("known block");
            if !targets[idx].contains(&blocks[i]) {
                targets[idx].push(blocks[i]);
            }
        }
    }
    for (i, bp) in plan.blocks.iter().enumerate() {
        b.switch_to_block(blocks[i]);
        if i > 0 {
            for &(ty, pick, seed) in &bp.phis {
                let ty = Type::ALL[usize::from(ty) % 7];
                let dst = cx.var(ty, pick);
                let incoming: Vec<(Block, Arg)> = targets[i]
                    .iter()
                    .enumerate()
                    .map(|(k, &p)| {
                        (p, cx.arg(ty, (seed >> (k % 24)) as u8, u64::from(seed).wrapping_mul(k as u64 + 1)))
                    })
                    .collect();
                b.ins().phi(dst, &incoming);
            }
        }
        for ip in &bp.insts {
            build_inst(&mut b, &cx, ip, &convs, mems, callees);
        }
        let t = &bp.term;
        let kind = if n == 1 { 3 + t.kind % 2 } else { t.kind % 5 };
        let ins = b.ins();
        match kind {
            0 => ins.jump(pick_target(t.picks[0])),
            1 => ins.br(
                cx.arg(Type::I1, t.picks[2], u64::from(t.picks[3])),
                pick_target(t.picks[0]),
                pick_target(t.picks[1]),
            ),
            2 => ins.switch(cx.var(Type::I32, t.picks[2]), pick_target(t.picks[0]), &switch_cases(t, pick_target)),
            3 => ins.ret(&[cx.arg(Type::I32, t.picks[0], u64::from(t.picks[1]))]),
            _ => ins.trap(),
        };
    }
}

/// The switch cases of a plan, first occurrence of each value kept.
fn switch_cases(t: &TermPlan, pick_target: impl Fn(u8) -> Block) -> Vec<(i64, Block)> {
    let mut cases: Vec<(i64, Block)> = Vec::new();
    for &(v, p) in &t.cases {
        if !cases.iter().any(|c| c.0 == i64::from(v)) {
            cases.push((i64::from(v), pick_target(p)));
        }
    }
    cases
}

fn build_inst(
    b: &mut FunctionBuilder<'_>,
    cx: &Ctx,
    ip: &InstPlan,
    convs: &[(Opcode, Type, Type)],
    [mf, mi, mb]: [Mem; 3],
    (callee, ext): (Callee, Callee),
) {
    let ty = Type::ALL[usize::from(ip.ty) % 7];
    let [p0, p1, p2, p3, p4, p5] = ip.picks;
    let [b0, b1, b2] = ip.bits;
    let guard = ip.guard.map(|(k, neg)| Guard { var: cx.var(Type::I1, k), negated: neg });
    let ins = match guard {
        Some(g) => b.ins().guard(g),
        None => b.ins(),
    };
    let int_ty = if ty.is_int() { ty } else { Type::I32 };
    let float_ty = if ty.is_float() { ty } else { Type::F64 };
    let inst = match ip.kind % 17 {
        16 => ins.undef(cx.var(ty, p0)),
        0 => ins.constant(cx.var(ty, p0), Imm::from_bits(if cx.noisy && p1 % 4 == 0 { Type::I8 } else { ty }, b0)),
        1 => ins.copy(cx.var(ty, p0), cx.arg(ty, p1, b0)),
        2 => {
            let op = if ty.is_int() {
                INT_UNARY[usize::from(p2) % INT_UNARY.len()]
            } else {
                FLOAT_UNARY[usize::from(p2) % FLOAT_UNARY.len()]
            };
            ins.unary(op, cx.var(ty, p0), cx.arg(ty, p1, b0))
        }
        3 => {
            // Integer divisions by anything, zero included: they may trap.
            let op = if ty.is_int() {
                let k = usize::from(p2) % (INT_BINARY.len() + DIVISIONS.len());
                if k < INT_BINARY.len() { INT_BINARY[k] } else { DIVISIONS[k - INT_BINARY.len()] }
            } else {
                FLOAT_BINARY[usize::from(p2) % FLOAT_BINARY.len()]
            };
            ins.binary(op, cx.var(ty, p0), cx.arg(ty, p1, b0), cx.arg(ty, p3, b1))
        }
        4 => ins.select(cx.var(ty, p0), cx.arg(Type::I1, p1, b0), cx.arg(ty, p2, b1), cx.arg(ty, p3, b2)),
        5 => {
            let cc = IntCC::ALL[usize::from(p2) % IntCC::ALL.len()];
            ins.setp(cc, cx.var(Type::I1, p0), cx.arg(int_ty, p1, b0), cx.arg(int_ty, p3, b1))
        }
        6 => {
            let cc = FloatCC::ALL[usize::from(p2) % FloatCC::ALL.len()];
            ins.fsetp(cc, cx.var(Type::I1, p0), cx.arg(float_ty, p1, b0), cx.arg(float_ty, p3, b1))
        }
        7 => {
            let (op, s, d) = convs[usize::from(p2) % convs.len()];
            // Convert sources have no context: an immediate source is printed typed.
            ins.convert(op, cx.var(d, p0), cx.arg(s, p1, b0))
        }
        8 => {
            if p4.is_multiple_of(2) {
                ins.call(callee, &[cx.var(Type::I64, p0)], &[cx.arg(Type::I32, p1, b0), cx.arg(Type::F64, p3, b1)])
            } else {
                ins.call(ext, &[cx.var(Type::F32, p0), cx.var(Type::I1, p1)], &[cx.arg(Type::I64, p3, b0)])
            }
        }
        9 => {
            let names = ["popcnt.wide", "weird name", "q\"uote\\", "é"];
            let results: Vec<Var> =
                (0..usize::from(p4 % 3)).map(|k| cx.vars[ty as usize][(usize::from(p0) + k) % VARS_PER_TYPE]).collect();
            // Intrinsic immediates have no context: always typed when printed.
            let args: Vec<Arg> = (0..p5 % 3).map(|k| cx.arg(ty, p1.wrapping_add(k), b0 ^ u64::from(k))).collect();
            ins.intrinsic(names[usize::from(p2) % names.len()], &results, &args)
        }
        kind @ (10 | 11) => {
            // One element of one of the three objects, at an in-bounds
            // immediate index or at a var index.
            let (mem, elem, len) = [(mf, Type::F32, 64), (mi, Type::I32, 64), (mb, Type::I8, 16)][usize::from(p2) % 3];
            let index = if p3.is_multiple_of(2) {
                Arg::Imm(Imm::int(Type::I64, (b0 % len) as i64))
            } else {
                Arg::Var(cx.var(Type::I64, p1))
            };
            if kind == 10 {
                ins.load(cx.var(elem, p0), mem, index)
            } else {
                ins.store(mem, index, cx.arg(elem, p4, b1))
            }
        }
        12 | 13 => {
            // Element-wise maps over one memory object, exact in-bounds descriptors.
            let (mem, elem, len) = [(mf, Type::F32, 64u64), (mi, Type::I32, 64)][usize::from(p2) % 2];
            let size = 1 + b0 % 16;
            let off = |bits: u64| Imm::int(Type::I64, (bits % (len - size + 1)) as i64);
            let d = |bits: u64| Desc::new(mem, off(bits), Imm::int(Type::I64, size as i64));
            let inexact = Desc::new(mem, cx.var(Type::I64, p5), Imm::int(Type::I64, size as i64));
            match p3 % 5 {
                0 => ins.tensor(
                    FLOAT_MAPS[usize::from(p4) % FLOAT_MAPS.len()],
                    d(b1),
                    &[d(b2).into(), TensorArg::Scalar(cx.arg(elem, p1, b2))],
                ),
                1 if elem.is_float() => {
                    ins.tensor(FLOAT_UNARY_MAPS[usize::from(p4) % FLOAT_UNARY_MAPS.len()], d(b1), &[d(b2).into()])
                }
                1 => ins.tensor(Opcode::Trelu, d(b1), &[d(b2).into()]),
                2 => ins.tensor(
                    Opcode::Tfma,
                    d(b1),
                    &[d(b2).into(), inexact.into(), TensorArg::Scalar(cx.arg(elem, p1, b0))],
                ),
                3 => ins.tensor(Opcode::Tfill, inexact, &[TensorArg::Scalar(cx.arg(elem, p1, b2))]),
                _ => ins.tensor(Opcode::Dma, d(b1), &[d(b2).into()]),
            }
        }
        14 => {
            let (mem, elem) = [(mf, Type::F32), (mi, Type::I32)][usize::from(p2) % 2];
            let op = if p3.is_multiple_of(2) { Opcode::Tsum } else { Opcode::Tredmax };
            ins.reduce(
                op,
                cx.var(elem, p0),
                Desc::new(mem, Imm::int(Type::I64, (b0 % 32) as i64), Arg::Var(cx.var(Type::I64, p1))),
            )
        }
        _ => {
            // C[2x3] = A[2x4] · B[4x3] in @mf.
            let d = |o: i64, s: i64| Desc::new(mf, Imm::int(Type::I64, o), Imm::int(Type::I64, s));
            let dims = [2i64, 4, 3].map(|v| Arg::Imm(Imm::int(Type::I64, v)));
            ins.matmul(d(40, 6), d(0, 8), d(8, 12), dims)
        }
    };
    // SSA-form fallbacks on some guarded definitions: one per result, of
    // its type (or anything, when noisy).
    let func = b.func();
    if func.guard(inst).is_some() && !func.results(inst).is_empty() && p5 % 3 == 0 {
        let keeps: Vec<Arg> = func
            .results(inst)
            .to_vec()
            .iter()
            .enumerate()
            .map(|(k, &r)| cx.arg(func.var_type(r).unwrap_or(Type::I64), p4.wrapping_add(k as u8), b2))
            .collect();
        let ops: Vec<_> = keeps.into_iter().map(|a| func.operand(a)).collect();
        func.set_fallbacks(inst, &ops);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every conversion the verifier accepts is in the menu, once.
    #[test]
    fn conversions_are_every_legal_one() {
        let convs = conversions();
        for (i, c) in convs.iter().enumerate() {
            assert!(!convs[..i].contains(c), "{c:?} twice");
        }
        let floats = [Type::F32, Type::F64];
        // int -> wider/narrower int: sext, zext / trunc; float -> int but i1:
        // four each; int -> float: two each; equal widths: bitcast; fpext,
        // fptrunc.
        let ints: Vec<Type> = Type::ALL.into_iter().filter(|t| t.is_int()).collect();
        let widen = ints.iter().flat_map(|a| ints.iter().map(move |b| (a, b))).filter(|(a, b)| a.bits() < b.bits());
        let expected = 3 * widen.count()
            + 4 * floats.len() * (ints.len() - 1)
            + 2 * ints.len() * floats.len()
            + Type::ALL.iter().flat_map(|a| Type::ALL.iter().filter(move |b| a.bits() == b.bits())).count()
            + 2;
        assert_eq!(convs.len(), expected);
    }
}
