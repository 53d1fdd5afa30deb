//! The graph IR's data model: a table from symbol to node, as source
//! document 003 ("a method and apparatus for constructing a vectorized
//! version of a source program having a graph-based intermediate
//! representation"; `docs/references.md`) describes it in its figures 5c
//! and 6b.
//!
//! - A [`Sym`] is a dense `u32` id; the [`Graph`] is a table `Sym ->`
//!   [`NodeData`] (operation, argument symbols, type). There is no order of
//!   execution other than the dependence order ([`crate::Schedule`]
//!   computes one).
//! - Every node belongs to a lambda's body (its *scope*), and may name only
//!   symbols of that body: its lambda's params, its sibling nodes, and
//!   sibling lambdas as the first arguments of `map`/`apply`/`if`/`while`.
//!   Lambdas are therefore closed (no free variables: values from outside
//!   come in as arguments, as JAX's jaxprs take their constants), and the
//!   nesting of lambdas is a tree, so no lambda can call itself.
//! - Top-level lambdas are the graph's *functions* (`func @name`), the
//!   only nodes of the root scope.
//! - A lifted node (`fadd.1`) carries a depth `k` and, per argument, a
//!   flag saying whether the argument is *mapped* (has the `k` outer array
//!   levels) or *the same in every lane* (JAX's `in_axes=None`: written
//!   `*%x`); it may carry a lane mask (`@%m`).
//!
//! Invariants: symbols and lambdas are only ever appended (ids are
//! stable); functions are found by name or symbol through hash maps kept
//! with the list (O(1) each, so a file of 10^5 functions parses and prints
//! in linear time); every mutation bumps [`Graph::epoch`], so analyses computed on
//! an older state are detected ([`crate::Schedule::check`]). The builder
//! methods here do not check types or scopes (Cranelift's choice: building
//! stays cheap); [`crate::verify`] does, collecting every error.

use crate::ops::Op;
use crate::types::{NodeTy, ValTy};
use crate::value::Value;
use core::fmt;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// A symbol: the id of a node (dense, from 0).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Sym(u32);

impl Sym {
    /// The symbol with this index.
    pub const fn from_index(i: usize) -> Sym {
        Sym(i as u32)
    }

    /// The dense index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The raw id.
    pub const fn as_u32(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{}", self.0)
    }
}

/// An argument as a builder writes it: a symbol, and whether it is the
/// same in every lane of a lifted operation (or passed whole to `map`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Arg {
    /// The symbol.
    pub sym: Sym,
    /// True for an unmapped argument (`*%x` in text).
    pub bcast: bool,
}

impl Arg {
    /// A mapped argument.
    pub const fn mapped(sym: Sym) -> Arg {
        Arg { sym, bcast: false }
    }

    /// An argument that is the same in every lane.
    pub const fn same(sym: Sym) -> Arg {
        Arg { sym, bcast: true }
    }
}

impl From<Sym> for Arg {
    fn from(sym: Sym) -> Arg {
        Arg::mapped(sym)
    }
}

/// Most arguments a node with per-argument flags may have.
pub const MAX_FLAGGED_ARGS: usize = 64;

/// One node.
#[derive(Clone, PartialEq, Debug)]
pub struct NodeData {
    /// The operation.
    pub op: Op,
    /// The node's type.
    pub ty: NodeTy,
    /// The lift depth `k` (0 unless [`Op::liftable`]).
    pub depth: u32,
    /// Bit `i`: argument `i` is the same in every lane (for lifted nodes
    /// with `depth > 0`) or passed whole (for `map`).
    pub bcast: u64,
    /// The lane mask, if any: lanes where it is false are not computed
    /// and hold zero (a scalar) or an empty array.
    pub mask: Option<Sym>,
    /// The lambda whose body holds the node; `None` for the graph's
    /// functions.
    pub scope: Option<Sym>,
    args_start: u32,
    args_len: u32,
}

impl NodeData {
    /// True when argument `i` is the same in every lane (or, for `map`,
    /// passed whole).
    pub fn is_bcast(&self, i: usize) -> bool {
        i < MAX_FLAGGED_ARGS && self.bcast >> i & 1 == 1
    }
}

/// A lambda: parameter symbols, a body (the nodes whose scope it is) and
/// result symbols.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct LambdaData {
    /// The lambda's own node.
    pub node: Sym,
    /// Parameter symbols, in order.
    pub params: Vec<Sym>,
    /// Result symbols, in order (params or body nodes).
    pub results: Vec<Sym>,
}

