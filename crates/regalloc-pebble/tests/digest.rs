//! The digest's §004 test vector, exactly: the block `t1 = x ∘ y; q = y ∘ z;
//! v = t1 ∘ y` with sources x, y, z. With three registers x, y, z are loaded
//! once and nothing is spilled; with two, three loads and one store (the
//! document's count: the spill of v; the results then go to memory, q by a
//! final store — the sinks' stores, which the lower bound counts).

use regalloc_pebble::{
    Dag, GameError, GlobalStep, LocalRule, Move, Options, Pebbler, RegClass, Regs, Schedule, Setup, Start, Strategy,
    allocate, check, min_registers, replay,
};

/// The document's DAG: sources x, y, z; sinks q, v.
fn document_dag() -> (Dag, [u32; 6]) {
    let mut b = Dag::builder();
    let s = RegClass::Scalar;
    let (x, y, z) = (b.source(s), b.source(s), b.source(s));
    let t1 = b.node(s, &[x, y]);
    let q = b.node(s, &[y, z]);
    let v = b.node(s, &[t1, y]);
    b.sink(q);
    b.sink(v);
    (b.build().unwrap(), [x, y, z, t1, q, v])
}

fn play(dag: &Dag, p: u32, rule: LocalRule) -> regalloc_pebble::Schedule {
    let setup = Setup { rule, ..Setup::plain(Regs::new(p, 0)) };
    let s = Pebbler::new().run(dag, &setup).unwrap();
    assert_eq!(replay(dag, &setup, &s).unwrap(), (s.loads, s.stores), "a legal game");
    s
}

#[test]
fn an_illegal_game_or_setup_names_what_breaks() {
    let (dag, [x, y, _, _, q, _]) = document_dag();
    let setup = Setup::plain(Regs::new(3, 0));
    assert_eq!(replay(&dag, &setup, &Schedule::default()), Err(GameError::NotRun { op: 0 }));
    // Without the sinks' final stores, the first sink is not in memory.
    let mut s = play(&dag, 3, LocalRule::Refined);
    s.moves.retain(|m| !matches!(m, Move::Store { .. }));
    let e = replay(&dag, &setup, &s).unwrap_err();
    assert_eq!(e, GameError::SinkMisplaced { sink: q });
    assert_eq!(e.to_string(), format!("the game ends unfinished: sink {q} is not where it must be"));
    let mut bad = setup.clone();
    bad.start = vec![Start::Red { reg: 7, dirty: false }];
    assert_eq!(replay(&dag, &bad, &s), Err(GameError::StartNotInPlay { value: x, reg: 7 }));
    bad.start = vec![Start::Red { reg: 1, dirty: false }; 2];
    let e = replay(&dag, &bad, &s).unwrap_err();
    assert_eq!(e, GameError::SharedStart { reg: 1, first: x, second: y });
    assert_eq!(e.to_string(), "bad setup: two sources start in register 1");
}

#[test]
fn three_registers_load_each_source_once_and_spill_nothing() {
    let (dag, [x, y, z, t1, q, v]) = document_dag();
    for rule in [LocalRule::Document, LocalRule::Refined] {
        let s = play(&dag, 3, rule);
        let loads: Vec<u32> =
            s.moves.iter().filter_map(|m| if let Move::Load { value, .. } = *m { Some(value) } else { None }).collect();
        assert_eq!(loads, vec![x, y, z]);
        // The only stores are the sinks' final ones, after every compute.
        let last_compute = s.moves.iter().rposition(|m| matches!(m, Move::Compute { .. })).unwrap();
        let stores: Vec<(usize, u32)> = s
            .moves
            .iter()
            .enumerate()
            .filter_map(|(k, m)| if let Move::Store { value } = *m { Some((k, value)) } else { None })
            .collect();
        assert!(stores.iter().all(|&(k, _)| k > last_compute), "{rule:?}: something spilled: {:?}", s.moves);
        let mut sunk: Vec<u32> = stores.iter().map(|&(_, v)| v).collect();
        sunk.sort_unstable();
        assert_eq!(sunk, vec![q, v]);
        assert_eq!(s.cost(), dag.lower_bound());
    }
    // The document's own play, move by move: x and y are loaded, x slides
    // to t1 (slide cost 1), t1 slides to v, z is loaded, y slides to q.
    let s = play(&dag, 3, LocalRule::Document);
    let order: Vec<u32> = s.order().map(|o| dag.outputs(o)[0]).collect();
    assert_eq!(order, vec![t1, v, q]);
    assert_eq!(
        s.reg_of(t1),
        s.moves.iter().find_map(|m| if let Move::Load { value, reg } = *m {
            (value == x).then_some(reg)
        } else {
            None
        })
    );
}

