//! Keel's IR as [`MemCode`]: what each instruction of an
//! `ir_core::Function` touches, with offsets resolved through SSA.
//!
//! - **Accesses.** A `load`/`store` is the descriptor `@M[index, w]`
//!   (`Function::accesses`); a tensor instruction its descriptors (the
//!   destination written first, except for reductions); a `call` to a
//!   module function the callee's [`Summaries`] entry when one is given
//!   (possible accesses within each object's touched hull), otherwise
//!   anything; a call to an external function and an `intrinsic`:
//!   anything. A guarded instruction is guarded.
//! - **Symbols.** Keel vars are not SSA, so the vars of offsets are
//!   renamed without rewriting the function (`ssa`'s renaming walk,
//!   semi-pruned phis), and each version's value is evaluated as
//!   `scale · root + add` (`copy`, and `add`, `sub`, `mul`, `shl` by
//!   constants in `i64`, fold; constants fold) over a *root*: a version
//!   defined by anything else (a param, a phi, a load, a guarded
//!   definition, ...), or a pure operation of other values (`zext`,
//!   `and`, an `i32` `add`: the same operation on the same values is the
//!   same root, so two `zext %p` give one symbol). Roots are the symbols.
//! - **Changes.** A version root changes where it is defined (after its
//!   instruction; on entry to its phi's block); a pure root wherever one
//!   of its operands' roots changes. A phi whose value along every back
//!   edge is itself plus one constant step (`%t.2 = phi(bb0: 0, bb2:
//!   %t.3)`, `%t.3 = add %t.2, 1`) is an induction variable of its block.
//!
//! Why the values hold: in SSA a version's value is a function of its
//! roots' values at its definition, and every use of the version is
//! dominated by that definition, so no root of it can change between the
//! definition and a use without the definition running again.
//!
//! Invariants: the adapter reads the function once, into flat arrays
//! ([`KeelCode`]); evaluation uses explicit stacks (no recursion); the
//! result is a pure function of the module and function.

use crate::code::{Access, Effects, MemCode, ObjectId, Offset, SymbolChange, SymbolId};
use cfg_dom::{CsrGraph, DomTree, Idf, InstId, Node, VarId, Versioned};
use ir_core::{Arg, Callee, Format, Function, Inst, Module, Opcode, Operand, Type};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use ssa::{NO_VERSION, PhiPlacement, Policy, RenameSink, Renamer, VarFacts, Version, VersionDef};

use super::descriptors::{descriptor_operands, descriptors, ival};
use super::summaries::{Summaries, Summary};

/// A value: `scale · root + add`, a constant, or unknown.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Val {
    Unknown,
    Const(i64),
    Affine { root: u32, scale: i64, add: i64 },
}

impl Val {
    fn add(self, k: i64) -> Val {
        match self {
            Val::Const(c) => Val::Const(c.wrapping_add(k)),
            Val::Affine { root, scale, add } => Val::Affine { root, scale, add: add.wrapping_add(k) },
            Val::Unknown => Val::Unknown,
        }
    }

    fn mul(self, k: i64) -> Val {
        match self {
            Val::Const(c) => Val::Const(c.wrapping_mul(k)),
            Val::Affine { root, scale, add } => {
                Val::Affine { root, scale: scale.wrapping_mul(k), add: add.wrapping_mul(k) }
            }
            Val::Unknown => Val::Unknown,
        }
    }

    /// `self + sign · other`, when both are over the same root or constant.
    fn combine(self, other: Val, sign: i64) -> Option<Val> {
        match (self, other) {
            (a, Val::Const(k)) => Some(a.add(k.wrapping_mul(sign))),
            (Val::Const(c), b) => Some(b.mul(sign).add(c)),
            (Val::Affine { root: r1, scale: s1, add: a1 }, Val::Affine { root: r2, scale: s2, add: a2 })
                if r1 == r2 =>
            {
                let scale = s1.wrapping_add(s2.wrapping_mul(sign));
                let add = a1.wrapping_add(a2.wrapping_mul(sign));
                Some(if scale == 0 { Val::Const(add) } else { Val::Affine { root: r1, scale, add } })
            }
            _ => None,
        }
    }
}

