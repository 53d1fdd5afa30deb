//! The rule DSL: vectorization rules (one per primitive, the "vectorization
//! rule templates" of source document 003, its figure 9;
//! `docs/references.md`) and optimisation rules (its figure 10), parsed and
//! checked once when a [`RuleSet`] is built and compiled into staged
//! functions kept in a table keyed by primitive.
//!
//! ```text
//! rule fadd(a, b) => fadd^(a, b)           ; a template
//! rule map(f, xs..) => flatten(f, xs..)    ; a strategy of the vectorizer
//! opt concat(partition(x, n)) => x         ; rewrite on construction
//! ```
//!
//! - A **template** `rule op(v1, ..., vn) => term` says how to build the
//!   vectorized value of an `op` node from its vectorized arguments
//!   `v1..vn`. In the term, `p^(...)` is primitive `p` lifted one level
//!   (depth `k + 1` for a node of depth `k`), `p(...)` without `^` is not
//!   allowed (a rule's output is batched), literals are constants.
//! - A **strategy** body names one of the vectorizer's higher-order
//!   rules (`flatten`, `call`, `branch`, `masked_branch`, `loop`,
//!   `project`) with exactly the head's variables; each strategy serves
//!   one primitive.
//! - An **optimisation rule** `opt pattern => term` matches the subgraph
//!   rooted at each node about to be built; in the pattern and the term,
//!   `p` is at the root's base depth `d` and `p^` at `d + 1`; repeated
//!   variables must bind the same symbol; masked nodes never match.
//!
//! Checks when built (each an error with line and column, never a
//! panic): unknown primitives, strategies and variables; a rule for a
//! primitive that takes none (`param`, `lambda`, `const`, `array`); two
//! rules for one primitive; wrong arities; a variadic tail where the
//! primitive has none, or none where it needs one; a strategy for the
//! wrong primitive or with other arguments than the head's; unbound or
//! repeated head variables; templates using unlifted primitives,
//! higher-order primitives or a conversion other than the head's;
//! literals that are not numbers. Typing happens when a rule is applied,
//! since templates are polymorphic: an instantiation that fails is a
//! [`StageError`] (`error.rs`), which the vectorizer reports as a
//! [`crate::VectorizeError`] naming the rule.
//!
//! Invariants: the parser is iterative (an explicit stack of open
//! applications), so nesting depth is bounded by memory, not by the Rust
//! stack; the table is dense over [`Prim::index`].

use crate::ops::{Prim, PrimKind};
use code::Instr;
use core::fmt;
use diagnostics::{Diagnostic, Span};
use parse::{Cursor, TermKind, Tok, err, lex};
use std::sync::Arc;

pub(crate) use code::Pat;
pub use error::StageError;
pub use strategy::Strategy;

mod code;
mod error;
mod parse;
mod strategy;

/// The text of the default rule set (`rules/default.rules`).
pub const DEFAULT_RULES: &str = include_str!("default.rules");

/// A value a staged function works on (an index into its stager's table).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Slot(pub u32);

/// What a staged function builds with: the vectorizer's node construction
/// (with optimisation rules applied to every node) behind an interface.
pub trait Stager {
    /// Variable `i` of the rule (a vectorized argument, or a match).
    fn var(&mut self, i: usize) -> Result<Slot, StageError>;
    /// A literal constant.
    fn literal(&mut self, text: &str) -> Result<Slot, StageError>;
    /// Primitive `prim` applied to `args`, lifted one level when `lift`;
    /// `root` is true for the term's outermost application.
    fn apply(&mut self, prim: Prim, lift: bool, args: &[Slot], root: bool) -> Result<Slot, StageError>;
}

/// A compiled term: a function that builds it through a [`Stager`].
pub type StagedFn = Arc<dyn Fn(&mut dyn Stager) -> Result<Slot, StageError> + Send + Sync>;

