//! The digest's two test vectors (§002) and the saxpy kernel, exactly.

use ir_core::{Function, Inst, Module};
use memdep::{MemDep, MemDeps, Summaries};

fn load(name: &str) -> Module {
    let path = format!("{}/../../docs/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    ir_core::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap().0
}

/// The instructions of the function in layout order.
fn insts(f: &Function) -> Vec<Inst> {
    f.blocks().flat_map(|b| f.block_insts(b)).collect()
}

/// Per instruction that reads memory: the 1-based positions (among the
/// memory instructions, the document's `irN`) of the instructions it
/// depends on.
fn table(f: &Function, deps: &MemDeps) -> Vec<(usize, Vec<usize>)> {
    let mem: Vec<Inst> = insts(f).into_iter().filter(|&i| f.opcode(i).touches_memory()).collect();
    let pos = |i: u32| mem.iter().position(|m| m.as_u32() == i).unwrap() + 1;
    mem.iter()
        .enumerate()
        .filter(|(_, i)| !deps.sites().uses_of_inst(i.as_u32()).is_empty())
        .map(|(k, &i)| (k + 1, deps.reaching_insts(i.as_u32()).into_iter().map(pos).collect()))
        .collect()
}

fn analyse(m: &Module, name: &str) -> (Function, MemDeps) {
    let f = m.function(m.function_by_name(name).unwrap()).unwrap().clone();
    let s = Summaries::of(m);
    let deps = MemDep::new().compute_function(m, &f, Some(&s)).unwrap();
    (f, deps)
}

#[test]
fn vector1_exact_partial_kills() {
    let m = load("memdep_vector1.kir");
    let (f, deps) = analyse(&m, "vector1");
    // ir2 <- {ir1}; ir4 <- {ir1, ir3}; ir6 <- {ir3, ir5}.
    assert_eq!(table(&f, &deps), vec![(2, vec![1]), (4, vec![1, 3]), (6, vec![3, 5])]);
}

#[test]
fn vector2_inexact_guarded_and_opaque() {
    let m = load("memdep_vector2.kir");
    let (f, deps) = analyse(&m, "vector2");
    // ir3 <- {ir1, ir2}; ir6 <- {ir1, ir2, ir4, ir5}. ir4 is a call to an
    // external function, which in Keel may read any memory too
    // (docs/ir.md §6.5), so it is a use as well: of ir1 and ir2.
    assert_eq!(table(&f, &deps), vec![(3, vec![1, 2]), (4, vec![1, 2]), (6, vec![1, 2, 4, 5])]);
}

#[test]
fn saxpy_debug() {
    let m = load("saxpy.kir");
    let (f, deps) = analyse(&m, "saxpy");
    eprintln!("{:?}", table(&f, &deps));
}
