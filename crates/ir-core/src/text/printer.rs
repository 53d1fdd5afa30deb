//! The printer: the parser's exact inverse, in canonical form.
//!
//! Canonical form: memory objects, then external functions, then functions,
//! each group in declaration order and separated by a blank line; in a
//! function, the params in the header, one `var` line per other var in id
//! order, blocks in layout order with their preserved numbers, and each
//! instruction on one 4-space-indented line. Literals are bare when the
//! parser would infer their type (see `context.rs`), typed otherwise.
//! Malformed instructions (which the builder can make and the verifier
//! rejects) print as far as their data allows, without panicking.

use super::comments::{Anchor, Comments, Group};
use super::context::{Shape, literal_type};
use super::lexer::{write_name, write_quoted};
use crate::entities::{FuncId, Inst};
use crate::function::Function;
use crate::instructions::{Operand, Slot};
use crate::module::Module;
use crate::opcode::{Format, Opcode};
use crate::types::Type;
use core::fmt::{self, Write};

/// Prints a whole module.
pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_module(m, &mut out);
    out
}

/// Prints one function of a module.
pub fn print_function(m: &Module, f: FuncId) -> String {
    let mut out = String::new();
    if let Some(func) = m.function(f) {
        let _ = write_function(m, func, &mut out);
    }
    out
}

/// Writes a whole module.
pub fn write_module(m: &Module, out: &mut (impl Write + ?Sized)) -> fmt::Result {
    write_module_with(m, None, out)
}

/// Prints a whole module with the comments of its source (see
/// [`Comments`]): `keel fmt`.
pub fn print_module_with_comments(m: &Module, comments: &Comments) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_module_with(m, Some(comments), &mut out);
    out
}

/// Writes a whole module, with the comments of its source when given.
pub fn write_module_with(m: &Module, c: Option<&Comments>, out: &mut (impl Write + ?Sized)) -> fmt::Result {
    let mut first_group = true;
    // A blank line between groups; true when one was just written (or
    // nothing was), so a comment's own blank line is not doubled.
    let mut sep = |out: &mut dyn Write| -> fmt::Result {
        if !first_group {
            out.write_char('\n')?;
        }
        first_group = false;
        Ok(())
    };
    if m.mems().len() > 0 {
        sep(&mut Dyn(out))?;
        for (i, (id, mem)) in m.mems().enumerate() {
            entity_line(out, c, Anchor::Mem(id), 0, i == 0, |out| {
                out.write_str("mem ")?;
                write_name(out, '@', &mem.name)?;
                write!(out, ": {}[{}] {}", mem.elem, mem.len, mem.space)?;
                if !mem.init.is_empty() {
                    out.write_str(" = [")?;
                    for (i, v) in mem.init.iter().enumerate() {
                        if i > 0 {
                            out.write_str(", ")?;
                        }
                        write_imm(out, *v, Some(mem.elem))?;
                    }
                    out.write_char(']')?;
                }
                Ok(())
            })?;
        }
    }
    if m.externs().len() > 0 {
        sep(&mut Dyn(out))?;
        for (i, (id, ext)) in m.externs().enumerate() {
            entity_line(out, c, Anchor::Ext(id), 0, i == 0, |out| {
                out.write_str("extern ")?;
                write_name(out, '@', &ext.name)?;
                out.write_char('(')?;
                write_types(out, &ext.sig.params)?;
                out.write_char(')')?;
                write_returns(out, &ext.sig.returns)
            })?;
        }
    }
    for (id, func) in m.functions() {
        sep(&mut Dyn(out))?;
        write_function_with(m, id, func, c, out)?;
    }
    if let Some(c) = c {
        leading(out, &c.tail, 0, false)?;
    }
    Ok(())
}

/// Writes `group`'s comment lines at `indent`, keeping one blank line where
/// the source had some (not at the start of a group of items, `fresh`,
/// which the printer separates already).
fn leading(out: &mut (impl Write + ?Sized), group: &Group, indent: usize, fresh: bool) -> fmt::Result {
    for (i, line) in group.lines.iter().enumerate() {
        if line.blank_before && !(i == 0 && fresh) {
            out.write_char('\n')?;
        }
        writeln!(out, "{:indent$}{}", "", line.text)?;
    }
    if group.blank_after && !group.lines.is_empty() {
        out.write_char('\n')?;
    }
    Ok(())
}

/// Trailing comments start at this column (0-based), or two blanks after a
/// longer line.
const TRAILING_COLUMN: usize = 32;

