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
//! Each failure is a [`VerifyError`]: the symbol at fault and a
//! [`VerifyErrorKind`] carrying the argument's position, the symbols (as
//! [`crate::SymName`]), the types or the [`crate::TypeError`] involved.
//!
//! Invariants: never panics, whatever the builder produced (foreign
//! symbols, wrong arities, cycles); linear in the graph's size.

use crate::graph::{Arg, Graph, Sym, SymName};
use crate::infer::{TypeError, infer};
use crate::ops::{Op, Prim};
use crate::schedule::Schedule;
use crate::text::SourceMap;
use crate::types::NodeTy;
use core::fmt;
use rustc_hash::FxHashMap;

/// One verifier error: the symbol at fault and what is wrong with it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    /// The symbol at fault, when there is one.
    pub sym: Option<Sym>,
    /// What is wrong.
    pub kind: VerifyErrorKind,
}

/// What a verifier error found, naming the symbols, positions and types
/// involved.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum VerifyErrorKind {
    /// Two symbols of one body have this name.
    DuplicateName(String),
    /// A lambda node whose lambda table entry names another node.
    LambdaTable,
    /// A lambda at the root that is not a function.
    RootLambda,
    /// A lambda in the body of something that is not a lambda.
    LambdaOutsideLambda,
    /// A result that is not a value of the lambda's body.
    ResultOutsideBody(SymName),
    /// A result that is not a symbol of the graph.
    NoSuchResult(Sym),
    /// A param that is not its lambda's param of that index.
    ParamIndex(u32),
    /// A param whose type is not a value type.
    ParamNotValue,
    /// A node other than a function at the root.
    NodeAtRoot,
    /// A node in the body of something that is not a lambda.
    NodeOutsideLambda,
    /// An argument that is not a symbol of the graph.
    NoSuchArgument {
        /// The argument's position.
        index: usize,
        /// The symbol.
        arg: Sym,
    },
    /// An argument from another body.
    ArgumentOutsideBody {
        /// The argument's position.
        index: usize,
        /// The symbol.
        arg: SymName,
    },
    /// A lambda in a position that takes a value.
    LambdaAsValue {
        /// The argument's position.
        index: usize,
        /// The symbol.
        arg: SymName,
    },
    /// A value in a position that takes a lambda.
    ValueAsLambda {
        /// The argument's position.
        index: usize,
        /// The symbol.
        arg: SymName,
    },
    /// A tuple used by something other than `get`.
    TupleArgument {
        /// The argument's position.
        index: usize,
        /// The symbol.
        arg: SymName,
    },
    /// A mask that is not a value of the node's body.
    BadMask(SymName),
    /// A `*` flag past the last argument.
    FlagPastArguments,
    /// A declared type other than the one the operation gives.
    WrongType {
        /// The node's primitive.
        prim: Prim,
        /// The declared type.
        declared: NodeTy,
        /// The type [`crate::infer`] gives.
        inferred: NodeTy,
    },
    /// A node that does not type.
    Type(TypeError),
    /// A node that depends on itself.
    Cycle,
}