/// What a root is.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum RootKey {
    /// A version whose definition is opaque to evaluation.
    Version(Version),
    /// A pure operation (opcode, result type) of values.
    Pure(Opcode, Type, SmallVec<[Val; 2]>),
}

/// The renaming walk's findings.
#[derive(Clone, Debug, Default)]
struct Recorder {
    /// By version: its definition.
    vdef: Vec<Option<VersionDef>>,
    /// By flat use index (the input's use offsets): the version read.
    use_ver: Vec<Version>,
    use_start: Vec<u32>,
    /// Inserted phis' operands: (phi, pred, version).
    phi_ops: Vec<(Version, Node, Version)>,
}

impl RenameSink for Recorder {
    fn define(&mut self, version: Version, _var: VarId, def: VersionDef, _prev: Version) {
        if self.vdef.len() <= version as usize {
            self.vdef.resize(version as usize + 1, None);
        }
        self.vdef[version as usize] = Some(def);
    }

    fn use_site(&mut self, inst: InstId, k: u32, _var: VarId, version: Version) {
        if let Some(&s) = self.use_start.get(inst as usize)
            && let Some(slot) = self.use_ver.get_mut(s as usize + k as usize)
        {
            *slot = version;
        }
    }

    fn phi_operand(&mut self, phi: Version, pred: Node, version: Version) {
        self.phi_ops.push((phi, pred, version));
    }
}

/// Reusable working memory of [`KeelCode::compute`].
#[derive(Clone, Debug, Default)]
pub struct KeelBuffers {
    pub(crate) cfg: CsrGraph,
    vinput: cfg_dom::InputBuffers,
    dt: DomTree,
    idf: Idf,
    facts: VarFacts,
    placement: PhiPlacement,
    renamer: Renamer,
    rec: Recorder,
    /// The inserted phis' operands (predecessor, version) by phi version
    /// (CSR over `rec.phi_ops`).
    phi_start: Vec<u32>,
    phi_list: Vec<(Node, Version)>,
    /// Per version: evaluation state (0 not started, 1 started, 2 done) and value.
    state: Vec<u8>,
    vals: Vec<Val>,
    stack: Vec<Version>,
    roots: FxHashMap<RootKey, u32>,
}

/// A Keel function read as [`MemCode`] (see the module doc). Build with
/// [`KeelCode::new`] or, reusing buffers, [`KeelCode::compute`]; pair it
/// with the function's CFG (`Function::cfg`).
#[derive(Clone, Debug, Default)]
pub struct KeelCode {
    num_blocks: usize,
    num_insts: usize,
    lens: Vec<u64>,
    acc_start: Vec<u32>,
    accesses: Vec<Access>,
    effects: Vec<Effects>,
    blocks: Vec<Vec<InstId>>,
    /// Per symbol (root): its changes.
    change_start: Vec<u32>,
    changes: Vec<SymbolChange>,
    cfg_stamp: Option<u64>,
    code_stamp: Option<u64>,
}

impl KeelCode {
    /// `func` of `module` as memory code; calls to module functions use
    /// `summaries` when given, and may touch anything otherwise.
    pub fn new(module: &Module, func: &Function, summaries: Option<&Summaries>) -> KeelCode {
        let mut code = KeelCode::default();
        code.compute(module, func, summaries, &mut KeelBuffers::default());
        code
    }

