//! The dynamic last-writer oracle (see the parent module doc).
//!
//! Invariants: every memory event of the run is recorded with its call
//! stack (frame serials, functions, instructions) and execution step; per
//! element, the last write and the reads since it are kept; a pair is
//! checked at each stack level where both events lie in one activation,
//! except where they are one execution of one instruction (an
//! instruction's own reads and writes, or everything inside one call);
//! each distinct pair is checked once.

use crate::deps::{ANY, MemDeps, Site};
use crate::overlap::{Answer, bounds};
use crate::{KeelCode, MemQueries, Summaries};
use cfg_dom::LoopId;
use ir_core::interp::{Config, ExternError, ExternHandler, Interpreter, MemEvent, Memory, Observer, StackEntry};
use ir_core::{Block, FuncId, Imm, Mem, Module};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::Rc;

/// What an external call returned and touched: its results, and the
/// elements as `(write, object, element)`, reads first.
pub type ExternEffects = (Vec<Imm>, Vec<(bool, Mem, u64)>);

/// An external function for the run (see [`ExternEffects`]).
pub type ExternFn = fn(&str, &[Imm], &mut Memory) -> Result<ExternEffects, ExternError>;

/// The static results of every function of a module.
#[derive(Debug)]
pub struct Analyses {
    per_func: Vec<Option<(MemDeps, MemQueries, KeelCode)>>,
}

impl Analyses {
    /// Dependences and queries of every function of `module` (calls
    /// through `summaries` when given).
    pub fn of(module: &Module, summaries: Option<&Summaries>) -> Analyses {
        let mut ctx = crate::MemDep::with_options(crate::Options { loop_carried: true, ..crate::Options::default() });
        let per_func = module
            .functions()
            .map(|(_, f)| {
                let code = KeelCode::new(module, f, summaries);
                let cfg = f.cfg();
                let deps = ctx.compute(&cfg, &code).ok()?;
                let q = MemQueries::new(&cfg, &code).ok()?;
                Some((deps, q, code))
            })
            .collect();
        Analyses { per_func }
    }

    fn get(&self, f: FuncId) -> Option<&(MemDeps, MemQueries, KeelCode)> {
        self.per_func.get(f.as_u32() as usize)?.as_ref()
    }
}

/// What one run checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DynamicReport {
    /// Runs.
    pub runs: u64,
    /// Runs that ended in a trap (their events before it count).
    pub traps: u64,
    /// Memory events observed.
    pub events: u64,
    /// Distinct (reader, last writer) pairs checked.
    pub flow: u64,
    /// Distinct (writer, last writer) pairs checked.
    pub output: u64,
    /// Distinct (writer, read since the last write) pairs checked.
    pub anti: u64,
    /// Distinct pairs in different iterations of a loop checked against
    /// the carried answer.
    pub carried: u64,
    /// What failed.
    pub failures: Vec<String>,
}

impl DynamicReport {
    /// Adds another report's counts (and failures).
    pub fn add(&mut self, o: &DynamicReport) {
        self.runs += o.runs;
        self.traps += o.traps;
        self.events += o.events;
        self.flow += o.flow;
        self.output += o.output;
        self.anti += o.anti;
        self.carried += o.carried;
        self.failures.extend(o.failures.iter().cloned());
    }
}

/// One observed access.
struct Event {
    stack: Vec<StackEntry>,
    access: u32,
    step: u64,
    /// For the top frame: each enclosing reducible loop of the access, with
    /// its instance and iteration number.
    loops: SmallVec<[(LoopId, u64, u64); 2]>,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Flow,
    Output,
    Anti,
}

struct State<'a> {
    analyses: &'a Analyses,
    module: &'a Module,
    last_write: Vec<Vec<u32>>,
    reads_since: FxHashMap<(u32, u64), Vec<u32>>,
    events: Vec<Event>,
    call: (Vec<StackEntry>, u64),
    /// (activation, loop header) -> (instance, iteration).
    iters: FxHashMap<(u64, u32), (u64, u64)>,
    instances: u64,
    checked: FxHashSet<Checked>,
    report: DynamicReport,
}

const NONE: u32 = u32::MAX;

/// A pair already checked: kind, function, both instructions and access
/// numbers, distance (0 outside loops), object.
type Checked = (Kind, u32, u32, u32, u32, u32, u64, u32);

/// An access as the observer reports it.
#[derive(Copy, Clone)]
struct Touched {
    access: u32,
    step: u64,
    write: bool,
    mem: Mem,
    start: u64,
    len: u64,
}

