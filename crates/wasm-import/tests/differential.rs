//! Differential test of the translation: random, valid, well-typed wasm
//! functions over `i32`/`i64` (locals, arithmetic, comparisons, `select`,
//! memory, calls, and every structured-control form with parameters and
//! results: `block`, `loop`, `if`/`else`, `br`, `br_if`, `br_table`,
//! `return`, `unreachable`) run on a small reference interpreter written
//! here from the spec, and, once imported, on `ir_core::interp`. Results,
//! traps and memory must agree. Runs the reference out of fuel skips. The
//! same runs feed `memdep`'s dynamic check: every memory dependence the
//! interpreter observes is one the analysis reports. The same functions
//! also go through semantic PRE (`svfg_pre::svfg_pre_in`, loads numbered
//! through memdep) and must give the reference's answers again.

mod common;

use ir_core::Imm;
use ir_core::interp::{Config, Interpreter};
use proptest::prelude::*;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum V {
    I32,
    I64,
}

impl V {
    fn name(self) -> &'static str {
        match self {
            V::I32 => "i32",
            V::I64 => "i64",
        }
    }
    fn mask(self, x: u64) -> u64 {
        match self {
            V::I32 => x & 0xffff_ffff,
            V::I64 => x,
        }
    }
}

#[derive(Copy, Clone, Debug)]
enum Bin {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    DivS,
    RemU,
}

#[derive(Copy, Clone, Debug)]
enum Cmp {
    Eq,
    LtS,
    LtU,
    GeS,
}

#[derive(Clone, Debug)]
struct Bt {
    params: Vec<V>,
    results: Vec<V>,
}

#[derive(Clone, Debug)]
enum Ins {
    Const(V, u64),
    LocalGet(u32),
    LocalSet(u32),
    LocalTee(u32),
    Bin(V, Bin),
    Cmp(V, Cmp),
    Eqz(V),
    Wrap,
    ExtendS,
    Drop,
    Select,
    Block(Bt),
    Loop(Bt),
    If(Bt),
    Else,
    End,
    Br(u32),
    BrIf(u32),
    BrTable(Vec<u32>, u32),
    Return,
    Unreachable,
    Load(V, u32),
    Load8U(V, u32),
    Store(V, u32),
    Store8(V, u32),
    Call(usize),
}

struct Func {
    locals: Vec<V>, // params first
    nparams: usize,
    results: Vec<V>,
    body: Vec<Ins>,
}

// ---- a tiny deterministic RNG -------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn ty(&mut self) -> V {
        if self.chance(60) { V::I32 } else { V::I64 }
    }
    fn small(&mut self) -> u64 {
        match self.below(4) {
            0 => 0,
            1 => self.next() % 8,
            2 => (self.next() % 512).wrapping_sub(256),
            _ => self.next(),
        }
    }
}

// ---- the generator --------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Func,
    Block,
    Loop,
    If,
    Else,
}

struct Frame {
    kind: Kind,
    height: usize,
    params: Vec<V>,
    results: Vec<V>,
}

impl Frame {
    fn label(&self) -> &[V] {
        if self.kind == Kind::Loop { &self.params } else { &self.results }
    }
}

struct Gen<'a> {
    rng: &'a mut Rng,
    locals: Vec<V>,
    sigs: &'a [(Vec<V>, Vec<V>)],
    me: usize,
    code: Vec<Ins>,
    stack: Vec<V>,
    ctrl: Vec<Frame>,
}

