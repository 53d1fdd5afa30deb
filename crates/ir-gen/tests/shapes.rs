//! Every shape the generator promises actually appears when the
//! configuration enables it, and the structural invariants hold: the entry
//! block defines every var and has no predecessors, unreachable blocks sit
//! after the return block, loops are counted by their depth's counter.

mod common;

use common::{Cfg, all_insts, assert_verifies};
use ir_core::entity::EntityRef;
use ir_core::{Arg, Format, Function, Inst, Module, Opcode, Slot};
use ir_gen::{GenConfig, Generated, generate};

/// A module with every feature on, big enough for every shape.
fn rich() -> Generated {
    let config = GenConfig {
        blocks: 3000,
        vars: 40,
        functions: 4,
        predication: 0.3,
        memory: 0.3,
        irreducible: 0.1,
        unreachable: 0.05,
        phis: 0.2,
        max_depth: 4,
        ..GenConfig::default()
    };
    let g = generate(&config, 1);
    assert_verifies(&g);
    g
}

fn main_fn(g: &Generated) -> &Function {
    g.module.function(g.main).expect("main")
}

fn count(m: &Module, pred: impl Fn(&Function, Inst) -> bool) -> usize {
    all_insts(m).into_iter().filter(|&(f, i)| pred(f, i)).count()
}

fn var_name(f: &Function, a: Arg) -> Option<&str> {
    match a {
        Arg::Var(v) => Some(f.var_name(v)),
        Arg::Imm(_) => None,
    }
}

#[test]
fn irreducible_regions_are_cycles_with_two_entries() {
    let g = generate(&GenConfig { blocks: 200, irreducible: 0.5, ..GenConfig::default() }, 3);
    assert_verifies(&g);
    let f = main_fn(&g);
    let cfg = Cfg::new(f);
    let pairs = cfg.irreducible_pairs();
    assert!(!pairs.is_empty(), "no irreducible region\n{g:?}");
    for (a, b) in pairs {
        // Each block of the pair decrements a counter before branching.
        for x in [a, b] {
            let blk = cfg.blocks[cfg.pos[x]];
            let decrements = f.block_insts(blk).any(|i| {
                f.opcode(i) == Opcode::Sub
                    && f.arg(f.operands(i)[0]).and_then(|a| var_name(f, a)).is_some_and(|n| n.starts_with('k'))
            });
            assert!(decrements, "{blk} does not count down");
        }
    }
    // None when the rate is 0.
    let none = generate(&GenConfig { blocks: 200, irreducible: 0.0, ..GenConfig::default() }, 3);
    assert!(Cfg::new(main_fn(&none)).irreducible_pairs().is_empty());
}

#[test]
fn loops_are_counted_and_nest() {
    let g = rich();
    let f = main_fn(&g);
    let cfg = Cfg::new(f);
    let back = cfg.back_edges();
    assert!(!back.is_empty());
    for &(latch, header) in &back {
        // Loop header or cycle block: `%kc = setp.sgt %kN, 0` right before
        // its `br %kc`; the back edge's source decrements the same `%kN`.
        let h = cfg.blocks[cfg.pos[header]];
        let br = f.terminator(h).expect("terminated");
        let test = f.layout().prev_inst(br).expect("a test before the branch");
        assert_eq!((f.opcode(test), f.int_cc(test)), (Opcode::Setp, Some(ir_core::IntCC::Sgt)));
        assert_eq!(f.var_name(f.results(test)[0]), "kc");
        let counter = f.arg(f.operands(test)[0]).and_then(|a| var_name(f, a)).expect("a var");
        assert!(counter.starts_with('k') && counter != "kc", "header {h} tests {counter}");
        let l = cfg.blocks[cfg.pos[latch]];
        let decrement = f
            .block_insts(l)
            .any(|i| f.opcode(i) == Opcode::Sub && f.results(i).first().is_some_and(|&r| f.var_name(r) == counter));
        assert!(decrement, "{l} does not decrement {counter}");
    }
    // Nesting: counters of several depths.
    let text = ir_core::text::print_function(&g.module, g.main);
    for k in ["%k0 = sub %k0, 1", "%k1 = sub %k1, 1", "%k2 = sub %k2, 1"] {
        assert!(text.contains(k), "no {k}");
    }
    // Some trip counts are data-dependent: `%kN = urem %v, max_trips + 1`.
    assert!(text.lines().any(|l| l.starts_with("    %k") && l.contains(" = urem %") && l.ends_with(", 4")));
}

