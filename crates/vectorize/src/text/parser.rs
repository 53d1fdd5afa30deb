//! The parser: text to [`Graph`], with a [`SourceMap`] for diagnostics.
//!
//! Invariants: it never panics and never recurses on the input's
//! structure (open lambdas are an explicit stack, nested types and array
//! literals are read with counters and a stack of builders); it stops after
//! [`MAX_ERRORS`] errors, reporting only the first error of a line and
//! going on at the next line. Names are resolved per lambda after its `}`,
//! so a body may use a symbol before the line defining it (order is only
//! the dependence order). An error is reported once: a name whose defining
//! line was rejected is recorded as such, and a reference to it is not
//! reported again as undefined (nor a body whose `ret` line was rejected
//! as having none). The parser checks syntax, names, literals and
//! the declared result types of lambdas; typing is the verifier's job
//! ([`crate::verify`]), which points into the source through the map.

use super::lexer::{Tok, lex};
use crate::graph::{Arg, Graph, NewNode, Sym, valid_name};
use crate::ops::{Op, Prim};
use crate::scalar::{FloatCC, Imm, IntCC, ScalarTy};
use crate::types::{NodeTy, ValTy};
use crate::value::{ArrayBuilder, Value};
use diagnostics::{Diagnostic, Span};
use rustc_hash::{FxHashMap, FxHashSet};

/// Errors reported before the parser gives up.
pub const MAX_ERRORS: usize = 20;

/// Where each symbol came from.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    spans: Vec<Span>,
}

impl SourceMap {
    /// The span of the line (or header) defining `sym`.
    pub fn span(&self, sym: Sym) -> Option<Span> {
        self.spans.get(sym.index()).copied().filter(|s| s.end > s.start)
    }

    fn set(&mut self, sym: Sym, span: Span) {
        if self.spans.len() <= sym.index() {
            self.spans.resize(sym.index() + 1, Span::default());
        }
        self.spans[sym.index()] = span;
    }
}

/// A reference by name waiting for its scope to close.
struct Pending<'s> {
    node: Sym,
    /// Argument index, or `None` for the mask.
    slot: Option<usize>,
    name: &'s str,
    span: Span,
}

/// An open lambda.
struct Scope<'s> {
    /// The lambda, or `None` after a header that did not parse (its lines
    /// are skipped up to the matching `}`).
    lam: Option<Sym>,
    names: FxHashMap<&'s str, Sym>,
    /// Names whose defining line was rejected (already reported): a
    /// reference to one is not reported again as undefined.
    rejected: FxHashSet<&'s str>,
    /// True when a `ret` line was rejected: the body's missing `ret` and
    /// its result types are not reported again.
    ret_rejected: bool,
    pending: Vec<Pending<'s>>,
    results: Option<(Vec<(&'s str, Span)>, Span)>,
    declared: Vec<ValTy>,
    header: Span,
}

impl Scope<'_> {
    /// The body of a header that did not parse: its lines are skipped.
    fn skipped(header: Span) -> Self {
        Scope {
            lam: None,
            names: FxHashMap::default(),
            rejected: FxHashSet::default(),
            ret_rejected: false,
            pending: Vec::new(),
            results: None,
            declared: Vec::new(),
            header,
        }
    }
}

struct Parser<'s> {
    src: &'s str,
    toks: Vec<(Tok<'s>, Span)>,
    graph: Graph,
    map: SourceMap,
    errors: Vec<Diagnostic>,
    scopes: Vec<Scope<'s>>,
}

/// A header's params (name, span, type) and result types.
type Signature<'s> = (Vec<(&'s str, Span, ValTy)>, Vec<ValTy>);

/// The tokens of one line, with a cursor.
struct Line<'a, 's> {
    toks: &'a [(Tok<'s>, Span)],
    pos: usize,
    end_span: Span,
}

type R<T> = Result<T, Diagnostic>;

fn diag(message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic { message: message.into(), span }
}

