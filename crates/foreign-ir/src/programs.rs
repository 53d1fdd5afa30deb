//! The source documents' worked examples, written in the toy IR (the
//! examples and the analysis crates' tests run them).
//!
//! Invariant: each function here is well formed for every trait the toy IR
//! implements (ids in range, each statement in one block, phis first).

use crate::{Guard, Kind, Start, Stmt, Symbol, Touch, Toy, Var};

/// The DU-chain document's example (digest §000, figure 4 / table 3):
/// `entry→bb1, bb1→bb2, bb2→{bb3, bb4}, bb3→bb4, bb4→bb5, bb5→{bb2, bb6}`,
/// statements s1..s10 (s6 and s8 are the phis SSA inserts, so they are not
/// written). Vars `a, b, c, x, p, y` are ids 0..6; statement ids are 0..8
/// in the order s1, s2, s3, s4, s5, s7, s9, s10.
pub fn du_chains() -> Toy {
    let [a, b, c, x, p, y] = [0, 1, 2, 3, 4, 5];
    let guarded = |text, defs: &[u32], uses: &[u32]| Stmt { guard: Guard::Var(p), ..Stmt::new(text, defs, uses) };
    let stmts = vec![
        Stmt::new("s1: a = 3", &[a], &[]),
        Stmt::new("s2: b = 4", &[b], &[]),
        Stmt::new("s3: c = 5", &[c], &[]),
        Stmt::new("s4: x = a + c", &[x], &[a, c]),
        Stmt::new("s5: p = setp ...", &[p], &[]),
        guarded("s7: @p x = a + b", &[x], &[a, b]),
        guarded("s9: @p x = a - b", &[x], &[a, b]),
        Stmt::new("s10: y = x", &[y], &[x]),
    ];
    let blocks = vec![
        (vec![], vec![1]),              // entry
        (vec![0, 1, 2, 3, 4], vec![2]), // bb1
        (vec![], vec![3, 4]),           // bb2
        (vec![5], vec![4]),             // bb3
        (vec![6], vec![5]),             // bb4
        (vec![], vec![2, 6]),           // bb5
        (vec![7], vec![]),              // bb6
    ];
    Toy::new(Toy::scalars(&["a", "b", "c", "x", "p", "y"]), vec![], stmts, blocks)
}

fn touching(text: &str, touches: Vec<Touch>) -> Stmt {
    Stmt { touches, ..Stmt::new(text, &[], &[]) }
}

fn at(buf: u32, start: i64, len: u64, write: bool) -> Touch {
    Touch { buf, start: Start::At(start), len: Some(len), write }
}

/// The memory-dependence document's test vector 2 (digest §002): md1 =
/// a[0, 32], md2 = a[0, x] (x unknown), ir4 defines anything, ir5 is
/// predicated, ir6 uses anything (the toy IR can say "only writes", which
/// Keel's opaque calls cannot). Statement ids 0..6 are ir1..ir6.
pub fn memdep_vector2() -> Toy {
    let unknown_len = Touch { buf: 0, start: Start::At(0), len: None, write: true };
    let stmts = vec![
        touching("ir1: def a[0,32]", vec![at(0, 0, 32, true)]),
        touching("ir2: def a[0,x]", vec![unknown_len]),
        touching("ir3: use a[0,x]", vec![Touch { write: false, ..unknown_len }]),
        Stmt { writes_all: true, ..touching("ir4: call (defines anything)", vec![]) },
        Stmt { guard: Guard::Hidden, ..touching("ir5: @p def a[0,32]", vec![at(0, 0, 32, true)]) },
        Stmt { reads_all: true, ..touching("ir6: call (uses anything)", vec![]) },
    ];
    Toy::new(vec![], vec![], stmts, vec![((0..6).collect(), vec![])])
        .with_memory(vec![("a".to_string(), 64), ("b".to_string(), 64)], vec![])
}

/// A loop over 64-element tiles: symbol `t` counts up by one; each trip
/// moves x[64t, 64] into a buffer, scales it, and moves it to y[64t, 64].
/// Blocks: 0 entry → 1 header → 2 body → 1, and 1 → 3 exit.
pub fn tiled_loop() -> Toy {
    let tile = |buf, write| Touch { buf, start: Start::Symbol { symbol: 0, scale: 64, add: 0 }, len: Some(64), write };
    let stmts = vec![
        touching("s0: buf <- x[64t, 64]", vec![tile(0, false), at(2, 0, 64, true)]),
        touching("s1: buf <- 2 * buf", vec![at(2, 0, 64, false), at(2, 0, 64, true)]),
        touching("s2: y[64t, 64] <- buf", vec![at(2, 0, 64, false), tile(1, true)]),
    ];
    let blocks = vec![(vec![], vec![1]), (vec![], vec![2, 3]), (vec![0, 1, 2], vec![1]), (vec![], vec![])];
    let bufs = vec![("x".to_string(), 4096), ("y".to_string(), 4096), ("buf".to_string(), 64)];
    Toy::new(vec![], vec![], stmts, blocks)
        .with_memory(bufs, vec![Symbol { counter: Some((1, 1)), ..Symbol::default() }])
}

/// The pebbling document's block (digest §004) `t1 = x ∘ y; q = y ∘ z;
/// v = t1 ∘ y`, continued by `n = q + v` and followed by a loop of vector
/// work, with params `x, y, z`: vars `x, y, z, t1, q, v, n` are scalar
/// (ids 0..7), `a, b, c` vector (7..10).
pub fn pebble_block() -> Toy {
    let names = ["x", "y", "z", "t1", "q", "v", "n", "a", "b", "c"];
    let vars = names.iter().enumerate().map(|(i, n)| Var { name: n.to_string(), vector: i >= 7 }).collect();
    let [x, y, z, t1, q, v, n, a, b, c] = core::array::from_fn(|i| i as u32);
    let st = |text: &str, defs: &[u32], uses: &[u32], kind| Stmt { kind, ..Stmt::new(text, defs, uses) };
    use Kind::{Effect, Pure, Terminator};
    let stmts = vec![
        st("t1 = x * y", &[t1], &[x, y], Pure),
        st("q = y * z", &[q], &[y, z], Pure),
        st("v = t1 * y", &[v], &[t1, y], Pure),
        st("n = q + v", &[n], &[q, v], Pure),
        st("jump loop", &[], &[], Terminator),
        st("a = vload q", &[a], &[q], Effect),
        st("b = a * a", &[b], &[a, a], Pure),
        st("c = a + b", &[c], &[a, b], Pure),
        st("vstore v, c", &[], &[v, c], Effect),
        st("n = n - 1", &[n], &[n], Pure),
        st("br n, loop, exit", &[], &[n], Terminator),
        st("ret q", &[], &[q], Terminator),
    ];
    let blocks = vec![(vec![0, 1, 2, 3, 4], vec![1]), (vec![5, 6, 7, 8, 9, 10], vec![1, 2]), (vec![11], vec![])];
    Toy::new(vars, vec![x, y, z], stmts, blocks)
}
