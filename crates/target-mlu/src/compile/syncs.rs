//! Sync placement from memory dependences (slice 3): a `sync.P` goes
//! before an instruction exactly when `memdep` says it depends on a copy or
//! compute instruction of pipe `P` that may still be in flight there.
//!
//! The machine's rule (docs/mlu-isa.md §6): an access by one pipe races
//! with an overlapping access still in flight on another pipe, one of them
//! a write, unless a `sync` of the in-flight pipe (or a barrier, or `exit`)
//! orders them; a pipe's own instructions are ordered. So this pass needs
//! two facts per instruction `X`:
//!
//! 1. **Which asynchronous instructions may be in flight before `X`**: a
//!    forward dataflow over the program's CFG ([`super::blocks`]) whose
//!    state is, per asynchronous pipe (compute, IO-DMA, Move-DMA), the set
//!    of instructions issued on it since its last sync on some path
//!    (join: union; `sync.P` empties `P`, `sync.all`, barriers and `exit`
//!    empty all). Sets only grow between rounds, so the fixpoint is
//!    reached; the last round decides.
//! 2. **Which of them `X` depends on**: [`memdep`] run on the program
//!    itself, through its input trait ([`MluMem`]: objects are the
//!    program's objects counted in bytes; an address `@obj + %r + c` is
//!    affine in the register `%r`, which changes where an instruction
//!    defines it; sizes are exact when immediate). `MemDeps::depends(Y, X)`
//!    answers flow, anti and output dependence along a path from `Y` to
//!    `X`, with exact kills.
//!
//! If `X` depends on an in-flight `Y` of another pipe `P`, `sync.P` is
//! inserted right before `X` (and `P`'s set empties), with the reason:
//! the kind of dependence and the object. Placing the sync as late as
//! possible lets everything between `Y` and `X` overlap the copy.
//!
//! Why a dependence killed by a later write still gets its sync: the killer
//! `Z` overwrote `Y`'s range along every path. If `Z` is on `Y`'s pipe it
//! is in flight too and `X` depends on `Z`, so the sync of that pipe orders
//! `Y` as well; on another pipe, `Z` itself depended on `Y` and got the
//! sync. Either way nothing unordered remains.
//!
//! To bound the work on code with long runs of independent copies, a pipe
//! with [`MAX_PENDING`] instructions in flight gets a sync before its next
//! one (recorded with that reason).
//!
//! Invariants: deterministic (blocks in index order, sets sorted); the
//! program's labels keep pointing at the same instruction, now preceded by
//! the syncs inserted before it (so every path into a label runs them).

use super::blocks::Blocks;
use super::cores::{Cores, Partition, Region, barrier_over};
use super::emit::SyncNote;
use super::error::CompileError;
use cfg_dom::{Graph, InstId, Node, Versioned};
use memdep::{Access, Effects, MemCode, MemDeps, ObjectId, Offset, SymbolChange, SymbolId};
use mlu_isa::{Addr, Inst, Operand, Pipe, Program, SyncKind, VSrc};

/// Most instructions one pipe may have in flight before the pass syncs it
/// anyway (a bound on the pass's work, not a machine limit).
pub const MAX_PENDING: usize = 64;

/// The asynchronous pipes, in state order.
const PIPES: [Pipe; 3] = [Pipe::Compute, Pipe::Io, Pipe::Move];

fn slot(p: Pipe) -> Option<usize> {
    PIPES.iter().position(|&q| q == p)
}

fn sync_of(p: Pipe) -> SyncKind {
    match p {
        Pipe::Io => SyncKind::Io,
        Pipe::Move => SyncKind::Move,
        _ => SyncKind::Compute,
    }
}

/// A program as `memdep` sees it (see the module doc).
pub struct MluMem<'a> {
    program: &'a Program,
    blocks: &'a Blocks,
    /// Per virtual register, the instructions defining it (CSR).
    def_start: Vec<u32>,
    def_insts: Vec<u32>,
}

impl<'a> MluMem<'a> {
    fn new(program: &'a Program, blocks: &'a Blocks, vregs: u32) -> MluMem<'a> {
        let pairs: Vec<(u32, u32)> =
            program.insts.iter().enumerate().filter_map(|(k, i)| Some((u32::from(i.def()?.0), k as u32))).collect();
        let (mut def_start, mut def_insts) = (Vec::new(), Vec::new());
        cfg_dom::csr::bucket_by(vregs as usize, pairs.iter().copied(), &mut def_start, &mut def_insts);
        MluMem { program, blocks, def_start, def_insts }
    }
}

