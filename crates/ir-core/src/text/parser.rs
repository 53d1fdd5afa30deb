//! The parser: text to [`Module`], with collected diagnostics.
//!
//! Two passes, both flat loops over lines (no recursion on input structure):
//! 1. declarations: `mem`, `extern` and `func` headers, skipping bodies (a
//!    body cannot contain `}`), so calls may name functions defined later;
//! 2. bodies: var declarations, labels and instructions, built through
//!    [`FunctionBuilder`] so text and builder make identical functions.
//!
//! Recovery: an error abandons the rest of its line and parsing resumes on
//! the next one, so one run reports many errors (up to
//! [`ParseLimits::max_errors`]); only the first error of a line is kept.

use super::context::{Shape, literal_type};
use super::lexer::{LexError, Lexer, Tok};
use super::span::SourceMap;
use crate::builder::{Desc, FunctionBuilder, TensorArg};
use crate::entities::{Block, FuncId, Mem, Var};
use crate::function::Signature;
use crate::imm::{Imm, parse_int, parse_literal};
use crate::instructions::{Arg, Callee, Guard};
use crate::instructions::{Extra, JumpTableData};
use crate::module::{Global, MAX_MEM_LEN, Module};
use crate::opcode::{FloatCC, Format, IntCC, Opcode};
use crate::types::{MemSpace, Type};
use cranelift_entity::EntityRef;
use cranelift_entity::SecondaryMap;
use diagnostics::{Diagnostic, Span};
use std::borrow::Cow;

/// Resource limits of the parser.
#[derive(Clone, Debug)]
pub struct ParseLimits {
    /// Stop after this many errors.
    pub max_errors: usize,
    /// Most blocks the module may allocate, counting the unused numbers
    /// below each function's highest label (block numbers are preserved).
    /// `None` means `max(65536, input length in bytes)`, which keeps memory
    /// proportional to the input.
    pub block_budget: Option<usize>,
}

impl Default for ParseLimits {
    fn default() -> ParseLimits {
        ParseLimits { max_errors: 20, block_budget: None }
    }
}

type Diags = Vec<Diagnostic>;

/// Parses a module.
pub fn parse(src: &str) -> Result<(Module, SourceMap), Diags> {
    parse_with(src, &ParseLimits::default())
}

/// Parses a module from bytes, reporting non-UTF-8 input as an error at the
/// first invalid byte.
pub fn parse_bytes(bytes: &[u8]) -> Result<(Module, SourceMap), Diags> {
    match core::str::from_utf8(bytes) {
        Ok(src) => parse(src),
        Err(e) => {
            let at = e.valid_up_to();
            Err(vec![Diagnostic::new(
                format!("the input is not UTF-8 text (invalid byte 0x{:02x})", bytes[at]),
                Span::new(at, at + 1),
            )])
        }
    }
}

/// Parses a module with explicit limits.
pub fn parse_with(src: &str, limits: &ParseLimits) -> Result<(Module, SourceMap), Diags> {
    if u32::try_from(src.len()).is_err() {
        return Err(vec![Diagnostic::new("the input is larger than 4 GiB", Span::new(0, 0))]);
    }
    let budget = limits.block_budget.unwrap_or(src.len().max(65536));
    let mut p = Parser {
        src,
        lx: Lexer::new(src, 0),
        tok: Tok::Newline,
        span: Span::default(),
        last_end: 0,
        diags: Vec::new(),
        max_errors: limits.max_errors.max(1),
        line_failed: false,
        module: Module::new(),
        smap: SourceMap::default(),
        blocks_left: budget,
    };
    p.bump();
    let bodies = p.declarations();
    for body in bodies {
        if p.full() {
            break;
        }
        p.body(body);
    }
    if p.diags.is_empty() {
        p.smap.lines = diagnostics::LineIndex::new(src);
        return Ok((p.module, p.smap));
    }
    // Pass 1 reports declarations before pass 2 reports bodies; users read
    // files top to bottom.
    p.diags.sort_by_key(|d| d.span.start);
    Err(p.diags)
}

/// Marker: an error was recorded; recover at the next line.
struct Stop;
type PResult<T> = Result<T, Stop>;

struct Body {
    func: FuncId,
    start: usize,
}

/// A scalar operand before its literal type is known.
enum Raw<'a> {
    Var(Var),
    Lit { text: &'a str, ty: Option<Type>, span: Span },
}

/// A tensor operand before resolution.
enum RawSlot<'a> {
    Desc { mem: Mem, offset: Raw<'a>, size: Raw<'a> },
    Scalar(Raw<'a>),
}

struct Parser<'a> {
    src: &'a str,
    lx: Lexer<'a>,
    tok: Tok<'a>,
    span: Span,
    /// End of the last consumed token.
    last_end: u32,
    diags: Diags,
    max_errors: usize,
    line_failed: bool,
    module: Module,
    smap: SourceMap,
    blocks_left: usize,
}

