//! The red-blue pebble game on a [`Dag`]: its starting position, its moves,
//! a played game ([`Schedule`]), and [`replay`], which checks that a
//! schedule obeys the rules and counts its cost.
//!
//! The game is J.-W. Hong and H. T. Kung's ("I/O complexity: the red-blue
//! pebble game", STOC 1981; `docs/references.md`). The rules, as source
//! document 004 plays it (with registers named): red pebbles are the
//! registers the game may use ([`Setup::available`], `P` of them per
//! class), blue pebbles are memory (unlimited). Moves:
//! 1. **load** — red on a value that is blue;
//! 2. **store** — blue on a value that is red;
//! 3. **compute** — run an operation whose inputs are all red, its outputs
//!    red in registers that are free, or
//! 4. **slide** — in the register of an input that is not needed again (an
//!    output tied to an input always slides onto it);
//! 5. **remove** a red pebble — implicit here: a register is simply
//!    overwritten, which is legal only when the value it held is not lost
//!    (it is blue, or nothing reads it again and it is not a sink left
//!    without memory).
//!
//! Cost = loads + stores. Sources start blue unless the setup says they
//! start red (a value kept in a register across a block boundary); sinks
//! must end blue ([`SinkNeed::Memory`]) or at least pebbled
//! ([`SinkNeed::Anywhere`], for a value a successor block takes in its
//! register). Every operation runs exactly once (no recomputation: an
//! allocator executes each instruction once); the terminator runs last.
//! *Pinned* values live in a fixed register outside the game's (a global
//! register): always red, never loaded, stored or evicted.
//!
//! Invariant checked by [`replay`]: at every step each register holds at
//! most one value, every value some operation still reads has a pebble,
//! and the reported cost is the number of load and store moves.

use crate::class::{PReg, RegClass, Regs};
use crate::dag::{Dag, NONE, OpId, OpKind, ValueId};
use core::fmt;

/// Where a source value starts.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Start {
    /// In memory only (the game's default for sources).
    #[default]
    Blue,
    /// In register `reg` (of the value's class); `dirty` when memory does
    /// not hold it too.
    Red {
        /// The register index.
        reg: u32,
        /// True when the value is not also in memory.
        dirty: bool,
    },
}

/// What a sink needs at the end.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum SinkNeed {
    /// It must end in memory (blue).
    #[default]
    Memory,
    /// It must end with some pebble: in memory or in a register.
    Anywhere,
}

/// The starting position and rules of one game.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Setup {
    /// Per value (indexed by value id; only sources are read): where it
    /// starts. Missing entries mean [`Start::Blue`].
    pub start: Vec<Start>,
    /// Per value (only sinks are read): what it needs at the end. Missing
    /// entries mean [`SinkNeed::Memory`].
    pub sink_need: Vec<SinkNeed>,
    /// Per value: the fixed register of a pinned value, outside the game.
    /// Missing entries mean "not pinned".
    pub pinned: Vec<Option<u32>>,
    /// The register indices the game may use, per class (sorted).
    pub available: [Vec<u32>; 2],
    /// Per value: a register it would best be in (where a successor block
    /// expects its var), taken when free. Missing entries mean none.
    pub hint: Vec<Option<u32>>,
    /// How the heuristic decides registers.
    pub rule: LocalRule,
}

/// How the local heuristic decides spills and registers.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum LocalRule {
    /// `Local-Alloc` exactly as document 004 gives it.
    Document,
    /// `Local-Alloc` chooses the order; its register decisions are then
    /// re-planned with the order known (Belady's furthest next read:
    /// [`crate::replan`]), as are two depth-first orders, and the cheapest
    /// game is kept.
    Refined,
    /// [`LocalRule::Refined`], then a local search over the order
    /// ([`crate::order_search`]) with a budget of [`crate::SEARCH_BUDGET`]
    /// replanned orders per game: the default.
    #[default]
    Searched,
}