#[test]
fn two_registers_three_loads_and_one_store() {
    let (dag, [.., q, v]) = document_dag();
    for rule in [LocalRule::Document, LocalRule::Refined] {
        let s = play(&dag, 2, rule);
        assert_eq!(s.loads, 3, "{rule:?}: {:?}", s.moves);
        // One store during the game (v, to free its register for z) and the
        // final store of q.
        let last_compute = s.moves.iter().rposition(|m| matches!(m, Move::Compute { .. })).unwrap();
        let spills: Vec<u32> = s.moves[..last_compute]
            .iter()
            .filter_map(|m| if let Move::Store { value } = *m { Some(value) } else { None })
            .collect();
        assert_eq!(spills, vec![v], "{rule:?}");
        assert_eq!(s.stores, 2);
        assert!(s.moves[last_compute..].contains(&Move::Store { value: q }));
    }
}

#[test]
fn the_vector_search_finds_two_registers() {
    let (dag, _) = document_dag();
    for start in [1, 2, 3, 8] {
        let r = min_registers(&dag, RegClass::Scalar, start, 0).unwrap();
        assert_eq!((r.regs, r.lower_bound), (2, 5), "from {start}: {:?}", r.trials);
        assert!(r.trials.iter().any(|t| t.regs == 2 && t.cost == 5));
    }
}

/// The same block as a Keel function (`docs/examples/pebble_block.kir`).
fn keel_block(order: [&str; 3]) -> ir_core::Module {
    let body = order.join("\n    ");
    let src = format!(
        "func @pebble(%x: i32, %y: i32, %z: i32) -> i32, i32 {{\n    var %t1: i32\n    var %q: i32\n    var %v: i32\nbb0:\n    {body}\n    ret %q, %v\n}}\n"
    );
    ir_core::text::parse(&src).unwrap().0
}

const T1: &str = "%t1 = add %x, %y";
const Q: &str = "%q = mul %y, %z";
const V: &str = "%v = sub %t1, %y";

#[test]
fn the_keel_block_in_the_documents_model() {
    // The document's model: sources start in memory, nothing global. The
    // Keel block ends in `ret %q, %v`, which reads both results at once:
    // with three registers that changes nothing; with two, one of q and v
    // must be reloaded for the `ret` (the document's DAG has no such read).
    let m = keel_block([T1, Q, V]);
    let f = m.function(m.function_by_name("pebble").unwrap()).unwrap();
    let g = f.cfg();
    for (p, loads, stores) in [(3, 3, 0), (2, 4, 1)] {
        let o = Options { global: GlobalStep::Off, carry: false, strategy: Strategy::Blocks, ..Options::with_regs(p) };
        let a = allocate(&g, f, &o).unwrap();
        check(&g, f, &a).unwrap();
        assert_eq!((a.costs.loads, a.costs.stores, a.costs.moves), (loads, stores, 0), "p = {p}");
    }
}