impl<'a, 's> Line<'a, 's> {
    fn peek(&self) -> Option<&'a Tok<'s>> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn span(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end_span, |&(_, s)| s)
    }

    fn next(&mut self) -> Option<(&'a Tok<'s>, Span)> {
        let t = self.toks.get(self.pos).map(|(t, s)| (t, *s));
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> R<Span> {
        let span = self.span();
        if self.eat(c) { Ok(span) } else { Err(diag(format!("expected `{c}`"), span)) }
    }

    fn var(&mut self) -> R<(&'s str, Span)> {
        match self.next() {
            Some((Tok::Var(n), s)) if !n.is_empty() => Ok((n, s)),
            Some((_, s)) => Err(diag("expected a `%name`", s)),
            None => Err(diag("expected a `%name`", self.end_span)),
        }
    }

    fn word(&mut self) -> R<(&'s str, Span)> {
        match self.next() {
            Some((Tok::Word(w), s)) => Ok((w, s)),
            Some((_, s)) => Err(diag("expected a word", s)),
            None => Err(diag("expected a word", self.end_span)),
        }
    }

    fn done(&self) -> R<()> {
        if self.at_end() { Ok(()) } else { Err(diag("unexpected text at the end of the line", self.span())) }
    }

    /// `i32`, `array<array<f32>>`: counted, not recursive.
    fn ty(&mut self) -> R<ValTy> {
        let mut depth = 0u32;
        loop {
            let (w, s) = self.word()?;
            if w == "array" {
                self.expect('<')?;
                depth = depth.checked_add(1).ok_or_else(|| diag("type nested too deeply", s))?;
                continue;
            }
            let Some(scalar) = ScalarTy::from_name(w) else {
                return Err(diag(format!("unknown type `{w}`"), s));
            };
            for _ in 0..depth {
                self.expect('>')?;
            }
            return Ok(ValTy::array(scalar, depth));
        }
    }

    /// A value type, or a tuple type `(T, U)`.
    fn node_ty(&mut self) -> R<NodeTy> {
        if self.eat('(') {
            let mut ts = Vec::new();
            if !self.eat(')') {
                loop {
                    ts.push(self.ty()?);
                    if self.eat(')') {
                        break;
                    }
                    self.expect(',')?;
                }
            }
            return Ok(NodeTy::Tuple(ts));
        }
        Ok(NodeTy::Val(self.ty()?))
    }

    /// `(%x: T, ...) [-> T, ...]`.
    fn signature(&mut self) -> R<Signature<'s>> {
        self.expect('(')?;
        let mut params = Vec::new();
        if !self.eat(')') {
            loop {
                let (n, s) = self.var()?;
                self.expect(':')?;
                params.push((n, s, self.ty()?));
                if self.eat(')') {
                    break;
                }
                self.expect(',')?;
            }
        }
        let mut results = Vec::new();
        if self.peek() == Some(&Tok::Arrow) {
            self.pos += 1;
            loop {
                results.push(self.ty()?);
                if !self.eat(',') {
                    break;
                }
            }
        }
        Ok((params, results))
    }

    /// A literal token's text (`inf` and `nan` are words).
    fn literal(&mut self) -> R<(&'s str, Span)> {
        match self.next() {
            Some((Tok::Lit(t), s)) => Ok((t, s)),
            Some((Tok::Word(w), s)) if *w == "inf" || *w == "nan" || w.starts_with("nan:") => Ok((w, s)),
            Some((_, s)) => Err(diag("expected a literal", s)),
            None => Err(diag("expected a literal", self.end_span)),
        }
    }

    /// A nested array literal of type `ty`, iteratively.
    fn array_literal(&mut self, ty: ValTy) -> R<Value> {
        if ty.depth == 0 {
            return Err(diag("`array` needs an array type", self.span()));
        }
        let open = self.expect('[')?;
        // stack[i]: items of level i + 1 being collected.
        let mut stack = vec![ArrayBuilder::new(ValTy::array(ty.scalar, ty.depth - 1))];
        let mut expect_item = true;
        loop {
            let level = stack.len() as u32;
            if self.eat(']') {
                let done = stack.pop().map(ArrayBuilder::finish);
                let Some(done) = done else { return Err(diag("unbalanced `]`", open)) };
                match stack.last_mut() {
                    Some(parent) => {
                        parent.push(&Value::from(done));
                        expect_item = false;
                    }
                    None => return Ok(Value::from(done)),
                }
            } else if !expect_item {
                self.expect(',')?;
                expect_item = true;
            } else if level < ty.depth {
                let s = self.span();
                if !self.eat('[') {
                    return Err(diag(format!("expected `[`: the literal is {ty}"), s));
                }
                stack.push(ArrayBuilder::new(ValTy::array(ty.scalar, ty.depth - level - 1)));
            } else {
                let (t, s) = self.literal()?;
                let imm = Imm::parse(t, ty.scalar).map_err(|e| diag(e.to_string(), s))?;
                if let Some(b) = stack.last_mut() {
                    b.push_scalar(imm);
                }
                expect_item = false;
            }
        }
    }
}