impl Gen<'_> {
    fn emit(&mut self, i: Ins) {
        self.code.push(i);
    }

    fn push_value(&mut self, t: V) {
        let candidates: Vec<u32> = (0..self.locals.len() as u32).filter(|&l| self.locals[l as usize] == t).collect();
        if !candidates.is_empty() && self.rng.chance(50) {
            let l = candidates[self.rng.below(candidates.len())];
            self.emit(Ins::LocalGet(l));
        } else {
            let c = t.mask(self.rng.small());
            self.emit(Ins::Const(t, c));
        }
        self.stack.push(t);
    }

    fn height(&self) -> usize {
        self.ctrl.last().map_or(0, |f| f.height)
    }

    /// Makes the values above the frame exactly `want`, keeping the
    /// longest matching prefix.
    fn normalize(&mut self, want: &[V]) {
        let h = self.height();
        let above = self.stack[h..].to_vec();
        let mut keep = 0;
        while keep < above.len() && keep < want.len() && above[keep] == want[keep] {
            keep += 1;
        }
        for _ in keep..above.len() {
            self.emit(Ins::Drop);
            self.stack.pop();
        }
        for &t in &want[keep..] {
            self.push_value(t);
        }
    }

    /// Puts `want` on top (values below may stay).
    fn provide(&mut self, want: &[V]) {
        let h = self.height();
        let n = want.len();
        if self.stack.len() >= h + n && self.stack[self.stack.len() - n..] == *want {
            return;
        }
        for &t in want {
            self.push_value(t);
        }
    }

    fn close(&mut self) {
        let f = self.ctrl.last().expect("a frame");
        let (kind, params, results) = (f.kind, f.params.clone(), f.results.clone());
        self.normalize(&results);
        if kind == Kind::If && params != results {
            // An `if` whose params differ from its results needs an `else`.
            self.open_else();
            return;
        }
        if kind == Kind::If && self.rng.chance(50) {
            self.open_else();
            return;
        }
        let f = self.ctrl.pop().expect("a frame");
        self.emit(Ins::End);
        self.stack.truncate(f.height);
        self.stack.extend(f.results);
    }

    fn open_else(&mut self) {
        self.emit(Ins::Else);
        let f = self.ctrl.last_mut().expect("an if");
        f.kind = Kind::Else;
        let (h, params) = (f.height, f.params.clone());
        self.stack.truncate(h);
        self.stack.extend(params);
    }

    /// After an unconditional transfer the rest of the frame is dead:
    /// close it right away (its `end` is valid with any stack).
    fn after_jump(&mut self) {
        let f = self.ctrl.last().expect("a frame");
        if f.kind == Kind::If {
            let (h, params) = (f.height, f.params.clone());
            self.emit(Ins::Else);
            self.ctrl.last_mut().expect("an if").kind = Kind::Else;
            self.stack.truncate(h);
            self.stack.extend(params);
            return;
        }
        if f.kind == Kind::Func {
            // Dead code to the end of the function: just end it.
            self.stack.truncate(0);
            let results = f.results.clone();
            self.stack.extend(results);
            self.ctrl.pop();
            self.emit(Ins::End);
            return;
        }
        let f = self.ctrl.pop().expect("a frame");
        self.emit(Ins::End);
        self.stack.truncate(f.height);
        self.stack.extend(f.results);
    }

    fn block_type(&mut self) -> Bt {
        let h = self.height();
        let avail = self.stack.len() - h;
        let np = self.rng.below(3).min(avail);
        let params = self.stack[self.stack.len() - np..].to_vec();
        let nr = self.rng.below(3);
        let results = (0..nr).map(|_| self.rng.ty()).collect();
        Bt { params, results }
    }

    fn open(&mut self, kind: Kind) {
        if kind == Kind::If {
            let cond_ty = V::I32;
            // The condition goes above the parameters.
            let bt = self.block_type();
            self.push_value(cond_ty);
            self.stack.pop();
            let h = self.stack.len() - bt.params.len();
            self.emit(Ins::If(bt.clone()));
            self.ctrl.push(Frame { kind, height: h, params: bt.params, results: bt.results });
            return;
        }
        let bt = self.block_type();
        let h = self.stack.len() - bt.params.len();
        self.emit(if kind == Kind::Loop { Ins::Loop(bt.clone()) } else { Ins::Block(bt.clone()) });
        self.ctrl.push(Frame { kind, height: h, params: bt.params, results: bt.results });
    }

    fn step(&mut self) {
        let h = self.height();
        let top = self.stack.last().copied().filter(|_| self.stack.len() > h);
        let top2 =
            if self.stack.len() >= h + 2 { Some((self.stack[self.stack.len() - 2], top.unwrap())) } else { None };
        match self.rng.below(26) {
            0..=3 => {
                let t = self.rng.ty();
                self.push_value(t);
            }
            4..=6 => match top2 {
                Some((a, b)) if a == b => {
                    let ops = [
                        Bin::Add,
                        Bin::Sub,
                        Bin::Mul,
                        Bin::And,
                        Bin::Or,
                        Bin::Xor,
                        Bin::Shl,
                        Bin::ShrS,
                        Bin::ShrU,
                        Bin::DivS,
                        Bin::RemU,
                    ];
                    let op = ops[self.rng.below(ops.len())];
                    self.emit(Ins::Bin(a, op));
                    self.stack.pop();
                }
                _ => {
                    let t = top.unwrap_or(V::I32);
                    self.push_value(t);
                }
            },
            7 => match top2 {
                Some((a, b)) if a == b => {
                    let ops = [Cmp::Eq, Cmp::LtS, Cmp::LtU, Cmp::GeS];
                    let op = ops[self.rng.below(4)];
                    self.emit(Ins::Cmp(a, op));
                    self.stack.pop();
                    self.stack.pop();
                    self.stack.push(V::I32);
                }
                _ => self.push_value(V::I32),
            },
            8 => {
                if let Some(t) = top {
                    match (t, self.rng.below(3)) {
                        (_, 0) => {
                            self.emit(Ins::Eqz(t));
                            self.stack.pop();
                            self.stack.push(V::I32);
                        }
                        (V::I64, _) => {
                            self.emit(Ins::Wrap);
                            self.stack.pop();
                            self.stack.push(V::I32);
                        }
                        (V::I32, _) => {
                            self.emit(Ins::ExtendS);
                            self.stack.pop();
                            self.stack.push(V::I64);
                        }
                    }
                }
            }
            9 => {
                let l = self.rng.below(self.locals.len()) as u32;
                let t = self.locals[l as usize];
                if top == Some(t) {
                    if self.rng.chance(50) {
                        self.emit(Ins::LocalSet(l));
                        self.stack.pop();
                    } else {
                        self.emit(Ins::LocalTee(l));
                    }
                } else {
                    self.push_value(t);
                    self.emit(Ins::LocalSet(l));
                    self.stack.pop();
                }
            }
            10 => {
                if top.is_some() {
                    self.emit(Ins::Drop);
                    self.stack.pop();
                }
            }
            11 => {
                if let Some((a, b)) = top2
                    && a == b
                {
                    self.push_value(V::I32);
                    self.emit(Ins::Select);
                    self.stack.pop();
                    self.stack.pop();
                }
            }
            12 => {
                // A load at a masked address, sometimes unmasked.
                let t = self.rng.ty();
                self.push_value(V::I32);
                if self.rng.chance(85) {
                    self.emit(Ins::Const(V::I32, 1023));
                    self.emit(Ins::Bin(V::I32, Bin::And));
                }
                let off = self.rng.below(64) as u32;
                let ins = if self.rng.chance(30) { Ins::Load8U(t, off) } else { Ins::Load(t, off) };
                self.emit(ins);
                self.stack.pop();
                self.stack.push(t);
            }
            13 => {
                let t = self.rng.ty();
                let addr = self.rng.below(1024) as u64;
                self.emit(Ins::Const(V::I32, addr));
                self.stack.push(V::I32);
                self.push_value(t);
                let off = self.rng.below(64) as u32;
                let ins = if self.rng.chance(30) { Ins::Store8(t, off) } else { Ins::Store(t, off) };
                self.emit(ins);
                self.stack.pop();
                self.stack.pop();
            }
            14 | 15 => {
                if self.ctrl.len() < 8 {
                    self.open(Kind::Block);
                }
            }
            16 => {
                if self.ctrl.len() < 8 {
                    self.open(Kind::Loop);
                }
            }
            17 | 18 => {
                if self.ctrl.len() < 8 {
                    self.open(Kind::If);
                }
            }
            19 => {
                if self.ctrl.len() > 1 {
                    self.close();
                }
            }
            20 => {
                let d = self.rng.below(self.ctrl.len());
                let fi = self.ctrl.len() - 1 - d;
                // Backward branches only rarely, so loops terminate.
                if self.ctrl[fi].kind == Kind::Loop && !self.rng.chance(10) {
                    return;
                }
                let label = self.ctrl[fi].label().to_vec();
                self.provide(&label);
                self.emit(Ins::Br(d as u32));
                self.after_jump();
            }
            21 | 22 => {
                let d = self.rng.below(self.ctrl.len());
                let fi = self.ctrl.len() - 1 - d;
                let label = self.ctrl[fi].label().to_vec();
                self.provide(&label);
                if self.ctrl[fi].kind == Kind::Loop {
                    // A loop back edge: only while a counter in memory[1020] lasts.
                    self.emit(Ins::Const(V::I32, 0));
                    self.emit(Ins::Load8U(V::I32, 1020));
                    self.emit(Ins::Const(V::I32, 0));
                    self.emit(Ins::Const(V::I32, 0));
                    self.emit(Ins::Load8U(V::I32, 1020));
                    self.emit(Ins::Const(V::I32, 1));
                    self.emit(Ins::Bin(V::I32, Bin::Add));
                    self.emit(Ins::Store8(V::I32, 1020));
                    self.emit(Ins::Const(V::I32, 20));
                    self.emit(Ins::Cmp(V::I32, Cmp::LtU));
                } else {
                    self.push_value(V::I32);
                    self.stack.pop();
                }
                self.emit(Ins::BrIf(d as u32));
            }
            23 => {
                // br_table over the labels that share the chosen label's types.
                let d = self.rng.below(self.ctrl.len());
                let fi = self.ctrl.len() - 1 - d;
                if self.ctrl[fi].kind == Kind::Loop {
                    return;
                }
                let label = self.ctrl[fi].label().to_vec();
                let same: Vec<u32> = (0..self.ctrl.len())
                    .filter(|&e| {
                        let f = &self.ctrl[self.ctrl.len() - 1 - e];
                        f.kind != Kind::Loop && f.label() == label.as_slice()
                    })
                    .map(|e| e as u32)
                    .collect();
                let n = self.rng.below(4);
                let targets = (0..n).map(|_| same[self.rng.below(same.len())]).collect();
                self.provide(&label);
                self.push_value(V::I32);
                self.stack.pop();
                self.emit(Ins::BrTable(targets, d as u32));
                self.after_jump();
            }
            24 => {
                if self.me + 1 < self.sigs.len() {
                    let callee = self.me + 1 + self.rng.below(self.sigs.len() - self.me - 1);
                    let (params, results) = self.sigs[callee].clone();
                    self.provide(&params);
                    self.emit(Ins::Call(callee));
                    for _ in &params {
                        self.stack.pop();
                    }
                    self.stack.extend(results);
                } else if self.rng.chance(20) {
                    let results = self.ctrl[0].results.clone();
                    self.provide(&results);
                    self.emit(Ins::Return);
                    self.after_jump();
                }
            }
            _ => {
                if self.rng.chance(10) {
                    self.emit(Ins::Unreachable);
                    self.after_jump();
                }
            }
        }
    }
}

