//! Graphviz `dot` output for graphs, dominator trees, post-dominator trees
//! and loop nesting forests.
//!
//! Invariants: output is deterministic (nodes in id order, edges in
//! successor order); labels are escaped for dot's quoted strings; only
//! nodes reachable from the entry are drawn for trees and forests, while
//! the CFG shows every node (unreachable ones dashed). Loop clusters nest
//! through an explicit stack, not recursion.

use crate::graph::{Graph, Node};
use crate::{DomTree, LoopForest, Mismatch, PostDomTree};
use core::fmt::Write;

/// Escapes `s` for a dot quoted string; newlines become left-justified
/// line breaks.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\l"),
            _ => out.push(c),
        }
    }
    out
}

fn node_line(out: &mut String, n: Node, label: &str, dashed: bool) {
    let style = if dashed { ", style=dashed" } else { "" };
    let _ = writeln!(out, "  n{n} [label=\"{}\"{style}];", escape(label));
}

/// The graph: every node, with `label(n)`; the entry is drawn bold and
/// nodes unreachable from it dashed.
pub fn cfg(g: &impl Graph, label: impl Fn(Node) -> String) -> String {
    let reach = crate::Dfs::of(g);
    let mut out = String::from("digraph cfg {\n  node [shape=box, fontname=\"monospace\"];\n");
    for n in 0..g.num_nodes() as Node {
        node_line(&mut out, n, &label(n), !reach.is_reachable(n));
        if g.entry() == Some(n) {
            let _ = writeln!(out, "  n{n} [penwidth=2];");
        }
    }
    for n in 0..g.num_nodes() as Node {
        for s in g.successors(n) {
            let _ = writeln!(out, "  n{n} -> n{s};");
        }
    }
    out.push_str("}\n");
    out
}

/// A dominator tree: an edge from each immediate dominator to its children.
pub fn dom_tree(t: &DomTree, label: impl Fn(Node) -> String) -> String {
    tree("domtree", t, |n| Some(label(n)), |_| false)
}

/// A post-dominator tree, rooted at the virtual exit (drawn as `exit`).
pub fn post_dom_tree(t: &PostDomTree, label: impl Fn(Node) -> String) -> String {
    let exit = t.exit();
    tree("postdomtree", t.tree(), |n| Some(if n == exit { "exit".to_string() } else { label(n) }), |n| n == exit)
}

fn tree(
    name: &str,
    t: &DomTree,
    label: impl Fn(Node) -> Option<String>,
    virtual_node: impl Fn(Node) -> bool,
) -> String {
    let mut out = format!("digraph {name} {{\n  node [shape=box, fontname=\"monospace\"];\n");
    for &n in &sorted(t.preorder()) {
        if let Some(l) = label(n) {
            node_line(&mut out, n, &l, virtual_node(n));
        }
    }
    for &n in &sorted(t.preorder()) {
        for &c in t.children(n) {
            let _ = writeln!(out, "  n{n} -> n{c};");
        }
    }
    out.push_str("}\n");
    out
}

fn sorted(nodes: &[Node]) -> Vec<Node> {
    let mut v = nodes.to_vec();
    v.sort_unstable();
    v
}

/// The graph with each loop drawn as a cluster around its body, nested as
/// the forest nests; headers are drawn bold, irreducible loops dashed. An
/// error when `forest` was computed on another graph.
pub fn loops(g: &impl Graph, forest: &LoopForest, label: impl Fn(Node) -> String) -> Result<String, Mismatch> {
    crate::stamp::belongs("the loop forest", g.num_nodes(), g.stamp(), forest.num_nodes(), forest.stamp())?;
    let mut out = String::from("digraph loops {\n  node [shape=box, fontname=\"monospace\"];\n");
    let emit = |out: &mut String, n: Node| {
        node_line(out, n, &label(n), false);
        if forest.is_header(n) {
            let _ = writeln!(out, "  n{n} [penwidth=2];");
        }
    };
    // Nodes in no loop at the top level; each loop's own nodes (those not in
    // a nested loop) inside its cluster.
    for n in (0..g.num_nodes() as Node).filter(|&n| forest.innermost_loop(n).is_none()) {
        emit(&mut out, n);
    }
    // Open/close events over the forest, roots first, in id order.
    let mut stack: Vec<(crate::LoopId, bool)> = forest.roots().map(|l| (l, false)).collect();
    stack.reverse();
    while let Some((l, close)) = stack.pop() {
        if close {
            out.push_str("  }\n");
            continue;
        }
        let header = forest.header(l);
        let style = if forest.is_irreducible(l) { "dashed" } else { "solid" };
        let _ = writeln!(
            out,
            "  subgraph cluster_{l} {{\n  label=\"{}\"; style={style};",
            escape(&format!("{l} (header {})", label(header).lines().next().unwrap_or("")))
        );
        for &n in forest.own_nodes(l) {
            emit(&mut out, n);
        }
        stack.push((l, true));
        for &c in forest.children(l).iter().rev() {
            stack.push((c, false));
        }
    }
    for n in 0..g.num_nodes() as Node {
        for s in g.successors(n) {
            let _ = writeln!(out, "  n{n} -> n{s};");
        }
    }
    out.push_str("}\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn loops_of_another_graph_are_an_error() {
        let g = CsrGraph::from_edges(3, Some(0), [(0, 1), (1, 1), (1, 2)]).unwrap();
        let text = loops(&g, &LoopForest::of(&g), |n| format!("b{n}")).unwrap();
        assert!(text.contains("subgraph cluster_") && text.contains("n1 -> n1;"), "{text}");
        let other = CsrGraph::from_edges(5, Some(0), [(0, 4)]).unwrap();
        assert!(loops(&g, &LoopForest::of(&other), |n| format!("b{n}")).is_err());
    }
}
