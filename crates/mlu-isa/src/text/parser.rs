//! The parser: assembly text to a [`Program`] and a [`SourceMap`].
//!
//! Two passes over the lines: the first reads `.mem` declarations and
//! labels (so both may be used before the line that declares them), the
//! second the instructions. The grammar is in `docs/mlu-isa.md` §3.
//!
//! Invariants: the parser never panics and never recurses (one construct
//! per line); after an error it skips to the next line and goes on, up to
//! [`MAX_ERRORS`] errors, keeping the first error of each line; it checks
//! syntax, names and literals only; types, spaces, alignment and capacity
//! are the verifier's.

use super::diagnostic::{Diagnostic, Span};
use super::lexer::{Tok, lex};
use super::literal::{parse_literal, parse_unsigned};
use crate::inst::{Addr, Inst, LabelId, Operand, VSrc};
use crate::ops::{BinOp, ConvOp, FloatCC, IntCC, RedOp, Scope, SyncKind, UnOp, VBinOp, VUnOp};
use crate::program::{Names, Program};
use crate::types::{Reg, Space, Ty};

/// Errors kept before the parser gives up.
pub const MAX_ERRORS: usize = 20;

/// Where each entity of a parsed program came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// Each instruction's line (from its opcode to its last operand).
    pub insts: Vec<Span>,
    /// Each memory object's declaration.
    pub mems: Vec<Span>,
    /// Each label's definition.
    pub labels: Vec<Span>,
}

type Toks<'a> = Vec<(Tok<'a>, Span)>;
type R<T> = Result<T, Diagnostic>;

/// Parses a program. On failure, returns the diagnostics in source order
/// (at most [`MAX_ERRORS`]).
pub fn parse(src: &str) -> Result<(Program, SourceMap), Vec<Diagnostic>> {
    if src.len() >= u32::MAX as usize {
        return Err(vec![Diagnostic::new("the input is 4 GiB or more", Span::new(0, 0))]);
    }
    let lines = lex(src);
    let mut errors = Vec::new();
    let mut program = Program::new();
    let mut names = Names::default();
    let mut smap = SourceMap::default();
    // Pass 1: objects and labels; which lines hold an instruction.
    let mut code_lines: Vec<&Toks<'_>> = Vec::new();
    let mut inst_count: u32 = 0;
    for line in &lines {
        let toks = match line {
            Ok(t) => t,
            Err(d) => {
                errors.push(d.clone());
                inst_count = inst_count.saturating_add(1);
                continue;
            }
        };
        let mut start = 0;
        if let (Some((Tok::Word(name), span)), Some((Tok::Colon, colon))) = (toks.first(), toks.get(1))
            && !name.starts_with('.')
        {
            if names.add_label(&mut program, name, inst_count).is_err() {
                errors.push(Diagnostic::new(format!("label `{name}` is defined twice"), *span));
            } else {
                smap.labels.push(span.to(*colon));
            }
            start = 2;
        }
        match toks.get(start) {
            Some((Tok::Newline, _)) | None => {}
            Some((Tok::Word(".mem"), _)) => {
                if start != 0 {
                    errors.push(Diagnostic::new("a `.mem` declaration cannot follow a label", toks[start].1));
                } else if let Err(d) = mem_decl(&mut program, &mut names, &mut smap, &toks[start..]) {
                    errors.push(d);
                }
            }
            Some(_) => {
                code_lines.push(toks);
                inst_count = inst_count.saturating_add(1);
            }
        }
    }
    // Pass 2: instructions.
    for toks in code_lines {
        let start = if matches!(toks.get(1), Some((Tok::Colon, _))) { 2 } else { 0 };
        let mut line = Line { toks: &toks[start..], pos: 0 };
        let first = line.span();
        match line.inst(&names) {
            Ok(inst) => {
                let last = toks.len().checked_sub(2).map_or(first, |i| toks[i].1);
                program.insts.push(inst);
                smap.insts.push(first.to(last));
            }
            Err(d) => {
                errors.push(d);
                program.insts.push(Inst::Nop);
                smap.insts.push(first);
            }
        }
    }
    if errors.is_empty() {
        return Ok((program, smap));
    }
    errors.sort_by_key(|d| (d.span.start, d.span.end));
    errors.truncate(MAX_ERRORS);
    Err(errors)
}