/// `n × bytes` when `n` is an immediate.
fn scaled(n: &Operand, bytes: u64) -> Option<u64> {
    n.imm_i64().and_then(|v| u64::try_from(v).ok()).and_then(|v| v.checked_mul(bytes))
}

/// The access of `size` bytes at `a` (`None`: no object named).
fn access(a: &Addr, size: Option<u64>, write: bool) -> Option<Access> {
    let object = a.sym?.0;
    let offset = match a.base {
        None => Offset::Exact(a.offset),
        Some(r) => Offset::Affine { sym: u32::from(r.0), scale: 1, add: a.offset },
    };
    Some(Access { write, object, offset, size, within: None, may: false })
}

/// Appends the memory accesses of `inst`; false when one names no object
/// (an absolute address), which the caller treats as "anything".
pub(crate) fn accesses_of(inst: &Inst, out: &mut Vec<Access>) -> bool {
    let mut ok = true;
    let mut put = |a: &Addr, size: Option<u64>, write: bool| match access(a, size, write) {
        Some(x) => out.push(x),
        None => ok = false,
    };
    let src = |s: &VSrc, size, put: &mut dyn FnMut(&Addr, Option<u64>, bool)| {
        if let VSrc::Mem(a) = s {
            put(a, size, false);
        }
    };
    match inst {
        Inst::Load { ty, addr, .. } => put(addr, Some(ty.bytes()), false),
        Inst::Store { ty, addr, .. } => put(addr, Some(ty.bytes()), true),
        Inst::VUnary { ty, dst, src: s, n, .. } => {
            let size = scaled(n, ty.bytes());
            put(s, size, false);
            put(dst, size, true);
        }
        Inst::VBinary { ty, dst, a, b, n, .. } => {
            let size = scaled(n, ty.bytes());
            src(a, size, &mut put);
            src(b, size, &mut put);
            put(dst, size, true);
        }
        Inst::VFma { ty, dst, a, b, c, n } => {
            let size = scaled(n, ty.bytes());
            for s in [a, b, c] {
                src(s, size, &mut put);
            }
            put(dst, size, true);
        }
        Inst::VFill { ty, dst, n, .. } => put(dst, scaled(n, ty.bytes()), true),
        Inst::VConvert { to, from, dst, src: s, n, .. } => {
            put(s, scaled(n, from.bytes()), false);
            put(dst, scaled(n, to.bytes()), true);
        }
        Inst::VReduce { ty, src: s, n, .. } => put(s, scaled(n, ty.bytes()), false),
        Inst::Matmul { ty, c, a, b, m, k, n } => {
            let dims = |x: &Operand, y: &Operand| match (x.imm_i64(), y.imm_i64()) {
                (Some(x), Some(y)) => scaled(&Operand::int(x.wrapping_mul(y)), ty.bytes()),
                _ => None,
            };
            put(a, dims(m, k), false);
            put(b, dims(k, n), false);
            put(c, dims(m, n), true);
        }
        Inst::Dma { dst, src: s, bytes } => {
            let size = scaled(bytes, 1);
            put(s, size, false);
            put(dst, size, true);
        }
        Inst::Dma2d { dst, src: s, .. } => {
            // Strided rows: somewhere in each object.
            let whole = |a: &Addr| Addr { base: None, offset: 0, ..*a };
            put(&whole(s), None, false);
            put(&whole(dst), None, true);
        }
        _ => {}
    }
    ok
}

impl Versioned for MluMem<'_> {}

impl MemCode for MluMem<'_> {
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn num_insts(&self) -> usize {
        self.program.insts.len()
    }
    fn num_objects(&self) -> usize {
        self.program.mems.len()
    }
    fn object_len(&self, object: ObjectId) -> Option<u64> {
        self.program.mems.get(object as usize).map(|m| m.bytes())
    }
    fn num_symbols(&self) -> usize {
        self.def_start.len().saturating_sub(1)
    }
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        self.blocks.range(b)
    }
    fn accesses(&self, inst: InstId, out: &mut Vec<Access>) -> Effects {
        let Some(i) = self.program.insts.get(inst as usize) else { return Effects::default() };
        if accesses_of(i, out) {
            Effects::default()
        } else {
            Effects { guarded: false, reads_anything: true, writes_anything: true }
        }
    }
    fn symbol_changes(&self, sym: SymbolId, out: &mut Vec<SymbolChange>) {
        let s = sym as usize;
        if let (Some(&lo), Some(&hi)) = (self.def_start.get(s), self.def_start.get(s + 1)) {
            out.extend(self.def_insts[lo as usize..hi as usize].iter().map(|&k| SymbolChange::Inst(k)));
        }
    }
}

