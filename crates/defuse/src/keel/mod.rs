//! Keel IR's binding (feature `keel`, on by default): the contexts' entry
//! points for an `ir_core::Function` (its CFG built into the context's own
//! [`cfg_dom::CsrGraph`] buffer, then the same IR-independent methods as
//! for any IR), and the document-style table of a Keel function's chains.
//!
//! Invariant: nothing here computes chains of its own; a Keel function gets
//! exactly what [`ViaSsa::compute`] and [`Iterative::compute`] give on its
//! CFG and its `VarCode` implementation.
//!
//! # Example: the document's table 3
//!
//! ```
//! let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/du_chains.kir")).unwrap();
//! let (module, _) = ir_core::text::parse(&src).unwrap();
//! let func = module.function(module.function_by_name("du_example").unwrap()).unwrap();
//! let cfg = func.cfg();
//! let chains = defuse::via_ssa(&cfg, func).unwrap();
//! assert_eq!(chains, defuse::iterative(&cfg, func).unwrap());
//! // The use of x in s10 (`%y = copy %x`) is reached by s4, s7 and s9.
//! let s10 = func.blocks().flat_map(|b| func.block_insts(b))
//!     .find(|&i| func.results(i).first().map(|&r| func.var_name(r)) == Some("y")).unwrap();
//! let k = func.use_number(s10, ir_core::UseSite::Operand(0)).unwrap();
//! let use_x = chains.sites().use_id(s10.as_u32(), k).unwrap();
//! assert_eq!(chains.defs_of(use_x).len(), 3);
//! ```

mod table;

pub use table::{StatementNames, write_table};

use crate::iterative::Phases as IterativePhases;
use crate::laps::Laps;
use crate::via_ssa::Phases as SsaPhases;
use crate::{Chains, Iterative, ViaSsa};
use cfg_dom::InputError;
use ir_core::Function;

impl ViaSsa {
    /// Chains of a Keel function (its CFG built in this context's buffers).
    pub fn compute_function(&mut self, func: &Function) -> Result<Chains, InputError> {
        let mut chains = Chains::new();
        self.compute_function_into(func, &mut chains)?;
        Ok(chains)
    }

    /// [`ViaSsa::compute_function`], with the time of each phase (building
    /// the CFG counts as part of the dominators).
    pub fn compute_function_timed(&mut self, func: &Function) -> Result<(Chains, SsaPhases), InputError> {
        let mut chains = Chains::new();
        let phases = self.function_into(func, &mut chains, true)?;
        Ok((chains, phases))
    }

    /// [`ViaSsa::compute_function`] into `chains` (see
    /// [`ViaSsa::compute_into`]).
    pub fn compute_function_into(&mut self, func: &Function, chains: &mut Chains) -> Result<(), InputError> {
        self.function_into(func, chains, false).map(|_| ())
    }

    fn function_into(&mut self, func: &Function, chains: &mut Chains, timed: bool) -> Result<SsaPhases, InputError> {
        let mut laps = Laps::start(timed);
        func.compute_cfg(&mut self.graph);
        self.core.run(&self.graph, func, &mut self.input, chains, &mut laps)
    }
}

impl Iterative {
    /// Chains of a Keel function (its CFG built in this context's buffers).
    pub fn compute_function(&mut self, func: &Function) -> Result<Chains, InputError> {
        self.function(func, false).map(|(c, _)| c)
    }

    /// [`Iterative::compute_function`], with the time of each phase
    /// (building the CFG counts as setup).
    pub fn compute_function_timed(&mut self, func: &Function) -> Result<(Chains, IterativePhases), InputError> {
        self.function(func, true)
    }

    fn function(&mut self, func: &Function, timed: bool) -> Result<(Chains, IterativePhases), InputError> {
        let mut laps = Laps::start(timed);
        func.compute_cfg(&mut self.graph);
        self.core.run(&self.graph, func, &mut self.input, &mut laps)
    }
}
