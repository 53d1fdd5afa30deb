//! Renaming: the dominator-tree walk that gives every definition a new
//! version and every use the version that reaches it (Cytron et al.,
//! 1991, "Efficiently computing static single assignment form and the
//! control dependence graph", the SEARCH procedure; the DU-chain document's
//! step 4).
//!
//! The walk reports to a [`RenameSink`] instead of rewriting anything, so
//! the same walk builds SSA form in the IR (`construct`, feature `keel`) and DU
//! chains without touching the IR (the `defuse` crate).
//!
//! Invariants:
//! - One pass over the dominator tree with an explicit stack (no
//!   recursion). Per-var "stacks" are a current-version array plus an undo
//!   log: pushing is one write and one log entry, leaving a block restores
//!   the log back to its mark. No per-variable pass over the function.
//! - Children are visited last-first (reverse DFS preorder), which
//!   reproduces the numbering of the DU-chain document's example.
//! - Inserted phis get version ids `0..placement.len()` up front (in
//!   placement order), because a back edge reaches a phi before its block
//!   is entered; every other version is numbered as it is defined.
//! - A guarded definition reports the version it leaves in place (`prev`);
//!   `NO_VERSION` means nothing reaches (an undefined value).
//! - Unreachable blocks are renamed afterwards, each on its own, seeing only
//!   the params: their code is kept and valid, and it never flows into
//!   reachable code except through phi operands on never-taken edges.
//! - Runs on any [`cfg_dom::VarCode`] through a checked [`Input`]; the
//!   dominator tree and placement handed over are checked to belong to it.
//!   A use is named by its instruction and its number among the
//!   instruction's uses ([`cfg_dom::VarCode::uses`] order).

use crate::placement::PhiPlacement;
use cfg_dom::{DomTree, Graph, Input, InstId, Mismatch, Node, VarCode, VarId, belongs, csr};

/// A version: a dense id over all vars of the function.
pub type Version = u32;

/// No version: no definition reaches (an undefined value).
pub const NO_VERSION: Version = u32::MAX;

/// What defines a version.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum VersionDef {
    /// The `i`-th param, at the function's entry.
    Param(u32),
    /// Result `index` of an instruction of the input (an input phi
    /// included); `guarded` when the instruction has a guard.
    Result {
        /// The instruction.
        inst: InstId,
        /// Which result.
        index: u32,
        /// Whether it is guarded (then the version may leave `prev` in place).
        guarded: bool,
    },
    /// A phi inserted at the start of `block`.
    Phi {
        /// The block (a node of the CFG graph).
        block: Node,
    },
}

/// Receives the walk's findings, in walk order.
pub trait RenameSink {
    /// `version` of `var` is defined by `def`. For a guarded result,
    /// `prev` is the version left in place when the guard fails.
    fn define(&mut self, version: Version, var: VarId, def: VersionDef, prev: Version);

    /// Use number `k` of `inst` (of `var`) reads `version`.
    fn use_site(&mut self, inst: InstId, k: u32, var: VarId, version: Version);

    /// The inserted phi `phi` receives `version` from predecessor `pred`.
    fn phi_operand(&mut self, phi: Version, pred: Node, version: Version);

    /// The walk starts on block `b` (`reachable` from the entry or not).
    /// Every call until the next `enter_block` comes from `b`: its phis, its
    /// instructions, and the phi operands it supplies to its successors
    /// (including input-phi operand uses, which are read at the end of `b`).
    /// Lets a sink know reachability without a lookup per use.
    fn enter_block(&mut self, b: Node, reachable: bool) {
        let _ = (b, reachable);
    }
}

/// Reusable state of the walk.
#[derive(Clone, Debug, Default)]
pub struct Renamer {
    top: Vec<Version>,
    log: Vec<(u32, Version)>,
    stack: Vec<(Node, u32)>,
    phi_base: Vec<u32>,
    next: Version,
    /// The input phis' operand uses, by predecessor: row `p` lists
    /// `(successor, inst, use number, var)` for every use read at the end
    /// of `p`, sorted by successor (so a block finds what it supplies to
    /// one successor by binary search, and a phi of 10^5 operands costs
    /// linear time, not a scan per predecessor).
    phi_use_start: Vec<u32>,
    phi_uses: Vec<(Node, InstId, u32, VarId)>,
    phi_use_pairs: Vec<(Node, (Node, InstId, u32, VarId))>,
}

const ENTER: u32 = u32::MAX;

impl Renamer {
    /// A renamer with empty buffers.
    pub fn new() -> Renamer {
        Renamer::default()
    }

