//! The state the checks of one function share ([`Ctx`]: where they are,
//! where errors go) and the helpers that phrase their messages.
//!
//! Invariant: an error reported through a `Ctx` carries the function and
//! the block and instruction being checked when it is reported.

use super::error::{ErrorKind, Location, VerifierError};
use crate::entities::{Block, FuncId, Inst, Var};
use crate::function::Function;
use crate::instructions::Operand;
use crate::module::Module;
use crate::opcode::Opcode;
use crate::types::Type;

pub(super) struct Ctx<'a> {
    pub(super) m: &'a Module,
    pub(super) fid: FuncId,
    pub(super) func: &'a Function,
    pub(super) errors: &'a mut Vec<VerifierError>,
    pub(super) block: Option<Block>,
    pub(super) inst: Option<Inst>,
}

impl Ctx<'_> {
    pub(super) fn err(&mut self, kind: ErrorKind, message: impl Into<String>) {
        self.err_var(kind, None, message);
    }

    pub(super) fn err_var(&mut self, kind: ErrorKind, var: Option<Var>, message: impl Into<String>) {
        self.errors.push(VerifierError {
            location: Location { func: Some(self.fid), block: self.block, inst: self.inst, var, mem: None },
            kind,
            message: message.into(),
        });
    }

    /// How an operand reads in a message.
    pub(super) fn show(&self, op: Operand) -> String {
        match op.as_var() {
            Some(v) => {
                let mut s = String::new();
                let _ = crate::text::write_var_name(&mut s, self.func.shown_var_name(v));
                s
            }
            None => match op.as_const().and_then(|c| self.func.imm(c)) {
                Some(imm) => imm.to_string(),
                None => format!("{op:?}"),
            },
        }
    }

    pub(super) fn show_var(&self, v: Var) -> String {
        let mut s = String::new();
        let _ = crate::text::write_var_name(&mut s, self.func.shown_var_name(v));
        s
    }

    pub(super) fn ty(&self, op: Operand) -> Option<Type> {
        self.func.operand_type(op)
    }

    /// Checks an operand's type; unknown entities were reported already.
    pub(super) fn expect_ty(&mut self, what: &str, op: Operand, want: Type) {
        if let Some(t) = self.ty(op).filter(|&t| t != want) {
            let shown = self.show(op);
            self.err(ErrorKind::TypeMismatch, format!("{what} ({shown}) has type {t}, expected {want}"));
        }
    }

    pub(super) fn expect_int(&mut self, what: &str, op: Operand) {
        if let Some(t) = self.ty(op).filter(|t| !t.is_int()) {
            let shown = self.show(op);
            self.err(ErrorKind::TypeMismatch, format!("{what} ({shown}) has type {t}, expected an integer"));
        }
    }

    pub(super) fn expect_result_ty(&mut self, r: Var, want: Type) {
        if let Some(t) = self.func.var_type(r).filter(|&t| t != want) {
            let shown = self.show_var(r);
            self.err_var(ErrorKind::TypeMismatch, Some(r), format!("result {shown} has type {t}, expected {want}"));
        }
    }

    pub(super) fn expect_class(&mut self, op: Opcode, t: Type) {
        if !op.type_class().admits(t) {
            self.err(ErrorKind::TypeMismatch, format!("`{op}` does not operate on {t}"));
        }
    }
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub(super) fn global(name: &str) -> String {
    let mut s = String::new();
    let _ = crate::text::write_global_name(&mut s, name);
    s
}

/// The value of an exact operand.
pub(super) fn exact(func: &Function, op: Operand) -> Option<i64> {
    op.as_const().and_then(|c| func.imm(c)).map(|i| i.as_i64())
}