impl Setup {
    /// The plain game: sources blue, sinks to memory, registers
    /// `0..regs.get(class)` of each class.
    pub fn plain(regs: Regs) -> Setup {
        Setup {
            available: [(0..regs.get(RegClass::Scalar)).collect(), (0..regs.get(RegClass::Vector)).collect()],
            ..Setup::default()
        }
    }

    /// Where `v` starts.
    #[inline]
    pub fn start_of(&self, v: ValueId) -> Start {
        self.start.get(v as usize).copied().unwrap_or_default()
    }

    /// What sink `v` needs.
    #[inline]
    pub fn need_of(&self, v: ValueId) -> SinkNeed {
        self.sink_need.get(v as usize).copied().unwrap_or_default()
    }

    /// The pinned register of `v`.
    #[inline]
    pub fn pin_of(&self, v: ValueId) -> Option<u32> {
        self.pinned.get(v as usize).copied().flatten()
    }

    /// The register `v` would best be in.
    #[inline]
    pub fn hint_of(&self, v: ValueId) -> Option<u32> {
        self.hint.get(v as usize).copied().flatten()
    }

    /// Registers of `class` the game may use.
    #[inline]
    pub fn regs(&self, class: RegClass) -> &[u32] {
        &self.available[class.index()]
    }

    /// The least loads + stores any game on `dag` from this setup costs:
    /// one load per source read by an operation that starts in memory
    /// only, one store per sink that must end in memory and does not
    /// start there (pinned values excepted). [`Dag::lower_bound`] is this
    /// bound for the plain game.
    pub fn lower_bound(&self, dag: &Dag) -> u64 {
        let mut bound = 0u64;
        for v in 0..dag.num_values() as ValueId {
            if self.pin_of(v).is_some() {
                continue;
            }
            let start_blue = dag.is_source(v) && !matches!(self.start_of(v), Start::Red { dirty: true, .. });
            let start_red = dag.is_source(v) && matches!(self.start_of(v), Start::Red { .. });
            if dag.is_source(v) && !start_red && !dag.users(v).is_empty() {
                bound += 1;
            }
            if dag.is_sink(v) && self.need_of(v) == SinkNeed::Memory && !start_blue {
                bound += 1;
            }
        }
        bound
    }
}

/// One move of a game.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Move {
    /// Red on a blue value, in `reg`.
    Load {
        /// The value.
        value: ValueId,
        /// The register.
        reg: PReg,
    },
    /// Blue on a red value (from the register it is in).
    Store {
        /// The value.
        value: ValueId,
    },
    /// The operation runs; its outputs land in the registers
    /// [`Schedule::reg_of`] gives.
    Compute {
        /// The operation.
        op: OpId,
    },
}

/// A played game: the moves in order, where each output was computed, and
/// the final position.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Schedule {
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// Per value: the register an output was computed into (pinned outputs
    /// included), `None` for sources.
    pub out_reg: Vec<Option<PReg>>,
    /// Per value: the register it holds at the end.
    pub final_red: Vec<Option<PReg>>,
    /// Per value: whether it is in memory at the end.
    pub final_blue: Vec<bool>,
    /// Load moves.
    pub loads: u64,
    /// Store moves.
    pub stores: u64,
}

impl Schedule {
    /// Loads plus stores.
    pub fn cost(&self) -> u64 {
        self.loads + self.stores
    }

    /// The register `v` was computed into.
    pub fn reg_of(&self, v: ValueId) -> Option<PReg> {
        self.out_reg.get(v as usize).copied().flatten()
    }

    /// The operations in the order they ran.
    pub fn order(&self) -> impl Iterator<Item = OpId> + '_ {
        self.moves.iter().filter_map(|m| match *m {
            Move::Compute { op } => Some(op),
            _ => None,
        })
    }
}