#[test]
fn switches_diamonds_ladders_and_chains_appear() {
    let g = rich();
    let f = main_fn(&g);
    let cfg = Cfg::new(f);
    // Switch with 2-4 cases on a masked value.
    let switches: Vec<Inst> =
        f.blocks().filter_map(|b| f.terminator(b)).filter(|&t| f.opcode(t) == Opcode::Switch).collect();
    assert!(!switches.is_empty());
    for &s in &switches {
        let cases = f.switch_table(s).expect("table").cases.len();
        assert!((2..=4).contains(&cases));
        assert_eq!(f.arg(f.operands(s)[0]).and_then(|a| var_name(f, a)), Some("sw"));
    }
    // Diamonds: a branch whose two sides meet again right away (if-else),
    // or whose one side jumps to the other (if-then).
    let join_of = |x: usize| -> Option<usize> {
        let blk = cfg.blocks[cfg.pos[x]];
        let t = f.terminator(blk)?;
        (f.opcode(t) == Opcode::Jump).then(|| cfg.succs[x][0])
    };
    let mut if_else = 0;
    let mut if_then = 0;
    let mut ladder = 0;
    for &b in &cfg.blocks {
        let Some(t) = f.terminator(b) else { continue };
        if f.opcode(t) != Opcode::Br || cfg.succs[b.index()].len() != 2 {
            continue;
        }
        let (x, y) = (cfg.succs[b.index()][0], cfg.succs[b.index()][1]);
        let join = match (join_of(x), join_of(y)) {
            (Some(j), Some(k)) if j == k => {
                if_else += 1;
                Some(j)
            }
            (Some(j), _) if j == y => {
                if_then += 1;
                Some(j)
            }
            (_, Some(k)) if k == x => {
                if_then += 1;
                Some(k)
            }
            _ => None,
        };
        // A ladder: the join of one diamond is the branch of the next.
        if let Some(j) = join
            && f.terminator(cfg.blocks[cfg.pos[j]]).is_some_and(|t| f.opcode(t) == Opcode::Br)
        {
            ladder += 1;
        }
    }
    assert!(if_else > 0 && if_then > 0 && ladder > 0, "{if_else} {if_then} {ladder}");
    // A chain: three blocks in a row joined by jumps, each with one predecessor.
    let straight = |x: usize| cfg.preds[x].len() == 1 && join_of(cfg.preds[x][0]) == Some(x);
    let chain = cfg.blocks.iter().any(|b| {
        let x = b.index();
        straight(x) && straight(cfg.preds[x][0]) && straight(cfg.preds[cfg.preds[x][0]][0])
    });
    assert!(chain);
}

#[test]
fn early_exits_leave_from_inside_loops() {
    let g = rich();
    let f = main_fn(&g);
    let cfg = Cfg::new(f);
    let ret = cfg.ret_block(f);
    let exits: Vec<usize> = cfg.preds[ret]
        .iter()
        .copied()
        .filter(|&p| {
            cfg.reachable[p] && f.terminator(cfg.blocks[cfg.pos[p]]).is_some_and(|t| f.opcode(t) == Opcode::Br)
        })
        .collect();
    assert!(exits.len() > 1);
    let inside_loop = exits.iter().any(|&e| {
        cfg.back_edges().iter().any(|&(latch, header)| cfg.pos[header] < cfg.pos[e] && cfg.pos[e] < cfg.pos[latch])
    });
    assert!(inside_loop, "no early exit inside a loop");
}

#[test]
fn unreachable_blocks_follow_the_return_block() {
    let g = rich();
    let f = main_fn(&g);
    let cfg = Cfg::new(f);
    let ret = cfg.ret_block(f);
    let dead: Vec<usize> = cfg.blocks.iter().map(|b| b.index()).filter(|&b| !cfg.reachable[b]).collect();
    assert!(!dead.is_empty());
    for &d in &dead {
        assert!(cfg.pos[d] > cfg.pos[ret], "unreachable block before the return block");
        assert!(cfg.succs[d].iter().all(|&s| s == ret || !cfg.reachable[s]));
        assert!(cfg.preds[d].iter().all(|&p| !cfg.reachable[p]));
    }
    // Everything before the return block is reachable.
    assert!(cfg.blocks.iter().all(|b| cfg.pos[b.index()] > cfg.pos[ret] || cfg.reachable[b.index()]));
}