fn mem_decl(program: &mut Program, names: &mut Names, smap: &mut SourceMap, toks: &[(Tok<'_>, Span)]) -> R<()> {
    let mut l = Line { toks, pos: 1 };
    let (name, name_span) = match l.peek() {
        Tok::Global(g) => {
            let s = l.span();
            l.pos += 1;
            (g, s)
        }
        _ => return Err(l.unexpected("a memory object name `@name`")),
    };
    l.punct(Tok::Colon)?;
    let ty = l.ty()?;
    l.punct(Tok::LBracket)?;
    let len = match l.peek() {
        Tok::Int(t) => {
            let span = l.span();
            l.pos += 1;
            parse_unsigned(t)
                .and_then(|v| u64::try_from(v).ok())
                .filter(|&v| v <= 1 << 40)
                .ok_or_else(|| Diagnostic::new(format!("length `{t}` is over 2^40"), span))?
        }
        _ => return Err(l.unexpected("an element count")),
    };
    l.punct(Tok::RBracket)?;
    let space = l.space()?;
    let mut addr = None;
    if l.peek() == Tok::Word("at") {
        l.pos += 1;
        let span = l.span();
        addr = match l.peek() {
            Tok::Int(t) => {
                l.pos += 1;
                Some(
                    parse_unsigned(t)
                        .and_then(|v| u64::try_from(v).ok())
                        .ok_or_else(|| Diagnostic::new(format!("address `{t}` does not fit 64 bits"), span))?,
                )
            }
            _ => return Err(l.unexpected("an address")),
        };
    }
    let mut init = Vec::new();
    if l.peek() == Tok::Equals {
        l.pos += 1;
        l.punct(Tok::LBracket)?;
        if l.peek() != Tok::RBracket {
            loop {
                init.push(l.literal(ty)?);
                if l.peek() == Tok::Comma {
                    l.pos += 1;
                } else {
                    break;
                }
            }
        }
        l.punct(Tok::RBracket)?;
    }
    l.end()?;
    let decl_span = toks[0].1.to(toks[toks.len().saturating_sub(2)].1);
    names.add_mem(program, name, ty, len, space, addr, init).map_err(|e| Diagnostic::new(e.to_string(), name_span))?;
    smap.mems.push(decl_span);
    Ok(())
}

struct Line<'t, 'a> {
    toks: &'t [(Tok<'a>, Span)],
    pos: usize,
}

