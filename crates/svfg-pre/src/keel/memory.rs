//! PRE's one memory question, answered on demand: [`LazyMemory`].
//!
//! PRE asks at most once per load `L2`, and only about the nearest load
//! `L1` of the same key and operand values that comes before it on every
//! path, whether `L2` reads the value `L1` read
//! ([`crate::PreCode::same_memory`]). Computing every dependence of the
//! function first (`memdep`) costs most of PRE's time on real functions
//! (`docs/benchmarks-svfg-pre.md`), while most questions have a cheap
//! answer: nothing between `L1` and `L2` writes the object they read.
//!
//! The walk: from `L2` backward, instruction by instruction and block by
//! block through predecessors, stopping on each path at `L1`. Every block
//! it enters is dominated by `L1` (else a path from the entry would reach
//! `L2` around `L1`), so every write it meets comes after `L1`.
//! - It meets **no instruction that may write** `L2`'s object (a store to
//!   it, a tensor instruction writing it, a call or intrinsic): the answer
//!   is **yes**. Sound: on every execution, the path between the last run
//!   of `L1` and `L2` is one the walk covered (it does not pass `L1`), so
//!   nothing changed the object. It is at least as precise as `memdep`'s
//!   answer: a write that reaches `L2` only through `L1` again (a loop
//!   around `L1`) makes `memdep` say no and does not stop the walk.
//! - It meets a **call or intrinsic** (no summaries: it may write
//!   anything): the answer is **no**, and it is `memdep`'s answer too —
//!   the last write that may touch the location on the path from the call
//!   to `L2` (the call or a later write) reaches `L2` and comes after `L1`.
//! - It meets a **store to the object** whose index, like both loads',
//!   is one root plus a constant ([`super::index`]: `%r + c` through
//!   64-bit adds, or `zext %x + c`): when the loads' roots are the same,
//!   that root is defined before `L1` (`L1` reads it), so it holds one
//!   value on the walked paths, and the constants decide. Elements apart:
//!   the store does not touch the loads' element, and the walk goes on.
//!   Overlapping: the answer is **no** (the store writes that element;
//!   `memdep` says no too).
//! - Otherwise (a store of another root, a tensor write of the object,
//!   which `memdep` may prove elsewhere in the object; the entry reached;
//!   the budget spent) the answer is `memdep`'s, as before: the function's flow
//!   dependences ([`memory_options`]), computed at the first such
//!   question and kept; if `memdep` refuses the function (its memory
//!   budget), the answer is no (every load its own value).
//!
//! Blocks without predecessors other than the entry are unreachable, and so
//! are paths through them: they are skipped; reaching the entry's start
//! means `L1` did not come first, and `memdep` answers.
//!
//! Invariant, linear by design: all walks of one function together scan at
//! most [`WALK_BUDGET_PER_INST`] times its instructions (plus a constant);
//! past that every question goes to `memdep`. One visited mark per block,
//! reset by an epoch counter, so a walk costs what it scans.

use super::index::{Definitions, IndexForm, disjoint};
use ir_core::{Block, Format, Function, Inst, Mem, Module, node};
use memdep::{MemDep, MemDeps};
use std::cell::{Cell, OnceCell, RefCell};
use std::time::{Duration, Instant};

/// What PRE asks memdep for: flow dependences only (which writes may
/// reach each read, [`crate::PreCode::same_memory`]'s question), with
/// affine offsets; no anti or output dependences and no loop-carried
/// distances, which PRE never reads. The flow dependences are the same as
/// with memdep's defaults.
pub fn memory_options() -> memdep::Options {
    memdep::Options { anti_and_output: false, loop_carried: false, ..memdep::Options::default() }
}

/// Instructions the walks of one function may scan, per instruction of
/// the function, before every further question goes to `memdep`.
pub const WALK_BUDGET_PER_INST: usize = 4;

/// What a walk found.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Walked {
    /// No write of the object between the two loads: the same value.
    Clean,
    /// A call or intrinsic between them (it may write anything): not the
    /// same value, as `memdep` would say.
    Clobbered,
    /// A store or tensor write of the object, the entry, or the budget:
    /// ask `memdep`.
    Unsure,
}

/// What one instruction may do to the object a walk follows.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum WriteKind {
    /// Nothing.
    None,
    /// It writes the object somewhere (`memdep` knows where).
    Object,
    /// It may write anything.
    Anything,
}

/// The reusable state of the walks.
#[derive(Debug, Default)]
struct Walk {
    /// Per block, the epoch of the walk that entered it from its end.
    seen: Vec<u32>,
    epoch: u32,
    stack: Vec<Block>,
    /// Instructions the walks may still scan.
    steps_left: usize,
}

