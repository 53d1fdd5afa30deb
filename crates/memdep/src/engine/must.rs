//! What the split of each use's flow set into *must* and *may* dependences
//! needs (issue 31's compact form: per read, its exact dependences and the
//! rest), recorded once per function at no set operation; the split itself
//! is a query ([`crate::MemDeps::must_of`], [`crate::MemDeps::may_of`]).
//!
//! A definition is a must dependence of a use when the use reads an exact
//! range and the definition is a certain (unguarded, not only possible)
//! write of an exact range of the same object in the use's flow set: it
//! is then live on a segment inside the use's extent (exact definitions
//! live only on their own extent), so the two overlap whenever both run.
//! Sites are grouped by object, exact ones first, so an object's exact
//! definitions are one id range; the uncertain definitions are kept as
//! one sorted range list.

use super::MemDep;
use crate::code::MemInput;
use crate::deps::Exactness;
use cfg_dom::Graph;

impl MemDep {
    /// Per use the object it reads exactly (or `u32::MAX`), per object the
    /// id range of its exact definitions, and the uncertain definitions.
    pub(super) fn exactness<G: Graph>(&self, input: &MemInput<'_, G>) -> Exactness {
        let no = input.num_objects();
        let mut exact_defs: Vec<(u32, u32)> = vec![(0, 0); no];
        let mut uncertain: Vec<(u32, u32)> = Vec::new();
        for (d, &k) in self.def_shape.iter().enumerate() {
            let d = d as u32;
            let site = self.sites.defs[d as usize];
            let certain = k != u32::MAX && !input.effects(site.inst).guarded && !self.shape_may[k as usize];
            if !certain {
                match uncertain.last_mut() {
                    Some(last) if last.1 == d => last.1 = d + 1,
                    _ => uncertain.push((d, d + 1)),
                }
            }
            if k != u32::MAX && self.shapes[k as usize].exact {
                let r = &mut exact_defs[self.shapes[k as usize].obj as usize];
                *r = if r.0 == r.1 { (d, d + 1) } else { (r.0.min(d), r.1.max(d + 1)) };
            }
        }
        let use_object = self
            .use_shape
            .iter()
            .map(|&k| match self.shapes.get(k as usize) {
                Some(s) if s.exact => s.obj,
                _ => u32::MAX,
            })
            .collect();
        Exactness { use_object, exact_defs, uncertain }
    }
}