impl<'a> Line<'_, 'a> {
    fn peek(&self) -> Tok<'a> {
        self.toks.get(self.pos).map_or(Tok::Newline, |t| t.0)
    }

    fn span(&self) -> Span {
        self.toks.get(self.pos).or(self.toks.last()).map_or(Span::default(), |t| t.1)
    }

    fn unexpected(&self, what: &str) -> Diagnostic {
        Diagnostic::new(format!("expected {what}, found {}", self.peek().describe()), self.span())
    }

    fn punct(&mut self, t: Tok<'_>) -> R<()> {
        if self.peek() == t {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(&t.describe()))
        }
    }

    fn comma(&mut self) -> R<()> {
        self.punct(Tok::Comma)
    }

    fn end(&self) -> R<()> {
        match self.peek() {
            Tok::Newline => Ok(()),
            t => Err(Diagnostic::new(format!("unexpected {} at the end of the line", t.describe()), self.span())),
        }
    }

    fn ty(&mut self) -> R<Ty> {
        match self.peek() {
            Tok::Word(w) => {
                let span = self.span();
                self.pos += 1;
                Ty::from_name(w).ok_or_else(|| Diagnostic::new(format!("unknown type `{w}`"), span))
            }
            _ => Err(self.unexpected("a type")),
        }
    }

    fn space(&mut self) -> R<Space> {
        match self.peek() {
            Tok::Word(w) => {
                let span = self.span();
                self.pos += 1;
                Space::from_name(w).ok_or_else(|| {
                    Diagnostic::new(format!("unknown memory space `{w}` (expected nram, wram, sram or dram)"), span)
                })
            }
            _ => Err(self.unexpected("a memory space")),
        }
    }

    fn reg(&mut self) -> R<Reg> {
        match self.peek() {
            Tok::Reg(r) => {
                self.pos += 1;
                Ok(r)
            }
            _ => Err(self.unexpected("a register `%rN`")),
        }
    }

    /// An optional `-` and a literal token, parsed as `ty`.
    fn literal(&mut self, ty: Ty) -> R<u64> {
        let start = self.span();
        let neg = self.peek() == Tok::Minus;
        if neg {
            self.pos += 1;
        }
        let text = match self.peek() {
            Tok::Int(t) | Tok::Float(t) => t,
            Tok::Word(w @ ("inf" | "nan")) => w,
            _ => return Err(self.unexpected(&format!("a {ty} literal"))),
        };
        let span = start.to(self.span());
        self.pos += 1;
        parse_literal(neg, text, ty).map_err(|e| Diagnostic::new(e.to_string(), span))
    }

    /// A signed 64-bit integer literal (with an optional `-`).
    fn int_literal(&mut self) -> R<i64> {
        let start = self.span();
        let neg = self.peek() == Tok::Minus;
        if neg {
            self.pos += 1;
        }
        let Tok::Int(text) = self.peek() else { return Err(self.unexpected("an integer")) };
        let span = start.to(self.span());
        self.pos += 1;
        let mag = parse_unsigned(text).unwrap_or(u128::MAX);
        let v = if neg { i128::try_from(mag).map(|m| -m) } else { i128::try_from(mag) };
        v.ok().and_then(|v| i64::try_from(v).ok()).ok_or_else(|| {
            Diagnostic::new(format!("{}{text} does not fit a signed 64-bit integer", if neg { "-" } else { "" }), span)
        })
    }

    /// A register or a literal of type `ty`.
    fn typed(&mut self, ty: Ty) -> R<Operand> {
        match self.peek() {
            Tok::Reg(r) => {
                self.pos += 1;
                Ok(Operand::Reg(r))
            }
            _ => self.literal(ty).map(Operand::Imm),
        }
    }

    /// A register or a signed integer (counts, sizes, strides, ids).
    fn int(&mut self) -> R<Operand> {
        match self.peek() {
            Tok::Reg(r) => {
                self.pos += 1;
                Ok(Operand::Reg(r))
            }
            _ => self.int_literal().map(Operand::int),
        }
    }

    /// `SPACE[terms]`, terms being `@sym`, `%rN` and an integer, each at
    /// most once, joined by `+` (a `-` may only precede the integer).
    fn addr(&mut self, p: &Names) -> R<Addr> {
        let space = self.space()?;
        self.punct(Tok::LBracket)?;
        let mut a = Addr::abs(space, 0);
        let mut offset_seen = false;
        let mut first = true;
        loop {
            let mut neg = false;
            if !first {
                match self.peek() {
                    Tok::Plus => self.pos += 1,
                    Tok::Minus => {
                        self.pos += 1;
                        neg = true;
                    }
                    Tok::RBracket => {
                        self.pos += 1;
                        return Ok(a);
                    }
                    _ => return Err(self.unexpected("`+`, `-` or `]`")),
                }
            }
            let span = self.span();
            match self.peek() {
                Tok::Global(g) if !neg => {
                    if a.sym.is_some() {
                        return Err(Diagnostic::new("an address names at most one object", span));
                    }
                    a.sym =
                        Some(p.mem(g).ok_or_else(|| Diagnostic::new(format!("unknown memory object `@{g}`"), span))?);
                    self.pos += 1;
                }
                Tok::Reg(r) if !neg => {
                    if a.base.is_some() {
                        return Err(Diagnostic::new("an address adds at most one register", span));
                    }
                    a.base = Some(r);
                    self.pos += 1;
                }
                Tok::Int(_) | Tok::Minus => {
                    if offset_seen {
                        return Err(Diagnostic::new("an address has at most one constant offset", span));
                    }
                    let v = self.int_literal()?;
                    a.offset = if neg {
                        v.checked_neg().ok_or_else(|| Diagnostic::new("the offset does not fit 64 bits", span))?
                    } else {
                        v
                    };
                    offset_seen = true;
                }
                _ => return Err(self.unexpected("`@object`, a register or an offset")),
            }
            first = false;
        }
    }

    /// An address (if the next word is a space) or a scalar of type `ty`.
    fn vsrc(&mut self, p: &Names, ty: Ty) -> R<VSrc> {
        match self.peek() {
            Tok::Word(w) if Space::from_name(w).is_some() => self.addr(p).map(VSrc::Mem),
            _ => self.typed(ty).map(VSrc::Scalar),
        }
    }

    fn label(&mut self, p: &Names) -> R<LabelId> {
        let span = self.span();
        match self.peek() {
            Tok::Word(w) => {
                self.pos += 1;
                p.label(w).ok_or_else(|| Diagnostic::new(format!("unknown label `{w}`"), span))
            }
            _ => Err(self.unexpected("a label")),
        }
    }

    fn inst(&mut self, p: &Names) -> R<Inst> {
        let span = self.span();
        let Tok::Word(word) = self.peek() else { return Err(self.unexpected("an instruction")) };
        self.pos += 1;
        let parts: Vec<&str> = word.split('.').collect();
        let head = parts[0];
        let bad_shape = |want: &str| Diagnostic::new(format!("`{word}`: expected `{want}`"), span);
        let ty_at = |i: usize| -> R<Ty> {
            let t = parts.get(i).ok_or_else(|| Diagnostic::new(format!("`{word}` needs a type suffix"), span))?;
            Ty::from_name(t).ok_or_else(|| Diagnostic::new(format!("unknown type `{t}` in `{word}`"), span))
        };
        let one_type = |want: &str| -> R<Ty> {
            if parts.len() != 2 {
                return Err(bad_shape(want));
            }
            ty_at(1)
        };
        let bare = |inst: Inst| -> R<Inst> {
            if parts.len() != 1 { Err(Diagnostic::new(format!("`{head}` takes no suffix"), span)) } else { Ok(inst) }
        };
        let inst = match head {
            "mov" => {
                let ty = one_type("mov.T")?;
                let dst = self.reg()?;
                self.comma()?;
                Inst::Mov { ty, dst, src: self.typed(ty)? }
            }
            "setp" | "fsetp" => {
                if parts.len() != 3 {
                    return Err(bad_shape(&format!("{head}.CC.T")));
                }
                let cc_span = span;
                let ty = ty_at(2)?;
                let dst = self.reg()?;
                self.comma()?;
                let a = self.typed(ty)?;
                self.comma()?;
                let b = self.typed(ty)?;
                let unknown = || Diagnostic::new(format!("unknown condition `{}` in `{word}`", parts[1]), cc_span);
                if head == "setp" {
                    Inst::Setp { cc: IntCC::from_name(parts[1]).ok_or_else(unknown)?, ty, dst, a, b }
                } else {
                    Inst::Fsetp { cc: FloatCC::from_name(parts[1]).ok_or_else(unknown)?, ty, dst, a, b }
                }
            }
            "sel" => {
                let ty = one_type("sel.T")?;
                let dst = self.reg()?;
                self.comma()?;
                let cond = self.reg()?;
                self.comma()?;
                let a = self.typed(ty)?;
                self.comma()?;
                Inst::Select { ty, dst, cond, a, b: self.typed(ty)? }
            }
            "ld" => {
                let ty = one_type("ld.T")?;
                let dst = self.reg()?;
                self.comma()?;
                Inst::Load { ty, dst, addr: self.addr(p)? }
            }
            "st" => {
                let ty = one_type("st.T")?;
                let addr = self.addr(p)?;
                self.comma()?;
                Inst::Store { ty, addr, value: self.typed(ty)? }
            }
            "sreg" => {
                bare(Inst::Nop)?;
                let dst = self.reg()?;
                self.comma()?;
                let sreg = match self.peek() {
                    Tok::Sreg(s) => s,
                    _ => return Err(self.unexpected("a special register (`%coreid`, ...)")),
                };
                self.pos += 1;
                Inst::ReadSreg { dst, sreg }
            }
            "jmp" => {
                bare(Inst::Nop)?;
                Inst::Jump { target: self.label(p)? }
            }
            "br" | "brz" => {
                bare(Inst::Nop)?;
                let cond = self.reg()?;
                self.comma()?;
                Inst::Branch { on_zero: head == "brz", cond, target: self.label(p)? }
            }
            "exit" => bare(Inst::Exit)?,
            "trap" => bare(Inst::Trap)?,
            "nop" => bare(Inst::Nop)?,
            "vfma" => {
                let ty = one_type("vfma.T")?;
                let dst = self.addr(p)?;
                self.comma()?;
                let a = self.vsrc(p, ty)?;
                self.comma()?;
                let b = self.vsrc(p, ty)?;
                self.comma()?;
                let c = self.vsrc(p, ty)?;
                self.comma()?;
                Inst::VFma { ty, dst, a, b, c, n: self.int()? }
            }
            "vfill" => {
                let ty = one_type("vfill.T")?;
                let dst = self.addr(p)?;
                self.comma()?;
                let value = self.typed(ty)?;
                self.comma()?;
                Inst::VFill { ty, dst, value, n: self.int()? }
            }
            "vcvt" => {
                if parts.len() != 4 {
                    return Err(bad_shape("vcvt.OP.TO.FROM"));
                }
                let op = ConvOp::from_name(parts[1])
                    .ok_or_else(|| Diagnostic::new(format!("unknown conversion `{}` in `{word}`", parts[1]), span))?;
                let (to, from) = (ty_at(2)?, ty_at(3)?);
                let dst = self.addr(p)?;
                self.comma()?;
                let src = self.addr(p)?;
                self.comma()?;
                Inst::VConvert { op, to, from, dst, src, n: self.int()? }
            }
            "mmul" => {
                let ty = one_type("mmul.T")?;
                let c = self.addr(p)?;
                self.comma()?;
                let a = self.addr(p)?;
                self.comma()?;
                let b = self.addr(p)?;
                self.comma()?;
                let m = self.int()?;
                self.comma()?;
                let k = self.int()?;
                self.comma()?;
                Inst::Matmul { ty, c, a, b, m, k, n: self.int()? }
            }
            "dma" | "dma2d" => {
                bare(Inst::Nop)?;
                let dst = self.addr(p)?;
                self.comma()?;
                let src = self.addr(p)?;
                self.comma()?;
                let bytes = self.int()?;
                if head == "dma" {
                    Inst::Dma { dst, src, bytes }
                } else {
                    self.comma()?;
                    let dst_stride = self.int()?;
                    self.comma()?;
                    let src_stride = self.int()?;
                    self.comma()?;
                    Inst::Dma2d { dst, src, bytes, dst_stride, src_stride, rows: self.int()? }
                }
            }
            "sync" => Inst::Sync(SyncKind::from_name(word).ok_or_else(|| {
                Diagnostic::new(
                    format!("unknown sync `{word}` (expected sync.io, sync.move, sync.compute or sync.all)"),
                    span,
                )
            })?),
            "barrier" => {
                let scope = Scope::from_name(word).ok_or_else(|| {
                    Diagnostic::new(
                        format!("unknown barrier `{word}` (expected barrier.sync.local or barrier.sync.global)"),
                        span,
                    )
                })?;
                let id = self.int()?;
                self.comma()?;
                Inst::Barrier { scope, id, count: self.int()? }
            }
            _ => self.family(p, word, &parts, span)?,
        };
        self.end()?;
        Ok(inst)
    }

    /// Instructions named by an operation enum: scalar unary, binary and
    /// conversions; vector unary, binary and reductions.
    fn family(&mut self, p: &Names, word: &str, parts: &[&str], span: Span) -> R<Inst> {
        let head = parts[0];
        let suffix_err = |want: &str| Diagnostic::new(format!("`{word}`: expected `{want}`"), span);
        let ty_of =
            |t: &str| Ty::from_name(t).ok_or_else(|| Diagnostic::new(format!("unknown type `{t}` in `{word}`"), span));
        if let Some(op) = ConvOp::from_name(head) {
            if parts.len() != 3 {
                return Err(suffix_err(&format!("{head}.TO.FROM")));
            }
            let (to, from) = (ty_of(parts[1])?, ty_of(parts[2])?);
            let dst = self.reg()?;
            self.comma()?;
            return Ok(Inst::Convert { op, to, from, dst, src: self.typed(from)? });
        }
        if parts.len() != 2 {
            let known = UnOp::from_name(head).is_some()
                || BinOp::from_name(head).is_some()
                || VUnOp::from_name(head).is_some()
                || VBinOp::from_name(head).is_some()
                || RedOp::from_name(head).is_some();
            return Err(if known {
                suffix_err(&format!("{head}.T"))
            } else {
                Diagnostic::new(format!("unknown instruction `{word}`"), span)
            });
        }
        let ty = ty_of(parts[1])?;
        if let Some(op) = UnOp::from_name(head) {
            let dst = self.reg()?;
            self.comma()?;
            return Ok(Inst::Unary { op, ty, dst, a: self.typed(ty)? });
        }
        if let Some(op) = BinOp::from_name(head) {
            let dst = self.reg()?;
            self.comma()?;
            let a = self.typed(ty)?;
            self.comma()?;
            return Ok(Inst::Binary { op, ty, dst, a, b: self.typed(ty)? });
        }
        if let Some(op) = VUnOp::from_name(head) {
            let dst = self.addr(p)?;
            self.comma()?;
            let src = self.addr(p)?;
            self.comma()?;
            return Ok(Inst::VUnary { op, ty, dst, src, n: self.int()? });
        }
        if let Some(op) = VBinOp::from_name(head) {
            let dst = self.addr(p)?;
            self.comma()?;
            let a = self.vsrc(p, ty)?;
            self.comma()?;
            let b = self.vsrc(p, ty)?;
            self.comma()?;
            return Ok(Inst::VBinary { op, ty, dst, a, b, n: self.int()? });
        }
        if let Some(op) = RedOp::from_name(head) {
            let dst = self.reg()?;
            self.comma()?;
            let src = self.addr(p)?;
            self.comma()?;
            return Ok(Inst::VReduce { op, ty, dst, src, n: self.int()? });
        }
        Err(Diagnostic::new(format!("unknown instruction `{word}`"), span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::print_program;

    #[test]
    fn parses_and_prints_canonically() {
        let src = "\
; a comment
.mem @x: f32[64] dram = [1.0, -2, nan]
.mem @buf: f32[64] nram
start:  sreg %r0, %coreid
    mul.i64 %r1, %r0, 256
    dma nram[@buf], dram[@x + %r1], 256 ; load
    sync.io
    vadd.f32 nram[@buf], nram[@buf], 1.5, 64
    setp.slt.i64 %r2, %r0, 3
    br %r2, start
    exit
end:
";
        let (p, smap) = parse(src).unwrap();
        assert_eq!(p.mems[1].addr, 0);
        assert_eq!(p.insts.len(), 8);
        assert_eq!(smap.insts.len(), 8);
        let printed = print_program(&p);
        assert_eq!(
            printed,
            "\
.mem @x: f32[64] dram at 0 = [1.0, -2.0, nan]
.mem @buf: f32[64] nram at 0

start:
    sreg %r0, %coreid
    mul.i64 %r1, %r0, 256
    dma nram[@buf], dram[@x + %r1], 256
    sync.io
    vadd.f32 nram[@buf], nram[@buf], 1.5, 64
    setp.slt.i64 %r2, %r0, 3
    br %r2, start
    exit
end:
"
        );
        let (q, _) = parse(&printed).unwrap();
        assert_eq!(p, q);
    }

    #[test]
    fn errors_carry_positions_and_recover() {
        let src = "frob %r1\nadd.i32 %r1, %r2\nadd.q32 %r1, %r2, 3\njmp nowhere\nmov.i8 %r1, 300\nnop\n";
        let errs = parse(src).unwrap_err();
        let msgs: Vec<&str> = errs.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(errs.len(), 5, "{msgs:?}");
        assert!(msgs[0].contains("unknown instruction `frob`"));
        assert!(msgs[1].contains("expected `,`"));
        assert!(msgs[2].contains("unknown type `q32`"));
        assert!(msgs[3].contains("unknown label `nowhere`"));
        assert!(msgs[4].contains("300 does not fit i8"));
    }
}