impl<'a> Parser<'a> {
    // ---- token plumbing ----------------------------------------------------------

    fn full(&self) -> bool {
        self.diags.len() >= self.max_errors
    }

    fn error(&mut self, message: impl Into<String>, span: Span) -> Stop {
        if !self.line_failed && !self.full() {
            self.diags.push(Diagnostic::new(message, span));
        }
        self.line_failed = true;
        Stop
    }

    fn lex_error(&mut self, e: LexError) {
        self.error(e.message, e.span);
    }

    /// Advances. A lexical error is recorded (as the line's error, if it is
    /// the first) and lexing resumes right after the bad token, so a bad
    /// character in a header does not hide the `{` that follows it.
    fn bump(&mut self) {
        self.last_end = self.span.end;
        loop {
            match self.lx.next_token() {
                Ok((tok, span)) => {
                    self.tok = tok;
                    self.span = span;
                    return;
                }
                Err(e) => self.lex_error(e),
            }
        }
    }

    /// Byte offset of the start of the line holding `offset`.
    fn line_start(&self, offset: usize) -> usize {
        self.src[..offset.min(self.src.len())].rfind('\n').map_or(0, |p| p + 1)
    }

    fn peek(&self) -> Tok<'a> {
        self.lx.clone().next_token().map(|(t, _)| t).unwrap_or(Tok::Eof)
    }

    fn eat(&mut self, tok: &Tok<'_>) -> bool {
        if &self.tok == tok {
            self.bump();
            true
        } else {
            false
        }
    }

    fn unexpected(&mut self, what: &str) -> Stop {
        let found = self.tok.describe();
        self.error(format!("expected {what}, found {found}"), self.span)
    }

    fn expect(&mut self, tok: &Tok<'_>, what: &str) -> PResult<()> {
        if self.eat(tok) { Ok(()) } else { Err(self.unexpected(what)) }
    }

    fn skip_newlines(&mut self) {
        while self.tok == Tok::Newline {
            self.line_failed = false;
            self.bump();
        }
    }

    /// Skips to the start of the next line.
    fn recover(&mut self) {
        while !matches!(self.tok, Tok::Newline | Tok::Eof) {
            self.bump();
        }
        self.line_failed = false;
    }

    /// Requires the end of the line (or of the input).
    fn end_line(&mut self) -> PResult<()> {
        match self.tok {
            Tok::Newline | Tok::Eof => Ok(()),
            _ => Err(self.unexpected("end of line")),
        }
    }

    fn ident(&mut self, what: &str) -> PResult<(&'a str, Span)> {
        match self.tok {
            Tok::Ident(s) => {
                let span = self.span;
                self.bump();
                Ok((s, span))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn global_name(&mut self) -> PResult<(Cow<'a, str>, Span)> {
        match &self.tok {
            Tok::Global(n) => {
                let (n, span) = (n.clone(), self.span);
                self.bump();
                Ok((n, span))
            }
            _ => Err(self.unexpected("a global name (`@name`)")),
        }
    }

    fn ty(&mut self) -> PResult<Type> {
        let (name, span) = self.ident("a type")?;
        Type::from_name(name).ok_or_else(|| self.error(format!("unknown type `{name}`"), span))
    }

    fn type_list(&mut self) -> PResult<Vec<Type>> {
        let mut out = vec![self.ty()?];
        while self.eat(&Tok::Comma) {
            out.push(self.ty()?);
        }
        Ok(out)
    }

    // ---- pass 1: declarations -------------------------------------------------------

    fn declarations(&mut self) -> Vec<Body> {
        let mut bodies = Vec::new();
        loop {
            self.skip_newlines();
            if self.tok == Tok::Eof || self.full() {
                return bodies;
            }
            let r = match self.tok {
                Tok::Ident("mem") => self.mem_decl(),
                Tok::Ident("extern") => self.extern_decl(),
                Tok::Ident("func") => self.func_decl(&mut bodies),
                _ => Err(self.unexpected("`func`, `extern` or `mem`")),
            };
            if r.is_err() {
                self.recover();
            }
        }
    }

    fn declare(&mut self, name: &str, span: Span) -> PResult<()> {
        if self.module.lookup(name).is_some() {
            let mut shown = String::new();
            let _ = super::lexer::write_name(&mut shown, '@', name);
            return Err(self.error(format!("`{shown}` is already defined"), span));
        }
        Ok(())
    }

    fn mem_decl(&mut self) -> PResult<()> {
        self.bump();
        let (name, name_span) = self.global_name()?;
        self.expect(&Tok::Colon, "`:`")?;
        let elem = self.ty()?;
        self.expect(&Tok::LBracket, "`[`")?;
        let len = match self.tok {
            Tok::Int(text) => {
                let span = self.span;
                self.bump();
                parse_int(text, Type::I64)
                    .ok()
                    .filter(|_| !text.starts_with('-'))
                    .map(|i| i.as_u64())
                    .filter(|&n| n <= MAX_MEM_LEN)
                    .ok_or_else(|| {
                        self.error(format!("memory length must be between 0 and 2^40, not `{text}`"), span)
                    })?
            }
            _ => return Err(self.unexpected("a memory length")),
        };
        self.expect(&Tok::RBracket, "`]`")?;
        let (space_name, space_span) = self.ident("a memory space (dram, sram, nram, wram)")?;
        let space = MemSpace::from_name(space_name)
            .ok_or_else(|| self.error(format!("unknown memory space `{space_name}`"), space_span))?;
        let mut init = Vec::new();
        if self.eat(&Tok::Equals) {
            self.expect(&Tok::LBracket, "`[`")?;
            if self.tok != Tok::RBracket {
                loop {
                    // A typed literal is accepted so that ill-typed initial
                    // values (which the verifier rejects) still round-trip.
                    let ty = match self.tok {
                        Tok::Ident(name) => {
                            let t = Type::from_name(name);
                            let span = self.span;
                            self.bump();
                            Some(t.ok_or_else(|| self.error(format!("unknown type `{name}`"), span))?)
                        }
                        _ => None,
                    };
                    let (text, span) = self.literal_text()?;
                    if init.len() as u64 >= len {
                        return Err(self.error(format!("more initial values than the {len} elements"), span));
                    }
                    init.push(self.literal(text, ty.unwrap_or(elem), span)?);
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(&Tok::RBracket, "`]`")?;
        }
        self.end_line()?;
        self.declare(&name, name_span)?;
        let mem = self.module.add_mem(&name, elem, len, space).map_err(|e| self.error(e.to_string(), name_span))?;
        self.module.set_mem_init(mem, init);
        self.smap.mems[mem] = name_span;
        Ok(())
    }

    fn extern_decl(&mut self) -> PResult<()> {
        self.bump();
        let (name, name_span) = self.global_name()?;
        self.expect(&Tok::LParen, "`(`")?;
        let params = if self.tok == Tok::RParen { Vec::new() } else { self.type_list()? };
        self.expect(&Tok::RParen, "`)`")?;
        let returns = if self.eat(&Tok::Arrow) { self.type_list()? } else { Vec::new() };
        self.end_line()?;
        self.declare(&name, name_span)?;
        let ext = self
            .module
            .add_extern(&name, Signature { params, returns })
            .map_err(|e| self.error(e.to_string(), name_span))?;
        self.smap.externs[ext] = name_span;
        Ok(())
    }

    fn func_decl(&mut self, bodies: &mut Vec<Body>) -> PResult<()> {
        let header_start = self.span;
        self.bump();
        let header = self.func_header();
        // Whatever happened in the header, find the body so pass 1 can go on.
        while !matches!(self.tok, Tok::LBrace | Tok::Newline | Tok::Eof) {
            self.bump();
        }
        let brace = self.span;
        if self.tok != Tok::LBrace {
            return Err(self.unexpected("`{` to open the function body"));
        }
        let body_start = self.lx.pos();
        // Skip the body: it cannot contain `}`. Lexical errors are reported
        // by pass 2, so a raw lexer is used here.
        let mut raw = self.lx.clone();
        let close = loop {
            match raw.next_token() {
                Ok((Tok::RBrace, span)) => break Some(span),
                Ok((Tok::Eof, _)) => break None,
                Ok(_) => {}
                Err(_) => raw.skip_line(),
            }
        };
        let Some(close) = close else {
            self.lx = raw;
            self.bump();
            return Err(self.error("unclosed function body: expected `}`", brace));
        };
        self.lx = Lexer::new(self.src, close.end as usize);
        self.bump();
        let (func, header_span) = match header {
            Ok(h) => h,
            Err(Stop) => {
                self.line_failed = false;
                return self.end_line();
            }
        };
        self.smap.function_mut(func).header = header_start.to(header_span);
        self.smap.function_mut(func).end = close;
        bodies.push(Body { func, start: body_start });
        self.end_line()
    }

    fn func_header(&mut self) -> PResult<(FuncId, Span)> {
        let (name, name_span) = self.global_name()?;
        self.expect(&Tok::LParen, "`(`")?;
        let mut names: Vec<(Cow<'a, str>, Span)> = Vec::new();
        // Seen names, for the duplicate check in constant time per param.
        let mut seen: rustc_hash::FxHashSet<Cow<'a, str>> = Default::default();
        let mut params = Vec::new();
        if self.tok != Tok::RParen {
            loop {
                let (pname, pspan) = self.var_token()?;
                self.expect(&Tok::Colon, "`:` and a type")?;
                let ty = self.ty()?;
                if !seen.insert(pname.clone()) {
                    return Err(self.error(format!("duplicate parameter `%{pname}`"), pspan));
                }
                names.push((pname, pspan));
                params.push(ty);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(&Tok::RParen, "`)`")?;
        let returns = if self.eat(&Tok::Arrow) { self.type_list()? } else { Vec::new() };
        let end = self.span;
        self.declare(&name, name_span)?;
        let pnames: Vec<&str> = names.iter().map(|(n, _)| &**n).collect();
        let id = self
            .module
            .add_function(&name, Signature { params, returns }, &pnames)
            .map_err(|e| self.error(e.to_string(), name_span))?;
        let spans = self.smap.function_mut(id);
        for (i, (_, span)) in names.iter().enumerate() {
            spans.vars[Var::new(i)] = *span;
        }
        Ok((id, name_span.to(end)))
    }

    fn var_token(&mut self) -> PResult<(Cow<'a, str>, Span)> {
        match &self.tok {
            Tok::Var(n) => {
                let (n, span) = (n.clone(), self.span);
                self.bump();
                Ok((n, span))
            }
            _ => Err(self.unexpected("a var (`%name`)")),
        }
    }

    // ---- pass 2: bodies ----------------------------------------------------------------

    fn body(&mut self, body: Body) {
        self.lx = Lexer::new(self.src, body.start);
        self.line_failed = false;
        self.bump();
        let mut st = BodyState {
            func: body.func,
            block: None,
            labels: SecondaryMap::new(),
            refs: Vec::new(),
            pending_refs: Vec::new(),
            allocated: 0,
            lost_label: false,
        };
        loop {
            self.skip_newlines();
            if self.full() {
                return;
            }
            let r = match self.tok {
                Tok::RBrace | Tok::Eof => break,
                Tok::Ident("var") => self.var_decls(&st),
                Tok::Ident(word) if matches!(self.peek(), Tok::Colon) => self.label(&mut st, word),
                _ => self.inst(&mut st),
            };
            // A line's references count only if the line parsed, so a
            // syntax error is not followed by "unknown block" on its line.
            if r.is_err() {
                st.pending_refs.clear();
                self.recover();
            } else {
                let line = self.line_start(self.last_end as usize);
                let pending = std::mem::take(&mut st.pending_refs);
                st.refs.extend(pending.into_iter().map(|(b, span)| (b, span, line)));
            }
        }
        // One error per line, like every other error.
        let mut last_line = None;
        for (block, span, line) in std::mem::take(&mut st.refs) {
            if !st.labels[block] && last_line != Some(line) {
                last_line = Some(line);
                self.error(format!("unknown block `{block}`"), span);
                self.line_failed = false;
            }
        }
    }

    fn var_decls(&mut self, st: &BodyState) -> PResult<()> {
        let kw = self.span;
        self.bump();
        if st.block.is_some() {
            return Err(self.error("var declarations must come before the first block", kw));
        }
        loop {
            let (name, span) = self.var_token()?;
            self.expect(&Tok::Colon, "`:` and a type")?;
            let ty_span = self.span;
            let ty = self.ty()?;
            // `of %x`: an SSA version of %x (recorded, never read off names).
            let origin = if self.tok == Tok::Ident("of") {
                self.bump();
                let (of, of_span) = self.var_token()?;
                let func = self.func_mut(st.func);
                let Some(o) = func.var_by_name(&of) else {
                    return Err(self.error(format!("`%{of}` is not declared before this version of it"), of_span));
                };
                if func.var_type(o) != Some(ty) {
                    let want = func.var_type(o).map_or_else(String::new, |t| t.to_string());
                    return Err(self.error(format!("a version of `%{of}` must have its type {want}"), ty_span));
                }
                Some(o)
            } else {
                None
            };
            let func = self.func_mut(st.func);
            let added = match origin {
                Some(o) => func.try_add_version(&name, o).map(|v| v.expect("the original was looked up")),
                None => func.try_add_var(&name, ty),
            };
            match added {
                Ok(v) => self.smap.function_mut(st.func).vars[v] = span,
                Err(_) => return Err(self.error(format!("`%{name}` is already declared"), span)),
            }
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        self.end_line()
    }

    fn func_mut(&mut self, f: FuncId) -> &mut crate::Function {
        self.module.function_mut(f).expect("pass 1 created every function it queued")
    }

    fn block_ref(&mut self, st: &mut BodyState, word: &str, span: Span) -> PResult<Block> {
        let digits = word.strip_prefix("bb").filter(|d| {
            !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()) && (d.len() == 1 || !d.starts_with('0'))
        });
        let Some(digits) = digits else {
            return Err(self.error(format!("expected a block label `bbN`, found `{word}`"), span));
        };
        // Too large for a block id reads as too large for the budget.
        let n = digits.parse::<u32>().ok().filter(|&n| n < u32::MAX - 1).unwrap_or(u32::MAX - 2);
        let needed = n as usize + 1;
        if needed > st.allocated {
            let extra = needed - st.allocated;
            if extra > self.blocks_left {
                return Err(self.error(
                    format!(
                        "block number `{word}` is too large: block numbers are kept as written, and this input may \
                         use at most {} more (renumber the blocks densely)",
                        self.blocks_left
                    ),
                    span,
                ));
            }
            self.blocks_left -= extra;
            st.allocated = needed;
            self.func_mut(st.func).ensure_block(Block::from_u32(n));
        }
        Ok(Block::from_u32(n))
    }

    fn target(&mut self, st: &mut BodyState) -> PResult<Block> {
        let (word, span) = self.ident("a block label")?;
        let b = self.block_ref(st, word, span)?;
        if !st.labels[b] {
            st.pending_refs.push((b, span));
        }
        Ok(b)
    }

    fn label(&mut self, st: &mut BodyState, word: &'a str) -> PResult<()> {
        let span = self.span;
        self.bump();
        self.bump(); // the colon
        // Until a label is accepted, the following instructions have no
        // block; they are skipped without further errors.
        st.block = None;
        st.lost_label = true;
        let b = self.block_ref(st, word, span)?;
        if std::mem::replace(&mut st.labels[b], true) {
            return Err(self.error(format!("block `{b}` is defined twice"), span));
        }
        let func = self.func_mut(st.func);
        func.append_block(b).map_err(|e| self.error(e.to_string(), span))?;
        self.smap.function_mut(st.func).blocks[b] = span;
        st.block = Some(b);
        st.lost_label = false;
        match self.tok {
            Tok::Newline | Tok::Eof | Tok::RBrace => Ok(()),
            _ => self.inst(st),
        }
    }

    // ---- instructions ------------------------------------------------------------------

    fn var(&mut self, st: &BodyState) -> PResult<Var> {
        let (name, span) = self.var_token()?;
        let func = self.module.function(st.func).expect("function exists");
        func.var_by_name(&name).ok_or_else(|| self.error(format!("undeclared var `%{name}`"), span))
    }

    fn literal_text(&mut self) -> PResult<(&'a str, Span)> {
        match self.tok {
            Tok::Int(t) | Tok::Float(t) => {
                let span = self.span;
                self.bump();
                Ok((t, span))
            }
            _ => Err(self.unexpected("a literal")),
        }
    }

    fn literal(&mut self, text: &str, ty: Type, span: Span) -> PResult<Imm> {
        parse_literal(text, ty).map_err(|e| self.error(e.to_string(), span))
    }

    fn raw(&mut self, st: &BodyState) -> PResult<Raw<'a>> {
        match self.tok {
            Tok::Var(_) => Ok(Raw::Var(self.var(st)?)),
            Tok::Int(text) | Tok::Float(text) => {
                let span = self.span;
                self.bump();
                Ok(Raw::Lit { text, ty: None, span })
            }
            Tok::Ident(name) if Type::from_name(name).is_some() => {
                let ty = Type::from_name(name);
                let start = self.span;
                self.bump();
                let (text, span) = self.literal_text()?;
                Ok(Raw::Lit { text, ty, span: start.to(span) })
            }
            _ => Err(self.unexpected("an operand (a var or a literal)")),
        }
    }

    fn raw_list(&mut self, st: &BodyState, close: Option<&Tok<'_>>) -> PResult<Vec<Raw<'a>>> {
        let mut out = Vec::new();
        let at_end = |t: &Tok<'_>| match close {
            Some(c) => t == c,
            None => matches!(t, Tok::Newline | Tok::Eof | Tok::RBrace | Tok::Ident("else")),
        };
        if at_end(&self.tok) {
            return Ok(out);
        }
        loop {
            out.push(self.raw(st)?);
            if !self.eat(&Tok::Comma) {
                return Ok(out);
            }
        }
    }

    fn mem_ref(&mut self) -> PResult<Mem> {
        let (name, span) = self.global_name()?;
        match self.module.lookup(&name) {
            Some(Global::Mem(m)) => Ok(m),
            Some(_) => Err(self.error(format!("`@{name}` is not a memory object"), span)),
            None => Err(self.error(format!("unknown memory object `@{name}`"), span)),
        }
    }

    fn slot(&mut self, st: &BodyState) -> PResult<RawSlot<'a>> {
        if matches!(self.tok, Tok::Global(_)) {
            let mem = self.mem_ref()?;
            self.expect(&Tok::LBracket, "`[`")?;
            let offset = self.raw(st)?;
            self.expect(&Tok::Comma, "`,` and a size")?;
            let size = self.raw(st)?;
            self.expect(&Tok::RBracket, "`]`")?;
            Ok(RawSlot::Desc { mem, offset, size })
        } else {
            Ok(RawSlot::Scalar(self.raw(st)?))
        }
    }

    fn inst(&mut self, st: &mut BodyState) -> PResult<()> {
        let start = self.span;
        let Some(block) = st.block else {
            if st.lost_label {
                return Err(Stop);
            }
            return Err(self.error("instruction before the first block label", start));
        };
        let guard = if self.eat(&Tok::GuardAt) {
            let negated = self.eat(&Tok::Bang);
            Some(Guard { var: self.var(st)?, negated })
        } else {
            None
        };
        let mut results = Vec::new();
        if matches!(self.tok, Tok::Var(_)) {
            loop {
                results.push(self.var(st)?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
            self.expect(&Tok::Equals, "`=`")?;
        }
        let (word, op_span) = self.ident("an opcode")?;
        let (base, suffix) = match word.split_once('.') {
            Some((b, s)) => (b, Some(s)),
            None => (word, None),
        };
        let Some(opcode) = Opcode::from_name(base) else {
            return Err(self.error(format!("unknown opcode `{base}`"), op_span));
        };
        let cc = match (opcode, suffix) {
            (Opcode::Setp, Some(s)) => match IntCC::from_name(s) {
                Some(cc) => Some(Extra::IntCC(cc)),
                None => return Err(self.error(format!("unknown integer condition `{s}`"), op_span)),
            },
            (Opcode::Fsetp, Some(s)) => match FloatCC::from_name(s) {
                Some(cc) => Some(Extra::FloatCC(cc)),
                None => return Err(self.error(format!("unknown float condition `{s}`"), op_span)),
            },
            (Opcode::Setp | Opcode::Fsetp, None) => {
                return Err(self.error(
                    format!(
                        "`{base}` needs a condition, as in `{base}.{}`",
                        if opcode == Opcode::Setp { "slt" } else { "lt" }
                    ),
                    op_span,
                ));
            }
            (_, Some(s)) => {
                return Err(self.error(format!("`{base}` takes no `.{s}` suffix"), op_span));
            }
            (_, None) => None,
        };
        let result_vars = results.clone();
        let ctx = InstCtx { func: st.func, block, guard, results, opcode };
        self.operands(st, ctx, cc)?;
        if self.tok == Tok::Ident("else") {
            self.fallbacks(st, block, &result_vars)?;
        }
        let end = self.last_end;
        if self.tok != Tok::RBrace {
            self.end_line()?;
        }
        let func = self.module.function(st.func).expect("function exists");
        if let Some(inst) = func.layout().last_inst(block) {
            self.smap.function_mut(st.func).insts[inst] = Span { start: start.start, end };
        }
        Ok(())
    }

    fn operands(&mut self, st: &mut BodyState, c: InstCtx, cc: Option<Extra>) -> PResult<()> {
        match c.opcode.format() {
            Format::Const
            | Format::Undef
            | Format::Unary
            | Format::Binary
            | Format::Select
            | Format::Compare
            | Format::Convert
            | Format::Ret => {
                let raws = self.raw_list(st, None)?;
                let args = self.resolve(&c, &raws, None, None, 0, 0)?;
                self.emit(&c, &args, cc.unwrap_or(Extra::None));
            }
            Format::Trap => self.emit(&c, &[], Extra::None),
            Format::Call => {
                let (name, span) = self.global_name()?;
                let callee = match self.module.lookup(&name) {
                    Some(Global::Func(f)) => Callee::Func(f),
                    Some(Global::Ext(e)) => Callee::Ext(e),
                    Some(Global::Mem(_)) => {
                        return Err(self.error(format!("`@{name}` is a memory object, not a function"), span));
                    }
                    None => return Err(self.error(format!("unknown function `@{name}`"), span)),
                };
                self.expect(&Tok::LParen, "`(`")?;
                let raws = self.raw_list(st, Some(&Tok::RParen))?;
                self.expect(&Tok::RParen, "`)`")?;
                let params = self.module.callee_signature(callee).map(|s| s.params.clone());
                let args = self.resolve(&c, &raws, params.as_deref(), None, 0, 0)?;
                self.emit(&c, &args, Extra::Call(callee));
            }
            Format::Intrinsic => {
                let name = match &self.tok {
                    Tok::Str(s) => s.clone(),
                    _ => return Err(self.unexpected("the intrinsic's name as a string")),
                };
                self.bump();
                self.expect(&Tok::LParen, "`(`")?;
                let raws = self.raw_list(st, Some(&Tok::RParen))?;
                self.expect(&Tok::RParen, "`)`")?;
                let args = self.resolve(&c, &raws, None, None, 0, 0)?;
                let id = self.func_mut(c.func).intern_intrinsic(&name);
                self.emit(&c, &args, Extra::Intrinsic(id));
            }
            Format::Load | Format::Store => {
                let mem = self.mem_ref()?;
                self.expect(&Tok::LBracket, "`[`")?;
                let mut raws = vec![self.raw(st)?];
                self.expect(&Tok::RBracket, "`]`")?;
                if c.opcode == Opcode::Store {
                    self.expect(&Tok::Comma, "`,` and the stored value")?;
                    raws.push(self.raw(st)?);
                }
                let elem = self.module.mem(mem).map(|m| m.elem);
                let args = self.resolve(&c, &raws, None, elem, 0, 0)?;
                self.emit(&c, &args, Extra::Mem(mem));
            }
            Format::TensorMap | Format::TensorReduce | Format::Matmul => self.tensor_operands(st, &c)?,
            Format::Phi => {
                self.expect(&Tok::LParen, "`(`")?;
                let mut preds = Vec::new();
                let mut raws = Vec::new();
                if self.tok != Tok::RParen {
                    loop {
                        preds.push(self.target(st)?);
                        self.expect(&Tok::Colon, "`:` and the incoming value")?;
                        raws.push(self.raw(st)?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(&Tok::RParen, "`)`")?;
                let args = self.resolve(&c, &raws, None, None, 0, 0)?;
                let list = self.func_mut(c.func).make_block_list(&preds);
                self.emit(&c, &args, Extra::Phi(list));
            }
            Format::Jump => {
                let t = self.target(st)?;
                self.emit(&c, &[], Extra::Jump(t));
            }
            Format::Branch => {
                let raws = vec![self.raw(st)?];
                self.expect(&Tok::Comma, "`,` and the `then` block")?;
                let t = self.target(st)?;
                self.expect(&Tok::Comma, "`,` and the `else` block")?;
                let e = self.target(st)?;
                let args = self.resolve(&c, &raws, None, None, 0, 0)?;
                self.emit(&c, &args, Extra::Branch([t, e]));
            }
            Format::Switch => {
                let raws = vec![self.raw(st)?];
                self.expect(&Tok::Comma, "`,` and the default block")?;
                let default = self.target(st)?;
                self.expect(&Tok::Comma, "`,` and the cases `[value: bbN, ...]`")?;
                self.expect(&Tok::LBracket, "`[`")?;
                let args = self.resolve(&c, &raws, None, None, 0, 0)?;
                let func = self.module.function(c.func).expect("function exists");
                let case_ty = match args[0] {
                    Arg::Var(v) => func.var_type(v),
                    Arg::Imm(i) => Some(i.ty()),
                }
                .filter(|t| t.is_int())
                .unwrap_or(Type::I64);
                let mut cases = Vec::new();
                if self.tok != Tok::RBracket {
                    loop {
                        let (text, span) = match self.tok {
                            Tok::Int(t) => (t, self.span),
                            _ => return Err(self.unexpected("a case value")),
                        };
                        self.bump();
                        let value = parse_int(text, case_ty).map_err(|e| self.error(e.to_string(), span))?.as_i64();
                        self.expect(&Tok::Colon, "`:` and a block")?;
                        cases.push((value, self.target(st)?));
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(&Tok::RBracket, "`]`")?;
                let jt = self.func_mut(c.func).add_jump_table(JumpTableData { default, cases });
                self.emit(&c, &args, Extra::Switch(jt));
            }
        }
        Ok(())
    }

    /// `else v, ...`: the values a guarded instruction's results keep when
    /// its guard fails; an untyped literal takes its result's type.
    fn fallbacks(&mut self, st: &mut BodyState, block: Block, results: &[Var]) -> PResult<()> {
        self.bump();
        let raws = self.raw_list(st, None)?;
        let func = self.module.function(st.func).expect("function exists");
        let result_types: Vec<Option<Type>> = results.iter().map(|&v| func.var_type(v)).collect();
        let mut args = Vec::with_capacity(raws.len());
        for (i, r) in raws.iter().enumerate() {
            args.push(match *r {
                Raw::Var(v) => Arg::Var(v),
                Raw::Lit { text, ty, span } => {
                    let Some(ty) = ty.or_else(|| result_types.get(i).copied().flatten()) else {
                        return Err(self.error(
                            format!("cannot infer the type of literal `{text}` here; write it with its type, as in `i32 {text}`"),
                            span,
                        ));
                    };
                    Arg::Imm(self.literal(text, ty, span)?)
                }
            });
        }
        let func = self.func_mut(st.func);
        let ops: Vec<_> = args.into_iter().map(|a| func.operand(a)).collect();
        if let Some(inst) = func.layout().last_inst(block) {
            func.set_fallbacks(inst, &ops);
        }
        Ok(())
    }

    fn tensor_operands(&mut self, st: &mut BodyState, c: &InstCtx) -> PResult<()> {
        let max_slots = if c.opcode == Opcode::Matmul { 3 } else { 8 };
        let mut slots = Vec::new();
        let mut tail = Vec::new();
        loop {
            if slots.len() < max_slots {
                slots.push(self.slot(st)?);
            } else if c.opcode == Opcode::Matmul {
                tail.push(self.raw(st)?);
            } else {
                return Err(self.error("a tensor instruction takes at most 8 descriptor or scalar operands", self.span));
            }
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        // Flatten to operand order, remembering which operands are scalars.
        let mut flat = Vec::new();
        let mut kinds = Vec::new();
        let mut scalar_ops = 0u32;
        for slot in slots {
            match slot {
                RawSlot::Desc { mem, offset, size } => {
                    kinds.push(Some(mem));
                    flat.extend([offset, size]);
                }
                RawSlot::Scalar(r) => {
                    kinds.push(None);
                    scalar_ops |= 1 << flat.len();
                    flat.push(r);
                }
            }
        }
        let slot_ops = flat.len();
        flat.extend(tail);
        let dst_elem = kinds.first().copied().flatten().and_then(|m| self.module.mem(m)).map(|m| m.elem);
        let args = self.resolve(c, &flat, None, dst_elem, slot_ops, scalar_ops)?;
        let mut it = args.iter().copied();
        let mut targs = Vec::with_capacity(kinds.len());
        for kind in kinds {
            match (kind, it.next()) {
                (Some(mem), Some(offset)) => {
                    let size = it.next().unwrap_or(offset);
                    targs.push(TensorArg::Desc(Desc { mem, offset, size }));
                }
                (None, Some(a)) => targs.push(TensorArg::Scalar(a)),
                (_, None) => break,
            }
        }
        let rest: Vec<Arg> = it.collect();
        let mut b = self.builder(c);
        guarded(b.ins(), c.guard).tensor_inst(c.opcode, &c.results, &targs, &rest);
        Ok(())
    }

    fn emit(&mut self, c: &InstCtx, args: &[Arg], extra: Extra) {
        let mut b = self.builder(c);
        guarded(b.ins(), c.guard).raw(c.opcode, &c.results, args, extra);
    }

    fn builder(&mut self, c: &InstCtx) -> FunctionBuilder<'_> {
        let mut b = FunctionBuilder::new(self.module.function_mut(c.func).expect("function exists"));
        b.switch_to_block(c.block);
        b
    }

    /// Types every literal from its context and turns raw operands into args.
    fn resolve(
        &mut self,
        c: &InstCtx,
        raws: &[Raw<'a>],
        call_params: Option<&[Type]>,
        mem_elem: Option<Type>,
        slot_operands: usize,
        scalar_operands: u32,
    ) -> PResult<Vec<Arg>> {
        let func = self.module.function(c.func).expect("function exists");
        let result_types: Vec<Option<Type>> = c.results.iter().map(|&v| func.var_type(v)).collect();
        let operand_types: Vec<Option<Type>> = raws
            .iter()
            .map(|r| match r {
                Raw::Var(v) => func.var_type(*v),
                Raw::Lit { .. } => None,
            })
            .collect();
        let returns = func.signature().returns.clone();
        let shape = Shape {
            opcode: c.opcode,
            result_types: &result_types,
            operand_types: &operand_types,
            call_params,
            returns: &returns,
            mem_elem,
            slot_operands,
            scalar_operands,
        };
        let mut out = Vec::with_capacity(raws.len());
        for (i, r) in raws.iter().enumerate() {
            out.push(match *r {
                Raw::Var(v) => Arg::Var(v),
                Raw::Lit { text, ty, span } => {
                    let Some(ty) = ty.or_else(|| literal_type(&shape, i)) else {
                        return Err(self.error(
                            format!("cannot infer the type of literal `{text}` here; write it with its type, as in `i32 {text}`"),
                            span,
                        ));
                    };
                    Arg::Imm(self.literal(text, ty, span)?)
                }
            });
        }
        Ok(out)
    }
}

struct InstCtx {
    func: FuncId,
    block: Block,
    guard: Option<Guard>,
    results: Vec<Var>,
    opcode: Opcode,
}

struct BodyState {
    func: FuncId,
    block: Option<Block>,
    /// Which blocks have a label (the source map holds where).
    labels: SecondaryMap<Block, bool>,
    /// Blocks referenced before their label: (block, span, line start).
    refs: Vec<(Block, Span, usize)>,
    /// References on the line being parsed.
    pending_refs: Vec<(Block, Span)>,
    allocated: usize,
    /// The last label was rejected.
    lost_label: bool,
}

fn guarded<'a, 'f>(ib: crate::builder::InstBuilder<'a, 'f>, g: Option<Guard>) -> crate::builder::InstBuilder<'a, 'f> {
    match g {
        Some(g) => ib.guard(g),
        None => ib,
    }
}
