//! The printer: [`Graph`] to text, the parser's inverse.
//!
//! Canonical form: functions in creation order, one blank line between
//! them; each body in dependence order ([`Schedule`]: ties by id), nested
//! lambdas printed where they are defined, indented four spaces per level;
//! every value node as `%name: type = op args`, with `*` before an
//! argument that is the same in every lane and `@%m` before a masked
//! node; the depth suffix `.k` only when `k > 0`. Named symbols print
//! their names; the others are numbered `%0, %1, ...` in print order
//! within each function, so `print(parse(print(g))) == print(g)`.
//!
//! Bounded indentation: a line nested deeper than [`MAX_INDENT`] levels is
//! indented [`MAX_INDENT`] levels and ends with the comment `; nesting N`
//! (`N` its nesting level, the levels it would be indented), so the text
//! of a graph is linear in the graph's size whatever its nesting (a
//! 10^5-deep nest of lambdas would otherwise be 10^10 spaces). The parser
//! reads structure from the braces alone and skips comments, so such text
//! parses back to the same graph; at depths up to [`MAX_INDENT`] nothing
//! changes.
//!
//! Invariants: never panics and never recurses (an explicit stack of open
//! bodies); writes as it goes to any [`core::fmt::Write`] ([`write_graph`]
//! streams to an [`std::io::Write`], [`print_graph`] fills a `String`),
//! holding only the schedule and one number per symbol; O(n) time and
//! extra space for a graph of n symbols. A graph with a cycle or malformed
//! nodes (which the verifier rejects) still prints, each body in id order,
//! for diagnostics.

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::schedule::Schedule;
use crate::sink::IoSink;
use core::fmt::{self, Write};

/// Indentation stops growing at this many levels (four spaces each);
/// deeper lines say their level in a trailing `; nesting N` comment.
pub const MAX_INDENT: usize = 32;

const NONE: u32 = u32::MAX;

/// [`MAX_INDENT`] levels of four spaces.
const SPACES: &str = "                                                                                                                                ";
const _: () = assert!(SPACES.len() == 4 * MAX_INDENT);

/// Where each body comes from: the schedule, or (for a graph with a
/// cycle) each lambda's nodes in id order, bucketed once.
enum Bodies {
    Scheduled(Schedule),
    ById(Vec<Vec<Sym>>),
}

impl Bodies {
    fn of(g: &Graph) -> Bodies {
        if let Ok(s) = Schedule::new(g) {
            return Bodies::Scheduled(s);
        }
        let mut members = vec![Vec::new(); g.lambdas().len()];
        for s in g.syms() {
            let n = g.data(s);
            if matches!(n.op, Op::Param(_)) {
                continue;
            }
            if let Some(Op::Lambda(i)) = n.scope.and_then(|l| g.op(l))
                && let Some(m) = members.get_mut(i as usize)
            {
                m.push(s);
            }
        }
        Bodies::ById(members)
    }

    fn body<'b>(&'b self, g: &Graph, lam: Sym) -> &'b [Sym] {
        match self {
            Bodies::Scheduled(s) => s.body(g, lam),
            Bodies::ById(m) => match g.op(lam) {
                Some(Op::Lambda(i)) => m.get(i as usize).map_or(&[], Vec::as_slice),
                _ => &[],
            },
        }
    }
}

struct Printer<'g, W> {
    g: &'g Graph,
    numbers: Vec<u32>,
    next: u32,
    out: W,
}