/// The analysis state: per asynchronous pipe, the instructions that may
/// be in flight (sorted); in multi-core code, the region instructions
/// whose shared-memory accesses other cores may not have finished, each
/// with its region (or [`OTHER`]: an earlier instance of a region).
#[derive(Clone, Default, PartialEq, Eq, Debug)]
struct State {
    pipes: [Vec<u32>; 3],
    remote: Vec<(u32, u32)>,
}

/// The tag of a remote access made by an earlier instance of a region.
const OTHER: u32 = u32::MAX;
/// The tag of a shared access by code every core runs.
const EVERY: u32 = u32::MAX - 1;

impl State {
    fn clear(&mut self) {
        self.pipes.iter_mut().for_each(Vec::clear);
        self.remote.clear();
    }

    /// Adds `other`'s entries; true when something was new.
    fn absorb(&mut self, other: &State) -> bool {
        let mut grew = false;
        for s in 0..PIPES.len() {
            grew |= union_into(&mut self.pipes[s], &other.pipes[s]);
        }
        grew | union_into(&mut self.remote, &other.remote)
    }
}

/// `into ∪= from` (both sorted); true when `into` grew.
fn union_into<T: Ord + Copy>(into: &mut Vec<T>, from: &[T]) -> bool {
    let mut grew = false;
    for &y in from {
        if let Err(at) = into.binary_search(&y) {
            into.insert(at, y);
            grew = true;
        }
    }
    grew
}

/// A sync or barrier to insert before instruction `at`.
struct Planned {
    at: u32,
    inst: Inst,
    reason: String,
}

/// Does `inst` touch memory (so a race could involve it)?
fn touches_memory(inst: &Inst) -> bool {
    !matches!(inst.pipe(), Pipe::Scalar) || matches!(inst, Inst::Load { .. } | Inst::Store { .. })
}

struct Placer<'a> {
    program: &'a Program,
    deps: &'a MemDeps,
    scratch: Vec<Access>,
    scratch2: Vec<Access>,
    /// Per instruction, its region (`u32::MAX`: none).
    region_of: Vec<u32>,
    regions: &'a [Region],
    /// Per instruction, its accesses of shared memory (DRAM, SRAM) with
    /// register offsets unknown (registers differ between cores), CSR.
    shared_start: Vec<u32>,
    shared: Vec<Access>,
    barrier: Option<Inst>,
}

