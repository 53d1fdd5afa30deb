//! Memory dependences on an IR that has nothing to do with Keel's.
//!
//! `Toy` below is the kind of IR an accelerator compiler might have:
//! named buffers of known length, statements that list the buffer ranges
//! they read and write (a start that is a number, `scale · var + add`, or
//! unknown; a length that is a number or unknown), maybe under a
//! predicate, maybe opaque (a runtime call reading or writing anything),
//! and blocks that list their
//! successors. Implementing `cfg_dom::Graph` and `memdep::MemCode` for it
//! (the `impl` blocks below) is all it takes. `main` prints the digest's
//! test vector 2 as a dependence table, then the carried answers of a
//! tiled loop.
//!
//! Run it with `cargo run -p memdep --example foreign_ir_memdep`.

use cfg_dom::{Graph, Versioned};
use memdep::{Access, Effects, MemCode, Offset, SymbolChange};

/// Where a range starts.
#[derive(Copy, Clone, Debug)]
pub enum Start {
    At(i64),
    Var { var: u32, scale: i64, add: i64 },
    Unknown,
}

/// One range a statement reads or writes.
#[derive(Copy, Clone, Debug)]
pub struct Touch {
    pub buf: u32,
    pub start: Start,
    pub len: Option<u64>,
    pub write: bool,
}

/// A statement.
#[derive(Clone, Debug, Default)]
pub struct Stmt {
    /// What it reads like, for printing.
    pub text: String,
    pub touches: Vec<Touch>,
    /// Under a predicate: may not run.
    pub predicated: bool,
    /// A runtime call that may read anything, or write anything.
    pub reads_all: bool,
    pub writes_all: bool,
}

/// How a variable used in starts changes: set by statements, set on entry
/// to blocks, or a loop counter (`+= step` per trip of the loop headed by
/// `header`, reset when the loop is entered). Fixed when all are empty.
#[derive(Clone, Debug, Default)]
pub struct Var {
    pub set_by: Vec<u32>,
    pub set_on_entry: Vec<u32>,
    pub counter: Option<(u32, i64)>,
}

/// A function of the toy IR.
#[derive(Clone, Debug, Default)]
pub struct Toy {
    pub bufs: Vec<(String, u64)>,
    pub vars: Vec<Var>,
    pub stmts: Vec<Stmt>,
    /// Per block: its statements and its successors; block 0 is the entry.
    pub blocks: Vec<(Vec<u32>, Vec<u32>)>,
    preds: Vec<Vec<u32>>,
}

impl Toy {
    /// A function from its parts (predecessor lists derived here).
    pub fn new(bufs: Vec<(String, u64)>, vars: Vec<Var>, stmts: Vec<Stmt>, blocks: Vec<(Vec<u32>, Vec<u32>)>) -> Toy {
        let mut preds = vec![Vec::new(); blocks.len()];
        for (b, (_, succs)) in blocks.iter().enumerate() {
            for &s in succs {
                preds[s as usize].push(b as u32);
            }
        }
        Toy { bufs, vars, stmts, blocks, preds }
    }
}

// ---- The whole adapter: the two traits, for the toy IR. ----

impl Graph for Toy {
    fn num_nodes(&self) -> usize {
        self.blocks.len()
    }
    fn entry(&self) -> Option<u32> {
        (!self.blocks.is_empty()).then_some(0)
    }
    fn successors(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.blocks[n as usize].1.iter().copied()
    }
    fn predecessors(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.preds[n as usize].iter().copied()
    }
}

/// The toy IR keeps no versions.
impl Versioned for Toy {}

impl MemCode for Toy {
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn num_insts(&self) -> usize {
        self.stmts.len()
    }
    fn num_objects(&self) -> usize {
        self.bufs.len()
    }
    fn object_len(&self, o: u32) -> Option<u64> {
        self.bufs.get(o as usize).map(|b| b.1)
    }
    fn num_symbols(&self) -> usize {
        self.vars.len()
    }
    fn block_insts(&self, b: u32) -> impl Iterator<Item = u32> + '_ {
        self.blocks[b as usize].0.iter().copied()
    }
    fn accesses(&self, i: u32, out: &mut Vec<Access>) -> Effects {
        let s = &self.stmts[i as usize];
        for t in &s.touches {
            let offset = match t.start {
                Start::At(x) => Offset::Exact(x),
                Start::Var { var, scale, add } => Offset::Affine { sym: var, scale, add },
                Start::Unknown => Offset::Unknown,
            };
            out.push(if t.write { Access::write(t.buf, offset, t.len) } else { Access::read(t.buf, offset, t.len) });
        }
        Effects { guarded: s.predicated, reads_anything: s.reads_all, writes_anything: s.writes_all }
    }
    fn symbol_changes(&self, var: u32, out: &mut Vec<SymbolChange>) {
        let v = &self.vars[var as usize];
        out.extend(v.set_by.iter().map(|&s| SymbolChange::Inst(s)));
        out.extend(v.set_on_entry.iter().map(|&b| SymbolChange::Block(b)));
        out.extend(v.counter.map(|(header, step)| SymbolChange::Induction { header, step }));
    }
}

