//! Keel IR's binding (feature `keel`, on by default): Keel functions as
//! [`MemCode`](crate::MemCode) ([`KeelCode`], in `code`), call summaries
//! ([`Summaries`]), and the entry points that build them in a context's
//! buffers ([`crate::MemDep::compute_function`],
//! [`crate::MemQueries::of_function`], [`keel_input`]).
//!
//! Layering, one way: `descriptors` (where an instruction's descriptors
//! are) under `summaries` (what a callee touches) under `code` (the
//! adapter) under this module (the entry points, which use the engine).
//!
//! # Example: the digest's test vector 1
//!
//! ```
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/memdep_vector1.kir");
//! let (module, _) = ir_core::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
//! let func = module.function(module.function_by_name("vector1").unwrap()).unwrap();
//! let deps = memdep::MemDep::new().compute_function(&module, func, None).unwrap();
//! // ir6 (`tsum @v[0, 65]`) depends on ir3 and ir5: ir1's [0, 31] was
//! // killed in two pieces, by ir3 ([0, 15]) and ir5 ([16, 31]).
//! let insts: Vec<_> = func.blocks().flat_map(|b| func.block_insts(b)).collect();
//! let ir = |k: usize| insts[k - 1].as_u32();
//! assert_eq!(deps.reaching_insts(ir(6)), [ir(3), ir(5)]);
//! assert_eq!(deps.reaching_insts(ir(4)), [ir(1), ir(3)]);
//! assert!(deps.depends(ir(1), ir(2)).flow && !deps.depends(ir(1), ir(6)).flow);
//! ```

mod code;
mod descriptors;
mod summaries;

pub(crate) use code::KeelState;
pub use code::{KeelBuffers, KeelCode, keel_input};
pub use summaries::{Summaries, Summary};

use ir_core::{Function, Module};

impl crate::MemDep {
    /// Memory dependences of a Keel function of `module` (its CFG and
    /// [`KeelCode`] built in this context's buffers); calls to module
    /// functions use `summaries` when given (compute them once per module
    /// with [`Summaries::of`]) and may touch anything otherwise.
    pub fn compute_function(
        &mut self,
        module: &Module,
        func: &Function,
        summaries: Option<&Summaries>,
    ) -> Result<crate::MemDeps, crate::InputError> {
        let mut keel = std::mem::take(&mut self.keel);
        let mut code = std::mem::take(&mut keel.code);
        code.compute(module, func, summaries, &mut keel.buffers);
        let r = self.compute(&keel.buffers.cfg, &code);
        keel.code = code;
        self.keel = keel;
        r
    }

    /// [`crate::MemDep::explain`] on a Keel function (as
    /// [`crate::MemDep::compute_function`]): its dependences and the
    /// definitions live on entry to `inst`.
    pub fn explain_function(
        &mut self,
        module: &Module,
        func: &Function,
        summaries: Option<&Summaries>,
        inst: cfg_dom::InstId,
    ) -> Result<(crate::MemDeps, Option<crate::Explanation>), crate::InputError> {
        let mut keel = std::mem::take(&mut self.keel);
        let mut code = std::mem::take(&mut keel.code);
        code.compute(module, func, summaries, &mut keel.buffers);
        let r = self.explain(&keel.buffers.cfg, &code, inst);
        keel.code = code;
        self.keel = keel;
        r
    }
}

impl crate::MemQueries {
    /// Queries on a Keel function.
    pub fn of_function(
        module: &ir_core::Module,
        func: &ir_core::Function,
        summaries: Option<&crate::Summaries>,
    ) -> Result<crate::MemQueries, crate::InputError> {
        let (cfg, code) = keel_input(module, func, summaries);
        crate::MemQueries::new(&cfg, &code)
    }
}