fn generate(seed: u64) -> Vec<Func> {
    let mut rng = Rng(seed | 1);
    let n = 1 + rng.below(3);
    let sigs: Vec<(Vec<V>, Vec<V>)> = (0..n)
        .map(|_| {
            let params = vec![V::I32, V::I64];
            let results = (0..rng.below(3)).map(|_| rng.ty()).collect();
            (params, results)
        })
        .collect();
    let mut funcs = Vec::new();
    for (me, (params, results)) in sigs.iter().enumerate() {
        let mut locals = params.clone();
        for _ in 0..rng.below(4) {
            locals.push(rng.ty());
        }
        let steps = 5 + rng.below(60);
        let mut g = Gen {
            rng: &mut rng,
            locals: locals.clone(),
            sigs: &sigs,
            me,
            code: Vec::new(),
            stack: Vec::new(),
            ctrl: vec![Frame { kind: Kind::Func, height: 0, params: Vec::new(), results: results.clone() }],
        };
        for _ in 0..steps {
            if g.ctrl.is_empty() {
                break;
            }
            g.step();
        }
        while !g.ctrl.is_empty() {
            if g.ctrl.len() == 1 {
                let results = g.ctrl[0].results.clone();
                g.normalize(&results);
                g.ctrl.pop();
                g.emit(Ins::End);
            } else {
                g.close();
            }
        }
        funcs.push(Func { locals, nparams: params.len(), results: results.clone(), body: g.code });
    }
    funcs
}