    /// Renames the input (with dominator tree `dt`) with phis at
    /// `placement`, reporting to `sink`. Returns the number of versions; an
    /// error (before anything is reported) when `dt` or `placement` belong
    /// to another graph. An empty placement ([`PhiPlacement::new`]) places
    /// no phi on any graph.
    pub fn run<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        dt: &DomTree,
        placement: &PhiPlacement,
        sink: &mut impl RenameSink,
    ) -> Result<u32, Mismatch> {
        let (g, code) = (input.graph(), input.code());
        let n = g.num_nodes();
        belongs("the dominator tree", n, g.stamp(), dt.num_nodes(), dt.stamp())?;
        if placement.num_blocks() != 0 {
            belongs("the phi placement", n, None, placement.num_blocks(), None)?;
        }
        let nv = code.num_vars();
        self.top.clear();
        self.top.resize(nv, NO_VERSION);
        self.log.clear();
        // Phi versions are placement positions: block b's phis start at
        // phi_base[b].
        self.phi_base.clear();
        let mut pos = 0u32;
        for b in 0..n as Node {
            self.phi_base.push(pos);
            pos += placement.phis(b).len() as u32;
        }
        self.next = pos;
        self.index_phi_uses(input);
        for (i, &p) in input.params().iter().enumerate() {
            let v = self.fresh();
            sink.define(v, p, VersionDef::Param(i as u32), NO_VERSION);
            self.top[p as usize] = v;
        }
        let Some(root) = dt.root() else { return Ok(self.next) };
        self.stack.clear();
        self.stack.push((root, ENTER));
        while let Some((b, mark)) = self.stack.pop() {
            if mark != ENTER {
                self.restore(mark);
                continue;
            }
            let mark = self.log.len() as u32;
            sink.enter_block(b, true);
            self.block(input, placement, b, sink);
            self.stack.push((b, mark));
            // Children in RPO order on the stack: the last is visited first.
            for &c in dt.children(b) {
                self.stack.push((c, ENTER));
            }
        }
        // Unreachable blocks, each alone with the params only.
        for b in (0..n as Node).filter(|&b| !dt.is_reachable(b)) {
            let mark = self.log.len() as u32;
            sink.enter_block(b, false);
            self.block(input, placement, b, sink);
            self.restore(mark);
        }
        Ok(self.next)
    }

    /// Builds the per-predecessor index of input-phi operand uses.
    fn index_phi_uses<G: Graph, C: VarCode>(&mut self, input: &Input<'_, G, C>) {
        let n = input.graph().num_nodes();
        self.phi_use_pairs.clear();
        if input.num_phis() == 0 {
            self.phi_use_start.clear();
            self.phi_uses.clear();
            return;
        }
        for s in 0..n as Node {
            for &inst in input.block_insts(s).iter().take_while(|&&i| input.is_phi(i)) {
                for (k, u) in input.uses(inst).iter().enumerate() {
                    if let Some(p) = u.pred {
                        self.phi_use_pairs.push((p, (s, inst, k as u32, u.var)));
                    }
                }
            }
        }
        csr::bucket(n, &self.phi_use_pairs, &mut self.phi_use_start, &mut self.phi_uses);
    }

    fn fresh(&mut self) -> Version {
        let v = self.next;
        self.next += 1;
        v
    }

    fn push(&mut self, var: VarId, v: Version) {
        let slot = &mut self.top[var as usize];
        self.log.push((var, *slot));
        *slot = v;
    }

    fn restore(&mut self, mark: u32) {
        while self.log.len() > mark as usize {
            let (var, prev) = self.log.pop().expect("the log is longer than the mark");
            self.top[var as usize] = prev;
        }
    }

    #[inline]
    fn current(&self, var: VarId) -> Version {
        self.top[var as usize]
    }

    /// Renames one block: its inserted phis, its instructions, then the phi
    /// operands it supplies to its successors.
    fn block<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        placement: &PhiPlacement,
        b: Node,
        sink: &mut impl RenameSink,
    ) {
        let base = self.phi_base[b as usize];
        for (k, &var) in placement.phis(b).iter().enumerate() {
            let v = base + k as u32;
            sink.define(v, var, VersionDef::Phi { block: b }, NO_VERSION);
            self.push(var, v);
        }
        for &inst in input.block_insts(b) {
            // A phi's incoming values are read at the end of its
            // predecessors (below, when they are renamed); any other use
            // here, before the instruction defines.
            for (k, u) in input.uses(inst).iter().enumerate() {
                if u.pred.is_none() {
                    sink.use_site(inst, k as u32, u.var, self.current(u.var));
                }
            }
            let guarded = input.is_guarded(inst);
            for (index, &r) in input.defs(inst).iter().enumerate() {
                let prev = if guarded { self.current(r) } else { NO_VERSION };
                let v = self.fresh();
                sink.define(v, r, VersionDef::Result { inst, index: index as u32, guarded }, prev);
                self.push(r, v);
            }
        }
        for s in input.graph().successors(b) {
            let sbase = self.phi_base[s as usize];
            for (k, &var) in placement.phis(s).iter().enumerate() {
                sink.phi_operand(sbase + k as u32, b, self.current(var));
            }
            // Input phis read at the end of their predecessor.
            let row = csr::row(&self.phi_use_start, &self.phi_uses, b as usize);
            let from = row.partition_point(|&(succ, ..)| succ < s);
            for &(_, inst, k, var) in row[from..].iter().take_while(|&&(succ, ..)| succ == s) {
                sink.use_site(inst, k, var, self.current(var));
            }
        }
    }
}