/// An operation word: the primitive, its depth (`.k`) and `get`'s index.
fn op_word(w: &str) -> Result<(Prim, u32, u32), String> {
    let mut parts = w.split('.');
    let base = parts.next().unwrap_or("");
    let prim = match base {
        "setp" => {
            let cc = parts.next().ok_or("`setp` needs a condition (`setp.slt`)")?;
            Prim::Setp(IntCC::from_name(cc).ok_or_else(|| format!("unknown integer condition `{cc}`"))?)
        }
        "fsetp" => {
            let cc = parts.next().ok_or("`fsetp` needs a condition (`fsetp.lt`)")?;
            Prim::Fsetp(FloatCC::from_name(cc).ok_or_else(|| format!("unknown float condition `{cc}`"))?)
        }
        "param" | "lambda" => return Err(format!("`{base}` is not written as an operation")),
        _ => Prim::from_name(base).ok_or_else(|| format!("unknown operation `{base}`"))?,
    };
    let mut depth = 0;
    let mut index = 0;
    if let Some(n) = parts.next() {
        let v: u32 = n.parse().map_err(|_| format!("`{n}` in `{w}` is not a number"))?;
        if prim == Prim::Get {
            index = v;
        } else if prim.liftable() {
            depth = v;
        } else {
            return Err(format!("`{}` takes no `.{n}`", prim.name()));
        }
    } else if prim == Prim::Get {
        return Err("`get` needs an index (`get.0`)".into());
    }
    if let Some(extra) = parts.next() {
        return Err(format!("unexpected `.{extra}` in `{w}`"));
    }
    Ok((prim, depth, index))
}

impl<'s> Parser<'s> {
    fn error(&mut self, d: Diagnostic) {
        self.errors.push(d);
    }

    fn run(&mut self) {
        let toks = std::mem::take(&mut self.toks);
        let mut start = 0;
        while start < toks.len() && self.errors.len() < MAX_ERRORS {
            let end = toks[start..].iter().position(|(t, _)| *t == Tok::Newline).map_or(toks.len(), |p| start + p);
            if end > start {
                let end_span = Span::new(toks[end - 1].1.end as usize, toks[end - 1].1.end as usize);
                let mut line = Line { toks: &toks[start..end], pos: 0, end_span };
                let bad = line.toks.iter().find_map(|(t, s)| match t {
                    Tok::Error(c) => Some(diag(format!("unexpected character `{}`", c.escape_debug()), *s)),
                    _ => None,
                });
                let open = self.scopes.len();
                let result = match bad {
                    Some(d) => Err(d),
                    None => self.line(&mut line),
                };
                if let Err(d) = result {
                    self.error(d);
                    self.note_rejected(line.toks, open);
                    // A header that failed still opens a body if the line ends in `{`.
                    if line.toks.last().map(|(t, _)| t) == Some(&Tok::Punct('{')) && self.opened_by_error(&line) {
                        let header = line.toks[0].1.to(end_span);
                        self.scopes.push(Scope::skipped(header));
                    }
                }
            }
            start = end + 1;
        }
        if self.errors.len() < MAX_ERRORS {
            let end = Span::new(self.src.len(), self.src.len());
            while let Some(scope) = self.scopes.pop() {
                self.error(diag(
                    "this body is never closed with `}`",
                    if scope.header.end > scope.header.start { scope.header } else { end },
                ));
            }
        }
        self.toks = toks;
    }