#[test]
fn guards_phis_and_calls_appear() {
    let g = rich();
    let m = &g.module;
    let guarded = |negated: bool| count(m, |f, i| f.guard(i).is_some_and(|gd| gd.negated == negated));
    assert!(guarded(false) > 0 && guarded(true) > 0);
    assert!(count(m, |f, i| f.guard(i).is_some() && f.opcode(i).touches_memory() && f.opcode(i) != Opcode::Call) > 0);
    assert!(count(m, |f, i| f.guard(i).is_some() && f.opcode(i) == Opcode::Call) > 0);
    assert!(count(m, |f, i| f.opcode(i) == Opcode::Call) > 0);
    assert!(count(m, |f, i| f.opcode(i) == Opcode::Phi) > 0);
    // Phis have one incoming value per predecessor block (the verifier
    // checks it); their blocks are joins.
    for (f, i) in all_insts(m) {
        if f.opcode(i) == Opcode::Phi {
            assert!(!f.phi_blocks(i).is_empty());
        }
    }
    for op in
        [Opcode::Setp, Opcode::Fsetp, Opcode::Select, Opcode::FptosiSat, Opcode::Sitofp, Opcode::Rotl, Opcode::Smax]
    {
        assert!(count(m, |f, i| f.opcode(i) == op) > 0, "no {op}");
    }
}

#[test]
fn memory_instructions_and_descriptors_appear() {
    let g = rich();
    let m = &g.module;
    for op in [
        Opcode::Load,
        Opcode::Store,
        Opcode::Tfma,
        Opcode::Tfill,
        Opcode::Dma,
        Opcode::Tsum,
        Opcode::Tredmax,
        Opcode::Matmul,
    ] {
        assert!(count(m, |f, i| f.opcode(i) == op) > 0, "no {op}");
    }
    let mut exact = 0;
    let mut var_offset = 0;
    let mut var_size = 0;
    let mut broadcast = 0;
    let mut cross_object_dma = 0;
    for (f, i) in all_insts(m) {
        if !matches!(f.opcode(i).format(), Format::TensorMap | Format::TensorReduce) {
            continue;
        }
        let slots = f.tensor_slots(i);
        let descs: Vec<_> = slots.iter().filter_map(|s| if let Slot::Desc(d) = s { Some(*d) } else { None }).collect();
        broadcast += slots.iter().filter(|s| matches!(s, Slot::Scalar(_))).count();
        // One size operand per instruction.
        assert!(descs.windows(2).all(|w| w[0].size == w[1].size), "sizes differ");
        for d in &descs {
            match (f.arg(d.offset).expect("exists"), f.arg(d.size).expect("exists")) {
                (Arg::Imm(_), Arg::Imm(_)) => exact += 1,
                (Arg::Var(_), _) => var_offset += 1,
                (_, Arg::Var(_)) => var_size += 1,
            }
        }
        if f.opcode(i) == Opcode::Dma && descs[0].mem != descs[1].mem {
            cross_object_dma += 1;
        }
    }
    assert!(exact > 0 && var_offset > 0 && var_size > 0 && broadcast > 0 && cross_object_dma > 0);
}

#[test]
fn entry_defines_every_var_and_has_no_predecessors() {
    let g = rich();
    for (_, f) in g.module.functions() {
        let entry = f.entry_block().expect("entry");
        let cfg = Cfg::new(f);
        assert!(cfg.preds[entry.index()].is_empty());
        let mut defined = vec![false; f.num_vars()];
        for &p in f.params() {
            defined[p.index()] = true;
        }
        for i in f.block_insts(entry) {
            if f.guard(i).is_none() && f.opcode(i) == Opcode::Const {
                defined[f.results(i)[0].index()] = true;
            }
        }
        assert!(defined.iter().all(|&d| d), "{}: a var is not defined on entry", f.name());
    }
}