    /// [`KeelCode::new`] into this value, reusing its arrays and `buffers`.
    pub fn compute(
        &mut self,
        module: &Module,
        func: &Function,
        summaries: Option<&Summaries>,
        buffers: &mut KeelBuffers,
    ) {
        let b = buffers;
        func.compute_cfg(&mut b.cfg);
        let n = func.num_blocks();
        let ni = func.num_insts();
        self.num_blocks = n;
        self.num_insts = ni;
        self.cfg_stamp = func.cfg_stamp();
        self.code_stamp = func.code_stamp();
        self.lens.clear();
        self.lens.extend(module.mems().map(|(_, m)| m.len));
        self.blocks.resize_with(n, Vec::new);
        for (k, list) in self.blocks.iter_mut().enumerate() {
            list.clear();
            list.extend(func.block_insts(ir_core::block(k as u32)).map(|i| i.as_u32()));
        }
        self.blocks.truncate(n);
        // Rename: every use gets its version.
        b.rec.vdef.clear();
        b.rec.phi_ops.clear();
        b.rec.use_ver.clear();
        b.rec.use_start.clear();
        b.roots.clear();
        let renamed = (|| -> Option<()> {
            let input = cfg_dom::Input::new(&b.cfg, func, &mut b.vinput).ok()?;
            b.rec.use_start.extend_from_slice(input.use_starts());
            b.rec.use_ver.resize(input.all_uses().len(), NO_VERSION);
            b.dt.compute(&b.cfg);
            b.idf.compute(&b.cfg, &b.dt).ok()?;
            b.facts.compute(&input, &b.dt).ok()?;
            b.placement.place(&input, &mut b.idf, &b.facts, Policy::SemiPruned, None).ok()?;
            b.renamer.run(&input, &b.dt, &b.placement, &mut b.rec).ok()?;
            Some(())
        })();
        // Without a renaming (a malformed function), every var offset is
        // unknown.
        if renamed.is_none() {
            b.rec.use_ver.clear();
        }
        let nv = b.rec.vdef.len();
        // Inserted phis' operands by phi: a stable bucket, linear (a
        // comparison sort of them was half of this adapter's time on the
        // largest corpus functions in SSA form, whose every var gets phis
        // merging its definition with the entry's undefined value).
        cfg_dom::csr::bucket_by(
            nv,
            b.rec.phi_ops.iter().filter(|o| (o.0 as usize) < nv).map(|&(phi, pred, v)| (phi, (pred, v))),
            &mut b.phi_start,
            &mut b.phi_list,
        );
        b.state.clear();
        b.state.resize(nv, 0);
        b.vals.clear();
        b.vals.resize(nv, Val::Unknown);
        let mut ev = Eval { func, b: &mut *b, root_keys: Vec::new() };
        self.acc_start.clear();
        self.accesses.clear();
        self.effects.clear();
        for inst in 0..ni as u32 {
            self.acc_start.push(self.accesses.len() as u32);
            let i = Inst::from_u32(inst);
            let Some(data) = func.inst(i) else {
                self.effects.push(Effects::default());
                continue;
            };
            let guarded = data.guard().is_some() && data.opcode() != Opcode::Phi;
            let mut e = Effects { guarded, ..Effects::default() };
            match data.opcode().format() {
                Format::Call => match (func.callee(i), summaries) {
                    (Some(Callee::Func(g)), Some(s)) => {
                        let s = s.get(g).cloned().unwrap_or(Summary {
                            reads_anything: true,
                            writes_anything: true,
                            ..Summary::default()
                        });
                        e.reads_anything = s.reads_anything;
                        e.writes_anything = s.writes_anything;
                        for &(o, lo, hi) in &s.reads {
                            self.accesses.push(Access::read(o, Offset::Unknown, None).may().within(lo, hi));
                        }
                        for &(o, lo, hi) in &s.writes {
                            self.accesses.push(Access::write(o, Offset::Unknown, None).may().within(lo, hi));
                        }
                    }
                    _ => {
                        e.reads_anything = true;
                        e.writes_anything = true;
                    }
                },
                Format::Intrinsic => {
                    e.reads_anything = true;
                    e.writes_anything = true;
                }
                _ => {
                    let descs = descriptors(func, i, module);
                    let ops = descriptor_operands(func, i);
                    for (k, (write, obj, offset, size)) in descs.into_iter().enumerate() {
                        let (oi, si) = ops.get(k).copied().unwrap_or((usize::MAX, None));
                        let offset = match ev.arg_val(i, offset, oi) {
                            Val::Const(c) => Offset::Exact(c),
                            Val::Affine { root, scale, add } => Offset::Affine { sym: root, scale, add },
                            Val::Unknown => Offset::Unknown,
                        };
                        let size = match ev.arg_val(i, size, si.unwrap_or(usize::MAX)) {
                            Val::Const(c) => u64::try_from(c).ok(),
                            _ => None,
                        };
                        let a = if write { Access::write(obj, offset, size) } else { Access::read(obj, offset, size) };
                        self.accesses.push(a);
                    }
                }
            }
            self.effects.push(e);
        }
        self.acc_start.push(self.accesses.len() as u32);
        // The symbols: every root, with its changes.
        let keys = std::mem::take(&mut ev.root_keys);
        self.change_start.clear();
        self.changes.clear();
        let mut per_root: Vec<SmallVec<[SymbolChange; 2]>> = Vec::with_capacity(keys.len());
        for key in &keys {
            let ch: SmallVec<[SymbolChange; 2]> = match key {
                RootKey::Version(v) => ev.version_changes(*v),
                RootKey::Pure(_, _, vals) => {
                    let mut out: SmallVec<[SymbolChange; 2]> = SmallVec::new();
                    for v in vals {
                        if let Val::Affine { root, .. } = *v {
                            for &c in &per_root[root as usize] {
                                let c = match c {
                                    SymbolChange::Induction { header, .. } => SymbolChange::Block(header),
                                    c => c,
                                };
                                if !out.contains(&c) {
                                    out.push(c);
                                }
                            }
                        }
                    }
                    out
                }
            };
            per_root.push(ch);
        }
        for ch in &per_root {
            self.change_start.push(self.changes.len() as u32);
            self.changes.extend_from_slice(ch);
        }
        self.change_start.push(self.changes.len() as u32);
    }

