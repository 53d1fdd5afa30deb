//! The digest's §004 test vector, exactly.

use regalloc_pebble::{Dag, Move, RegClass, Regs, Setup, pebble, replay};

/// `t1 = x ∘ y; q = y ∘ z; v = t1 ∘ y`: sources x, y, z; sinks q, v.
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

#[test]
fn three_and_two_registers() {
    let (dag, [x, y, z, ..]) = document_dag();
    let s3 = pebble(&dag, Regs::uniform(3)).unwrap();
    println!("{:?}", s3.moves);
    assert_eq!(replay(&dag, &Setup::plain(Regs::uniform(3)), &s3).unwrap(), (s3.loads, s3.stores));
    let loaded: Vec<u32> = s3.moves.iter().filter_map(|m| match m { Move::Load { value, .. } => Some(*value), _ => None }).collect();
    assert_eq!(loaded, vec![x, y, z]);
    let s2 = pebble(&dag, Regs::uniform(2)).unwrap();
    println!("{:?}", s2.moves);
    assert_eq!(s2.loads, 3);
}