impl State<'_> {
    fn event(&mut self, stack: &[StackEntry], t: Touched) {
        let Touched { access, step, write, mem, start, len } = t;
        self.report.events += 1;
        let mut loops = SmallVec::new();
        if let Some(top) = stack.last()
            && let Some((_, q, _)) = self.analyses.get(top.func)
            && let Some(b) = q.block_of(top.inst.as_u32())
        {
            let forest = q.loops();
            let mut l = forest.innermost_loop(b);
            while let Some(x) = l {
                if !forest.is_irreducible(x)
                    && let Some(&(inst, iter)) = self.iters.get(&(top.activation, forest.header(x)))
                {
                    loops.push((x, inst, iter));
                }
                l = forest.parent(x);
            }
        }
        let idx = self.events.len() as u32;
        self.events.push(Event { stack: stack.to_vec(), access, step, loops });
        let m = mem.as_u32() as usize;
        let mut done: SmallVec<[(Kind, u32); 4]> = SmallVec::new();
        for x in start..start + len {
            let Some(slot) = self.last_write.get(m).and_then(|v| v.get(x as usize)).copied() else { continue };
            if !write {
                if slot != NONE && !done.contains(&(Kind::Flow, slot)) {
                    done.push((Kind::Flow, slot));
                    self.pair(Kind::Flow, slot, idx, mem, x);
                }
                self.reads_since.entry((m as u32, x)).or_default().push(idx);
            } else {
                if slot != NONE && !done.contains(&(Kind::Output, slot)) {
                    done.push((Kind::Output, slot));
                    self.pair(Kind::Output, slot, idx, mem, x);
                }
                for r in self.reads_since.remove(&(m as u32, x)).unwrap_or_default() {
                    if !done.contains(&(Kind::Anti, r)) {
                        done.push((Kind::Anti, r));
                        self.pair(Kind::Anti, r, idx, mem, x);
                    }
                }
                self.last_write[m][x as usize] = idx;
            }
        }
    }

    /// Checks the pair (earlier event `a`, later event `b`) touching
    /// element `x` of `mem`, at every shared stack level.
    fn pair(&mut self, kind: Kind, a: u32, b: u32, mem: Mem, x: u64) {
        let (ea, eb) = (&self.events[a as usize], &self.events[b as usize]);
        let depth = ea.stack.len().min(eb.stack.len());
        let mut failures = Vec::new();
        let mut counts = [0u64; 4];
        for j in 0..depth {
            let (sa, sb) = (ea.stack[j], eb.stack[j]);
            if sa.activation != sb.activation {
                break;
            }
            let (top_a, top_b) = (j + 1 == ea.stack.len(), j + 1 == eb.stack.len());
            // One execution of one instruction: its own reads and writes,
            // or everything inside one call.
            let same = match (top_a, top_b) {
                (true, true) => ea.step == eb.step,
                (false, false) => ea.stack[j + 1].activation == eb.stack[j + 1].activation,
                _ => false,
            };
            if same {
                continue;
            }
            let Some((deps, q, code)) = self.analyses.get(sa.func) else { continue };
            let (ia, ib) = (sa.inst.as_u32(), sb.inst.as_u32());
            let (ka, kb) = (if top_a { ea.access } else { NONE - 1 }, if top_b { eb.access } else { NONE - 1 });
            if self.checked.insert((kind, sa.func.as_u32(), ia, ka, ib, kb, 0, mem.as_u32())) {
                let (a_write, b_write) = match kind {
                    Kind::Flow => (true, false),
                    Kind::Output => (true, true),
                    Kind::Anti => (false, true),
                };
                let ca = candidates(deps, code, q, ia, top_a.then_some(ea.access), a_write, mem, x);
                let cb = candidates(deps, code, q, ib, top_b.then_some(eb.access), b_write, mem, x);
                let ok = ca.iter().any(|&s| {
                    cb.iter().any(|&t| {
                        let list = match kind {
                            Kind::Flow => deps.defs_of(t),
                            Kind::Output => deps.output_of(t),
                            Kind::Anti => deps.anti_of(t),
                        };
                        crate::sets::contains(list, s)
                    })
                });
                counts[kind as usize] += 1;
                if !ok {
                    let name = self.module.function(sa.func).map_or("?", |f| f.name());
                    failures.push(format!(
                        "@{name}: {kind:?} dependence missed: {:?} (access {}) then {:?} (access {}) on element {x} of {mem} (sites {ca:?} -> {cb:?})",
                        sa.inst,
                        if top_a { ea.access as i64 } else { -1 },
                        sb.inst,
                        if top_b { eb.access as i64 } else { -1 },
                    ));
                }
            }
            // Different iterations of a loop both accesses are directly in.
            if top_a && top_b {
                for &(l, inst, ita) in &ea.loops {
                    let Some(&(_, _, itb)) = eb.loops.iter().find(|e| e.0 == l && e.1 == inst) else { continue };
                    if itb <= ita {
                        continue;
                    }
                    let d = itb - ita;
                    if !self.checked.insert((kind, sa.func.as_u32(), ia, ea.access, ib, eb.access, d, mem.as_u32())) {
                        continue;
                    }
                    counts[3] += 1;
                    let answer =
                        q.loop_carried(l, Site { inst: ia, access: ea.access }, Site { inst: ib, access: eb.access });
                    let fine = match answer {
                        Answer::NoDep => false,
                        Answer::Must(dist) => dist.contains(d),
                        Answer::May(_) => true,
                    };
                    if !fine {
                        let name = self.module.function(sa.func).map_or("?", |f| f.name());
                        failures.push(format!(
                            "@{name}: loop at block {}: {:?} (access {}) then {:?} (access {}) {d} iterations later touch element {x} of {mem}, but the carried answer is {answer:?}",
                            q.loops().header(l),
                            sa.inst,
                            ea.access,
                            sb.inst,
                            eb.access
                        ));
                    }
                }
            }
        }
        self.report.flow += counts[0];
        self.report.output += counts[1];
        self.report.anti += counts[2];
        self.report.carried += counts[3];
        self.report.failures.extend(failures);
    }
}

