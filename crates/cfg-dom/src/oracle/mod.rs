//! Slow, obviously-correct reference implementations (textbook
//! definitions, computed naively) of every analysis in this crate, used by
//! its property tests and fuzz target — and by anyone checking their own
//! `Graph` implementation. Quadratic or worse: for small graphs only.

mod dominance;
mod liveness;
mod loops;

pub use dominance::{
    DepthFirst, all_dominated_by_removal, depth_first, dominated_by_removal, dominates_by_removal, dominators,
    exit_sources, frontier, frontier_with, frontiers, idoms, immediate, ipdoms, iterate_frontiers, iterated_frontier,
    nearest_common_dominator, post_dominated_by, post_dominates, post_dominators, reachable, reducible_by_t1_t2,
};
pub use liveness::{live_in, live_out};
pub use loops::{NaturalLoop, OracleLoop, OracleLoops, loop_forest, natural_loops};