// ---- printing -----------------------------------------------------------------

fn types(prefix: &str, ts: &[V]) -> String {
    if ts.is_empty() {
        String::new()
    } else {
        format!(" ({prefix} {})", ts.iter().map(|t| t.name()).collect::<Vec<_>>().join(" "))
    }
}

fn to_wat(funcs: &[Func]) -> String {
    let mut s = String::from("(module (memory 1)\n");
    for (i, f) in funcs.iter().enumerate() {
        s += &format!("(func $f{i} (export \"f{i}\")");
        s += &types("param", &f.locals[..f.nparams]);
        s += &types("result", &f.results);
        s += &types("local", &f.locals[f.nparams..]);
        s += "\n";
        // The final `end` closes the function itself.
        for ins in &f.body[..f.body.len() - 1] {
            let line = match ins {
                Ins::Const(t, c) => {
                    format!("{}.const {}", t.name(), if *t == V::I32 { (*c as u32) as i32 as i64 } else { *c as i64 })
                }
                Ins::LocalGet(l) => format!("local.get {l}"),
                Ins::LocalSet(l) => format!("local.set {l}"),
                Ins::LocalTee(l) => format!("local.tee {l}"),
                Ins::Bin(t, op) => format!(
                    "{}.{}",
                    t.name(),
                    match op {
                        Bin::Add => "add",
                        Bin::Sub => "sub",
                        Bin::Mul => "mul",
                        Bin::And => "and",
                        Bin::Or => "or",
                        Bin::Xor => "xor",
                        Bin::Shl => "shl",
                        Bin::ShrS => "shr_s",
                        Bin::ShrU => "shr_u",
                        Bin::DivS => "div_s",
                        Bin::RemU => "rem_u",
                    }
                ),
                Ins::Cmp(t, op) => format!(
                    "{}.{}",
                    t.name(),
                    match op {
                        Cmp::Eq => "eq",
                        Cmp::LtS => "lt_s",
                        Cmp::LtU => "lt_u",
                        Cmp::GeS => "ge_s",
                    }
                ),
                Ins::Eqz(t) => format!("{}.eqz", t.name()),
                Ins::Wrap => "i32.wrap_i64".into(),
                Ins::ExtendS => "i64.extend_i32_s".into(),
                Ins::Drop => "drop".into(),
                Ins::Select => "select".into(),
                Ins::Block(bt) => format!("block{}{}", types("param", &bt.params), types("result", &bt.results)),
                Ins::Loop(bt) => format!("loop{}{}", types("param", &bt.params), types("result", &bt.results)),
                Ins::If(bt) => format!("if{}{}", types("param", &bt.params), types("result", &bt.results)),
                Ins::Else => "else".into(),
                Ins::End => "end".into(),
                Ins::Br(d) => format!("br {d}"),
                Ins::BrIf(d) => format!("br_if {d}"),
                Ins::BrTable(ts, d) => {
                    format!("br_table {} {d}", ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" "))
                }
                Ins::Return => "return".into(),
                Ins::Unreachable => "unreachable".into(),
                Ins::Load(t, o) => format!("{}.load offset={o}", t.name()),
                Ins::Load8U(t, o) => format!("{}.load8_u offset={o}", t.name()),
                Ins::Store(t, o) => format!("{}.store offset={o}", t.name()),
                Ins::Store8(t, o) => format!("{}.store8 offset={o}", t.name()),
                Ins::Call(f) => format!("call $f{f}"),
            };
            s += &line;
            s += "\n";
        }
        s += ")\n";
    }
    s + ")"
}