/// Counts of how the questions were answered (for the benchmarks).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryCounts {
    /// Questions asked.
    pub questions: u64,
    /// Answered yes by the walk alone.
    pub walked: u64,
    /// Answered no by the walk alone (a call between the loads).
    pub clobbered: u64,
    /// Answered by `memdep`.
    pub from_memdep: u64,
    /// Of those, answered yes.
    pub memdep_yes: u64,
    /// Instructions the walks scanned.
    pub steps: u64,
    /// Time spent computing `memdep`'s dependences (zero when no walk was
    /// unsure).
    pub memdep_time: Duration,
}

impl core::ops::AddAssign for MemoryCounts {
    /// Sums counts over functions.
    fn add_assign(&mut self, o: MemoryCounts) {
        self.questions += o.questions;
        self.walked += o.walked;
        self.clobbered += o.clobbered;
        self.from_memdep += o.from_memdep;
        self.memdep_yes += o.memdep_yes;
        self.steps += o.steps;
        self.memdep_time += o.memdep_time;
    }
}

/// The memory answers of one Keel function (SSA form) of `module`: walks
/// first, `memdep` when a walk is unsure (see the module doc). Pair it with
/// [`super::KeelCode::with_lazy_memory`].
#[derive(Debug)]
pub struct LazyMemory<'a> {
    module: &'a Module,
    func: &'a Function,
    /// The CFG, built at the first walk (a function PRE asks nothing
    /// about never pays for it).
    cfg: OnceCell<cfg_dom::CsrGraph>,
    walk: RefCell<Walk>,
    deps: OnceCell<Option<MemDeps>>,
    defs: OnceCell<Definitions>,
    options: memdep::Options,
    counts: Cell<MemoryCounts>,
}

