//! A dataflow framework over any [`Graph`]: a general solver for monotone
//! analyses over a join-semilattice ([`Analysis`], [`DataflowResults`]) and
//! a fast specialised solver for gen/kill problems over bitsets
//! ([`GenKill`], [`BitDataflow`]).
//!
//! Algorithm: the iterative worklist solution of monotone frameworks (G. A.
//! Kildall, "A unified approach to global program optimization", POPL 1973;
//! J. B. Kam and J. D. Ullman, "Monotone data flow analysis frameworks",
//! Acta Informatica 7, 1977; Aho, Lam, Sethi and Ullman, *Compilers*, 2nd
//! ed., §9.2–9.3). It reaches the least fixed point of the equations above
//! the initial states (Kam and Ullman's "maximal fixed point", MFP, in
//! their meet-lattice terms); for gen/kill problems, which are
//! distributive, that is the meet over all paths. The
//! design follows rustc's `rustc_mir_dataflow` (an analysis names its domain,
//! a join-semilattice, its direction, its boundary value and its block
//! transfer function; the engine iterates a worklist seeded in reverse
//! postorder for forward problems and postorder for backward ones), and the
//! visiting order is that of K. D. Cooper, T. J. Harvey and K. Kennedy,
//! "Iterative data-flow analysis, revisited" (Rice University, 2004;
//! `docs/references.md`).
//!
//! Invariants and conventions, for both solvers:
//! - Every node has two states: its **in** state, at the top of the block
//!   (before its first instruction), and its **out** state, at its bottom.
//!   This holds in both directions: a backward problem computes `in` from
//!   `out` (`in = gen ∪ (out − kill)`, liveness' live-in) and a forward one
//!   `out` from `in`.
//! - The **boundary** value enters at the graph's entry (forward: it is
//!   joined into the entry's in state) or at every exit, a node without
//!   successors (backward: it is joined into the exit's out state).
//! - The **scope** ([`Scope`]) says which nodes are solved: those reachable
//!   from the entry (rustc's and Hoopl's choice for forward problems), or
//!   all nodes (GHC's Hoopl, note "Unreachable blocks" in `Dataflow.hs`: a
//!   backward fixpoint must treat every block as reachable). Nodes outside the
//!   scope keep their initial state and never contribute to their
//!   neighbours: [`Analysis::bottom`] in the general form, the empty set in
//!   the bitset form (the bottom of a may-problem; for a must-problem it
//!   means "nothing is known": no path from the entry reaches them, which
//!   is also what [`crate::DomTree`] says of unreachable nodes).
//! - The worklist is an in-queue bitset over positions in the visiting
//!   order (reverse postorder forward, postorder backward, of one DFS from
//!   the entry, then, for [`Scope::All`], from each still-unvisited node in
//!   id order). It always takes the next dirty position at or after the
//!   last one taken, wrapping round: sweeps in the visiting order over the
//!   dirty nodes only. So the result and the number of visits are
//!   deterministic, and the bitset solver's loop allocates nothing (the
//!   general one only through the domain's `clone_from` and the
//!   analysis' own code).
//! - Nothing recurses; successor ids out of range are ignored; queries on
//!   nodes or elements out of range answer "empty", never panic.
//!
//! # The bitset representation
//!
//! [`GenKill`] and [`BitDataflow`] store each family of sets (gen, kill,
//! in, out) as **one flat `Vec<u64>` matrix**: row `n` is words
//! `n * w .. (n + 1) * w` where `w = ceil(domain / 64)`. Compared with one
//! `FixedBitSet` per node, that is one allocation per family instead of one
//! per node, no per-set header or pointer chase, rows of neighbouring nodes
//! adjacent in memory (a chain of blocks walks the matrix linearly), and
//! every operation of the fixpoint loop (confluence, transfer, change test)
//! a loop over `w` words that the compiler vectorises. Bits past the
//! domain in the last word of a row are always zero.
//!
//! The module is split by part: `framework.rs` holds the framework
//! (directions, lattices, the [`Analysis`] trait, the shape of a gen/kill
//! problem), `worklist.rs` the visiting order both solvers share,
//! `general.rs` the solver for any [`Analysis`], and `bits.rs` the gen/kill
//! bitset solver; this file only declares and re-exports them.

mod bits;
mod framework;
mod general;
mod worklist;

pub(crate) use bits::ones;
pub use bits::{BitDataflow, GenKill};
pub use framework::{Analysis, Confluence, Direction, Flow, JoinSemiLattice, Scope};
pub use general::DataflowResults;
