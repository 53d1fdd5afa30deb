//! Hand-written cases: what the analysis must find (soundness) and what it
//! must rule out (precision), each named after the rule it pins.

use ir_core::{Function, Inst, Module};
use memdep::{MemDep, MemDeps, Summaries};

fn module(src: &str) -> Module {
    ir_core::text::parse(src).unwrap_or_else(|d| panic!("{d:?}")).0
}

fn analyse(m: &Module) -> (Function, MemDeps) {
    let f = m.function(m.function_by_name("f").unwrap()).unwrap().clone();
    let deps = MemDep::new().compute_function(m, &f, Some(&Summaries::of(m))).unwrap();
    (f, deps)
}

/// The memory instructions in layout order.
fn mem_insts(f: &Function) -> Vec<Inst> {
    f.blocks().flat_map(|b| f.block_insts(b)).filter(|&i| f.opcode(i).touches_memory()).collect()
}

#[test]
fn an_instance_whose_symbol_changed_stays_a_dependence() {
    // W1 writes element (b & 15) + 1 of each iteration; W2 writes 20
    // elements from (b & 15) + 3. In one iteration they are disjoint, but b
    // changes between iterations (an opaque call), so W2 may overwrite an
    // earlier iteration's W1.
    let m = module(
        "mem @m: i32[64] nram\n\nextern @opaque() -> i64\n\nfunc @f(%n: i64) {\n    var %b: i64\n    var %o: i64\n    var %k: i64\n    var %c: i1\nbb0:\n    %k = copy %n\n    %b = const 0\n    jump bb1\nbb1:\n    %o = and %b, 15\n    %o = add %o, 1\n    tfill @m[%o, 1], 1\n    %o = add %o, 2\n    tfill @m[%o, 20], 2\n    %b = call @opaque()\n    %k = sub %k, 1\n    %c = setp.sgt %k, 0\n    br %c, bb1, bb2\nbb2:\n    ret\n}\n",
    );
    let (f, deps) = analyse(&m);
    let mi = mem_insts(&f);
    let (w1, w2) = (mi[0].as_u32(), mi[1].as_u32());
    assert!(deps.depends(w1, w2).output, "W2 may overwrite an earlier W1");
    // Within one iteration the two are disjoint: the same base, constants 1
    // and 3, sizes 1 and 20.
    let q = memdep::MemQueries::of_function(&m, &f, None).unwrap();
    let (s1, s2) = (memdep::Site { inst: w1, access: 0 }, memdep::Site { inst: w2, access: 0 });
    assert_eq!(q.may_overlap(s1, s2), memdep::Answer::NoDep);
}

#[test]
fn carried_flow_dependences_are_the_ones_crossing_the_back_edge() {
    // ir1 reads the buffer before ir2 refills it: it sees the previous
    // trip's ir2 (carried); ir3 reads it after: this trip's ir2 only. ir4
    // reads the tile ir3 wrote this trip; ir5 the next tile, which no trip
    // writes before.
    let m = module(
        "mem @b: f32[64] nram\nmem @x: f32[4096] dram\n\nfunc @f(%n: i64) {\n    var %t: i64\n    var %o: i64\n    var %c: i1\n    var %s: f32\nbb0:\n    %t = const 0\n    jump bb1\nbb1:\n    %o = mul %t, 64\n    %s = tsum @b[0, 64]\n    dma @b[0, 64], @x[%o, 64]\n    dma @x[%o, 64], @b[0, 64]\n    %s = tsum @x[%o, 64]\n    %o = add %o, 64\n    %s = tsum @x[%o, 64]\n    %t = add %t, 1\n    %c = setp.slt %t, %n\n    br %c, bb1, bb2\nbb2:\n    ret\n}\n",
    );
    let f = m.function(m.function_by_name("f").unwrap()).unwrap().clone();
    let options = memdep::Options { loop_carried: true, ..memdep::Options::default() };
    let deps = MemDep::with_options(options).compute_function(&m, &f, None).unwrap();
    let mi = mem_insts(&f);
    let s = deps.sites();
    let reads = |i: usize| s.uses_of_inst(mi[i].as_u32()).to_vec();
    let def = |i: usize, k: u32| s.def_id(mi[i].as_u32(), k).unwrap();
    let carried = |u: u32| deps.carried_defs(1, u).iter().flat_map(|&(a, b)| a..b).collect::<Vec<_>>();
    let (ir1, ir3, ir4, ir5) = (reads(0)[0], reads(2)[0], reads(3)[0], reads(4)[0]);
    assert_eq!(deps.defs_of_iter(ir1).collect::<Vec<_>>(), [def(1, 0)]);
    assert_eq!(carried(ir1), [def(1, 0)]);
    assert_eq!(deps.defs_of_iter(ir3).collect::<Vec<_>>(), [def(1, 0)]);
    assert!(carried(ir3).is_empty());
    assert_eq!(deps.defs_of_iter(ir4).collect::<Vec<_>>(), [def(2, 0)]);
    assert!(carried(ir4).is_empty() && deps.defs_of(ir5).is_empty());
    assert!(deps.has_carried());
}
