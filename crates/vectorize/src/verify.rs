//! The verifier: every structural and typing rule of the graph IR, checked
//! without stopping at the first failure.
//!
//! Rules: the root holds only functions (named lambdas); every other node
//! lives in a lambda's body and names only symbols of that body (params,
//! sibling nodes, and sibling lambdas where a higher-order operation takes
//! one); lambdas are used only there, tuples only by `get`; params and
//! lambda tables agree with their nodes; each declared type is the one
//! [`crate::infer`] gives (arity and flags included); results are values of
//! the lambda's body; names are unique per body; each body is acyclic.
//!
//! Invariants: never panics, whatever the builder produced (foreign
//! symbols, wrong arities, cycles); linear in the graph's size.

use crate::graph::{Arg, Graph, Sym};
use crate::infer::infer;
use crate::ops::Op;
use crate::schedule::Schedule;
use crate::text::SourceMap;
use crate::types::NodeTy;
use core::fmt;
use rustc_hash::FxHashMap;

/// One verifier error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    /// The symbol at fault, when there is one.
    pub sym: Option<Sym>,
    /// What is wrong.
    pub message: String,
}

impl VerifyError {
    /// Renders the error against the text the graph was parsed from
    /// (`file:line:col`, the line, a caret), or against the file alone.
    pub fn render(&self, file: &str, src: &str, map: &SourceMap) -> String {
        match self.sym.and_then(|s| map.span(s)) {
            Some(span) => diagnostics::render_error(file, src, span, &self.message),
            None => diagnostics::render_file_error(file, &self.message),
        }
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sym {
            Some(s) => write!(f, "{s}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Which argument positions of an operation hold lambdas.
pub(crate) fn lambda_slots(op: Op) -> &'static [usize] {
    match op {
        Op::Map | Op::Apply => &[0],
        Op::If => &[1, 2],
        Op::While => &[0, 1],
        _ => &[],
    }
}

/// Verifies a graph, collecting every error.
pub fn verify(g: &Graph) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    let mut err = |sym: Option<Sym>, message: String| errors.push(VerifyError { sym, message });
    let mut names: FxHashMap<(Option<Sym>, &str), Sym> = FxHashMap::default();
    for s in g.syms() {
        let n = g.data(s);
        if let Some(name) = g.name(s)
            && names.insert((n.scope, name), s).is_some()
        {
            err(Some(s), format!("the name `%{name}` is used twice in one body"));
        }
        let scope_lam = n.scope.and_then(|l| g.lambda(l));
        match n.op {
            Op::Lambda(i) => {
                let Some(data) = g.lambdas().get(i as usize).filter(|d| d.node == s) else {
                    err(Some(s), "a lambda node that its lambda does not name".into());
                    continue;
                };
                if n.scope.is_none() && g.function_name(s).is_none() {
                    err(Some(s), "a lambda at the root that is not a function".into());
                }
                if n.scope.is_some() && scope_lam.is_none() {
                    err(Some(s), "a lambda in the body of something that is not a lambda".into());
                }
                for &r in &data.results {
                    match g.node(r) {
                        Some(rn) if rn.scope == Some(s) && matches!(rn.ty, NodeTy::Val(_)) => {}
                        Some(_) => {
                            err(Some(s), format!("result {} is not a value of this lambda's body", g.describe(r)))
                        }
                        None => err(Some(s), format!("result {r} does not exist")),
                    }
                }
                continue;
            }
            Op::Param(i) => {
                if scope_lam.is_none_or(|l| l.params.get(i as usize) != Some(&s)) {
                    err(Some(s), format!("param {i} is not its lambda's param {i}"));
                }
                if n.ty.val().is_none() {
                    err(Some(s), "a param must be a value".into());
                }
                continue;
            }
            _ => {}
        }
        if n.scope.is_none() {
            err(Some(s), "only functions may live at the root".into());
            continue;
        }
        if scope_lam.is_none() {
            err(Some(s), "a node in the body of something that is not a lambda".into());
            continue;
        }
        let slots = lambda_slots(n.op);
        let args = g.args(s);
        let mut ok = true;
        for (i, &a) in args.iter().enumerate() {
            let Some(an) = g.node(a) else {
                err(Some(s), format!("argument {i} ({a}) does not exist"));
                ok = false;
                continue;
            };
            if an.scope != n.scope {
                err(Some(s), format!("argument {i} ({}) is not in this lambda's body", g.describe(a)));
                ok = false;
            }
            let is_lambda = matches!(an.op, Op::Lambda(_));
            if slots.contains(&i) != is_lambda {
                let what =
                    if is_lambda { "a lambda where a value is expected" } else { "a value where a lambda is expected" };
                err(Some(s), format!("argument {i} ({}) is {what}", g.describe(a)));
                ok = false;
            }
            if matches!(an.ty, NodeTy::Tuple(_)) && !matches!(n.op, Op::Get(_)) {
                err(Some(s), format!("argument {i} ({}) is a tuple; read it with `get`", g.describe(a)));
                ok = false;
            }
        }
        if let Some(m) = n.mask {
            match g.node(m) {
                Some(mn) if mn.scope == n.scope && mn.ty.val().is_some() => {}
                _ => {
                    err(Some(s), format!("the mask {} is not a value of this body", g.describe(m)));
                    ok = false;
                }
            }
        }
        if n.bcast >> args.len().min(63) != 0 && args.len() < 64 {
            err(Some(s), "a `*` flag on an argument that does not exist".into());
        }
        if !ok {
            continue;
        }
        let flagged: smallvec::SmallVec<[Arg; 4]> =
            args.iter().enumerate().map(|(i, &a)| Arg { sym: a, bcast: n.is_bcast(i) }).collect();
        let target = n.ty.val().map(|t| t.scalar);
        match infer(g, n.op, n.depth, &flagged, n.mask, target) {
            Ok(t) if t == n.ty => {}
            Ok(t) => err(Some(s), format!("declared {}, but `{}` gives {t}", n.ty, n.op.prim())),
            Err(e) => err(Some(s), e.0),
        }
    }
    if let Err(s) = Schedule::new(g) {
        err(Some(s), "this node depends on itself (a cycle in its body)".into());
    }
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}