// ---- Two programs, and their dependences. ----

fn stmt(text: &str, touches: Vec<Touch>) -> Stmt {
    Stmt { text: text.into(), touches, ..Stmt::default() }
}

fn at(buf: u32, start: i64, len: u64, write: bool) -> Touch {
    Touch { buf, start: Start::At(start), len: Some(len), write }
}

/// The digest's test vector 2: md1 = a[0, 32], md2 = a[0, x] (x unknown),
/// ir4 defines anything, ir5 is predicated, ir6 uses anything (the toy IR
/// can say "only writes", which Keel's opaque calls cannot).
pub fn vector2() -> Toy {
    let bufs = vec![("a".to_string(), 64), ("b".to_string(), 64)];
    let unknown_len = Touch { buf: 0, start: Start::At(0), len: None, write: true };
    let stmts = vec![
        stmt("ir1: def a[0,32]", vec![at(0, 0, 32, true)]),
        stmt("ir2: def a[0,x]", vec![unknown_len]),
        stmt("ir3: use a[0,x]", vec![Touch { write: false, ..unknown_len }]),
        Stmt { writes_all: true, ..stmt("ir4: call (defines anything)", vec![]) },
        Stmt { predicated: true, ..stmt("ir5: @p def a[0,32]", vec![at(0, 0, 32, true)]) },
        Stmt { reads_all: true, ..stmt("ir6: call (uses anything)", vec![]) },
    ];
    Toy::new(bufs, vec![], stmts, vec![((0..6).collect(), vec![])])
}

/// A loop over 64-element tiles: `t` counts up by one; each trip moves
/// x[64t, 64] into a buffer, scales it, and moves it to y[64t, 64].
pub fn tiled_loop() -> Toy {
    let bufs = vec![("x".to_string(), 4096), ("y".to_string(), 4096), ("buf".to_string(), 64)];
    let tile = |buf, write| Touch { buf, start: Start::Var { var: 0, scale: 64, add: 0 }, len: Some(64), write };
    let stmts = vec![
        stmt("s0: buf <- x[64t, 64]", vec![tile(0, false), at(2, 0, 64, true)]),
        stmt("s1: buf <- 2 * buf", vec![at(2, 0, 64, false), at(2, 0, 64, true)]),
        stmt("s2: y[64t, 64] <- buf", vec![at(2, 0, 64, false), tile(1, true)]),
    ];
    // Blocks: 0 entry -> 1 header -> 2 body -> 1, and 1 -> 3 exit.
    let blocks = vec![(vec![], vec![1]), (vec![], vec![2, 3]), (vec![0, 1, 2], vec![1]), (vec![], vec![])];
    Toy::new(bufs, vec![Var { counter: Some((1, 1)), ..Var::default() }], stmts, blocks)
}

fn main() {
    let toy = vector2();
    let deps = memdep::memdep(&toy, &toy).expect("the toy program is well formed");
    // The baseline and the oracle agree (no symbols here).
    assert_eq!(deps, memdep::naive(&toy, &toy).expect("well formed"));
    let name = |i: u32| toy.stmts[i as usize].text.split(':').next().unwrap_or("?").to_string();
    // The document's table exactly: ir3 <- {ir1, ir2}; ir6 <- {ir1, ir2,
    // ir4, ir5}.
    assert_eq!(deps.reaching_insts(2), [0, 1]);
    assert_eq!(deps.reaching_insts(5), [0, 1, 3, 4]);
    println!("digest test vector 2, in the toy IR:");
    for (i, s) in toy.stmts.iter().enumerate() {
        let mut defs: Vec<String> = deps.reaching_insts(i as u32).into_iter().map(name).collect();
        defs.dedup();
        if !deps.sites().uses_of_inst(i as u32).is_empty() {
            println!("  {:<32} depends on {{{}}}", s.text, defs.join(", "));
        }
    }

    let toy = tiled_loop();
    let q = memdep::MemQueries::new(&toy, &toy).expect("well formed");
    let l = q.loops().loops().next().expect("one loop");
    println!("tiled loop, dependences carried from one trip to a later one:");
    for p in q.carried_pairs(l) {
        let describe = |s: memdep::Site| format!("{} (access {})", name_of(&toy, s.inst), s.access);
        println!("  {} -> {}: {:?}", describe(p.earlier), describe(p.later), p.answer);
    }
    let on = |buf: u32| {
        q.carried_pairs(l).iter().any(|p| q.access(p.earlier.inst, p.earlier.access).is_some_and(|a| a.object == buf))
    };
    assert!(!on(0) && !on(1) && on(2), "tiles of x and y are independent across trips; the buffer is not");
    println!("  (no pair on x or y: the tiles are independent across trips)");
}

fn name_of(toy: &Toy, i: u32) -> String {
    toy.stmts[i as usize].text.split(':').next().unwrap_or("?").to_string()
}