/// Writes one line for the entity `anchor`: its leading comments, `indent`
/// blanks, what `body` writes, its trailing comment, the line break.
fn entity_line<W: Write + ?Sized>(
    out: &mut W,
    c: Option<&Comments>,
    anchor: Anchor,
    indent: usize,
    fresh: bool,
    body: impl FnOnce(&mut dyn Write) -> fmt::Result,
) -> fmt::Result {
    entity_line_at(out, c, anchor, (indent, indent), fresh, body)
}

/// [`entity_line`] with leading comments indented apart from the entity
/// (`indents` = (entity, comments)): comments before a function's `}` are
/// inside its body.
fn entity_line_at<W: Write + ?Sized>(
    out: &mut W,
    c: Option<&Comments>,
    anchor: Anchor,
    (indent, lead_indent): (usize, usize),
    fresh: bool,
    body: impl FnOnce(&mut dyn Write) -> fmt::Result,
) -> fmt::Result {
    let Some(c) = c else {
        write!(out, "{:indent$}", "")?;
        body(&mut Dyn(out))?;
        return out.write_char('\n');
    };
    if let Some(group) = c.leading.get(&anchor) {
        leading(out, group, lead_indent, fresh)?;
    }
    match c.trailing.get(&anchor) {
        None => {
            write!(out, "{:indent$}", "")?;
            body(&mut Dyn(out))?;
        }
        Some(text) => {
            let mut line = format!("{:indent$}", "");
            body(&mut line)?;
            let width = line.chars().count();
            let pad = if width + 2 > TRAILING_COLUMN { 2 } else { TRAILING_COLUMN - width };
            write!(out, "{line}{:pad$}{text}", "")?;
        }
    }
    out.write_char('\n')
}

/// A `dyn Write` view of any writer.
struct Dyn<'w, W: Write + ?Sized>(&'w mut W);

impl<W: Write + ?Sized> Write for Dyn<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write_str(s)
    }

    fn write_char(&mut self, ch: char) -> fmt::Result {
        self.0.write_char(ch)
    }
}

fn write_types(out: &mut (impl Write + ?Sized), tys: &[Type]) -> fmt::Result {
    for (i, t) in tys.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        out.write_str(t.name())?;
    }
    Ok(())
}

fn write_returns(out: &mut (impl Write + ?Sized), tys: &[Type]) -> fmt::Result {
    if !tys.is_empty() {
        out.write_str(" -> ")?;
        write_types(out, tys)?;
    }
    Ok(())
}

/// Writes one function.
pub fn write_function(m: &Module, func: &Function, out: &mut (impl Write + ?Sized)) -> fmt::Result {
    // Without comments the id is only used to look them up.
    write_function_with(m, FuncId::from_u32(0), func, None, out)
}

fn write_function_with(
    m: &Module,
    id: FuncId,
    func: &Function,
    c: Option<&Comments>,
    out: &mut (impl Write + ?Sized),
) -> fmt::Result {
    entity_line(out, c, Anchor::Func(id), 0, true, |out| {
        out.write_str("func ")?;
        write_name(out, '@', func.name())?;
        out.write_char('(')?;
        for (i, &p) in func.params().iter().enumerate() {
            if i > 0 {
                out.write_str(", ")?;
            }
            write_name(out, '%', func.shown_var_name(p))?;
            write!(out, ": {}", func.var_type(p).unwrap_or(Type::I64))?;
        }
        out.write_char(')')?;
        write_returns(out, &func.signature().returns)?;
        out.write_str(" {")
    })?;
    // Params are usually the first vars; the marks keep odd hand-made
    // functions printable, in time linear in the vars.
    let mut is_param = vec![false; func.num_vars()];
    for &p in func.params() {
        if let Some(m) = is_param.get_mut(p.as_u32() as usize) {
            *m = true;
        }
    }
    for v in func.vars() {
        if !is_param.get(v.as_u32() as usize).copied().unwrap_or(false) {
            entity_line(out, c, Anchor::Var(id, v), 4, false, |out| {
                out.write_str("var ")?;
                write_name(out, '%', func.shown_var_name(v))?;
                write!(out, ": {}", func.var_type(v).unwrap_or(Type::I64))?;
                if let Some(o) = func.var_data(v).and_then(|d| d.origin()) {
                    out.write_str(" of ")?;
                    write_name(out, '%', func.shown_var_name(o))?;
                }
                Ok(())
            })?;
        }
    }
    for block in func.blocks() {
        entity_line(out, c, Anchor::Block(id, block), 0, false, |out| write!(out, "{block}:"))?;
        for inst in func.block_insts(block) {
            entity_line(out, c, Anchor::Inst(id, inst), 4, false, |mut out| write_inst(m, func, inst, &mut out))?;
        }
    }
    entity_line_at(out, c, Anchor::End(id), (0, 4), false, |out| out.write_char('}'))
}