    /// The accesses of `inst` (as [`MemCode::accesses`] gives them).
    pub fn insts_accesses(&self, inst: InstId) -> &[Access] {
        cfg_dom::csr::row(&self.acc_start, &self.accesses, inst as usize)
    }
}

/// Evaluation of versions' values (see the module doc).
struct Eval<'f, 'b> {
    func: &'f Function,
    b: &'b mut KeelBuffers,
    /// Roots in creation order (operands' roots before the pure roots
    /// built on them).
    root_keys: Vec<RootKey>,
}

impl Eval<'_, '_> {
    fn root(&mut self, key: RootKey) -> u32 {
        if let Some(&r) = self.b.roots.get(&key) {
            return r;
        }
        let r = self.root_keys.len() as u32;
        self.b.roots.insert(key.clone(), r);
        self.root_keys.push(key);
        r
    }

    fn version_root(&mut self, v: Version) -> Val {
        Val::Affine { root: self.root(RootKey::Version(v)), scale: 1, add: 0 }
    }

    /// The value of operand `arg` at operand index `oi` of `inst`.
    fn arg_val(&mut self, inst: Inst, arg: Arg, oi: usize) -> Val {
        match arg {
            Arg::Imm(i) if i.ty().is_int() => Val::Const(ival(i)),
            Arg::Imm(_) => Val::Unknown,
            Arg::Var(_) => match self.operand_version(inst, oi) {
                Some(v) => self.val(v),
                None => Val::Unknown,
            },
        }
    }

    /// The version operand `oi` of `inst` reads (a var operand).
    fn operand_version(&self, inst: Inst, oi: usize) -> Option<Version> {
        let ops = self.func.operands(inst);
        ops.get(oi)?.as_var()?;
        let k = ops[..oi].iter().filter(|o| o.as_var().is_some()).count();
        let s = *self.b.rec.use_start.get(inst.as_u32() as usize)? as usize;
        self.b.rec.use_ver.get(s + k).copied().filter(|&v| v != NO_VERSION)
    }

    fn operand_val(&mut self, inst: Inst, op: Operand) -> Option<Val> {
        match op.as_var() {
            None => Some(match op.as_const().and_then(|c| self.func.imm(c)) {
                Some(i) if i.ty().is_int() => Val::Const(ival(i)),
                _ => Val::Unknown,
            }),
            Some(_) => {
                let oi = self.func.operands(inst).iter().position(|&o| o == op)?;
                let v = self.operand_version(inst, oi)?;
                (self.b.state.get(v as usize) == Some(&2)).then(|| self.b.vals[v as usize])
            }
        }
    }

