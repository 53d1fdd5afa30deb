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
