//! One block's pebble game, played in source document 004's model
//! (`docs/references.md`) and drawn
//! (`keel dot --what dag`).
//!
//! [`block_game`] builds the block's DAG from any [`RegCode`] and plays the
//! heuristic on it as document 004 states the game — every value live into
//! the block in memory, every value live out of it stored, all `P`
//! registers local, vars as the names — so the picture and document 004's
//! walk-through agree move by move. [`BlockGame::dot`] draws it in
//! Graphviz: sources as boxes, operations as ellipses labelled with their
//! instruction and their place in the pebbling order, sinks with a double
//! border; a value that was stored during the game (a spill) is filled red
//! and one reloaded after a spill orange; each node lists its loads,
//! stores and registers.

use crate::block_dag::BlockDag;
use crate::class::Regs;
use crate::dag::{Dag, OpId, ValueId};
use crate::error::AllocError;
use crate::game::PebbleError;
use crate::game::{LocalRule, Move, Schedule, Setup, SinkNeed};
use crate::input::RegCode;
use crate::pebble::Pebbler;
use cfg_dom::{Graph, Input, InputBuffers, InputError, InstId, Liveness, Node, VarId};
use core::fmt::Write;

/// A block's DAG and the game played on it.
#[derive(Clone, Debug)]
pub struct BlockGame {
    /// The DAG.
    pub dag: Dag,
    /// Per operation: its instruction.
    pub op_inst: Vec<InstId>,
    /// Per value: its var.
    pub value_var: Vec<VarId>,
    /// The game.
    pub schedule: Schedule,
    /// The game's lower bound on loads plus stores under its setup.
    pub lower_bound: u64,
}

/// What the game asks of a returning block's results (the operands of its
/// `ret`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Results {
    /// The return reads them, in registers, as the allocated code does.
    #[default]
    Read,
    /// They are sinks left where the game leaves them, in a register or
    /// in memory: source document 004's accounting of its example, whose
    /// DAG has no return (three loads and one store at two registers:
    /// `q` ends in a register, the spilled `v` in memory).
    InPlace,
}

/// Plays block `block` of `code` with `regs` registers and `rule`, in the
/// model of source document 004 (module doc), the block's results as
/// `results` says.
pub fn block_game<G: Graph, C: RegCode>(
    graph: &G,
    code: &C,
    block: Node,
    regs: Regs,
    rule: LocalRule,
    results: Results,
) -> Result<BlockGame, AllocError> {
    let mut buffers = InputBuffers::default();
    let input = Input::new(graph, code, &mut buffers)?;
    if block as usize >= input.num_blocks() {
        return Err(AllocError::Input(InputError::Graph(cfg_dom::GraphError::NodeOutOfRange {
            node: u64::from(block),
            num_nodes: input.num_blocks(),
        })));
    }
    crate::error::check_size(&input, crate::options::DEFAULT_MAX_MEMORY)?;
    let mut liveness = Liveness::new();
    liveness.compute_input(&input);
    let mut bd = BlockDag::default();
    bd.results_as_sinks = results == Results::InPlace;
    let pinned = vec![crate::dag::NONE; input.num_vars()];
    bd.build(&input, &liveness, block, &pinned, |_| false)?;
    let mut setup = Setup { rule, ..Setup::plain(regs) };
    if !bd.results.is_empty() {
        setup.sink_need = vec![SinkNeed::Memory; bd.dag.num_values()];
        for &v in &bd.results {
            setup.sink_need[v as usize] = SinkNeed::Anywhere;
        }
    }
    let schedule = Pebbler::new().run(&bd.dag, &setup).map_err(|e| match e {
        PebbleError::TooFewRegisters { op, class, needs, have } => {
            AllocError::TooFewRegisters { block, inst: bd.op_inst[op as usize], class, needs, have }
        }
        PebbleError::Setup(g) => unreachable!("the plain setup fits every DAG: {g}"),
    })?;
    let lower_bound = setup.lower_bound(&bd.dag);
    Ok(BlockGame {
        dag: bd.dag.clone(),
        op_inst: bd.op_inst.clone(),
        value_var: bd.value_var.clone(),
        schedule,
        lower_bound,
    })
}

impl BlockGame {
    /// The game as text, one move per line (`load %x -> %r0`, the
    /// instruction with the register its result lands in, `store %v`
    /// marked `; spill` when an operation runs after it), then where each
    /// sink ends and the counts: the view of source document 004's
    /// walk-through (`keel regalloc --game`).
    pub fn text(&self, var_name: impl Fn(VarId) -> String, inst_text: impl Fn(InstId) -> String) -> String {
        let (d, s) = (&self.dag, &self.schedule);
        let name = |v: ValueId| var_name(self.value_var[v as usize]);
        let last_compute = s.moves.iter().rposition(|m| matches!(m, Move::Compute { .. }));
        let mut out = String::new();
        for (k, m) in s.moves.iter().enumerate() {
            match *m {
                Move::Load { value, reg } => {
                    let _ = writeln!(out, "load {} -> {reg}", name(value));
                }
                Move::Store { value } => {
                    let spill = last_compute.is_some_and(|l| k < l);
                    let _ = writeln!(out, "store {}{}", name(value), if spill { "    ; spill" } else { "" });
                }
                Move::Compute { op } => {
                    let regs: Vec<String> =
                        d.outputs(op).iter().filter_map(|&v| s.reg_of(v)).map(|r| r.to_string()).collect();
                    let inst = inst_text(self.op_inst[op as usize]);
                    if regs.is_empty() {
                        let _ = writeln!(out, "{inst}");
                    } else {
                        let _ = writeln!(out, "{inst} -> {}", regs.join(", "));
                    }
                }
            }
        }
        let ends: Vec<String> = d
            .sinks()
            .map(|v| match s.final_red.get(v as usize).copied().flatten() {
                Some(r) if !s.final_blue.get(v as usize).copied().unwrap_or(false) => format!("{} in {r}", name(v)),
                Some(r) => format!("{} in {r} and in memory", name(v)),
                None => format!("{} in memory", name(v)),
            })
            .collect();
        if !ends.is_empty() {
            let _ = writeln!(out, "; end: {}", ends.join(", "));
        }
        let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let _ = writeln!(
            out,
            "; {}, {} (lower bound {})",
            plural(s.loads, "load", "loads"),
            plural(s.stores, "store", "stores"),
            self.lower_bound
        );
        out
    }