fn stage(code: Vec<Instr>) -> StagedFn {
    let code: Arc<[Instr]> = code.into();
    Arc::new(move |st: &mut dyn Stager| {
        let mut stack: smallvec::SmallVec<[Slot; 8]> = smallvec::SmallVec::new();
        let last = code.len().saturating_sub(1);
        for (pos, ins) in code.iter().enumerate() {
            match ins {
                Instr::Var(i) => stack.push(st.var(*i)?),
                Instr::Lit(t) => stack.push(st.literal(t)?),
                Instr::App { prim, lift, argc } => {
                    let at = stack.len().checked_sub(*argc).ok_or(StageError::MalformedTerm)?;
                    let slot = st.apply(*prim, *lift, &stack[at..], pos == last)?;
                    stack.truncate(at);
                    stack.push(slot);
                }
            }
        }
        stack.pop().ok_or(StageError::EmptyTerm)
    })
}

/// How a rule vectorizes its primitive.
#[derive(Clone)]
pub enum RuleBody {
    /// A template compiled into a staged function.
    Template(StagedFn),
    /// A higher-order strategy.
    Strategy(Strategy),
}

impl fmt::Debug for RuleBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleBody::Template(_) => f.write_str("Template(..)"),
            RuleBody::Strategy(s) => write!(f, "Strategy({})", s.name()),
        }
    }
}

/// A vectorization rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The primitive it vectorizes.
    pub prim: Prim,
    /// Its compiled body.
    pub body: RuleBody,
    /// The source line, for messages and listings.
    pub text: String,
}

/// An optimisation rule.
#[derive(Clone)]
pub struct OptRule {
    /// The primitive at the pattern's root.
    pub root: Prim,
    pub(crate) pats: Vec<Pat>,
    pub(crate) vars: usize,
    /// The compiled output term.
    pub output: StagedFn,
    /// The source line.
    pub text: String,
}

impl fmt::Debug for OptRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OptRule({})", self.text)
    }
}

impl OptRule {
    /// The pattern's root (the last node).
    pub(crate) fn root_pat(&self) -> usize {
        self.pats.len() - 1
    }
}

/// Vectorization rules keyed by primitive, and optimisation rules keyed by
/// their root primitive.
#[derive(Clone, Debug)]
pub struct RuleSet {
    rules: Vec<Option<Rule>>,
    opts: Vec<Vec<OptRule>>,
    nopts: usize,
}

impl Default for RuleSet {
    /// The default rules ([`DEFAULT_RULES`]).
    fn default() -> RuleSet {
        RuleSet::parse(DEFAULT_RULES).unwrap_or_else(|_| RuleSet::empty())
    }
}

impl RuleSet {
    /// No rules at all (every batched node is then an error).
    pub fn empty() -> RuleSet {
        let n = Prim::all().len();
        RuleSet { rules: vec![None; n], opts: vec![Vec::new(); n], nopts: 0 }
    }

    /// Parses and checks a rule file.
    pub fn parse(src: &str) -> Result<RuleSet, Vec<Diagnostic>> {
        let mut set = RuleSet::empty();
        let mut errors = Vec::new();
        let mut offset = 0;
        for line in src.split_inclusive('\n') {
            let text = line.trim_end_matches(['\n', '\r']);
            if let Err(d) = set.line(text, offset) {
                errors.push(d);
            }
            offset += line.len();
            if errors.len() >= crate::text::MAX_ERRORS {
                break;
            }
        }
        if errors.is_empty() { Ok(set) } else { Err(errors) }
    }

    /// The default rules without optimisation rules.
    pub fn default_without_opts() -> RuleSet {
        let mut set = RuleSet::default();
        set.clear_opts();
        set
    }

    /// Removes every optimisation rule.
    pub fn clear_opts(&mut self) {
        for v in &mut self.opts {
            v.clear();
        }
        self.nopts = 0;
    }

    /// The rule for `prim`.
    pub fn rule(&self, prim: Prim) -> Option<&Rule> {
        self.rules.get(prim.index()).and_then(Option::as_ref)
    }

    /// The optimisation rules whose pattern is rooted at `prim`.
    pub fn opts(&self, prim: Prim) -> &[OptRule] {
        self.opts.get(prim.index()).map_or(&[], Vec::as_slice)
    }

    /// Number of optimisation rules.
    pub fn num_opts(&self) -> usize {
        self.nopts
    }