/// An instruction in text form, for messages.
#[derive(Debug)]
pub struct DisplayInst<'a> {
    /// The module, for global names.
    pub module: &'a Module,
    /// The function holding the instruction.
    pub func: &'a Function,
    /// The instruction.
    pub inst: Inst,
}

impl fmt::Display for DisplayInst<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_inst(self.module, self.func, self.inst, f)
    }
}

fn write_imm(out: &mut (impl Write + ?Sized), imm: crate::Imm, context: Option<Type>) -> fmt::Result {
    if context != Some(imm.ty()) {
        write!(out, "{} ", imm.ty())?;
    }
    write!(out, "{imm}")
}

struct InstPrinter<'a> {
    m: &'a Module,
    func: &'a Function,
    ops: &'a [Operand],
    shape_results: Vec<Option<Type>>,
    shape_operands: Vec<Option<Type>>,
    call_params: Option<&'a [Type]>,
    mem_elem: Option<Type>,
    slot_operands: usize,
    scalar_operands: u32,
    opcode: Opcode,
}

impl InstPrinter<'_> {
    fn operand(&self, out: &mut (impl Write + ?Sized), i: usize) -> fmt::Result {
        let Some(&op) = self.ops.get(i) else {
            return out.write_str("?");
        };
        if let Some(v) = op.as_var() {
            return write_name(out, '%', self.func.shown_var_name(v));
        }
        let shape = Shape {
            opcode: self.opcode,
            result_types: &self.shape_results,
            operand_types: &self.shape_operands,
            call_params: self.call_params,
            returns: &self.func.signature().returns,
            mem_elem: self.mem_elem,
            slot_operands: self.slot_operands,
            scalar_operands: self.scalar_operands,
        };
        match op.as_const().and_then(|c| self.func.imm(c)) {
            Some(imm) => write_imm(out, imm, literal_type(&shape, i)),
            None => write_unknown(out, op),
        }
    }

    fn list(&self, out: &mut (impl Write + ?Sized), range: core::ops::Range<usize>) -> fmt::Result {
        for i in range.clone() {
            if i > range.start {
                out.write_str(", ")?;
            }
            self.operand(out, i)?;
        }
        Ok(())
    }
}