/// A rule a schedule breaks ([`replay`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum GameError {
    /// Move `at` loads a value that is not blue, or into a register the
    /// game may not use.
    BadLoad {
        /// The move's index.
        at: usize,
    },
    /// Move `at` stores a value that is not red.
    BadStore {
        /// The move's index.
        at: usize,
    },
    /// Move `at` runs an operation twice, before what it waits for, with
    /// an input not red, or the terminator before the rest.
    BadCompute {
        /// The move's index.
        at: usize,
    },
    /// Move `at` puts an output in a register that is not free, not an
    /// input's it may slide from, or not its tied input's.
    BadOutput {
        /// The move's index.
        at: usize,
        /// The output.
        value: ValueId,
    },
    /// Move `at` overwrites the only copy of a value still needed.
    Lost {
        /// The move's index.
        at: usize,
        /// The value lost.
        value: ValueId,
    },
    /// At the end: an operation never ran.
    NotRun {
        /// The first such operation (the terminator only if every other
        /// one ran).
        op: OpId,
    },
    /// At the end: a sink is not where it must be.
    SinkMisplaced {
        /// The sink.
        sink: ValueId,
    },
    /// The setup starts a source in a register not in play.
    StartNotInPlay {
        /// The source.
        value: ValueId,
        /// The register (index in the source's class).
        reg: u32,
    },
    /// The setup starts two sources in one register.
    SharedStart {
        /// The register (index in the sources' class).
        reg: u32,
        /// The source placed there first.
        first: ValueId,
        /// The other.
        second: ValueId,
    },
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::BadLoad { at } => {
                write!(f, "move {at}: load of a value not in memory, or into a register not in play")
            }
            GameError::BadStore { at } => write!(f, "move {at}: store of a value not in a register"),
            GameError::BadCompute { at } => write!(f, "move {at}: an operation that cannot run now"),
            GameError::BadOutput { at, value } => {
                write!(f, "move {at}: output {value} goes to a register it may not use")
            }
            GameError::Lost { at, value } => write!(f, "move {at}: value {value} is overwritten but still needed"),
            GameError::NotRun { op } => write!(f, "the game ends unfinished: operation {op} never ran"),
            GameError::SinkMisplaced { sink } => {
                write!(f, "the game ends unfinished: sink {sink} is not where it must be")
            }
            GameError::StartNotInPlay { value, reg } => {
                write!(f, "bad setup: source {value} starts in register {reg}, not in play")
            }
            GameError::SharedStart { reg, .. } => write!(f, "bad setup: two sources start in register {reg}"),
        }
    }
}

impl std::error::Error for GameError {}

/// The state of a game, shared by the replay and the heuristic.
#[derive(Clone, Debug, Default)]
pub(crate) struct Board {
    /// Per value: register index (in the value's class) or `NONE`.
    pub red: Vec<u32>,
    pub blue: Vec<bool>,
    /// Per value: computed (sources are).
    pub ready: Vec<bool>,
    /// Per value: operations still to run that read it.
    pub pending: Vec<u32>,
    /// Per op: has run.
    pub done: Vec<bool>,
    /// Per class, per register index: the value it holds or `NONE`.
    pub holder: [Vec<u32>; 2],
    /// Per class: the register indices in play.
    pub regs: [Vec<u32>; 2],
    /// Per value: its pinned register or `NONE`.
    pub pin: Vec<u32>,
    pub sink_anywhere: Vec<bool>,
    /// Per value: its preferred register or `NONE`.
    pub hint: Vec<u32>,
}

