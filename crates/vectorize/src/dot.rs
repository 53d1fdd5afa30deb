//! Graphviz drawings of graphs (`keel dot` on a graph-IR file): one
//! cluster per lambda, nested as the lambdas are; a box per node labelled
//! with its name (or symbol), type and operation; an edge per argument
//! (dashed for a lambda argument, dotted for a mask).
//!
//! Invariant: deterministic (symbols in id order, lambdas as nested) and
//! iterative (an explicit stack of open clusters).

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use core::fmt::Write;

fn id(s: Sym) -> String {
    format!("s{}", s.as_u32())
}

fn quote(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn label(g: &Graph, s: Sym) -> String {
    let n = g.data(s);
    let name = g.name(s).map_or_else(|| format!("{s}"), |x| format!("%{x}"));
    let op = match n.op {
        Op::Const(imm) => format!("const {imm}"),
        Op::Param(i) => format!("param {i}"),
        Op::Get(i) => format!("get.{i}"),
        op if n.depth > 0 => format!("{}.{}", op.prim(), n.depth),
        op => op.prim().name(),
    };
    quote(&format!("{name}: {}\n{op}", n.ty))
}

/// The graph as a Graphviz `digraph`.
pub fn graph(g: &Graph) -> String {
    let mut out = String::from("digraph graph_ir {\n  node [shape=box, fontname=\"monospace\"];\n");
    // Children of each lambda (nodes and nested lambdas), in id order.
    let mut members: Vec<Vec<Sym>> = vec![Vec::new(); g.lambdas().len()];
    for s in g.syms() {
        if let Some(Op::Lambda(i)) = g.node(s).and_then(|n| n.scope).and_then(|l| g.op(l)) {
            members[i as usize].push(s);
        }
    }
    let mut cluster = 0usize;
    for &f in g.functions() {
        // (lambda index, next member, indent)
        let mut stack: Vec<(usize, usize, usize)> = Vec::new();
        let Some(Op::Lambda(fi)) = g.op(f) else { continue };
        let _ = writeln!(
            out,
            "  subgraph cluster_{cluster} {{\n    label=\"@{}\";",
            quote(g.function_name(f).unwrap_or("?"))
        );
        cluster += 1;
        stack.push((fi as usize, 0, 2));
        while let Some(top) = stack.last_mut() {
            let (li, next, indent) = *top;
            let pad = "  ".repeat(indent);
            let Some(&s) = members[li].get(next) else {
                stack.pop();
                let _ = writeln!(out, "{}}}", "  ".repeat(indent - 1));
                continue;
            };
            top.1 += 1;
            match g.op(s) {
                Some(Op::Lambda(ci)) => {
                    let name = g.name(s).map_or_else(|| format!("{s}"), |x| format!("%{x}"));
                    let _ = writeln!(
                        out,
                        "{pad}subgraph cluster_{cluster} {{\n{pad}  label=\"{} = lambda\";",
                        quote(&name)
                    );
                    cluster += 1;
                    stack.push((ci as usize, 0, indent + 1));
                }
                _ => {
                    let _ = writeln!(out, "{pad}{} [label=\"{}\"];", id(s), label(g, s));
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
                        let _ = writeln!(out, "  {} -> {} [style=dashed];", id(r), id(s));
                    }
                }
                _ => {
                    let _ = writeln!(out, "  {} -> {};", id(a), id(s));
                }
            }
        }
        if let Some(m) = n.mask {
            let _ = writeln!(out, "  {} -> {} [style=dotted];", id(m), id(s));
        }
    }
    out.push_str("}\n");
    out
}
