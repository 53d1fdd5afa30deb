//! The toy IR as `regalloc-pebble`'s [`RegCode`]: each var's register
//! class, how each statement may move, which statements are copies.
//!
//! Invariant: a pure translation of [`Toy`]'s fields, nothing computed.

use crate::{Kind, Toy};
use regalloc_pebble::{InstKind, RegClass, RegCode};

impl RegCode for Toy {
    fn class(&self, var: u32) -> RegClass {
        if self.vars[var as usize].vector { RegClass::Vector } else { RegClass::Scalar }
    }
    fn inst_kind(&self, inst: u32) -> InstKind {
        match self.stmts[inst as usize].kind {
            Kind::Pure => InstKind::Pure,
            Kind::Effect => InstKind::Effect,
            Kind::Terminator => InstKind::Terminator,
        }
    }
    fn is_copy(&self, inst: u32) -> bool {
        self.stmts[inst as usize].copy
    }
}