impl Placer<'_> {
    fn shared_of(&self, k: u32) -> &[Access] {
        self.shared_in(k, k + 1)
    }

    /// The shared accesses of instructions `lo..hi` (contiguous in the CSR).
    fn shared_in(&self, lo: u32, hi: u32) -> &[Access] {
        let last = self.shared_start.len() - 1;
        let (lo, hi) = ((lo as usize).min(last), (hi as usize).min(last));
        &self.shared[self.shared_start[lo] as usize..self.shared_start[hi.max(lo)] as usize]
    }

    /// The first remote entry of `state` (not of `region`'s own instance)
    /// that one of `accesses` may overlap, one of the two a write.
    fn remote_conflict(&self, state: &State, accesses: &[Access], region: u32) -> Option<(u32, Access)> {
        let len = |o: u32| self.program.mems.get(o as usize).map_or(u64::MAX, |m| m.bytes());
        let part = |r: u32| self.regions.get(r as usize).and_then(|r| r.partition.as_ref());
        let mine = part(region);
        for &(y, tag) in &state.remote {
            if tag == region && region != u32::MAX {
                continue;
            }
            // Owner computes: both regions share the object out alike.
            let theirs = part(self.region_of[y as usize]);
            let alike = |o: u32| match (mine, theirs) {
                (Some(p), Some(q)) => {
                    p.n == q.n && p.te == q.te && {
                        let off = |x: &Partition| x.objects.iter().find(|e| e.0 == o).map(|e| e.1);
                        off(p).is_some() && off(p) == off(q)
                    }
                }
                _ => false,
            };
            for b in self.shared_of(y) {
                for a in accesses {
                    if (a.write || b.write)
                        && !(a.object == b.object && alike(a.object))
                        && memdep::may_overlap(a, b, len(a.object), len(b.object)) != memdep::Answer::NoDep
                    {
                        return Some((y, *a));
                    }
                }
            }
        }
        None
    }

    /// Runs instruction `k` on `state`; with `plan`, records its syncs.
    fn step(&mut self, k: u32, state: &mut State, mut plan: Option<&mut Vec<Planned>>) {
        let inst = &self.program.insts[k as usize];
        let region = self.region_of[k as usize];
        if region != u32::MAX && self.regions[region as usize].start == k {
            // Entering a region: its earlier instance is another one now,
            // and the region (all of its cores) waits for what it depends on.
            for e in &mut state.remote {
                if e.1 == region {
                    e.1 = OTHER;
                }
            }
            state.remote.sort_unstable();
            let (lo, hi) = (self.regions[region as usize].start, self.regions[region as usize].end);
            if let Some((y, a)) = self.remote_conflict(state, self.shared_in(lo, hi), region) {
                if let (Some(plan), Some(b)) = (plan.as_deref_mut(), self.barrier.clone()) {
                    let reason = self.remote_reason(y, &a, "a region of another core's part");
                    plan.push(Planned { at: k, inst: b, reason });
                }
                state.clear();
            }
        }
        match inst {
            Inst::Sync(kind) => {
                for (s, p) in PIPES.iter().enumerate() {
                    if kind.covers(*p) {
                        state.pipes[s].clear();
                    }
                }
                return;
            }
            Inst::Barrier { .. } | Inst::Exit | Inst::Trap => {
                state.clear();
                return;
            }
            _ => {}
        }
        if !touches_memory(inst) {
            return;
        }
        if region == u32::MAX && self.barrier.is_some() && !state.remote.is_empty() {
            // Code every core runs: it waits for the other cores' parts.
            if let Some((y, a)) = self.remote_conflict(state, self.shared_of(k), u32::MAX) {
                if let (Some(plan), Some(b)) = (plan.as_deref_mut(), self.barrier.clone()) {
                    let reason = self.remote_reason(y, &a, "code every core runs");
                    plan.push(Planned { at: k, inst: b, reason });
                }
                state.clear();
            }
        }
        let own = slot(inst.pipe());
        for (s, &pipe) in PIPES.iter().enumerate() {
            if Some(s) == own || state.pipes[s].is_empty() {
                continue;
            }
            let Some(&y) = state.pipes[s].iter().find(|&&y| self.deps.depends(y, k).any()) else { continue };
            if let Some(plan) = plan.as_deref_mut() {
                let reason = self.reason(y, k, pipe);
                plan.push(Planned { at: k, inst: Inst::Sync(sync_of(pipe)), reason });
            }
            state.pipes[s].clear();
        }
        if let Some(s) = own {
            if state.pipes[s].len() >= MAX_PENDING {
                if let Some(plan) = plan {
                    let reason = format!(
                        "{MAX_PENDING} instructions in flight on the {} pipe (the pass's bound)",
                        PIPES[s].name()
                    );
                    plan.push(Planned { at: k, inst: Inst::Sync(sync_of(PIPES[s])), reason });
                }
                state.pipes[s].clear();
            }
            union_into(&mut state.pipes[s], &[k]);
        }
        if self.barrier.is_some() && !self.shared_of(k).is_empty() {
            let tag = if region == u32::MAX { EVERY } else { region };
            union_into(&mut state.remote, &[(k, tag)]);
        }
    }

    /// Why a barrier goes before an access `a` that may overlap remote
    /// instruction `y`'s.
    fn remote_reason(&self, y: u32, a: &Access, whose: &str) -> String {
        let name = self.program.mems.get(a.object as usize).map_or("memory", |m| m.name.as_str());
        let theirs = &self.program.insts[y as usize];
        format!(
            "{whose} {} @{name}, which another core's `{}` may still access",
            if a.write { "writes" } else { "reads" },
            theirs.mnemonic()
        )
    }

    /// Why `later` waits for `earlier` (of pipe `pipe`): the dependence
    /// kind and the object.
    fn reason(&mut self, earlier: u32, later: u32, pipe: Pipe) -> String {
        let d = self.deps.depends(earlier, later);
        let (verb, theirs) = if d.flow {
            ("reads", "writes")
        } else if d.output {
            ("writes", "writes")
        } else {
            ("writes", "reads")
        };
        let (a, b) = (&self.program.insts[earlier as usize], &self.program.insts[later as usize]);
        self.scratch.clear();
        self.scratch2.clear();
        accesses_of(a, &mut self.scratch);
        accesses_of(b, &mut self.scratch2);
        let object = self
            .scratch2
            .iter()
            .find_map(|x| self.scratch.iter().find(|y| y.object == x.object && (x.write || y.write)).map(|_| x.object))
            .and_then(|o| self.program.mems.get(o as usize))
            .map_or_else(|| "memory".to_string(), |m| format!("@{}", m.name));
        format!(
            "`{}` {verb} {object}, which an in-flight `{}` on the {} pipe {theirs}",
            b.mnemonic(),
            a.mnemonic(),
            pipe.name()
        )
    }
}