// ---- the reference interpreter ----------------------------------------------

#[derive(Debug, PartialEq)]
enum Outcome {
    Values(Vec<u64>),
    Trap,
    OutOfFuel,
}

struct Ref<'a> {
    funcs: &'a [Func],
    mem: Vec<u8>,
    fuel: u64,
}

struct RFrame {
    is_loop: bool,
    height: usize,
    arity: usize,
    start: usize,
    end: usize,
}

impl Ref<'_> {
    fn matching(body: &[Ins]) -> (Vec<usize>, Vec<Option<usize>>) {
        let mut end = vec![0; body.len()];
        let mut els = vec![None; body.len()];
        let mut open = Vec::new();
        for (pc, ins) in body.iter().enumerate() {
            match ins {
                Ins::Block(_) | Ins::Loop(_) | Ins::If(_) => open.push(pc),
                Ins::Else => {
                    if let Some(&o) = open.last() {
                        els[o] = Some(pc);
                    }
                }
                Ins::End => {
                    if let Some(o) = open.pop() {
                        end[o] = pc;
                    }
                }
                _ => {}
            }
        }
        (end, els)
    }

    fn call(&mut self, f: usize, args: Vec<u64>) -> Outcome {
        let func = &self.funcs[f];
        let (ends, elses) = Self::matching(&func.body);
        let mut locals = args;
        locals.resize(func.locals.len(), 0);
        let mut stack: Vec<u64> = Vec::new();
        let mut ctrl: Vec<RFrame> = Vec::new();
        let mut pc = 0;
        let body = &func.body;
        macro_rules! br {
            ($d:expr) => {{
                let fi = ctrl.len() - 1 - $d as usize;
                if fi == 0 && false {
                    unreachable!()
                }
                let fr = &ctrl[fi];
                let vals = stack.split_off(stack.len() - fr.arity);
                stack.truncate(fr.height);
                stack.extend(vals);
                if fr.is_loop {
                    pc = fr.start + 1;
                    ctrl.truncate(fi + 1);
                } else {
                    pc = fr.end;
                    ctrl.truncate(fi + 1);
                    // `end` pops the frame itself.
                }
                continue;
            }};
        }
        // The function frame: branching to it returns.
        ctrl.push(RFrame { is_loop: false, height: 0, arity: func.results.len(), start: 0, end: body.len() - 1 });
        loop {
            if self.fuel == 0 {
                return Outcome::OutOfFuel;
            }
            self.fuel -= 1;
            let ins = &body[pc];
            match ins {
                Ins::Const(_, c) => stack.push(*c),
                Ins::LocalGet(l) => stack.push(locals[*l as usize]),
                Ins::LocalSet(l) => locals[*l as usize] = stack.pop().unwrap(),
                Ins::LocalTee(l) => locals[*l as usize] = *stack.last().unwrap(),
                Ins::Bin(t, op) => {
                    let b = stack.pop().unwrap();
                    let a = stack.pop().unwrap();
                    let w = if *t == V::I32 { 32 } else { 64 };
                    let sa = if w == 32 { a as u32 as i32 as i64 } else { a as i64 };
                    let sb = if w == 32 { b as u32 as i32 as i64 } else { b as i64 };
                    let v = match op {
                        Bin::Add => a.wrapping_add(b),
                        Bin::Sub => a.wrapping_sub(b),
                        Bin::Mul => a.wrapping_mul(b),
                        Bin::And => a & b,
                        Bin::Or => a | b,
                        Bin::Xor => a ^ b,
                        Bin::Shl => a << (b % w),
                        Bin::ShrS => (sa >> (b % w)) as u64,
                        Bin::ShrU => a >> (b % w),
                        Bin::DivS => {
                            let min = if w == 32 { i32::MIN as i64 } else { i64::MIN };
                            if sb == 0 || (sa == min && sb == -1) {
                                return Outcome::Trap;
                            }
                            (sa / sb) as u64
                        }
                        Bin::RemU => {
                            if b == 0 {
                                return Outcome::Trap;
                            }
                            a % b
                        }
                    };
                    stack.push(t.mask(v));
                }
                Ins::Cmp(t, op) => {
                    let b = stack.pop().unwrap();
                    let a = stack.pop().unwrap();
                    let (sa, sb) = if *t == V::I32 {
                        (a as u32 as i32 as i64, b as u32 as i32 as i64)
                    } else {
                        (a as i64, b as i64)
                    };
                    let r = match op {
                        Cmp::Eq => a == b,
                        Cmp::LtS => sa < sb,
                        Cmp::LtU => a < b,
                        Cmp::GeS => sa >= sb,
                    };
                    stack.push(u64::from(r));
                }
                Ins::Eqz(_) => {
                    let a = stack.pop().unwrap();
                    stack.push(u64::from(a == 0));
                }
                Ins::Wrap => {
                    let a = stack.pop().unwrap();
                    stack.push(a & 0xffff_ffff);
                }
                Ins::ExtendS => {
                    let a = stack.pop().unwrap();
                    stack.push(a as u32 as i32 as i64 as u64);
                }
                Ins::Drop => {
                    stack.pop();
                }
                Ins::Select => {
                    let c = stack.pop().unwrap();
                    let b = stack.pop().unwrap();
                    let a = stack.pop().unwrap();
                    stack.push(if c != 0 { a } else { b });
                }
                Ins::Block(bt) | Ins::Loop(bt) => {
                    let is_loop = matches!(ins, Ins::Loop(_));
                    let arity = if is_loop { bt.params.len() } else { bt.results.len() };
                    ctrl.push(RFrame {
                        is_loop,
                        height: stack.len() - bt.params.len(),
                        arity,
                        start: pc,
                        end: ends[pc],
                    });
                }
                Ins::If(bt) => {
                    let c = stack.pop().unwrap();
                    let fr = RFrame {
                        is_loop: false,
                        height: stack.len() - bt.params.len(),
                        arity: bt.results.len(),
                        start: pc,
                        end: ends[pc],
                    };
                    if c != 0 {
                        ctrl.push(fr);
                    } else if let Some(e) = elses[pc] {
                        ctrl.push(fr);
                        pc = e + 1;
                        continue;
                    } else {
                        pc = ends[pc] + 1;
                        continue;
                    }
                }
                Ins::Else => {
                    // The `then` arm fell through: leave by the `end`.
                    pc = ctrl.last().unwrap().end;
                    continue;
                }
                Ins::End => {
                    ctrl.pop();
                    if ctrl.is_empty() {
                        return Outcome::Values(stack.split_off(stack.len() - func.results.len()));
                    }
                }
                Ins::Br(d) => br!(*d),
                Ins::BrIf(d) => {
                    if stack.pop().unwrap() != 0 {
                        br!(*d)
                    }
                }
                Ins::BrTable(ts, d) => {
                    let i = stack.pop().unwrap() as usize;
                    let d = *ts.get(i).unwrap_or(d);
                    br!(d)
                }
                Ins::Return => return Outcome::Values(stack.split_off(stack.len() - func.results.len())),
                Ins::Unreachable => return Outcome::Trap,
                Ins::Load(t, o) | Ins::Load8U(t, o) => {
                    let a = stack.pop().unwrap() + u64::from(*o);
                    let n = if matches!(ins, Ins::Load8U(..)) {
                        1
                    } else if *t == V::I32 {
                        4
                    } else {
                        8
                    };
                    if a + n > self.mem.len() as u64 {
                        return Outcome::Trap;
                    }
                    let mut v = 0u64;
                    for k in (0..n).rev() {
                        v = v << 8 | u64::from(self.mem[(a + k) as usize]);
                    }
                    stack.push(v);
                }
                Ins::Store(t, o) | Ins::Store8(t, o) => {
                    let v = stack.pop().unwrap();
                    let a = stack.pop().unwrap() + u64::from(*o);
                    let n = if matches!(ins, Ins::Store8(..)) {
                        1
                    } else if *t == V::I32 {
                        4
                    } else {
                        8
                    };
                    if a + n > self.mem.len() as u64 {
                        return Outcome::Trap;
                    }
                    for k in 0..n {
                        self.mem[(a + k) as usize] = (v >> (8 * k)) as u8;
                    }
                }
                Ins::Call(g) => {
                    let np = self.funcs[*g].nparams;
                    let args = stack.split_off(stack.len() - np);
                    match self.call(*g, args) {
                        Outcome::Values(vs) => stack.extend(vs),
                        other => return other,
                    }
                }
            }
            pc += 1;
        }
    }
}