fn write_inst(m: &Module, func: &Function, inst: Inst, out: &mut (impl Write + ?Sized)) -> fmt::Result {
    let Some(data) = func.inst(inst) else {
        return out.write_str("<no such instruction>");
    };
    let opcode = data.opcode();
    if let Some(g) = data.guard() {
        out.write_str(if g.negated { "@!" } else { "@" })?;
        write_name(out, '%', func.shown_var_name(g.var))?;
        out.write_char(' ')?;
    }
    let results = func.results(inst);
    if !results.is_empty() {
        for (i, &r) in results.iter().enumerate() {
            if i > 0 {
                out.write_str(", ")?;
            }
            write_name(out, '%', func.shown_var_name(r))?;
        }
        out.write_str(" = ")?;
    }
    out.write_str(opcode.name())?;
    if let Some(cc) = func.int_cc(inst) {
        write!(out, ".{cc}")?;
    } else if let Some(cc) = func.float_cc(inst) {
        write!(out, ".{cc}")?;
    }
    let ops = func.operands(inst);
    let callee = func.callee(inst);
    let slots = func.tensor_slots(inst);
    let (slot_operands, scalar_operands) = func.slot_operands(inst);
    let mem_elem = match opcode.format() {
        Format::Load | Format::Store => func.scalar_mem(inst),
        _ => match slots.first() {
            Some(Slot::Desc(d)) => Some(d.mem),
            _ => None,
        },
    }
    .and_then(|mem| m.mem(mem))
    .map(|mem| mem.elem);
    let p = InstPrinter {
        m,
        func,
        ops,
        shape_results: results.iter().map(|&r| func.var_type(r)).collect(),
        shape_operands: ops.iter().map(|o| o.as_var().and_then(|v| func.var_type(v))).collect(),
        call_params: callee.and_then(|c| m.callee_signature(c)).map(|s| &s.params[..]),
        mem_elem,
        slot_operands,
        scalar_operands,
        opcode,
    };
    let n = ops.len();
    match opcode.format() {
        Format::Const
        | Format::Undef
        | Format::Unary
        | Format::Binary
        | Format::Select
        | Format::Compare
        | Format::Convert
        | Format::Ret => {
            if n > 0 {
                out.write_char(' ')?;
                p.list(out, 0..n)?;
            }
        }
        Format::Trap => {}
        Format::Call => {
            out.write_char(' ')?;
            match callee {
                Some(c) => write_name(out, '@', p.m.callee_name(c))?,
                None => out.write_str("@?")?,
            }
            out.write_char('(')?;
            p.list(out, 0..n)?;
            out.write_char(')')?;
        }
        Format::Intrinsic => {
            out.write_char(' ')?;
            write_quoted(out, func.intrinsic_name(inst).unwrap_or("?"))?;
            out.write_char('(')?;
            p.list(out, 0..n)?;
            out.write_char(')')?;
        }
        Format::Load | Format::Store => {
            out.write_char(' ')?;
            match func.scalar_mem(inst).and_then(|mm| m.mem(mm)) {
                Some(mem) => write_name(out, '@', &mem.name)?,
                None => out.write_str("@?")?,
            }
            out.write_char('[')?;
            p.operand(out, 0)?;
            out.write_char(']')?;
            if opcode == Opcode::Store || n > 1 {
                out.write_str(", ")?;
                p.list(out, 1..n.max(2))?;
            }
        }
        Format::TensorMap | Format::TensorReduce | Format::Matmul => {
            let mut i = 0;
            for (k, slot) in slots.iter().enumerate() {
                out.write_str(if k == 0 { " " } else { ", " })?;
                match slot {
                    Slot::Desc(d) => {
                        match m.mem(d.mem) {
                            Some(mem) => write_name(out, '@', &mem.name)?,
                            None => out.write_str("@?")?,
                        }
                        out.write_char('[')?;
                        p.operand(out, i)?;
                        out.write_str(", ")?;
                        p.operand(out, i + 1)?;
                        out.write_char(']')?;
                        i += 2;
                    }
                    Slot::Scalar(_) => {
                        p.operand(out, i)?;
                        i += 1;
                    }
                }
            }
            for j in i..n {
                out.write_str(if j == 0 { " " } else { ", " })?;
                p.operand(out, j)?;
            }
        }
        Format::Phi => {
            out.write_char('(')?;
            for (i, b) in func.phi_blocks(inst).iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write!(out, "{b}: ")?;
                p.operand(out, i)?;
            }
            out.write_char(')')?;
        }
        Format::Jump => {
            let t = func.successors(inst).next();
            match t {
                Some(t) => write!(out, " {t}")?,
                None => out.write_str(" bb?")?,
            }
        }
        Format::Branch => {
            out.write_char(' ')?;
            p.operand(out, 0)?;
            for t in func.successors(inst) {
                write!(out, ", {t}")?;
            }
        }
        Format::Switch => {
            out.write_char(' ')?;
            p.operand(out, 0)?;
            match func.switch_table(inst) {
                Some(jt) => {
                    write!(out, ", {}, [", jt.default)?;
                    for (i, (v, b)) in jt.cases.iter().enumerate() {
                        if i > 0 {
                            out.write_str(", ")?;
                        }
                        write!(out, "{v}: {b}")?;
                    }
                    out.write_char(']')?;
                }
                None => out.write_str(", bb?, []")?,
            }
        }
    }
    let keeps = func.fallbacks(inst);
    if !keeps.is_empty() {
        out.write_str(" else ")?;
        for (i, &k) in keeps.iter().enumerate() {
            if i > 0 {
                out.write_str(", ")?;
            }
            match k.as_var() {
                Some(v) => write_name(out, '%', func.shown_var_name(v))?,
                None => match k.as_const().and_then(|c| func.imm(c)) {
                    Some(imm) => write_imm(out, imm, results.get(i).and_then(|&r| func.var_type(r)))?,
                    None => write_unknown(out, k)?,
                },
            }
        }
    }
    Ok(())
}

/// An operand naming a constant the function does not have (only in
/// malformed functions, which the verifier rejects): printed so that it
/// reads as what it is and never parses.
fn write_unknown(out: &mut (impl Write + ?Sized), op: Operand) -> fmt::Result {
    match op.as_const() {
        Some(c) => write!(out, "<unknown constant {c}>"),
        None => out.write_str("<unknown operand>"),
    }
}