/// A node as a builder describes it.
#[derive(Clone, Debug)]
pub struct NewNode<'a> {
    /// The operation.
    pub op: Op,
    /// The type.
    pub ty: NodeTy,
    /// The lift depth.
    pub depth: u32,
    /// The arguments and their flags.
    pub args: &'a [Arg],
    /// The lane mask.
    pub mask: Option<Sym>,
}

/// Why a name was refused ([`Graph::set_name`], [`Graph::add_function`]);
/// each names the name or the symbol at fault.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NameError {
    /// A symbol name that the text format cannot write (see
    /// [`valid_name`]).
    InvalidName(String),
    /// A symbol that is not in this graph.
    NoSuchSymbol(Sym),
    /// A function name that the text format cannot write.
    InvalidFunctionName(String),
    /// A second function of the same name.
    FunctionExists(String),
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::InvalidName(name) => {
                write!(f, "`{name}` is not a valid name (letters, digits, `_` and `.`, not all digits)")
            }
            NameError::NoSuchSymbol(sym) => write!(f, "{sym} is not a symbol of this graph"),
            NameError::InvalidFunctionName(name) => write!(f, "`@{name}` is not a valid function name"),
            NameError::FunctionExists(name) => write!(f, "a function `@{name}` already exists"),
        }
    }
}

impl std::error::Error for NameError {}

/// A symbol as a message names it ([`Graph::describe`]): by its name, by
/// its function's name, or by its id.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SymName {
    /// A named node: `%name (s3)`.
    Named {
        /// The symbol.
        sym: Sym,
        /// Its name.
        name: String,
    },
    /// A function: `@name`.
    Function(String),
    /// A symbol with no name: `s3`.
    Id(Sym),
}

impl fmt::Display for SymName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymName::Named { sym, name } => write!(f, "%{name} ({sym})"),
            SymName::Function(name) => write!(f, "@{name}"),
            SymName::Id(sym) => write!(f, "{sym}"),
        }
    }
}

/// True for a name the text format writes bare: `[A-Za-z0-9_.]+`, not
/// all digits (all-digit names are the printer's numbering of unnamed
/// symbols).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && !name.bytes().all(|b| b.is_ascii_digit())
}

static NEXT_GRAPH_ID: AtomicU64 = AtomicU64::new(1);

/// A graph: the symbol table, lambdas, constant arrays and names.
#[derive(Debug)]
pub struct Graph {
    nodes: Vec<NodeData>,
    args: Vec<Sym>,
    lambdas: Vec<LambdaData>,
    arrays: Vec<Value>,
    names: Vec<Option<Box<str>>>,
    functions: Vec<Sym>,
    function_names: Vec<Box<str>>,
    /// Position in `functions` by name and by symbol: lookups in O(1), so
    /// a file of many functions parses and prints in linear time.
    function_by_name: FxHashMap<Box<str>, u32>,
    function_by_sym: FxHashMap<Sym, u32>,
    id: u64,
    epoch: u64,
}

impl Clone for Graph {
    fn clone(&self) -> Graph {
        Graph {
            nodes: self.nodes.clone(),
            args: self.args.clone(),
            lambdas: self.lambdas.clone(),
            arrays: self.arrays.clone(),
            names: self.names.clone(),
            functions: self.functions.clone(),
            function_names: self.function_names.clone(),
            function_by_name: self.function_by_name.clone(),
            function_by_sym: self.function_by_sym.clone(),
            id: NEXT_GRAPH_ID.fetch_add(1, Ordering::Relaxed),
            epoch: 0,
        }
    }
}

