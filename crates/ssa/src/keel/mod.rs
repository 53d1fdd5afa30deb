//! Keel IR's binding (feature `keel`, on by default): SSA construction,
//! destruction, phi clean-up and the SSA verifier, rewriting
//! `ir_core::Function`s in place. Everything here runs the IR-independent
//! steps of the crate root ([`crate::VarFacts`], [`crate::PhiPlacement`],
//! [`crate::Renamer`]) on Keel IR, which implements `cfg-dom`'s `Graph` and
//! `VarCode`, and then writes the result back into the function.
//!
//! # Example: the DU-chain document's program
//!
//! ```
//! let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/du_chains.kir")).unwrap();
//! let (mut module, _) = ir_core::text::parse(&src).unwrap();
//! let f = module.function_by_name("du_example").unwrap();
//! let stats = ssa::construct(module.function_mut(f).unwrap(), &ssa::Options::default()).unwrap();
//! // x at bb2 and bb4 (none for a, b, p), and the loop counter %i at bb2.
//! assert_eq!(stats.phis_placed, 3);
//! ssa::verify(&module, f).unwrap();
//! let text = ir_core::text::print_module(&module);
//! assert!(text.contains("%x.2 = phi(bb1: %x.1, bb5: %x.4)"));
//! assert!(text.contains("@%p.1 %x.5 = add %a.1, %b.1 else %x.2"));
//! ssa::destruct(module.function_mut(f).unwrap());
//! ir_core::verify_module(&module, &ir_core::VerifyOptions::default()).unwrap();
//! ```

pub(crate) mod cleanup;
pub(crate) mod construct;
pub(crate) mod destruct;
pub(crate) mod verify;