fn imm_bits(i: Imm) -> u64 {
    i.as_u64()
}

/// Runs one generated module; returns the memory dependences the dynamic
/// check compared.
fn run_case(seed: u64) -> u64 {
    let funcs = generate(seed);
    let wat = to_wat(&funcs);
    let bytes = wat::parse_str(&wat).unwrap_or_else(|e| panic!("seed {seed}: generated an invalid module: {e}\n{wat}"));
    let m = common::imp_partial(&wat);
    assert_eq!(m.counts.failed, 0, "seed {seed}");
    let _ = bytes;
    let analyses = memdep::fuzzing::Analyses::of(&m.module, Some(&memdep::Summaries::of(&m.module)));
    // The same functions through semantic PRE (SSA form, loads numbered
    // through memdep): they must give the reference's answers too.
    let mut pre = svfg_pre::fuzzing::to_ssa(&m.module).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    for id in pre.function_ids().collect::<Vec<_>>() {
        svfg_pre::svfg_pre_in(&mut pre, id).unwrap_or_else(|e| panic!("seed {seed}: PRE: {e}"));
    }
    if let Err(e) = ir_core::verify_module(&pre, &ir_core::VerifyOptions { ssa: true }) {
        panic!("seed {seed}: PRE output does not verify: {e}\n{}", ir_core::text::print_module(&pre));
    }
    let mut checked = 0;
    for (f, func) in funcs.iter().enumerate() {
        for args in [[0u64, 0], [1, 5], [0xffff_fff0, u64::MAX], [7, 1 << 40]] {
            let mut reference = Ref { funcs: &funcs, mem: vec![0; 65536], fuel: 100_000 };
            let want = reference.call(f, args.to_vec());
            if want == Outcome::OutOfFuel {
                continue;
            }
            let id = m.module.function_by_name(&format!("f{f}")).unwrap();
            let mut interp = Interpreter::new(&m.module, Config::default()).unwrap();
            let got = interp.call(
                id,
                &[Imm::int(ir_core::Type::I32, args[0] as i64), Imm::int(ir_core::Type::I64, args[1] as i64)],
            );
            let text =
                || format!("seed {seed}, f{f}, args {args:?}\n{wat}\n{}", common::func_text(&m, &format!("f{f}")));
            match (&want, got) {
                (Outcome::Values(w), Ok(g)) => {
                    let g: Vec<u64> = g.into_iter().map(imm_bits).collect();
                    assert_eq!(&g, w, "{}", text());
                    assert_eq!(func.results.len(), g.len());
                    let mem: Vec<u8> =
                        interp.memory().elements(ir_core::Mem::from_u32(0)).iter().map(|b| b.as_u64() as u8).collect();
                    assert!(mem == reference.mem, "memory differs: {}", text());
                }
                (Outcome::Trap, Err(t)) => {
                    use ir_core::interp::TrapKind::*;
                    assert!(matches!(t.kind, Trap | OutOfBounds | DivisionByZero | IntegerOverflow), "{t}: {}", text());
                }
                (w, g) => panic!("reference {w:?}, IR {g:?}: {}", text()),
            }
            let pre_id = pre.function_by_name(&format!("f{f}")).unwrap();
            let mut pre_interp = Interpreter::new(&pre, Config::default()).unwrap();
            let got = pre_interp.call(
                pre_id,
                &[Imm::int(ir_core::Type::I32, args[0] as i64), Imm::int(ir_core::Type::I64, args[1] as i64)],
            );
            match (&want, got) {
                (Outcome::Values(w), Ok(g)) => {
                    let g: Vec<u64> = g.into_iter().map(imm_bits).collect();
                    assert_eq!(&g, w, "after PRE: {}", text());
                    let mem: Vec<u8> = pre_interp
                        .memory()
                        .elements(ir_core::Mem::from_u32(0))
                        .iter()
                        .map(|b| b.as_u64() as u8)
                        .collect();
                    assert!(mem == reference.mem, "memory differs after PRE: {}", text());
                }
                (Outcome::Trap, Err(_)) => {}
                (w, g) => panic!("after PRE: reference {w:?}, IR {g:?}: {}", text()),
            }
            let imm_args = [Imm::int(ir_core::Type::I32, args[0] as i64), Imm::int(ir_core::Type::I64, args[1] as i64)];
            let d = memdep::fuzzing::check_run(&m.module, &analyses, id, &imm_args, Config::default().fuel, None);
            assert!(d.failures.is_empty(), "memdep: {:?}: {}", d.failures.first(), text());
            checked += d.flow + d.output + d.anti;
        }
    }
    checked
}

#[test]
fn a_few_fixed_seeds() {
    let mut checked = 0;
    for seed in 1..200u64 {
        checked += run_case(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    }
    assert!(checked > 100, "memdep's dynamic check compared only {checked} dependences");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_agree(seed in any::<u64>()) {
        run_case(seed);
    }
}