    /// The value of version `v`, evaluated with an explicit stack.
    fn val(&mut self, v: Version) -> Val {
        if self.b.state.get(v as usize).is_none() {
            return Val::Unknown;
        }
        self.b.stack.clear();
        self.b.stack.push(v);
        while let Some(&x) = self.b.stack.last() {
            match self.b.state[x as usize] {
                2 => {
                    self.b.stack.pop();
                    continue;
                }
                1 => {
                    // Operands are done now (or this is a cycle, which SSA
                    // rules out: then it is unknown).
                    let val = self.compute(x).unwrap_or(Val::Unknown);
                    self.b.vals[x as usize] = val;
                    self.b.state[x as usize] = 2;
                    self.b.stack.pop();
                }
                _ => {
                    self.b.state[x as usize] = 1;
                    // Push the versions its value needs.
                    for dep in self.needs(x) {
                        if self.b.state.get(dep as usize) == Some(&0) {
                            self.b.stack.push(dep);
                        }
                    }
                }
            }
        }
        self.b.vals[v as usize]
    }

    /// The versions read by the definition of `x`, if its value is
    /// derived from them.
    fn needs(&self, x: Version) -> SmallVec<[Version; 3]> {
        let mut out = SmallVec::new();
        let Some(Some(VersionDef::Result { inst, guarded: false, .. })) = self.b.rec.vdef.get(x as usize) else {
            return out;
        };
        let i = Inst::from_u32(*inst);
        if !pure_format(self.func.opcode(i)) {
            return out;
        }
        for oi in 0..self.func.operands(i).len() {
            if let Some(v) = self.operand_version(i, oi) {
                out.push(v);
            }
        }
        out
    }

    /// The value of `x`, its operands done.
    fn compute(&mut self, x: Version) -> Option<Val> {
        let def = (*self.b.rec.vdef.get(x as usize)?)?;
        let (inst, guarded) = match def {
            VersionDef::Result { inst, guarded, .. } => (Inst::from_u32(inst), guarded),
            // Params and phis are roots.
            _ => return Some(self.version_root(x)),
        };
        let op = self.func.opcode(inst);
        if guarded || !pure_format(op) {
            return Some(self.version_root(x));
        }
        let ty = self.func.results(inst).first().and_then(|&r| self.func.var_type(r))?;
        if !ty.is_int() {
            return Some(Val::Unknown);
        }
        let ops = self.func.operands(inst).to_vec();
        let mut vals: SmallVec<[Val; 2]> = SmallVec::new();
        for &o in &ops {
            vals.push(self.operand_val(inst, o)?);
        }
        if vals.contains(&Val::Unknown) {
            return Some(Val::Unknown);
        }
        let folded = match (op, vals.as_slice()) {
            (Opcode::Const | Opcode::Copy, &[a]) => Some(a),
            (Opcode::Add, &[a, b]) if ty == Type::I64 => a.combine(b, 1),
            (Opcode::Sub, &[a, b]) if ty == Type::I64 => a.combine(b, -1),
            (Opcode::Mul, &[a, Val::Const(k)]) | (Opcode::Mul, &[Val::Const(k), a]) if ty == Type::I64 => {
                Some(a.mul(k))
            }
            (Opcode::Shl, &[a, Val::Const(k)]) if ty == Type::I64 => Some(a.mul(1i64.wrapping_shl(k as u32 & 63))),
            _ => None,
        };
        Some(match folded {
            Some(v) => v,
            None => {
                let root = self.root(RootKey::Pure(op, ty, vals));
                Val::Affine { root, scale: 1, add: 0 }
            }
        })
    }

    /// Where a version root changes.
    fn version_changes(&mut self, v: Version) -> SmallVec<[SymbolChange; 2]> {
        let mut out = SmallVec::new();
        match self.b.rec.vdef.get(v as usize).copied().flatten() {
            None | Some(VersionDef::Param(_)) => {}
            Some(VersionDef::Result { inst, .. }) => {
                let i = Inst::from_u32(inst);
                if self.func.is_phi(i) {
                    let block = self.func.layout().inst_block(i).map(|b| b.as_u32());
                    if let Some(h) = block {
                        out.push(self.phi_change(v, h, PhiSource::Input(i)));
                    }
                } else {
                    out.push(SymbolChange::Inst(inst));
                }
            }
            Some(VersionDef::Phi { block }) => out.push(self.phi_change(v, block, PhiSource::Inserted)),
        }
        out
    }