impl VerifyError {
    /// Renders the error against the text the graph was parsed from
    /// (`file:line:col`, the line, a caret), or against the file alone.
    pub fn render(&self, file: &str, src: &str, map: &SourceMap) -> String {
        let message = self.kind.to_string();
        match self.sym.and_then(|s| map.span(s)) {
            Some(span) => diagnostics::render_error(file, src, span, &message),
            None => diagnostics::render_file_error(file, &message),
        }
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sym {
            Some(s) => write!(f, "{s}: {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for VerifyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}

impl fmt::Display for VerifyErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use VerifyErrorKind as K;
        match self {
            K::DuplicateName(name) => write!(f, "the name `%{name}` is used twice in one body"),
            K::LambdaTable => f.write_str("a lambda node that its lambda does not name"),
            K::RootLambda => f.write_str("a lambda at the root that is not a function"),
            K::LambdaOutsideLambda => f.write_str("a lambda in the body of something that is not a lambda"),
            K::ResultOutsideBody(r) => write!(f, "result {r} is not a value of this lambda's body"),
            K::NoSuchResult(r) => write!(f, "result {r} does not exist"),
            K::ParamIndex(i) => write!(f, "param {i} is not its lambda's param {i}"),
            K::ParamNotValue => f.write_str("a param must be a value"),
            K::NodeAtRoot => f.write_str("only functions may live at the root"),
            K::NodeOutsideLambda => f.write_str("a node in the body of something that is not a lambda"),
            K::NoSuchArgument { index, arg } => write!(f, "argument {index} ({arg}) does not exist"),
            K::ArgumentOutsideBody { index, arg } => write!(f, "argument {index} ({arg}) is not in this lambda's body"),
            K::LambdaAsValue { index, arg } => {
                write!(f, "argument {index} ({arg}) is a lambda where a value is expected")
            }
            K::ValueAsLambda { index, arg } => {
                write!(f, "argument {index} ({arg}) is a value where a lambda is expected")
            }
            K::TupleArgument { index, arg } => write!(f, "argument {index} ({arg}) is a tuple; read it with `get`"),
            K::BadMask(m) => write!(f, "the mask {m} is not a value of this body"),
            K::FlagPastArguments => f.write_str("a `*` flag on an argument that does not exist"),
            K::WrongType { prim, declared, inferred } => {
                write!(f, "declared {declared}, but `{prim}` gives {inferred}")
            }
            K::Type(e) => write!(f, "{e}"),
            K::Cycle => f.write_str("this node depends on itself (a cycle in its body)"),
        }
    }
}

impl std::error::Error for VerifyErrorKind {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerifyErrorKind::Type(e) => Some(e),
            _ => None,
        }
    }
}

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
    let mut err = |sym: Option<Sym>, kind: VerifyErrorKind| errors.push(VerifyError { sym, kind });
    let mut names: FxHashMap<(Option<Sym>, &str), Sym> = FxHashMap::default();
    for s in g.syms() {
        let n = g.data(s);
        if let Some(name) = g.name(s)
            && names.insert((n.scope, name), s).is_some()
        {
            err(Some(s), VerifyErrorKind::DuplicateName(name.to_string()));
        }
        let scope_lam = n.scope.and_then(|l| g.lambda(l));
        match n.op {
            Op::Lambda(i) => {
                let Some(data) = g.lambdas().get(i as usize).filter(|d| d.node == s) else {
                    err(Some(s), VerifyErrorKind::LambdaTable);
                    continue;
                };
                if n.scope.is_none() && g.function_name(s).is_none() {
                    err(Some(s), VerifyErrorKind::RootLambda);
                }
                if n.scope.is_some() && scope_lam.is_none() {
                    err(Some(s), VerifyErrorKind::LambdaOutsideLambda);
                }
                for &r in &data.results {
                    match g.node(r) {
                        Some(rn) if rn.scope == Some(s) && matches!(rn.ty, NodeTy::Val(_)) => {}
                        Some(_) => err(Some(s), VerifyErrorKind::ResultOutsideBody(g.describe(r))),
                        None => err(Some(s), VerifyErrorKind::NoSuchResult(r)),
                    }
                }
                continue;
            }
            Op::Param(i) => {
                if scope_lam.is_none_or(|l| l.params.get(i as usize) != Some(&s)) {
                    err(Some(s), VerifyErrorKind::ParamIndex(i));
                }
                if n.ty.val().is_none() {
                    err(Some(s), VerifyErrorKind::ParamNotValue);
                }
                continue;
            }
            _ => {}
        }
        if n.scope.is_none() {
            err(Some(s), VerifyErrorKind::NodeAtRoot);
            continue;
        }
        if scope_lam.is_none() {
            err(Some(s), VerifyErrorKind::NodeOutsideLambda);
            continue;
        }
        let slots = lambda_slots(n.op);
        let args = g.args(s);
        let mut ok = true;
        for (i, &a) in args.iter().enumerate() {
            let Some(an) = g.node(a) else {
                err(Some(s), VerifyErrorKind::NoSuchArgument { index: i, arg: a });
                ok = false;
                continue;
            };
            if an.scope != n.scope {
                err(Some(s), VerifyErrorKind::ArgumentOutsideBody { index: i, arg: g.describe(a) });
                ok = false;
            }
            let is_lambda = matches!(an.op, Op::Lambda(_));
            if slots.contains(&i) != is_lambda {
                let arg = g.describe(a);
                err(
                    Some(s),
                    if is_lambda {
                        VerifyErrorKind::LambdaAsValue { index: i, arg }
                    } else {
                        VerifyErrorKind::ValueAsLambda { index: i, arg }
                    },
                );
                ok = false;
            }
            if matches!(an.ty, NodeTy::Tuple(_)) && !matches!(n.op, Op::Get(_)) {
                err(Some(s), VerifyErrorKind::TupleArgument { index: i, arg: g.describe(a) });
                ok = false;
            }
        }
        if let Some(m) = n.mask {
            match g.node(m) {
                Some(mn) if mn.scope == n.scope && mn.ty.val().is_some() => {}
                _ => {
                    err(Some(s), VerifyErrorKind::BadMask(g.describe(m)));
                    ok = false;
                }
            }
        }
        if n.bcast >> args.len().min(63) != 0 && args.len() < 64 {
            err(Some(s), VerifyErrorKind::FlagPastArguments);
        }
        if !ok {
            continue;
        }
        let flagged: smallvec::SmallVec<[Arg; 4]> =
            args.iter().enumerate().map(|(i, &a)| Arg { sym: a, bcast: n.is_bcast(i) }).collect();
        let target = n.ty.val().map(|t| t.scalar);
        match infer(g, n.op, n.depth, &flagged, n.mask, target) {
            Ok(t) if t == n.ty => {}
            Ok(t) => {
                err(Some(s), VerifyErrorKind::WrongType { prim: n.op.prim(), declared: n.ty.clone(), inferred: t })
            }
            Err(e) => err(Some(s), VerifyErrorKind::Type(e)),
        }
    }
    if let Err(s) = Schedule::new(g) {
        err(Some(s), VerifyErrorKind::Cycle);
    }
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}
