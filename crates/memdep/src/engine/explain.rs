//! The document's own view at one instruction (digest §002's tables): the
//! definitions live on entry to it, per object it touches, as the analysis
//! holds them at the fixed point: per segment `[lo, hi)` of the object,
//! the definitions that still reach there. A definition's killed
//! intervals are the parts of its extent where it is no longer live; an
//! inexact definition lives over the whole object (it kills nothing), and
//! marks every exact definition it overlaps as possibly killed (the
//! document's `is_kill`). Sites at affine offsets are kept relative to
//! their symbol (`scale · value + [lo, hi)`) while the symbol's value is
//! known, in classes of their own.
//!
//! It replays the instruction's block from its entry state at the fixed
//! point up to the instruction, so it costs one block's transfer after the
//! analysis. Sets are expanded to definition ids here: this is a view of
//! one point for people and tests, not the compact result.

use super::MemDep;
use crate::code::{InputError, MemCode, MemInput, ObjectId, SymbolId};
use crate::deps::{DefId, MemDeps};
use crate::segmap::INF;
use crate::sets::{SetId, SetTable};
use crate::state::State;
use cfg_dom::{Graph, InstId};

/// Definitions live on entry to one instruction ([`MemDep::explain`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The instruction.
    pub inst: InstId,
    /// Per object the instruction touches (every object with a live
    /// definition when it touches anything), by object id.
    pub objects: Vec<LiveOnObject>,
}

/// The definitions live on one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveOnObject {
    /// The object.
    pub object: ObjectId,
    /// Segments at absolute offsets with their live definitions, in order
    /// (segments where nothing is live are left out).
    pub segments: Vec<LiveSegment>,
    /// Segments relative to `scale · value(symbol)`, per class.
    pub relative: Vec<RelativeSegments>,
}

/// Live definitions over `[lo, hi)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveSegment {
    /// First element (may be negative in a relative class).
    pub lo: i64,
    /// One past the last element; `None`: to the end of the object.
    pub hi: Option<i64>,
    /// The definitions live there, by id.
    pub defs: Vec<DefId>,
}

/// The segments of one class of sites whose offsets are affine in one
/// symbol with one scale.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelativeSegments {
    /// The symbol.
    pub symbol: SymbolId,
    /// Its scale.
    pub scale: i64,
    /// Segments relative to `scale · value(symbol)`.
    pub segments: Vec<LiveSegment>,
}

impl MemDep {
    /// The dependences of `code` (as [`MemDep::compute`]) and the
    /// definitions live on entry to `inst`; `None` for the latter when
    /// `inst` is in no reachable block.
    pub fn explain<G: Graph, C: MemCode>(
        &mut self,
        graph: &G,
        code: &C,
        inst: InstId,
    ) -> Result<(MemDeps, Option<Explanation>), InputError> {
        let mut input = std::mem::take(&mut self.input);
        let result = MemInput::new(graph, code, &mut input).and_then(|mi| {
            self.keep_exit_states = true;
            let deps = self.run(&mi);
            self.keep_exit_states = false;
            Ok((deps?, self.explain_at(&mi, inst)))
        });
        self.input = input;
        result
    }

    /// The state on entry to `inst`, after [`MemDep::run`] on `input`.
    fn explain_at<G: Graph>(&mut self, input: &MemInput<'_, G>, inst: InstId) -> Option<Explanation> {
        let b = input.block_of(inst).filter(|&b| self.dfs.is_reachable(b))?;
        if self.sites.uses.is_empty() && self.sites.defs.is_empty() {
            // No access in the function: no fixed point was computed, and
            // nothing is live anywhere.
            return Some(Explanation { inst, objects: Vec::new() });
        }
        let mut state = State::default();
        self.entry_state(input, b, &mut state);
        self.transfer_until(input, b, &mut state, false, Some(inst));
        let e = input.effects(inst);
        let mut objects: Vec<ObjectId> = if e.reads_anything || e.writes_anything {
            (0..input.num_objects() as ObjectId).collect()
        } else {
            input.accesses(inst).iter().map(|a| a.object).collect()
        };
        objects.sort_unstable();
        objects.dedup();
        let mut out = Vec::new();
        for o in objects {
            let segments = match state.defs.objs.get(o as usize) {
                Some(map) => {
                    let segs = map.segments(&mut self.sets);
                    expand(&self.sets, segs)
                }
                None => Vec::new(),
            };
            let mut relative = Vec::new();
            for class in state.defs.classes.iter().filter(|c| c.obj == o) {
                let segs = class.map.segments(&mut self.sets);
                let segments = expand(&self.sets, segs);
                relative.push(RelativeSegments { symbol: class.sym, scale: class.scale, segments });
            }
            if !segments.is_empty() || !relative.is_empty() || !(e.reads_anything || e.writes_anything) {
                out.push(LiveOnObject { object: o, segments, relative });
            }
        }
        Some(Explanation { inst, objects: out })
    }
}

/// Segments with their sets expanded to ids (`INF`: to the end).
fn expand(sets: &SetTable, segs: Vec<(i64, i64, SetId)>) -> Vec<LiveSegment> {
    segs.into_iter()
        .map(|(lo, hi, s)| LiveSegment {
            lo,
            hi: (hi != INF).then_some(hi),
            defs: sets.ranges(s).iter().flat_map(|&(a, z)| a..z).collect(),
        })
        .collect()
}