    /// An induction variable of `h` if the phi's value along every back
    /// edge is itself plus one constant step; otherwise a change on entry.
    fn phi_change(&mut self, phi: Version, h: Node, src: PhiSource) -> SymbolChange {
        let me = self.root(RootKey::Version(phi));
        let mut incoming: SmallVec<[(Node, Option<Version>); 4]> = SmallVec::new();
        match src {
            PhiSource::Inserted => {
                // Bucketed by phi (see KeelCode::compute).
                for &(pred, v) in cfg_dom::csr::row(&self.b.phi_start, &self.b.phi_list, phi as usize) {
                    incoming.push((pred, (v != NO_VERSION).then_some(v)));
                }
            }
            PhiSource::Input(i) => {
                let blocks = self.func.phi_blocks(i).to_vec();
                for (oi, &pb) in blocks.iter().enumerate() {
                    incoming.push((pb.as_u32(), self.operand_version(i, oi)));
                }
            }
        }
        let mut step: Option<i64> = None;
        let mut ok = true;
        for (pred, v) in incoming {
            if !(self.b.dt.is_reachable(pred) && self.b.dt.dominates(h, pred)) {
                continue;
            }
            match v.map(|v| self.val(v)) {
                Some(Val::Affine { root, scale: 1, add }) if root == me && step.is_none_or(|s| s == add) => {
                    step = Some(add);
                }
                _ => ok = false,
            }
        }
        match step {
            Some(step) if ok => SymbolChange::Induction { header: h, step },
            _ => SymbolChange::Block(h),
        }
    }
}

#[derive(Copy, Clone)]
enum PhiSource {
    Inserted,
    Input(Inst),
}

/// Formats whose result is a function of their operands alone.
fn pure_format(op: Opcode) -> bool {
    matches!(op.format(), Format::Const | Format::Unary | Format::Binary | Format::Convert)
}

impl Versioned for KeelCode {
    fn cfg_stamp(&self) -> Option<u64> {
        self.cfg_stamp
    }
    fn code_stamp(&self) -> Option<u64> {
        self.code_stamp
    }
}

impl MemCode for KeelCode {
    fn num_blocks(&self) -> usize {
        self.num_blocks
    }
    fn num_insts(&self) -> usize {
        self.num_insts
    }
    fn num_objects(&self) -> usize {
        self.lens.len()
    }
    fn object_len(&self, object: ObjectId) -> Option<u64> {
        self.lens.get(object as usize).copied()
    }
    fn num_symbols(&self) -> usize {
        self.change_start.len().saturating_sub(1)
    }
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        self.blocks.get(b as usize).into_iter().flatten().copied()
    }
    fn accesses(&self, inst: InstId, out: &mut Vec<Access>) -> Effects {
        out.extend_from_slice(self.insts_accesses(inst));
        self.effects.get(inst as usize).copied().unwrap_or_default()
    }
    fn symbol_changes(&self, sym: SymbolId, out: &mut Vec<SymbolChange>) {
        out.extend_from_slice(cfg_dom::csr::row(&self.change_start, &self.changes, sym as usize));
    }
}

/// The Keel adapter's memory kept in a [`crate::MemDep`] context (its
/// buffers reused from one function to the next).
#[derive(Clone, Debug, Default)]
pub(crate) struct KeelState {
    pub(crate) code: KeelCode,
    pub(crate) buffers: KeelBuffers,
}

/// A Keel function's CFG with its [`KeelCode`], for callers that want both
/// (the graph is `Function::cfg`).
pub fn keel_input(module: &Module, func: &Function, summaries: Option<&Summaries>) -> (CsrGraph, KeelCode) {
    let mut buffers = KeelBuffers::default();
    let mut code = KeelCode::default();
    code.compute(module, func, summaries, &mut buffers);
    (buffers.cfg, code)
}