impl Board {
    /// Sets up the starting position.
    pub fn reset(&mut self, dag: &Dag, setup: &Setup) -> Result<(), GameError> {
        let nv = dag.num_values();
        self.red.clear();
        self.red.resize(nv, NONE);
        self.blue.clear();
        self.blue.resize(nv, false);
        self.ready.clear();
        self.ready.resize(nv, false);
        self.pending.clear();
        self.pending.extend((0..nv as ValueId).map(|v| dag.users(v).len() as u32));
        self.done.clear();
        self.done.resize(dag.num_ops(), false);
        self.pin.clear();
        self.pin.extend((0..nv as ValueId).map(|v| setup.pin_of(v).unwrap_or(NONE)));
        self.sink_anywhere.clear();
        self.sink_anywhere.extend((0..nv as ValueId).map(|v| setup.need_of(v) == SinkNeed::Anywhere));
        self.hint.clear();
        self.hint.extend((0..nv as ValueId).map(|v| setup.hint_of(v).unwrap_or(NONE)));
        for c in RegClass::ALL {
            let regs = &mut self.regs[c.index()];
            regs.clear();
            regs.extend_from_slice(setup.regs(c));
            regs.sort_unstable();
            regs.dedup();
            let top = regs.last().map_or(0, |&r| r as usize + 1);
            let h = &mut self.holder[c.index()];
            h.clear();
            h.resize(top, NONE);
        }
        for v in 0..nv as ValueId {
            if !dag.is_source(v) {
                continue;
            }
            self.ready[v as usize] = true;
            if self.pin[v as usize] != NONE {
                continue;
            }
            match setup.start_of(v) {
                Start::Blue => self.blue[v as usize] = true,
                Start::Red { reg, dirty } => {
                    let c = dag.class(v).index();
                    if !self.regs[c].contains(&reg) {
                        return Err(GameError::StartNotInPlay { value: v, reg });
                    }
                    let first = self.holder[c][reg as usize];
                    if first != NONE {
                        return Err(GameError::SharedStart { reg, first, second: v });
                    }
                    self.holder[c][reg as usize] = v;
                    self.red[v as usize] = reg;
                    self.blue[v as usize] = !dirty;
                }
            }
        }
        Ok(())
    }

    /// True when `v` may lose its red pebble now without being lost: it is
    /// in memory, or nothing reads it again and it is not a sink that needs
    /// to stay somewhere.
    #[inline]
    pub fn can_drop(&self, dag: &Dag, v: ValueId) -> bool {
        self.blue[v as usize] || (self.pending[v as usize] == 0 && !dag.is_sink(v))
    }

    /// Takes the red pebble off `v`.
    #[inline]
    pub fn unred(&mut self, dag: &Dag, v: ValueId) {
        let r = self.red[v as usize];
        if r != NONE {
            let h = &mut self.holder[dag.class(v).index()][r as usize];
            if *h == v {
                *h = NONE;
            }
            self.red[v as usize] = NONE;
        }
    }

    /// Puts `v` in register `r` (its class), which must be empty.
    #[inline]
    pub fn put(&mut self, dag: &Dag, v: ValueId, r: u32) {
        self.holder[dag.class(v).index()][r as usize] = v;
        self.red[v as usize] = r;
    }

    /// True when `v` is red or pinned.
    #[inline]
    pub fn is_red(&self, v: ValueId) -> bool {
        self.red[v as usize] != NONE || self.pin[v as usize] != NONE
    }
}