impl<'a> LazyMemory<'a> {
    /// Answers for `func`, a function of `module`; nothing is computed
    /// until the first question.
    pub fn new(module: &'a Module, func: &'a Function) -> LazyMemory<'a> {
        LazyMemory::with_options(module, func, memory_options())
    }

    /// [`LazyMemory::new`], `memdep` run with `options` when it runs.
    pub fn with_options(module: &'a Module, func: &'a Function, options: memdep::Options) -> LazyMemory<'a> {
        let walk = Walk { steps_left: WALK_BUDGET_PER_INST * func.num_insts() + 64, ..Walk::default() };
        LazyMemory {
            module,
            func,
            cfg: OnceCell::new(),
            walk: RefCell::new(walk),
            deps: OnceCell::new(),
            defs: OnceCell::new(),
            options,
            counts: Cell::new(MemoryCounts::default()),
        }
    }

    /// How the questions so far were answered.
    pub fn counts(&self) -> MemoryCounts {
        self.counts.get()
    }

    /// Updates the counts.
    fn tally(&self, f: impl FnOnce(&mut MemoryCounts)) {
        let mut c = self.counts.get();
        f(&mut c);
        self.counts.set(c);
    }

    pub(crate) fn count_memdep_yes(&self) {
        self.tally(|c| c.memdep_yes += 1);
    }

    /// The function's `memdep` dependences, computed on first use; `None`
    /// when `memdep` refuses the function.
    pub(crate) fn deps(&self) -> Option<&MemDeps> {
        self.deps
            .get_or_init(|| {
                let t = Instant::now();
                let deps = MemDep::with_options(self.options).compute_function(self.module, self.func, None).ok();
                self.tally(|c| c.memdep_time = t.elapsed());
                deps
            })
            .as_ref()
    }

    /// The walk's answer for `later` back to `earlier`: `Some(true)` when
    /// no write of `later`'s object comes between them, `Some(false)` when
    /// a call or a store to the same element does, `None` when `memdep`
    /// must answer.
    pub(crate) fn walk_says_same(&self, earlier: Inst, later: Inst) -> Option<bool> {
        let mut c = self.counts.get();
        c.questions += 1;
        let walked = match self.func.scalar_mem(later) {
            Some(mem) => self.walk(earlier, later, mem, &mut c),
            None => Walked::Unsure,
        };
        match walked {
            Walked::Clean => c.walked += 1,
            Walked::Clobbered => c.clobbered += 1,
            Walked::Unsure => c.from_memdep += 1,
        }
        self.counts.set(c);
        match walked {
            Walked::Clean => Some(true),
            Walked::Clobbered => Some(false),
            Walked::Unsure => None,
        }
    }

    fn walk(&self, earlier: Inst, later: Inst, mem: Mem, c: &mut MemoryCounts) -> Walked {
        let layout = self.func.layout();
        let Some(start) = layout.inst_block(later) else { return Walked::Unsure };
        let entry = layout.entry_block();
        let cfg = self.cfg.get_or_init(|| self.func.cfg());
        let mut w = self.walk.borrow_mut();
        let w = &mut *w;
        w.seen.resize(self.func.num_blocks(), 0);
        w.epoch = w.epoch.wrapping_add(1);
        if w.epoch == 0 {
            w.seen.fill(0);
            w.epoch = 1;
        }
        w.stack.clear();
        // Scans backward from `at` (inclusive) to its block's start; true
        // when it met `earlier` (the path ends there).
        let mut stores = false;
        let store_met = &mut stores;
        // `later`'s index as a root plus a constant, when `earlier`'s has
        // the same root: that root is then defined before `earlier`, so it
        // holds one value between the two loads.
        let mut target: Option<Option<IndexForm>> = None;
        let mut target_form = || -> Option<IndexForm> {
            *target.get_or_insert_with(|| {
                let defs = self.defs.get_or_init(|| Definitions::of(self.func));
                let l2 = defs.index_form(self.func, self.module, later)?;
                let l1 = defs.index_form(self.func, self.module, earlier)?;
                (l1.root == l2.root).then_some(l2)
            })
        };
        let mut scan = |mut at: Option<Inst>, w: &mut Walk| -> Result<bool, Walked> {
            while let Some(i) = at {
                if i == earlier {
                    return Ok(true);
                }
                if w.steps_left == 0 {
                    return Err(Walked::Unsure);
                }
                w.steps_left -= 1;
                c.steps += 1;
                match may_write(self.func, self.module, i, mem) {
                    WriteKind::None => {}
                    WriteKind::Object => {
                        let store = target_form().and_then(|t| {
                            let defs = self.defs.get()?;
                            let s = defs.index_form(self.func, self.module, i)?;
                            (s.root == t.root).then(|| disjoint(s, t))
                        });
                        match store {
                            Some(true) => {}                              // elsewhere in the object
                            Some(false) => return Err(Walked::Clobbered), // on the same element
                            None => *store_met = true,
                        }
                    }
                    WriteKind::Anything => return Err(Walked::Clobbered),
                }
                at = layout.prev_inst(i);
            }
            Ok(false)
        };
        let push_preds = |b: Block, w: &mut Walk| -> Result<(), Walked> {
            let preds = cfg.pred_slice(node(b));
            if preds.is_empty() && Some(b) == entry {
                return Err(Walked::Unsure); // `earlier` did not come first
            }
            for &p in preds {
                let p = ir_core::block(p);
                let k = p.as_u32() as usize;
                if w.seen[k] != w.epoch {
                    w.seen[k] = w.epoch;
                    w.stack.push(p);
                }
            }
            Ok(())
        };
        let walked = (|| {
            if !scan(layout.prev_inst(later), w)? {
                push_preds(start, w)?;
            }
            while let Some(b) = w.stack.pop() {
                // Entered from its end, `earlier`'s block ends the path at
                // `earlier`; any other block goes on to its predecessors.
                if !scan(layout.last_inst(b), w)? {
                    push_preds(b, w)?;
                }
            }
            Ok(())
        })();
        match walked {
            Err(e) => e,
            Ok(()) if stores => Walked::Unsure,
            Ok(()) => Walked::Clean,
        }
    }
}

/// What `inst` may write of object `mem`: a store to it or a tensor
/// instruction or matrix product writing it writes the object; any call or
/// intrinsic may write anything (no summaries). The same classification as
/// `memdep`'s Keel binding (`Function::accesses`; calls and intrinsics
/// writing anything).
fn may_write(func: &Function, module: &Module, inst: Inst, mem: Mem) -> WriteKind {
    let object = |yes: bool| if yes { WriteKind::Object } else { WriteKind::None };
    match func.opcode(inst).format() {
        Format::Call | Format::Intrinsic => WriteKind::Anything,
        Format::Store => object(func.scalar_mem(inst).is_none_or(|m| m == mem)),
        Format::TensorMap | Format::TensorReduce | Format::Matmul => {
            object(func.accesses(inst, module).iter().any(|a| a.access == ir_core::Access::Write && a.mem == mem))
        }
        Format::Const
        | Format::Undef
        | Format::Unary
        | Format::Binary
        | Format::Select
        | Format::Compare
        | Format::Convert
        | Format::Load
        | Format::Phi
        | Format::Jump
        | Format::Branch
        | Format::Switch
        | Format::Ret
        | Format::Trap => WriteKind::None,
    }
}
