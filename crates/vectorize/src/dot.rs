//! Graphviz drawings of graphs (`keel dot` on a graph-IR file): one
//! cluster per lambda, nested as the lambdas are; a box per node labelled
//! with its name (or symbol), type and operation; an edge per argument
//! (dashed for a lambda argument, dotted for a mask).
//!
//! Bounded indentation, as in the text format ([`crate::text`]): a line
//! nested deeper than [`MAX_INDENT`] levels (two spaces each) is indented
//! [`MAX_INDENT`] levels and ends with a `// nesting N` comment, so the
//! drawing is linear in the graph's size whatever its nesting.
//!
//! Invariants: deterministic (symbols in id order, lambdas as nested);
//! iterative (an explicit stack of open clusters); O(n + e) time for n
//! symbols and e arguments, written as it goes to any
//! [`core::fmt::Write`] ([`write_graph`] streams to an [`std::io::Write`],
//! [`graph`] fills a `String`), holding only each lambda's member list.

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::sink::IoSink;
use core::fmt::{self, Write};

/// Indentation stops growing at this many levels (two spaces each);
/// deeper lines say their level in a trailing `// nesting N` comment.
pub const MAX_INDENT: usize = 32;

/// [`MAX_INDENT`] levels of two spaces.
const SPACES: &str = "                                                                ";
const _: () = assert!(SPACES.len() == 2 * MAX_INDENT);

/// A symbol's Graphviz id: `s` and its number.
struct Id(Sym);

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{}", self.0.as_u32())
    }
}

/// Writes `text` quoted for a Graphviz string (without the quotes).
fn quote(out: &mut impl Write, text: &str) -> fmt::Result {
    for c in text.chars() {
        match c {
            '\\' => out.write_str("\\\\")?,
            '"' => out.write_str("\\\"")?,
            '\n' => out.write_str("\\n")?,
            c => out.write_char(c)?,
        }
    }
    Ok(())
}

/// A node's name: `%name`, or its symbol.
fn name(g: &Graph, s: Sym) -> String {
    g.name(s).map_or_else(|| format!("{s}"), |x| format!("%{x}"))
}

fn label(out: &mut impl Write, g: &Graph, s: Sym) -> fmt::Result {
    let n = g.data(s);
    quote(out, &format!("{}: {}", name(g, s), n.ty))?;
    out.write_str("\\n")?;
    let op = match n.op {
        Op::Const(imm) => format!("const {imm}"),
        Op::Param(i) => format!("param {i}"),
        Op::Get(i) => format!("get.{i}"),
        op if n.depth > 0 => format!("{}.{}", op.prim(), n.depth),
        op => op.prim().name(),
    };
    quote(out, &op)
}

struct Drawer<W> {
    out: W,
}

impl<W: Write> Drawer<W> {
    /// Starts a line at nesting `level`.
    fn indent(&mut self, level: usize) -> fmt::Result {
        self.out.write_str(&SPACES[..2 * level.min(MAX_INDENT)])
    }

    /// Ends a line at nesting `level`.
    fn newline(&mut self, level: usize) -> fmt::Result {
        if level > MAX_INDENT {
            write!(self.out, " // nesting {level}")?;
        }
        self.out.write_char('\n')
    }

    /// `subgraph cluster_N {` and its label line, the cluster's members
    /// being at `level + 1`.
    fn open(&mut self, cluster: usize, level: usize, title: &str) -> fmt::Result {
        self.indent(level)?;
        write!(self.out, "subgraph cluster_{cluster} {{")?;
        self.newline(level)?;
        self.indent(level + 1)?;
        self.out.write_str("label=\"")?;
        quote(&mut self.out, title)?;
        self.out.write_str("\";")?;
        self.newline(level + 1)
    }

    fn draw(&mut self, g: &Graph) -> fmt::Result {
        self.out.write_str("digraph graph_ir {\n  node [shape=box, fontname=\"monospace\"];\n")?;
        // Children of each lambda (nodes and nested lambdas), in id order.
        let mut members: Vec<Vec<Sym>> = vec![Vec::new(); g.lambdas().len()];
        for s in g.syms() {
            if let Some(Op::Lambda(i)) = g.node(s).and_then(|n| n.scope).and_then(|l| g.op(l))
                && let Some(m) = members.get_mut(i as usize)
            {
                m.push(s);
            }
        }
        let mut cluster = 0usize;
        for &f in g.functions() {
            let Some(Op::Lambda(fi)) = g.op(f) else { continue };
            self.open(cluster, 1, &format!("@{}", g.function_name(f).unwrap_or("?")))?;
            cluster += 1;
            // (lambda index, next member, nesting level of its members)
            let mut stack: Vec<(usize, usize, usize)> = vec![(fi as usize, 0, 2)];
            while let Some(top) = stack.last_mut() {
                let (li, next, level) = *top;
                let Some(&s) = members.get(li).and_then(|m| m.get(next)) else {
                    stack.pop();
                    self.indent(level - 1)?;
                    self.out.write_char('}')?;
                    self.newline(level - 1)?;
                    continue;
                };
                top.1 += 1;
                match g.op(s) {
                    Some(Op::Lambda(ci)) => {
                        self.open(cluster, level, &format!("{} = lambda", name(g, s)))?;
                        cluster += 1;
                        stack.push((ci as usize, 0, level + 1));
                    }
                    _ => {
                        self.indent(level)?;
                        write!(self.out, "{} [label=\"", Id(s))?;
                        label(&mut self.out, g, s)?;
                        self.out.write_str("\"];")?;
                        self.newline(level)?;
                    }
                }
            }
        }
        for s in g.syms() {
            let n = g.data(s);
            if matches!(n.op, Op::Lambda(_)) {
                continue;
            }
            for &a in g.args(s) {
                match g.op(a) {
                    // A lambda argument points at the lambda's result.
                    Some(Op::Lambda(_)) => {
                        if let Some(&r) = g.lambda(a).and_then(|l| l.results.first()) {
                            writeln!(self.out, "  {} -> {} [style=dashed];", Id(r), Id(s))?;
                        }
                    }
                    _ => writeln!(self.out, "  {} -> {};", Id(a), Id(s))?,
                }
            }
            if let Some(m) = n.mask {
                writeln!(self.out, "  {} -> {} [style=dotted];", Id(m), Id(s))?;
            }
        }
        self.out.write_str("}\n")
    }
}

/// Streams the graph as a Graphviz `digraph` to `out` (no whole text in
/// memory): the first write error is returned and drawing stops there.
pub fn write_graph<W: std::io::Write + ?Sized>(g: &Graph, out: &mut W) -> std::io::Result<()> {
    let mut sink = IoSink::new(out);
    let drawn = Drawer { out: &mut sink }.draw(g);
    sink.finish(drawn)
}

/// The graph as a Graphviz `digraph`.
pub fn graph(g: &Graph) -> String {
    let mut out = String::new();
    // Writing to a `String` cannot fail.
    let _ = Drawer { out: &mut out }.draw(g);
    out
}