/// The sites of `inst` that may be the one touching element `x` of `mem`:
/// exactly `access` when the instruction made the access itself (`ANY` for
/// what an external call's handler did), otherwise (a call whose callee
/// did it) every site of the call whose bounds cover the element.
#[allow(clippy::too_many_arguments)]
fn candidates(
    deps: &MemDeps,
    code: &KeelCode,
    q: &MemQueries,
    inst: u32,
    access: Option<u32>,
    write: bool,
    mem: Mem,
    x: u64,
) -> SmallVec<[u32; 4]> {
    let sites = deps.sites();
    let ids = if write { sites.defs_of_inst(inst) } else { sites.uses_of_inst(inst) };
    let mut out = SmallVec::new();
    for &id in ids {
        let s = if write { sites.def_site(id) } else { sites.use_site(id) };
        let Some(s) = s else { continue };
        let fits = match (access, s.access) {
            (Some(k), a) => a == k,
            (None, ANY) => true,
            (None, a) => code.insts_accesses(inst).get(a as usize).is_some_and(|acc| {
                let (lo, hi) = bounds(acc, q.object_len(acc.object));
                acc.object == mem.as_u32() && lo <= x as i128 && (x as i128) < hi
            }),
        };
        if fits {
            out.push(id);
        }
    }
    out
}

struct Watch<'a>(Rc<RefCell<State<'a>>>);

impl Observer for Watch<'_> {
    fn memory(&mut self, e: &MemEvent<'_>) {
        let t = Touched { access: e.access, step: e.step, write: e.write, mem: e.mem, start: e.start, len: e.len };
        self.0.borrow_mut().event(e.stack, t);
    }

    fn call(&mut self, stack: &[StackEntry], step: u64) {
        let mut s = self.0.borrow_mut();
        s.call.0.clear();
        s.call.0.extend_from_slice(stack);
        s.call.1 = step;
    }

    fn block(&mut self, activation: u64, func: FuncId, from: Block, to: Block) {
        let mut s = self.0.borrow_mut();
        let Some((_, q, _)) = s.analyses.get(func) else { return };
        let forest = q.loops();
        let Some(l) = forest.header_loop(to.as_u32()) else { return };
        let key = (activation, to.as_u32());
        let back = forest.contains(l, from.as_u32());
        match (back, s.iters.get_mut(&key)) {
            (true, Some(e)) => e.1 += 1,
            _ => {
                s.instances += 1;
                let n = s.instances;
                s.iters.insert(key, (n, 0));
            }
        }
    }
}

struct Handler<'a>(Rc<RefCell<State<'a>>>, ExternFn);

impl ExternHandler for Handler<'_> {
    fn call(&mut self, name: &str, args: &[Imm], memory: &mut Memory) -> Result<Vec<Imm>, ExternError> {
        let (results, touched) = (self.1)(name, args, memory)?;
        let mut s = self.0.borrow_mut();
        let (stack, step) = std::mem::take(&mut s.call);
        for (write, mem, x) in touched {
            s.event(&stack, Touched { access: ANY, step, write, mem, start: x, len: 1 });
        }
        s.call = (stack, step);
        Ok(results)
    }
}

/// Runs `entry` on `args` with `fuel`, observing memory, and checks every
/// observed dependence against `analyses` (see the module doc). A trap
/// ends the run; what was observed before it is checked.
pub fn check_run(
    module: &Module,
    analyses: &Analyses,
    entry: FuncId,
    args: &[Imm],
    fuel: u64,
    externs: Option<ExternFn>,
) -> DynamicReport {
    let state = State {
        analyses,
        module,
        last_write: module.mems().map(|(_, m)| vec![NONE; m.len as usize]).collect(),
        reads_since: FxHashMap::default(),
        events: Vec::new(),
        call: (Vec::new(), 0),
        iters: FxHashMap::default(),
        instances: 0,
        checked: FxHashSet::default(),
        report: DynamicReport { runs: 1, ..DynamicReport::default() },
    };
    let shared = Rc::new(RefCell::new(state));
    let config = Config { fuel, ..Config::default() };
    match Interpreter::new(module, config) {
        Ok(mut it) => {
            it.set_observer(Box::new(Watch(shared.clone())));
            if let Some(h) = externs {
                it.set_extern_handler(Box::new(Handler(shared.clone(), h)));
            }
            if it.call(entry, args).is_err() {
                shared.borrow_mut().report.traps += 1;
            }
        }
        Err(_) => shared.borrow_mut().report.traps += 1,
    }
    std::mem::take(&mut shared.borrow_mut().report)
}
