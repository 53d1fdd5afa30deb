use vectorize::import::import_function;
use vectorize::text::print_graph;

#[test]
fn examples() {
    let src = std::fs::read_to_string("../../docs/examples/vectorize_examples.kir").unwrap();
    let (m, _) = ir_core::text::parse(&src).unwrap();
    for (id, f) in m.functions() {
        let imp = import_function(&m, id).unwrap_or_else(|e| panic!("{}: {e}", f.name()));
        vectorize::verify(&imp.graph).unwrap();
        println!("{}", print_graph(&imp.graph));
        let v = vectorize::vectorize(&imp.graph, imp.func, &vec![true; imp.graph.param_types(imp.func).len()]).unwrap();
        println!("{}", print_graph(&v.graph));
    }
    let src = "func @d(%a: i32, %b: i32, %c: i1) -> i32 {
    var %x: i32
    var %p: i1
bb0:
    br %c, bb1, bb2
bb1:
    %x = sdiv %a, %b
    jump bb3
bb2:
    %p = setp.slt %a, %b
    %x = add %a, 1
    @%p %x = mul %x, %b
    jump bb3
bb3:
    ret %x
}
";
    let (m, _) = ir_core::text::parse(src).unwrap();
    let imp = import_function(&m, m.function_by_name("d").unwrap()).unwrap();
    vectorize::verify(&imp.graph).unwrap();
    println!("{}", print_graph(&imp.graph));
    let v = vectorize::vectorize(&imp.graph, imp.func, &[true, true, true]).unwrap();
    println!("{}", print_graph(&v.graph));
}

#[test]
fn lower_examples() {
    use vectorize::lower::{lower, LowerOptions, Lanes};
    let src = std::fs::read_to_string("../../docs/examples/vectorize_examples.kir").unwrap();
    let (m, _) = ir_core::text::parse(&src).unwrap();
    for (id, f) in m.functions() {
        let imp = import_function(&m, id).unwrap_or_else(|e| panic!("{}: {e}", f.name()));
        let v = vectorize::vectorize(&imp.graph, imp.func, &vec![true; imp.graph.param_types(imp.func).len()]).unwrap();
        for lanes in [Lanes::Fixed(4), Lanes::Dynamic { capacity: 16 }] {
            let l = lower(&v.graph, v.func, LowerOptions { lanes, elements: 64 }).unwrap_or_else(|e| panic!("{e}"));
            println!("{}", ir_core::text::print_module(&l.module));
        }
    }
}