    /// Graphviz text; `var_name` names a var, `inst_text` an instruction.
    pub fn dot(&self, var_name: impl Fn(VarId) -> String, inst_text: impl Fn(InstId) -> String) -> String {
        let d = &self.dag;
        let s = &self.schedule;
        let nv = d.num_values();
        // What happened to each value, and when each op ran.
        let mut notes: Vec<Vec<String>> = vec![Vec::new(); nv];
        let mut spilled = vec![false; nv];
        let mut reloaded = vec![false; nv];
        let mut step_of: Vec<Option<usize>> = vec![None; d.num_ops()];
        let last_compute = s.moves.iter().rposition(|m| matches!(m, Move::Compute { .. })).unwrap_or(0);
        let mut computes = 0usize;
        for (k, m) in s.moves.iter().enumerate() {
            match *m {
                Move::Load { value, reg } => {
                    notes[value as usize].push(format!("load #{} -> {reg}", k + 1));
                    if spilled[value as usize] {
                        reloaded[value as usize] = true;
                    }
                }
                Move::Store { value } => {
                    let what = if k < last_compute { "spill" } else { "store" };
                    notes[value as usize].push(format!("{what} #{}", k + 1));
                    if k < last_compute {
                        spilled[value as usize] = true;
                    }
                }
                Move::Compute { op } => {
                    computes += 1;
                    step_of[op as usize] = Some(computes);
                    for &v in d.outputs(op) {
                        if let Some(r) = s.reg_of(v) {
                            notes[v as usize].push(format!("computed #{} -> {r}", k + 1));
                        }
                    }
                }
            }
        }
        let mut out = String::new();
        let _ = writeln!(out, "digraph dag {{");
        let _ = writeln!(out, "  rankdir=BT;");
        let _ = writeln!(out, "  node [fontname=\"monospace\"];");
        let _ = writeln!(out, "  label=\"{} loads, {} stores (lower bound {})\";", s.loads, s.stores, self.lower_bound);
        let esc = |t: &str| t.replace('\\', "\\\\").replace('"', "\\\"");
        for v in 0..nv as ValueId {
            let name = var_name(self.value_var[v as usize]);
            let head = match d.def_op(v) {
                None => format!("{name} (in)"),
                Some(o) => {
                    let step = step_of[o as usize].map_or("?".to_string(), |n| n.to_string());
                    format!("[{step}] {}", inst_text(self.op_inst[o as usize]))
                }
            };
            let label: Vec<String> =
                core::iter::once(head).chain(notes[v as usize].iter().cloned()).map(|l| esc(&l)).collect();
            let label = label.join("\\n");
            let shape = if d.is_source(v) { "box" } else { "ellipse" };
            let periph = if d.is_sink(v) { 2 } else { 1 };
            let fill = if spilled[v as usize] {
                ", style=filled, fillcolor=\"#f4a6a6\""
            } else if reloaded[v as usize] {
                ", style=filled, fillcolor=\"#f8d39c\""
            } else {
                ""
            };
            let _ = writeln!(out, "  v{v} [shape={shape}, peripheries={periph}, label=\"{label}\"{fill}];");
        }
        // Operations without outputs (effects, the terminator).
        for o in 0..d.num_ops() as OpId {
            if !d.outputs(o).is_empty() {
                continue;
            }
            let step = step_of[o as usize].map_or("?".to_string(), |n| n.to_string());
            let label = format!("[{step}] {}", inst_text(self.op_inst[o as usize]));
            let _ = writeln!(out, "  op{o} [shape=hexagon, label=\"{}\"];", esc(&label));
        }
        for o in 0..d.num_ops() as OpId {
            let target = match d.outputs(o).first() {
                Some(&v) => format!("v{v}"),
                None => format!("op{o}"),
            };
            for &u in d.inputs(o) {
                let _ = writeln!(out, "  v{u} -> {target};");
            }
            for &w in d.waits_for(o) {
                let src = match d.outputs(w).first() {
                    Some(&v) => format!("v{v}"),
                    None => format!("op{w}"),
                };
                let _ = writeln!(out, "  {src} -> {target} [style=dotted];");
            }
        }
        let _ = writeln!(out, "}}");
        out
    }
}
