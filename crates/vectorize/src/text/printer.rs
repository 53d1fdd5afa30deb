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
//! Invariants: never panics and never recurses (an explicit stack of open
//! bodies); a graph with a cycle or malformed nodes (which the verifier
//! rejects) still prints, in id order, for diagnostics.

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::schedule::Schedule;
use core::fmt::Write;

const NONE: u32 = u32::MAX;

struct Printer<'g> {
    g: &'g Graph,
    sched: Option<Schedule>,
    numbers: Vec<u32>,
    next: u32,
    out: String,
}

impl Printer<'_> {
    fn sym(&mut self, s: Sym) -> String {
        if let Some(n) = self.g.name(s) {
            return format!("%{n}");
        }
        if s.index() >= self.g.len() {
            return format!("%?{}", s.as_u32());
        }
        let slot = &mut self.numbers[s.index()];
        if *slot == NONE {
            *slot = self.next;
            self.next += 1;
        }
        format!("%{}", *slot)
    }

    fn body(&self, lam: Sym) -> Vec<Sym> {
        match &self.sched {
            Some(s) => s.body(self.g, lam).to_vec(),
            None => self
                .g
                .syms()
                .filter(|&s| self.g.data(s).scope == Some(lam) && !matches!(self.g.data(s).op, Op::Param(_)))
                .collect(),
        }
    }

    fn signature(&mut self, lam: Sym) {
        let params = self.g.lambda(lam).map_or_else(Vec::new, |l| l.params.clone());
        self.out.push('(');
        for (i, &p) in params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let name = self.sym(p);
            let ty = self.g.data(p).ty.clone();
            let _ = write!(self.out, "{name}: {ty}");
        }
        self.out.push(')');
        let results = self.g.result_types(lam);
        if !results.is_empty() {
            self.out.push_str(" -> ");
            for (i, t) in results.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let _ = write!(self.out, "{t}");
            }
        }
        self.out.push_str(" {\n");
    }

    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("    ");
        }
    }

    fn node(&mut self, s: Sym, level: usize) {
        let n = self.g.data(s).clone();
        self.indent(level);
        if let Some(m) = n.mask {
            let m = self.sym(m);
            let _ = write!(self.out, "@{m} ");
        }
        let name = self.sym(s);
        let _ = write!(self.out, "{name}: {} = ", n.ty);
        let prim = n.op.prim();
        match n.op {
            Op::Const(imm) => {
                let _ = write!(self.out, "const {imm}");
            }
            Op::Array(i) => match self.g.array_const(i) {
                Some(v) => {
                    let _ = write!(self.out, "array {v}");
                }
                None => {
                    let _ = write!(self.out, "array ?{i}");
                }
            },
            _ => {
                self.out.push_str(&prim.name());
                if let Op::Get(i) = n.op {
                    let _ = write!(self.out, ".{i}");
                } else if n.depth > 0 {
                    let _ = write!(self.out, ".{}", n.depth);
                }
                let args = self.g.args(s).to_vec();
                for (i, &a) in args.iter().enumerate() {
                    self.out.push_str(if i == 0 { " " } else { ", " });
                    if n.is_bcast(i) {
                        self.out.push('*');
                    }
                    let a = self.sym(a);
                    self.out.push_str(&a);
                }
            }
        }
        self.out.push('\n');
    }

    fn ret(&mut self, lam: Sym, level: usize) {
        self.indent(level);
        self.out.push_str("ret");
        let results = self.g.lambda(lam).map_or_else(Vec::new, |l| l.results.clone());
        for (i, &r) in results.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            let r = self.sym(r);
            self.out.push_str(&r);
        }
        self.out.push('\n');
    }

    fn function(&mut self, f: Sym) {
        self.next = 0;
        let name = self.g.function_name(f).unwrap_or("?").to_string();
        let _ = write!(self.out, "func @{name}");
        self.signature(f);
        // (lambda, its body, next position, indent level)
        let mut stack: Vec<(Sym, Vec<Sym>, usize, usize)> = vec![(f, self.body(f), 0, 1)];
        while let Some(top) = stack.last_mut() {
            let (lam, level) = (top.0, top.3);
            let Some(&s) = top.1.get(top.2) else {
                stack.pop();
                self.ret(lam, level);
                self.indent(level - 1);
                self.out.push_str("}\n");
                continue;
            };
            top.2 += 1;
            if let Op::Lambda(_) = self.g.data(s).op {
                self.indent(level);
                let name = self.sym(s);
                let _ = write!(self.out, "{name} = lambda ");
                self.signature(s);
                let body = self.body(s);
                stack.push((s, body, 0, level + 1));
            } else {
                self.node(s, level);
            }
        }
    }
}

/// Prints a graph in canonical form.
pub fn print_graph(g: &Graph) -> String {
    let mut p =
        Printer { g, sched: Schedule::new(g).ok(), numbers: vec![NONE; g.len().max(1)], next: 0, out: String::new() };
    for (i, &f) in g.functions().iter().enumerate() {
        if i > 0 {
            p.out.push('\n');
        }
        p.function(f);
    }
    p.out
}