#[test]
fn every_statement_order_gets_the_same_allocation() {
    // The three orders the dependences allow.
    let orders = [[T1, Q, V], [T1, V, Q], [Q, T1, V]];
    for p in [2, 3] {
        for opts in [
            Options { strategy: Strategy::Blocks, ..Options::with_regs(p) },
            Options { global: GlobalStep::Off, carry: false, strategy: Strategy::Blocks, ..Options::with_regs(p) },
        ] {
            let mut seen: Option<Vec<String>> = None;
            for order in orders {
                let m = keel_block(order);
                let f = m.function(m.function_by_name("pebble").unwrap()).unwrap();
                let g = f.cfg();
                let a = allocate(&g, f, &opts).unwrap();
                check(&g, f, &a).unwrap();
                // The allocation by instruction text: the new order with
                // registers, and the edits.
                let text = ir_core::text::print_module(&m);
                let lines: Vec<&str> =
                    text.lines().filter(|l| l.starts_with("    %") || l.starts_with("    ret")).collect();
                let mut view: Vec<String> = Vec::new();
                for (k, &i) in a.order(0).iter().enumerate() {
                    for (_, e) in a.edits_at(regalloc_pebble::ProgPoint::Before { block: 0, index: k as u32 }) {
                        view.push(format!("{} <- {} ({})", e.to, e.from, f.var_name(ir_core::Var::from_u32(e.var))));
                    }
                    let pos = f.block_insts(ir_core::Block::from_u32(0)).position(|x| x.as_u32() == i).unwrap();
                    view.push(format!("{} {:?}", lines[pos].trim(), a.allocs(i)));
                }
                match &seen {
                    None => seen = Some(view),
                    Some(s) => assert_eq!(s, &view, "p = {p}: order {order:?}"),
                }
            }
        }
    }
}

/// The same example as a Keel block (`docs/examples/pebble_block.kir`,
/// whose `ret` reads both results): played with the results left in place
/// (`Results::InPlace`, the document's accounting) it is the document's
/// game, three loads and one store at two registers, and a legal one; with
/// the `ret` reading them (`Results::Read`) the spilled `v` comes back for
/// a fourth load.
#[test]
fn the_keel_block_with_results_in_place_is_the_documents_game() {
    let src = "func @pebble(%x: i32, %y: i32, %z: i32) -> i32, i32 {
    var %t1: i32
    var %q: i32
    var %v: i32
bb0:
    %t1 = add %x, %y
    %q = mul %y, %z
    %v = sub %t1, %y
    ret %q, %v
}
";
    let (m, _) = ir_core::text::parse(src).unwrap();
    let f = m.function(m.function_by_name("pebble").unwrap()).unwrap();
    let g = f.cfg();
    let play = |results| regalloc_pebble::block_game(&g, f, 0, Regs::new(2, 0), LocalRule::Document, results).unwrap();
    let in_place = play(regalloc_pebble::Results::InPlace);
    assert_eq!((in_place.schedule.loads, in_place.schedule.stores, in_place.lower_bound), (3, 1, 3));
    let (dag, _) = document_dag();
    let doc = play_anywhere(&dag);
    assert_eq!((doc.loads, doc.stores), (3, 1), "the bare DAG with sinks anywhere agrees");
    let read = play(regalloc_pebble::Results::Read);
    assert_eq!((read.schedule.loads, read.schedule.stores), (4, 1));
}

/// The document's DAG with both sinks allowed to end in a register or in
/// memory, at two registers, by the document's rule; checked legal.
fn play_anywhere(dag: &Dag) -> Schedule {
    let mut setup = Setup { rule: LocalRule::Document, ..Setup::plain(Regs::new(2, 0)) };
    setup.sink_need = vec![regalloc_pebble::SinkNeed::Anywhere; dag.num_values()];
    let s = Pebbler::new().run(dag, &setup).unwrap();
    assert_eq!(replay(dag, &setup, &s).unwrap(), (s.loads, s.stores), "a legal game");
    s
}