impl<W: Write> Printer<'_, W> {
    fn sym(&mut self, s: Sym) -> fmt::Result {
        if let Some(n) = self.g.name(s) {
            return write!(self.out, "%{n}");
        }
        if s.index() >= self.g.len() {
            return write!(self.out, "%?{}", s.as_u32());
        }
        let slot = &mut self.numbers[s.index()];
        if *slot == NONE {
            *slot = self.next;
            self.next += 1;
        }
        write!(self.out, "%{}", *slot)
    }

    /// Starts a line at nesting `level`.
    fn indent(&mut self, level: usize) -> fmt::Result {
        self.out.write_str(&SPACES[..4 * level.min(MAX_INDENT)])
    }

    /// Ends a line at nesting `level`.
    fn newline(&mut self, level: usize) -> fmt::Result {
        if level > MAX_INDENT {
            write!(self.out, " ; nesting {level}")?;
        }
        self.out.write_char('\n')
    }

    /// `(params) -> results {` and the end of the header line at `level`.
    fn signature(&mut self, lam: Sym, level: usize) -> fmt::Result {
        let g = self.g;
        let params = g.lambda(lam).map_or(&[][..], |l| &l.params[..]);
        self.out.write_char('(')?;
        for (i, &p) in params.iter().enumerate() {
            if i > 0 {
                self.out.write_str(", ")?;
            }
            self.sym(p)?;
            write!(self.out, ": {}", g.data(p).ty)?;
        }
        self.out.write_char(')')?;
        let results = g.lambda(lam).map_or(&[][..], |l| &l.results[..]);
        let mut first = true;
        for t in results.iter().filter_map(|&r| g.val_ty(r)) {
            self.out.write_str(if first { " -> " } else { ", " })?;
            first = false;
            write!(self.out, "{t}")?;
        }
        self.out.write_str(" {")?;
        self.newline(level)
    }

    fn node(&mut self, s: Sym, level: usize) -> fmt::Result {
        let g = self.g;
        let n = g.data(s);
        self.indent(level)?;
        if let Some(m) = n.mask {
            self.out.write_char('@')?;
            self.sym(m)?;
            self.out.write_char(' ')?;
        }
        self.sym(s)?;
        write!(self.out, ": {} = ", n.ty)?;
        match n.op {
            Op::Const(imm) => write!(self.out, "const {imm}")?,
            Op::Array(i) => match g.array_const(i) {
                Some(v) => write!(self.out, "array {v}")?,
                None => write!(self.out, "array ?{i}")?,
            },
            op => {
                self.out.write_str(&op.prim().name())?;
                if let Op::Get(i) = op {
                    write!(self.out, ".{i}")?;
                } else if n.depth > 0 {
                    write!(self.out, ".{}", n.depth)?;
                }
                for (i, &a) in g.args(s).iter().enumerate() {
                    self.out.write_str(if i == 0 { " " } else { ", " })?;
                    if n.is_bcast(i) {
                        self.out.write_char('*')?;
                    }
                    self.sym(a)?;
                }
            }
        }
        self.newline(level)
    }

    fn ret(&mut self, lam: Sym, level: usize) -> fmt::Result {
        let g = self.g;
        self.indent(level)?;
        self.out.write_str("ret")?;
        let results = g.lambda(lam).map_or(&[][..], |l| &l.results[..]);
        for (i, &r) in results.iter().enumerate() {
            self.out.write_str(if i == 0 { " " } else { ", " })?;
            self.sym(r)?;
        }
        self.newline(level)
    }

    fn function(&mut self, bodies: &Bodies, f: Sym) -> fmt::Result {
        let g = self.g;
        self.next = 0;
        write!(self.out, "func @{}", g.function_name(f).unwrap_or("?"))?;
        self.signature(f, 0)?;
        // (lambda, its body, next position, nesting level of the body)
        let mut stack: Vec<(Sym, &[Sym], usize, usize)> = vec![(f, bodies.body(g, f), 0, 1)];
        while let Some(top) = stack.last_mut() {
            let (lam, level) = (top.0, top.3);
            let Some(&s) = top.1.get(top.2) else {
                stack.pop();
                self.ret(lam, level)?;
                self.indent(level - 1)?;
                self.out.write_char('}')?;
                self.newline(level - 1)?;
                continue;
            };
            top.2 += 1;
            if let Op::Lambda(_) = g.data(s).op {
                self.indent(level)?;
                self.sym(s)?;
                self.out.write_str(" = lambda ")?;
                self.signature(s, level)?;
                stack.push((s, bodies.body(g, s), 0, level + 1));
            } else {
                self.node(s, level)?;
            }
        }
        Ok(())
    }
}

/// Writes a graph in canonical form to `out` as it goes (see the module
/// doc); fails only when `out` does.
fn write_graph_fmt<W: Write>(g: &Graph, out: W) -> fmt::Result {
    let bodies = Bodies::of(g);
    let mut p = Printer { g, numbers: vec![NONE; g.len().max(1)], next: 0, out };
    for (i, &f) in g.functions().iter().enumerate() {
        if i > 0 {
            p.out.write_char('\n')?;
        }
        p.function(&bodies, f)?;
    }
    Ok(())
}

/// Streams a graph in canonical form to `out` (no whole text in memory):
/// the first write error is returned and printing stops there.
pub fn write_graph<W: std::io::Write + ?Sized>(g: &Graph, out: &mut W) -> std::io::Result<()> {
    let mut sink = IoSink::new(out);
    let printed = write_graph_fmt(g, &mut sink);
    sink.finish(printed)
}

/// Prints a graph in canonical form.
pub fn print_graph(g: &Graph) -> String {
    let mut out = String::new();
    // Writing to a `String` cannot fail.
    let _ = write_graph_fmt(g, &mut out);
    out
}
