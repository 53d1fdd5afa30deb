//! A typed cursor for building graphs: each method adds one node to the
//! body of the current lambda, its type inferred ([`crate::infer`]), or
//! returns the [`TypeError`] (nothing is added then).

use crate::graph::{Arg, Graph, NewNode, Sym};
use crate::infer::{TypeError, infer};
use crate::ops::Op;
use crate::scalar::{BinaryOp, ConvertOp, FloatCC, Imm, IntCC, ScalarTy, UnaryOp};
use crate::types::{NodeTy, ValTy};
use crate::value::Value;

/// Adds nodes to the body of one lambda.
#[derive(Debug)]
pub struct Builder<'g> {
    /// The graph being built.
    pub graph: &'g mut Graph,
    /// The lambda whose body receives the nodes.
    pub scope: Sym,
}

type R = Result<Sym, TypeError>;

impl<'g> Builder<'g> {
    /// A builder adding to the body of lambda `scope`.
    pub fn new(graph: &'g mut Graph, scope: Sym) -> Builder<'g> {
        Builder { graph, scope }
    }

    /// A builder for another lambda of the same graph.
    pub fn at(&mut self, scope: Sym) -> Builder<'_> {
        Builder { graph: self.graph, scope }
    }

    /// The params of the current lambda.
    pub fn params(&self) -> Vec<Sym> {
        self.graph.lambda(self.scope).map_or_else(Vec::new, |l| l.params.clone())
    }

    /// Any node: typed, then added.
    pub fn node(&mut self, op: Op, depth: u32, args: &[Arg], mask: Option<Sym>) -> R {
        self.node_to(op, depth, args, mask, None)
    }

    /// Any node, with the target scalar of a conversion.
    pub fn node_to(&mut self, op: Op, depth: u32, args: &[Arg], mask: Option<Sym>, target: Option<ScalarTy>) -> R {
        let ty = infer(self.graph, op, depth, args, mask, target)?;
        Ok(self.graph.add_node(self.scope, NewNode { op, ty, depth, args, mask }))
    }

    fn plain(&mut self, op: Op, args: &[Sym]) -> R {
        let args: Vec<Arg> = args.iter().map(|&s| Arg::mapped(s)).collect();
        self.node(op, 0, &args, None)
    }

    /// A scalar constant.
    pub fn constant(&mut self, imm: impl Into<Imm>) -> Sym {
        let imm = imm.into();
        self.graph.add_node(
            self.scope,
            NewNode { op: Op::Const(imm), ty: NodeTy::Val(ValTy::scalar(imm.ty())), depth: 0, args: &[], mask: None },
        )
    }

    /// A constant array.
    pub fn array(&mut self, value: Value) -> R {
        let Some(ty) = value.ty().filter(|t| t.depth > 0) else {
            return Err(TypeError::ArrayOfScalar);
        };
        let index = self.graph.add_array_const(value);
        Ok(self.graph.add_node(
            self.scope,
            NewNode { op: Op::Array(index), ty: NodeTy::Val(ty), depth: 0, args: &[], mask: None },
        ))
    }

    /// A unary operation.
    pub fn unary(&mut self, op: UnaryOp, a: Sym) -> R {
        self.plain(Op::Unary(op), &[a])
    }

    /// A binary operation.
    pub fn binary(&mut self, op: BinaryOp, a: Sym, b: Sym) -> R {
        self.plain(Op::Binary(op), &[a, b])
    }

    /// `select c, a, b`.
    pub fn select(&mut self, c: Sym, a: Sym, b: Sym) -> R {
        self.plain(Op::Select, &[c, a, b])
    }

    /// `setp.cc a, b`.
    pub fn setp(&mut self, cc: IntCC, a: Sym, b: Sym) -> R {
        self.plain(Op::Setp(cc), &[a, b])
    }

    /// `fsetp.cc a, b`.
    pub fn fsetp(&mut self, cc: FloatCC, a: Sym, b: Sym) -> R {
        self.plain(Op::Fsetp(cc), &[a, b])
    }

    /// A conversion to `to`.
    pub fn convert(&mut self, op: ConvertOp, a: Sym, to: ScalarTy) -> R {
        self.node_to(Op::Convert(op), 0, &[Arg::mapped(a)], None, Some(to))
    }

    /// `length xs`.
    pub fn length(&mut self, xs: Sym) -> R {
        self.plain(Op::Length, &[xs])
    }

    /// `sum xs`.
    pub fn sum(&mut self, xs: Sym) -> R {
        self.plain(Op::Sum, &[xs])
    }

    /// `max xs`.
    pub fn max(&mut self, xs: Sym) -> R {
        self.plain(Op::Max, &[xs])
    }

    /// `any xs`.
    pub fn any(&mut self, xs: Sym) -> R {
        self.plain(Op::Any, &[xs])
    }

    /// `index xs, i`.
    pub fn index(&mut self, xs: Sym, i: Sym) -> R {
        self.plain(Op::Index, &[xs, i])
    }

    /// `broadcast x, n`.
    pub fn broadcast(&mut self, x: Sym, n: Sym) -> R {
        self.plain(Op::Broadcast, &[x, n])
    }

    /// `concat xss`.
    pub fn concat(&mut self, xss: Sym) -> R {
        self.plain(Op::Concat, &[xss])
    }

    /// `partition xs, lens`.
    pub fn partition(&mut self, xs: Sym, lens: Sym) -> R {
        self.plain(Op::Partition, &[xs, lens])
    }

    /// `assert c`.
    pub fn assert(&mut self, c: Sym) -> R {
        self.plain(Op::Assert, &[c])
    }

    /// `map l, args...` (flag the arguments passed whole with
    /// [`Arg::same`]).
    pub fn map(&mut self, l: Sym, args: &[Arg]) -> R {
        let mut all = vec![Arg::mapped(l)];
        all.extend_from_slice(args);
        self.node(Op::Map, 0, &all, None)
    }

    /// `apply l, args...`.
    pub fn apply(&mut self, l: Sym, args: &[Sym]) -> R {
        let mut all = vec![l];
        all.extend_from_slice(args);
        self.plain(Op::Apply, &all)
    }

    /// `if c, lt, le, args...`.
    pub fn if_(&mut self, c: Sym, lt: Sym, le: Sym, args: &[Sym]) -> R {
        let mut all = vec![c, lt, le];
        all.extend_from_slice(args);
        self.plain(Op::If, &all)
    }

    /// `while lc, lb, init...`.
    pub fn while_(&mut self, lc: Sym, lb: Sym, init: &[Sym]) -> R {
        let mut all = vec![lc, lb];
        all.extend_from_slice(init);
        self.plain(Op::While, &all)
    }

    /// `get.i t`.
    pub fn get(&mut self, t: Sym, i: u32) -> R {
        self.plain(Op::Get(i), &[t])
    }

    /// A new lambda in the current body with parameters of the given
    /// types; returns it and its params. Build its body with
    /// [`Builder::at`] and finish it with [`Builder::ret`].
    pub fn lambda(&mut self, params: &[ValTy]) -> (Sym, Vec<Sym>) {
        let l = self.graph.add_lambda(self.scope, params);
        let ps = self.graph.lambda(l).map_or_else(Vec::new, |d| d.params.clone());
        (l, ps)
    }

    /// Sets the current lambda's results.
    pub fn ret(&mut self, results: &[Sym]) {
        self.graph.set_results(self.scope, results);
    }
}