    /// After a rejected line in the body that was innermost before it
    /// (`open` scopes were open): the name it defines, or its `ret`, is
    /// recorded so that the body's `}` does not report it again.
    fn note_rejected(&mut self, toks: &[(Tok<'s>, Span)], open: usize) {
        let Some(scope) = open.checked_sub(1).and_then(|i| self.scopes.get_mut(i)) else { return };
        if scope.lam.is_none() {
            return;
        }
        let name = match toks {
            [(Tok::Word("ret"), _), ..] => {
                scope.ret_rejected = true;
                return;
            }
            [(Tok::Mask(_), _), (Tok::Var(n), _), ..] | [(Tok::Var(n), _), ..] => *n,
            _ => return,
        };
        // A name the body defines already (a second definition rejected)
        // stays resolved; only a name left undefined is marked.
        if !scope.names.contains_key(name) {
            scope.rejected.insert(name);
        }
    }

    /// True when a failed line had not yet pushed its scope.
    fn opened_by_error(&self, line: &Line<'_, 's>) -> bool {
        self.scopes.last().is_none_or(|s| s.header != line.toks[0].1.to(line.end_span))
    }

    fn line(&mut self, line: &mut Line<'_, 's>) -> R<()> {
        let whole = line.toks[0].1.to(line.end_span);
        if self.scopes.last().is_some_and(|s| s.lam.is_none()) {
            // Inside a body whose header failed: track braces only.
            if line.toks.last().map(|(t, _)| t) == Some(&Tok::Punct('{')) {
                self.scopes.push(Scope::skipped(whole));
            } else if line.toks.len() == 1 && line.toks[0].0 == Tok::Punct('}') {
                self.scopes.pop();
            }
            return Ok(());
        }
        match line.peek() {
            Some(Tok::Word("func")) => {
                if !self.scopes.is_empty() {
                    return Err(diag("`func` inside a body (missing `}`?)", line.span()));
                }
                line.next();
                self.function(line, whole)
            }
            Some(Tok::Punct('}')) => {
                line.next();
                line.done()?;
                self.close(line.toks[0].1)
            }
            _ if self.scopes.is_empty() => Err(diag("expected `func`", line.span())),
            Some(Tok::Word("ret")) => {
                line.next();
                let mut names = Vec::new();
                if !line.at_end() {
                    loop {
                        names.push(line.var()?);
                        if line.at_end() {
                            break;
                        }
                        line.expect(',')?;
                    }
                }
                let scope = self.scopes.last_mut().expect("a scope is open");
                if scope.results.is_some() {
                    return Err(diag("a second `ret` in this body", whole));
                }
                scope.results = Some((names, whole));
                Ok(())
            }
            _ => self.definition(line, whole),
        }
    }

    fn function(&mut self, line: &mut Line<'_, 's>, whole: Span) -> R<()> {
        let (name, nspan) = match line.next() {
            Some((Tok::Global(n), s)) => (*n, s),
            Some((_, s)) => return Err(diag("expected `@name`", s)),
            None => return Err(diag("expected `@name`", line.end_span)),
        };
        let (params, results) = line.signature()?;
        line.expect('{')?;
        line.done()?;
        let tys: Vec<ValTy> = params.iter().map(|p| p.2).collect();
        let f = self.graph.add_function(name, &tys).map_err(|e| diag(e.to_string(), nspan))?;
        self.map.set(f, whole);
        self.open(f, &params, results, whole)
    }

    fn open(&mut self, lam: Sym, params: &[(&'s str, Span, ValTy)], declared: Vec<ValTy>, header: Span) -> R<()> {
        let syms = self.graph.lambda(lam).map_or_else(Vec::new, |l| l.params.clone());
        let mut scope = Scope {
            lam: Some(lam),
            names: FxHashMap::default(),
            rejected: FxHashSet::default(),
            ret_rejected: false,
            pending: Vec::new(),
            results: None,
            declared,
            header,
        };
        let mut dup = None;
        for (&(n, s, _), &p) in params.iter().zip(&syms) {
            self.map.set(p, s);
            if valid_name(n) {
                let _ = self.graph.set_name(p, n);
            }
            if scope.names.insert(n, p).is_some() && dup.is_none() {
                dup = Some(diag(format!("`%{n}` is defined twice"), s));
            }
        }
        self.scopes.push(scope);
        match dup {
            Some(d) => Err(d),
            None => Ok(()),
        }
    }

    fn close(&mut self, brace: Span) -> R<()> {
        let Some(scope) = self.scopes.pop() else { return Err(diag("`}` with no open body", brace)) };
        let Some(lam) = scope.lam else { return Ok(()) };
        let mut first_error = None;
        for p in &scope.pending {
            match scope.names.get(p.name) {
                Some(&s) => match p.slot {
                    Some(i) => self.graph.set_arg(p.node, i, s),
                    None => self.graph.set_mask(p.node, Some(s)),
                },
                None if scope.rejected.contains(p.name) => {}
                None => {
                    let d = diag(format!("`%{}` is not defined in this lambda", p.name), p.span);
                    if first_error.is_none() {
                        first_error = Some(d);
                    } else if self.errors.len() < MAX_ERRORS {
                        self.errors.push(d);
                    }
                }
            }
        }
        match scope.results {
            None if scope.ret_rejected => {}
            None => {
                first_error.get_or_insert(diag("this body has no `ret`", scope.header));
            }
            Some((names, span)) => {
                let mut syms = Vec::new();
                let mut unresolved = false;
                for (n, s) in names {
                    match scope.names.get(n) {
                        Some(&x) => syms.push(x),
                        None if scope.rejected.contains(n) => unresolved = true,
                        None => {
                            first_error.get_or_insert(diag(format!("`%{n}` is not defined in this lambda"), s));
                        }
                    }
                }
                self.graph.set_results(lam, &syms);
                let got: Vec<Option<ValTy>> = syms.iter().map(|&s| self.graph.val_ty(s)).collect();
                let want: Vec<Option<ValTy>> = scope.declared.iter().map(|&t| Some(t)).collect();
                if first_error.is_none() && !unresolved && got != want {
                    let show = |v: &[Option<ValTy>]| {
                        v.iter().map(|t| t.map_or("?".to_string(), |t| t.to_string())).collect::<Vec<_>>().join(", ")
                    };
                    first_error = Some(diag(
                        format!("`ret` returns ({}) but the header declares ({})", show(&got), show(&want)),
                        span,
                    ));
                }
            }
        }
        match first_error {
            Some(d) => Err(d),
            None => Ok(()),
        }
    }

    fn define(&mut self, name: &'s str, span: Span, sym: Sym) -> R<()> {
        if valid_name(name) {
            let _ = self.graph.set_name(sym, name);
        }
        let scope = self.scopes.last_mut().expect("a scope is open");
        if scope.names.insert(name, sym).is_some() {
            return Err(diag(format!("`%{name}` is defined twice"), span));
        }
        Ok(())
    }

    fn definition(&mut self, line: &mut Line<'_, 's>, whole: Span) -> R<()> {
        let scope_lam = self.scopes.last().and_then(|s| s.lam).expect("a scope is open");
        let mask = match line.peek() {
            Some(Tok::Mask(m)) => {
                let s = line.span();
                line.next();
                Some((*m, s))
            }
            _ => None,
        };
        let (name, nspan) = line.var()?;
        if line.eat('=') {
            // `%l = lambda (...) -> ... {`
            let (w, ws) = line.word()?;
            if w != "lambda" {
                return Err(diag("expected `: type` (only `lambda` has no type)", ws));
            }
            if mask.is_some() {
                return Err(diag("a lambda cannot carry a mask", ws));
            }
            let (params, results) = line.signature()?;
            line.expect('{')?;
            line.done()?;
            let tys: Vec<ValTy> = params.iter().map(|p| p.2).collect();
            let l = self.graph.add_lambda(scope_lam, &tys);
            self.map.set(l, whole);
            self.define(name, nspan, l)?;
            return self.open(l, &params, results, whole);
        }
        line.expect(':')?;
        let ty = line.node_ty()?;
        line.expect('=')?;
        let (w, ws) = line.word()?;
        let (prim, depth, index) = op_word(w).map_err(|m| diag(m, ws))?;
        let scalar_of = |ty: &NodeTy| ty.val().map(|t| t.scalar);
        let mut args: Vec<(bool, &'s str, Span)> = Vec::new();
        let op = match prim {
            Prim::Const => {
                let (t, s) = line.literal()?;
                let Some(v) = ty.val().filter(|t| t.depth == 0) else {
                    return Err(diag("`const` needs a scalar type", ws));
                };
                Op::Const(Imm::parse(t, v.scalar).map_err(|e| diag(e.to_string(), s))?)
            }
            Prim::Array => {
                let Some(v) = ty.val() else { return Err(diag("`array` needs an array type", ws)) };
                let value = line.array_literal(v)?;
                Op::Array(self.graph.add_array_const(value))
            }
            Prim::Get => Op::Get(index),
            _ => prim.op().ok_or_else(|| diag(format!("`{w}` cannot be written here"), ws))?,
        };
        if !matches!(prim, Prim::Const | Prim::Array) && !line.at_end() {
            loop {
                let star = line.eat('*');
                let (n, s) = line.var()?;
                args.push((star, n, s));
                if line.at_end() {
                    break;
                }
                line.expect(',')?;
            }
        }
        line.done()?;
        if let (Op::Convert(_), None) = (op, scalar_of(&ty)) {
            return Err(diag("a conversion needs a value type", ws));
        }
        // Arguments are placeholders until the body closes.
        let placeholders: Vec<Arg> =
            args.iter().map(|&(star, _, _)| Arg { sym: Sym::from_index(0), bcast: star }).collect();
        let node = self.graph.add_node(scope_lam, NewNode { op, ty, depth, args: &placeholders, mask: None });
        self.map.set(node, whole);
        let scope = self.scopes.last_mut().expect("a scope is open");
        for (i, &(_, n, s)) in args.iter().enumerate() {
            scope.pending.push(Pending { node, slot: Some(i), name: n, span: s });
        }
        if let Some((m, s)) = mask {
            scope.pending.push(Pending { node, slot: None, name: m, span: s });
        }
        self.define(name, nspan, node)
    }
}

/// Parses a graph. On error, the diagnostics in source order (render them
/// with [`Diagnostic::render`]).
pub fn parse(src: &str) -> Result<(Graph, SourceMap), Vec<Diagnostic>> {
    let mut p = Parser {
        src,
        toks: lex(src),
        graph: Graph::new(),
        map: SourceMap::default(),
        errors: Vec::new(),
        scopes: Vec::new(),
    };
    p.run();
    if p.errors.is_empty() {
        Ok((p.graph, p.map))
    } else {
        p.errors.sort_by_key(|d| d.span.start);
        p.errors.dedup_by_key(|d| d.span.start);
        Err(p.errors)
    }
}
