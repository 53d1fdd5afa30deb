//! The dataflow framework's vocabulary: which way information flows
//! ([`Direction`]), how neighbours combine ([`Confluence`]), which nodes are
//! solved ([`Scope`]), the shape of a gen/kill problem ([`Flow`]), and the
//! [`Analysis`] trait over a [`JoinSemiLattice`] domain (see the module doc
//! of `dataflow` for the conventions both solvers follow).
//!
//! Invariant: a lattice's `join` is the least upper bound and `bottom` its
//! identity; the solvers rely on it to terminate.

use crate::graph::Node;
use fixedbitset::FixedBitSet;

/// Which way information flows.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Direction {
    /// From the entry along edges: a node's in state is the confluence of
    /// its predecessors' out states.
    Forward,
    /// Against edges, from the exits: a node's out state is the confluence
    /// of its successors' in states.
    Backward,
}

/// How the states of several neighbours combine, for [`GenKill`](crate::GenKill) problems.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Confluence {
    /// Union: an element holds if it holds along some path (liveness,
    /// reaching definitions). States start empty.
    May,
    /// Intersection: an element holds if it holds along every path
    /// (available expressions, dominators). States of solved nodes start
    /// full.
    Must,
}

/// Which nodes a solver computes states for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Scope {
    /// Nodes reachable from the entry; others keep the empty state. With
    /// no entry, nothing is solved.
    Reachable,
    /// Every node. Forward, a node without predecessors other than the
    /// entry gets the confluence of nothing (empty for may, full for must).
    All,
}

/// A join-semilattice: a partial order in which any two elements have a
/// least upper bound. The dataflow domain of an [`Analysis`].
///
/// The solver needs `join` to be the least upper bound (commutative,
/// associative, idempotent), `bottom` (see [`Analysis::bottom`]) to be its
/// identity, and ascending chains to be finite.
pub trait JoinSemiLattice: Eq {
    /// Sets `self` to the join of `self` and `other`; true when `self`
    /// changed.
    fn join(&mut self, other: &Self) -> bool;
}

/// `false < true`: join is "or".
impl JoinSemiLattice for bool {
    fn join(&mut self, other: &bool) -> bool {
        let changed = !*self && *other;
        *self |= *other;
        changed
    }
}

/// Sets ordered by inclusion: join is union (the set grows if `other` is
/// longer).
impl JoinSemiLattice for FixedBitSet {
    fn join(&mut self, other: &FixedBitSet) -> bool {
        if other.is_subset(self) {
            return false;
        }
        self.union_with(other);
        true
    }
}

/// `None` below every `Some`: adds a new bottom ("not reached yet") to any
/// lattice.
impl<T: JoinSemiLattice + Clone> JoinSemiLattice for Option<T> {
    fn join(&mut self, other: &Option<T>) -> bool {
        match (self.as_mut(), other) {
            (_, None) => false,
            (None, Some(o)) => {
                *self = Some(o.clone());
                true
            }
            (Some(s), Some(o)) => s.join(o),
        }
    }
}

/// A monotone dataflow analysis, solved by [`DataflowResults::compute`](crate::DataflowResults::compute).
///
/// For a forward analysis, `transfer_block` maps a node's in state to its
/// out state; for a backward one, its out state to its in state. It must be
/// monotone, or the solver may not terminate.
pub trait Analysis {
    /// The states: a join-semilattice with finite ascending chains.
    type Domain: JoinSemiLattice + Clone;

    /// Forward or backward.
    const DIRECTION: Direction;

    /// Which nodes are solved; by default those reachable from the entry.
    const SCOPE: Scope = Scope::Reachable;

    /// The bottom of the lattice (the identity of join): every state starts
    /// here, and nodes outside the scope keep it.
    fn bottom(&self) -> Self::Domain;

    /// Sets the boundary state, given as bottom: the in state of the entry
    /// (forward) or the out state of each exit, a node without successors
    /// (backward).
    fn boundary(&self, state: &mut Self::Domain);

    /// Applies the effect of the whole of `node` to `state`.
    fn transfer_block(&self, node: Node, state: &mut Self::Domain);
}

/// The shape of a [`GenKill`](crate::GenKill) problem: direction, confluence and scope.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Flow {
    /// Which way information flows.
    pub direction: Direction,
    /// Union or intersection.
    pub confluence: Confluence,
    /// Which nodes are solved.
    pub scope: Scope,
}

impl Flow {
    /// A flow over the nodes reachable from the entry.
    pub const fn new(direction: Direction, confluence: Confluence) -> Flow {
        Flow { direction, confluence, scope: Scope::Reachable }
    }

    /// The same flow over another scope.
    pub const fn with_scope(self, scope: Scope) -> Flow {
        Flow { scope, ..self }
    }
}

impl Default for Flow {
    /// Forward, may, reachable nodes.
    fn default() -> Flow {
        Flow::new(Direction::Forward, Confluence::May)
    }
}