/// Inserts the syncs `program` needs (see the module doc) and returns them
/// with their reasons, in program order. With `cores`, also the barriers
/// multi-core code needs between its regions (the model: module `split`;
/// the regions: module `cores`).
pub(crate) fn place_syncs(
    program: &mut Program,
    vregs: u32,
    cores: Option<&Cores>,
    max_memory: Option<u64>,
) -> Result<Vec<SyncNote>, CompileError> {
    let blocks = Blocks::new(program)?;
    let deps = {
        let code = MluMem::new(program, &blocks, vregs);
        let mut options = memdep::Options::default();
        options.max_memory = max_memory.unwrap_or(options.max_memory);
        memdep::MemDep::with_options(options).compute(&blocks.graph, &code).map_err(|e| match e {
            memdep::InputError::TooLarge { insts, bytes, limit, .. } => {
                CompileError::SyncsTooLarge { insts, bytes, limit }
            }
            e => CompileError::Memdep(e),
        })?
    };
    let n = program.insts.len();
    let mut region_of = vec![u32::MAX; n];
    let (mut shared_start, mut shared) = (Vec::with_capacity(n + 1), Vec::new());
    let mut barrier = None;
    let regions: &[Region] = cores.map_or(&[], |c| &c.regions);
    if let Some(c) = cores {
        for (r, region) in c.regions.iter().enumerate() {
            for k in region.start..region.end.min(n as u32) {
                region_of[k as usize] = r as u32;
            }
        }
        barrier = Some(barrier_over(c.count));
    }
    let mut scratch = Vec::new();
    for inst in &program.insts {
        shared_start.push(shared.len() as u32);
        if cores.is_some() {
            scratch.clear();
            accesses_of(inst, &mut scratch);
            for a in &scratch {
                let space = program.mems.get(a.object as usize).map(|m| m.space);
                if matches!(space, Some(mlu_isa::Space::Dram | mlu_isa::Space::Sram)) {
                    let offset = match a.offset {
                        Offset::Affine { .. } => Offset::Unknown,
                        o => o,
                    };
                    shared.push(Access { offset, ..*a });
                }
            }
        }
    }
    shared_start.push(shared.len() as u32);
    let nb = blocks.len();
    let mut placer = Placer {
        program,
        deps: &deps,
        scratch: Vec::new(),
        scratch2: Vec::new(),
        region_of,
        regions,
        shared_start,
        shared,
        barrier,
    };
    let mut entry: Vec<State> = vec![State::default(); nb];
    let mut queued = vec![true; nb];
    let mut work: std::collections::VecDeque<Node> = (0..nb as Node).collect();
    let mut state = State::default();
    while let Some(b) = work.pop_front() {
        queued[b as usize] = false;
        state.clone_from(&entry[b as usize]);
        for k in blocks.range(b) {
            placer.step(k, &mut state, None);
        }
        for t in blocks.graph.successors(b) {
            if entry[t as usize].absorb(&state) && !queued[t as usize] {
                queued[t as usize] = true;
                work.push_back(t);
            }
        }
    }
    let mut plan = Vec::new();
    for b in 0..nb as Node {
        state.clone_from(&entry[b as usize]);
        for k in blocks.range(b) {
            placer.step(k, &mut state, Some(&mut plan));
        }
    }
    drop(placer);
    Ok(insert(program, plan))
}

/// Inserts the planned syncs (sorted by position) and moves the labels.
fn insert(program: &mut Program, plan: Vec<Planned>) -> Vec<SyncNote> {
    let n = program.insts.len();
    let old = std::mem::take(&mut program.insts);
    let mut new_at = Vec::with_capacity(n + 1);
    let mut insts = Vec::with_capacity(n + plan.len());
    let mut notes = Vec::with_capacity(plan.len());
    let mut next = plan.into_iter().peekable();
    for (k, inst) in old.into_iter().enumerate() {
        new_at.push(insts.len() as u32);
        while let Some(p) = next.next_if(|p| p.at as usize == k) {
            insts.push(p.inst.clone());
            notes.push(SyncNote { inst: p.inst, reason: p.reason });
        }
        insts.push(inst);
    }
    new_at.push(insts.len() as u32);
    for l in &mut program.labels {
        l.at = new_at.get(l.at as usize).copied().unwrap_or(insts.len() as u32);
    }
    program.insts = insts;
    notes
}
