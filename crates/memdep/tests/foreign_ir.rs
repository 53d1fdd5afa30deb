//! The toy IR of the `foreign-ir` package (no `ir-core` in it) gives
//! exactly Keel's answers: 1,000 generated programs (guards, opaque calls,
//! exact, inexact, symbolic and tiled descriptors, loops, irreducible
//! regions, input phis, unreachable blocks), copied into the toy IR, get
//! the same dependences (flow, output, anti) and the same carried answers
//! from every loop as through `KeelCode`; a planted wrong adapter (guards
//! dropped) is told apart (on about a tenth of them: where a guarded write
//! of an exact range would otherwise hide an earlier definition).

use foreign_ir::{Guard, Start, Stmt, Symbol, Touch, Toy};
use ir_gen::{GenConfig, generate};
use memdep::{KeelCode, MemCode, MemDep, MemQueries, Offset, SymbolChange};

/// The toy copy of a Keel function's memory code.
fn to_toy(code: &KeelCode, cfg: &cfg_dom::CsrGraph, drop_guards: bool) -> Toy {
    let mut stmts = Vec::with_capacity(code.num_insts());
    for i in 0..code.num_insts() as u32 {
        let mut acc = Vec::new();
        let e = code.accesses(i, &mut acc);
        let touches = acc
            .iter()
            .map(|a| {
                assert!(!a.may && a.within.is_none(), "single-function programs have no summaries");
                let start = match a.offset {
                    Offset::Exact(x) => Start::At(x),
                    Offset::Affine { sym, scale, add } => Start::Symbol { symbol: sym, scale, add },
                    Offset::Unknown => Start::Unknown,
                };
                Touch { buf: a.object, start, len: a.size, write: a.write }
            })
            .collect();
        stmts.push(Stmt {
            text: format!("i{i}"),
            touches,
            guard: if e.guarded && !drop_guards { Guard::Hidden } else { Guard::None },
            reads_all: e.reads_anything,
            writes_all: e.writes_anything,
            ..Stmt::default()
        });
    }
    let mut symbols = Vec::new();
    for s in 0..code.num_symbols() as u32 {
        let mut ch = Vec::new();
        code.symbol_changes(s, &mut ch);
        let mut v = Symbol::default();
        for c in ch {
            match c {
                SymbolChange::Inst(i) => v.set_by.push(i),
                SymbolChange::Block(b) => v.set_on_entry.push(b),
                SymbolChange::Induction { header, step } => v.counter = Some((header, step)),
            }
        }
        symbols.push(v);
    }
    let bufs = (0..code.num_objects() as u32).map(|o| (format!("m{o}"), code.object_len(o).unwrap_or(0))).collect();
    let blocks = (0..code.num_blocks() as u32)
        .map(|b| (code.block_insts(b).collect(), cfg_dom::Graph::successors(cfg, b).collect()))
        .collect();
    Toy::new(vec![], vec![], stmts, blocks).with_memory(bufs, symbols)
}

#[test]
fn the_toy_ir_gets_exactly_keels_answers() {
    let config = GenConfig {
        blocks: 30,
        vars: 10,
        memory: 0.5,
        predication: 0.3,
        phis: 0.2,
        irreducible: 0.2,
        unreachable: 0.1,
        extern_calls: 0.05,
        symbolic: 0.3,
        tiles: 0.4,
        max_trips: 4,
        ..GenConfig::default()
    };
    let (mut ctx, mut toy_ctx) = (MemDep::new(), MemDep::new());
    let (mut guarded, mut opaque, mut affine, mut ivs, mut loops, mut told_apart) = (0, 0, 0, 0, 0, 0);
    for seed in 0..1000 {
        let g = generate(&config, seed);
        let f = g.module.function(g.main).unwrap();
        let code = KeelCode::new(&g.module, f, None);
        let cfg = f.cfg();
        let toy = to_toy(&code, &cfg, false);
        let keel = ctx.compute(&cfg, &code).unwrap();
        let ours = toy_ctx.compute(&toy, &toy).unwrap();
        assert_eq!(keel, ours, "seed {seed}");
        let (qk, qt) = (MemQueries::new(&cfg, &code).unwrap(), MemQueries::new(&toy, &toy).unwrap());
        for l in qk.loops().loops() {
            loops += 1;
            assert_eq!(qk.carried_pairs(l), qt.carried_pairs(l), "seed {seed}");
        }
        let wrong = to_toy(&code, &cfg, true);
        if toy_ctx.compute(&wrong, &wrong).unwrap() != keel {
            told_apart += 1;
        }
        guarded += toy.stmts.iter().filter(|s| s.guard != Guard::None && !s.touches.is_empty()).count();
        opaque += toy.stmts.iter().filter(|s| s.reads_all).count();
        affine += toy.stmts.iter().flat_map(|s| &s.touches).filter(|t| matches!(t.start, Start::Symbol { .. })).count();
        ivs += toy.symbols.iter().filter(|v| v.counter.is_some()).count();
    }
    eprintln!(
        "guarded {guarded}, opaque {opaque}, affine {affine}, induction variables {ivs}, loops {loops}, wrong adapter told apart on {told_apart}"
    );
    assert!(guarded > 1000 && opaque > 200 && affine > 2000 && ivs > 200 && loops > 300, "too few features");
    assert!(told_apart > 50, "the planted wrong adapter was told apart on {told_apart} programs only");
}