impl Default for Graph {
    fn default() -> Graph {
        Graph::new()
    }
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph {
            nodes: Vec::new(),
            args: Vec::new(),
            lambdas: Vec::new(),
            arrays: Vec::new(),
            names: Vec::new(),
            functions: Vec::new(),
            function_names: Vec::new(),
            function_by_name: FxHashMap::default(),
            function_by_sym: FxHashMap::default(),
            id: NEXT_GRAPH_ID.fetch_add(1, Ordering::Relaxed),
            epoch: 0,
        }
    }

    /// An empty graph with room for `nodes` symbols.
    pub fn with_capacity(nodes: usize) -> Graph {
        let mut g = Graph::new();
        g.nodes.reserve(nodes);
        g.names.reserve(nodes);
        g.args.reserve(2 * nodes);
        g
    }

    /// A process-unique id of this graph (a clone gets a new one).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Changes on every mutation.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the graph has no symbols.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every symbol, in id order.
    pub fn syms(&self) -> impl ExactSizeIterator<Item = Sym> + use<> {
        (0..self.nodes.len() as u32).map(Sym)
    }

    /// The node of `sym`, if it exists.
    pub fn node(&self, sym: Sym) -> Option<&NodeData> {
        self.nodes.get(sym.index())
    }

    /// The node of `sym`.
    ///
    /// # Panics
    /// If `sym` is not a symbol of this graph (a precondition; debug
    /// builds and release builds both check it by indexing).
    pub fn data(&self, sym: Sym) -> &NodeData {
        &self.nodes[sym.index()]
    }

    /// The operation of `sym` (`None` for a foreign symbol).
    pub fn op(&self, sym: Sym) -> Option<Op> {
        self.node(sym).map(|n| n.op)
    }

    /// The arguments of `sym` (empty for a foreign symbol).
    pub fn args(&self, sym: Sym) -> &[Sym] {
        match self.node(sym) {
            Some(n) => self.args.get(n.args_start as usize..(n.args_start + n.args_len) as usize).unwrap_or(&[]),
            None => &[],
        }
    }

    /// The value type of `sym`, if it is a value.
    pub fn val_ty(&self, sym: Sym) -> Option<ValTy> {
        self.node(sym).and_then(|n| n.ty.val())
    }

    /// The lambda data of a lambda node.
    pub fn lambda(&self, sym: Sym) -> Option<&LambdaData> {
        match self.op(sym)? {
            Op::Lambda(i) => self.lambdas.get(i as usize),
            _ => None,
        }
    }

    /// Every lambda, in creation order.
    pub fn lambdas(&self) -> &[LambdaData] {
        &self.lambdas
    }

    /// The graph's functions (top-level lambdas), in creation order.
    pub fn functions(&self) -> &[Sym] {
        &self.functions
    }

    /// The function named `name` (without the `@`).
    pub fn function(&self, name: &str) -> Option<Sym> {
        let name = name.strip_prefix('@').unwrap_or(name);
        self.function_by_name.get(name).map(|&i| self.functions[i as usize])
    }

    /// The name of a function (a top-level lambda).
    pub fn function_name(&self, sym: Sym) -> Option<&str> {
        self.function_by_sym.get(&sym).map(|&i| &*self.function_names[i as usize])
    }

    /// A constant array from the pool.
    pub fn array_const(&self, index: u32) -> Option<&Value> {
        self.arrays.get(index as usize)
    }

    /// The symbol's name, if it has one.
    pub fn name(&self, sym: Sym) -> Option<&str> {
        self.names.get(sym.index()).and_then(|n| n.as_deref())
    }

    /// Names a symbol (see [`valid_name`]). Uniqueness within a scope is
    /// the verifier's concern.
    pub fn set_name(&mut self, sym: Sym, name: &str) -> Result<(), NameError> {
        if !valid_name(name) {
            return Err(NameError::InvalidName(name.to_string()));
        }
        let Some(slot) = self.names.get_mut(sym.index()) else {
            return Err(NameError::NoSuchSymbol(sym));
        };
        *slot = Some(name.into());
        self.epoch += 1;
        Ok(())
    }

    fn push(&mut self, data: NodeData) -> Sym {
        let sym = Sym(self.nodes.len() as u32);
        self.nodes.push(data);
        self.names.push(None);
        self.epoch += 1;
        sym
    }

    fn new_lambda(&mut self, scope: Option<Sym>, params: &[ValTy]) -> Sym {
        let id = self.lambdas.len() as u32;
        let node = self.push(NodeData {
            op: Op::Lambda(id),
            ty: NodeTy::Lambda,
            depth: 0,
            bcast: 0,
            mask: None,
            scope,
            args_start: self.args.len() as u32,
            args_len: 0,
        });
        self.lambdas.push(LambdaData { node, params: Vec::new(), results: Vec::new() });
        for &t in params {
            self.add_param(node, t);
        }
        node
    }

    /// Adds a function `@name` with parameters of the given types; its
    /// params are `self.lambda(f).params`.
    pub fn add_function(&mut self, name: &str, params: &[ValTy]) -> Result<Sym, NameError> {
        if !valid_name(name) {
            return Err(NameError::InvalidFunctionName(name.to_string()));
        }
        if self.function(name).is_some() {
            return Err(NameError::FunctionExists(name.to_string()));
        }
        let f = self.new_lambda(None, params);
        let index = self.functions.len() as u32;
        self.functions.push(f);
        self.function_names.push(name.into());
        self.function_by_name.insert(name.into(), index);
        self.function_by_sym.insert(f, index);
        Ok(f)
    }

    /// Adds a lambda in the body of lambda `scope`.
    pub fn add_lambda(&mut self, scope: Sym, params: &[ValTy]) -> Sym {
        self.new_lambda(Some(scope), params)
    }

    /// Appends a parameter to a lambda (a no-op returning `lam` when `lam`
    /// is not a lambda; the verifier then reports the misuse).
    pub fn add_param(&mut self, lam: Sym, ty: ValTy) -> Sym {
        let Some(Op::Lambda(id)) = self.op(lam) else { return lam };
        let index = self.lambdas[id as usize].params.len() as u32;
        let p = self.push(NodeData {
            op: Op::Param(index),
            ty: NodeTy::Val(ty),
            depth: 0,
            bcast: 0,
            mask: None,
            scope: Some(lam),
            args_start: self.args.len() as u32,
            args_len: 0,
        });
        self.lambdas[id as usize].params.push(p);
        p
    }

    /// Sets a lambda's results (ignored when `lam` is not a lambda).
    pub fn set_results(&mut self, lam: Sym, results: &[Sym]) {
        if let Some(Op::Lambda(id)) = self.op(lam) {
            self.lambdas[id as usize].results = results.to_vec();
            self.epoch += 1;
        }
    }

    /// Adds a node to the body of lambda `scope`. Flags on arguments past
    /// [`MAX_FLAGGED_ARGS`] are dropped (the verifier reports such nodes).
    pub fn add_node(&mut self, scope: Sym, node: NewNode<'_>) -> Sym {
        let start = self.args.len() as u32;
        let mut bcast = 0u64;
        for (i, a) in node.args.iter().enumerate() {
            self.args.push(a.sym);
            if a.bcast && i < MAX_FLAGGED_ARGS {
                bcast |= 1 << i;
            }
        }
        self.push(NodeData {
            op: node.op,
            ty: node.ty,
            depth: node.depth,
            bcast,
            mask: node.mask,
            scope: Some(scope),
            args_start: start,
            args_len: node.args.len() as u32,
        })
    }

    /// Replaces argument `i` of `sym` (the parser's forward references).
    pub(crate) fn set_arg(&mut self, sym: Sym, i: usize, new: Sym) {
        if let Some(n) = self.nodes.get(sym.index())
            && i < n.args_len as usize
        {
            self.args[n.args_start as usize + i] = new;
            self.epoch += 1;
        }
    }

    /// Replaces the mask of `sym`.
    pub(crate) fn set_mask(&mut self, sym: Sym, mask: Option<Sym>) {
        if let Some(n) = self.nodes.get_mut(sym.index()) {
            n.mask = mask;
            self.epoch += 1;
        }
    }

    /// A mark to roll back to ([`Graph::rollback`]).
    pub(crate) fn checkpoint(&self) -> (usize, usize, usize) {
        (self.nodes.len(), self.args.len(), self.arrays.len())
    }

    /// Removes every node, argument and constant added since `mark`
    /// (lambdas and functions must not have been added since).
    pub(crate) fn rollback(&mut self, mark: (usize, usize, usize)) {
        self.nodes.truncate(mark.0);
        self.names.truncate(mark.0);
        self.args.truncate(mark.1);
        self.arrays.truncate(mark.2);
        self.epoch += 1;
    }

    /// Adds a constant array to the pool; use it with [`Op::Array`].
    pub fn add_array_const(&mut self, value: Value) -> u32 {
        self.arrays.push(value);
        self.epoch += 1;
        (self.arrays.len() - 1) as u32
    }

    /// The lambda's parameter types.
    pub fn param_types(&self, lam: Sym) -> Vec<ValTy> {
        self.lambda(lam).map_or_else(Vec::new, |l| l.params.iter().filter_map(|&p| self.val_ty(p)).collect())
    }

    /// The lambda's result types (of the results that are values).
    pub fn result_types(&self, lam: Sym) -> Vec<ValTy> {
        self.lambda(lam).map_or_else(Vec::new, |l| l.results.iter().filter_map(|&r| self.val_ty(r)).collect())
    }

    /// A human-readable reference to `sym` for messages (its `Display`):
    /// its name with its id, else its function's name, else its id.
    pub fn describe(&self, sym: Sym) -> SymName {
        match self.name(sym) {
            Some(n) => SymName::Named { sym, name: n.to_string() },
            None => match self.function_name(sym) {
                Some(f) => SymName::Function(f.to_string()),
                None => SymName::Id(sym),
            },
        }
    }
}