    /// Every primitive that takes a rule ([`PrimKind::Ruled`]) and has
    /// none in this set.
    pub fn missing(&self) -> Vec<Prim> {
        Prim::all().iter().copied().filter(|p| p.kind() == PrimKind::Ruled && self.rule(*p).is_none()).collect()
    }

    /// Every rule, in primitive order.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().flatten()
    }

    fn line(&mut self, text: &str, offset: usize) -> Result<(), Diagnostic> {
        let toks = lex(text, offset)?;
        let mut p = Cursor { toks: &toks, pos: 0, end: Span::new(offset + text.len(), offset + text.len()) };
        match p.peek() {
            None => Ok(()),
            Some(Tok::Word("rule")) => {
                p.pos += 1;
                self.vector_rule(&mut p, text)
            }
            Some(Tok::Word("opt")) => {
                p.pos += 1;
                self.opt_rule(&mut p, text)
            }
            Some(_) => Err(err("expected `rule` or `opt`", p.span())),
        }
    }

    fn vector_rule(&mut self, p: &mut Cursor<'_, '_>, text: &str) -> Result<(), Diagnostic> {
        let (name, nspan) = p.word()?;
        let prim = Prim::from_name(name).ok_or_else(|| err(format!("unknown primitive `{name}`"), nspan))?;
        if prim.kind() != PrimKind::Ruled {
            return Err(err(format!("`{name}` takes no rule (it has no arguments, or is a non-terminal)"), nspan));
        }
        if self.rule(prim).is_some() {
            return Err(err(format!("a second rule for `{name}`"), nspan));
        }
        let (vars, variadic) = p.head_vars()?;
        let fixed = vars.len();
        match (prim.arity(), variadic.is_some()) {
            (Some(n), false) if n == fixed => {}
            (Some(n), _) => return Err(err(format!("`{name}` takes {n} argument(s): write {n} variables"), nspan)),
            (None, true) => {
                let need = match prim {
                    Prim::If => 3,
                    Prim::While => 2,
                    _ => 1,
                };
                if fixed != need {
                    return Err(err(format!("`{name}` needs {need} variable(s) before the `..` tail"), nspan));
                }
            }
            (None, false) => return Err(err(format!("`{name}` is variadic: end its variables with `rest..`"), nspan)),
        }
        p.arrow()?;
        let body_at = p.span();
        // A strategy?
        if let Some(Tok::Word(w)) = p.peek()
            && let Some((strategy, serves)) = Strategy::lookup(w)
        {
            p.pos += 1;
            if serves != prim {
                return Err(err(format!("the strategy `{w}` serves `{}`, not `{name}`", serves.name()), body_at));
            }
            let (svars, svariadic) = p.head_vars()?;
            if svars != vars || svariadic != variadic {
                return Err(err(format!("`{w}` must take exactly the head's variables, in order"), body_at));
            }
            p.done()?;
            self.rules[prim.index()] =
                Some(Rule { prim, body: RuleBody::Strategy(strategy), text: text.trim().to_string() });
            return Ok(());
        }
        if variadic.is_some() {
            return Err(err(format!("`{name}` is variadic: its rule must be a strategy"), body_at));
        }
        let code = p.term(&vars, TermKind::Template(prim))?;
        p.done()?;
        self.rules[prim.index()] =
            Some(Rule { prim, body: RuleBody::Template(stage(code)), text: text.trim().to_string() });
        Ok(())
    }

    fn opt_rule(&mut self, p: &mut Cursor<'_, '_>, text: &str) -> Result<(), Diagnostic> {
        let (pats, vars) = p.pattern()?;
        p.arrow()?;
        let code = p.term(&vars, TermKind::Opt)?;
        p.done()?;
        let root = match pats.last() {
            Some(Pat::App { prim, .. }) => *prim,
            _ => return Err(err("a pattern must be an application", p.end)),
        };
        self.opts[root.index()].push(OptRule {
            root,
            pats,
            vars: vars.len(),
            output: stage(code),
            text: text.trim().to_string(),
        });
        self.nopts += 1;
        Ok(())
    }
}