/// Replays `schedule` from `setup`'s starting position, checking every rule
/// of the game, and returns `(loads, stores)`.
pub fn replay(dag: &Dag, setup: &Setup, schedule: &Schedule) -> Result<(u64, u64), GameError> {
    let mut b = Board::default();
    b.reset(dag, setup)?;
    let (mut loads, mut stores) = (0u64, 0u64);
    for (at, m) in schedule.moves.iter().enumerate() {
        match *m {
            Move::Load { value, reg } => {
                let c = dag.class(value);
                if (value as usize) >= dag.num_values()
                    || reg.class != c
                    || !b.blue[value as usize]
                    || b.red[value as usize] != NONE
                    || b.pin[value as usize] != NONE
                    || !b.regs[c.index()].contains(&reg.index)
                {
                    return Err(GameError::BadLoad { at });
                }
                evict_for(dag, &mut b, c, reg.index, at)?;
                b.put(dag, value, reg.index);
                loads += 1;
            }
            Move::Store { value } => {
                if (value as usize) >= dag.num_values() || b.red[value as usize] == NONE {
                    return Err(GameError::BadStore { at });
                }
                b.blue[value as usize] = true;
                stores += 1;
            }
            Move::Compute { op } => {
                if op as usize >= dag.num_ops() || b.done[op as usize] {
                    return Err(GameError::BadCompute { at });
                }
                if dag.waits_for(op).iter().any(|&w| !b.done[w as usize]) {
                    return Err(GameError::BadCompute { at });
                }
                if dag.kind(op) == OpKind::Terminator && remaining_non_term_except(dag, &b, op) {
                    return Err(GameError::BadCompute { at });
                }
                let ins = dag.inputs(op);
                if ins.iter().any(|&v| !b.ready[v as usize] || !b.is_red(v)) {
                    return Err(GameError::BadCompute { at });
                }
                // Reading is done; the inputs' last reads count now.
                for &v in ins {
                    b.pending[v as usize] -= 1;
                }
                let outs = dag.outputs(op);
                let ties: Vec<Option<ValueId>> = dag.tied(op).collect();
                let mut taken: Vec<(RegClass, u32)> = Vec::with_capacity(outs.len());
                for (k, &o) in outs.iter().enumerate() {
                    let c = dag.class(o);
                    let Some(reg) = schedule.reg_of(o) else {
                        return Err(GameError::BadOutput { at, value: o });
                    };
                    if reg.class != c || taken.contains(&(c, reg.index)) {
                        return Err(GameError::BadOutput { at, value: o });
                    }
                    taken.push((c, reg.index));
                    if b.pin[o as usize] != NONE {
                        if b.pin[o as usize] != reg.index {
                            return Err(GameError::BadOutput { at, value: o });
                        }
                        if let Some(t) = ties[k]
                            && b.pin[t as usize] != reg.index
                        {
                            return Err(GameError::BadOutput { at, value: o });
                        }
                        continue;
                    }
                    if !b.regs[c.index()].contains(&reg.index) {
                        return Err(GameError::BadOutput { at, value: o });
                    }
                    if let Some(t) = ties[k]
                        && b.red[t as usize] != reg.index
                    {
                        return Err(GameError::BadOutput { at, value: o });
                    }
                    evict_for(dag, &mut b, c, reg.index, at)?;
                    b.put(dag, o, reg.index);
                }
                for &o in outs {
                    b.ready[o as usize] = true;
                }
                b.done[op as usize] = true;
            }
        }
    }
    let never_ran = (0..dag.num_ops() as OpId)
        .find(|&o| !b.done[o as usize] && dag.kind(o) != OpKind::Terminator)
        .or(dag.terminator().filter(|&t| !b.done[t as usize]));
    if let Some(op) = never_ran {
        return Err(GameError::NotRun { op });
    }
    for v in dag.sinks() {
        if b.pin[v as usize] != NONE {
            continue;
        }
        let ok = if b.sink_anywhere[v as usize] {
            b.blue[v as usize] || b.red[v as usize] != NONE
        } else {
            b.blue[v as usize]
        };
        if !ok {
            return Err(GameError::SinkMisplaced { sink: v });
        }
    }
    Ok((loads, stores))
}

fn remaining_non_term_except(dag: &Dag, b: &Board, term: OpId) -> bool {
    (0..dag.num_ops() as OpId).any(|o| o != term && !b.done[o as usize])
}

/// Empties register `r` of class `c` for a new value: its holder must be
/// droppable (an input of the running operation whose last read this was
/// is: that is a slide).
fn evict_for(dag: &Dag, b: &mut Board, c: RegClass, r: u32, at: usize) -> Result<(), GameError> {
    let h = b.holder[c.index()][r as usize];
    if h == NONE {
        return Ok(());
    }
    if !b.can_drop(dag, h) {
        return Err(GameError::Lost { at, value: h });
    }
    b.unred(dag, h);
    Ok(())
}

/// Why the heuristic could not play.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PebbleError {
    /// An operation needs more registers of `class` at once than the game
    /// has (its distinct inputs, or its outputs).
    TooFewRegisters {
        /// The operation.
        op: OpId,
        /// The class.
        class: RegClass,
        /// Registers it needs.
        needs: u32,
        /// Registers in play.
        have: u32,
    },
    /// The setup does not fit the DAG.
    Setup(GameError),
}

impl fmt::Display for PebbleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PebbleError::TooFewRegisters { op, class, needs, have } => {
                write!(f, "operation {op} needs {needs} {class:?} registers at once, but only {have} are in play")
            }
            PebbleError::Setup(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PebbleError {}
