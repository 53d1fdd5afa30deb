//! Import of scalar Keel functions: the `@p` and `@mean` of source document
//! 003 ("constructing a vectorized version of a source program having a
//! graph-based intermediate representation", `docs/references.md`), read from
//! `docs/examples/vectorize_examples.kir`, exactly, hand-written control flow (diamonds, nests, triangles, `switch`, guards,
//! phis, `trap`, loads) and generated scalar programs (lowered from the
//! graph generator's loop-free scalar graphs, then imported back), each
//! checked against `ir-core`'s interpreter on random arguments: the import
//! computes what the Keel function computes, and traps where it traps;
//! planted import bugs are caught the same way.

use ir_core::interp::{Config, run};
use ir_core::{Imm, Module, Type};
use vectorize::eval::{EvalConfig, eval};
use vectorize::fuzzing::{Bug, with_bug};
use vectorize::generate::{GenConfig, SplitMix64, generate, random_value};
use vectorize::import::{ImportErrorKind, ImportedParam, import_function};
use vectorize::lower::{Lanes, LowerOptions, lower};
use vectorize::text::print_graph;
use vectorize::{ScalarTy, ValTy, Value};

fn module(text: &str) -> Module {
    ir_core::text::parse(text).unwrap_or_else(|e| panic!("{e:?}")).0
}

#[test]
fn the_digest_examples_import_as_the_digest_writes_them() {
    let m = module(&std::fs::read_to_string("../../docs/examples/vectorize_examples.kir").unwrap());
    let p = import_function(&m, m.function_by_name("p").unwrap()).unwrap();
    assert_eq!(
        print_graph(&p.graph),
        "func @p(%a: f32, %b: f32, %c: f32) -> f32 {\n    %t: f32 = fmul %b, %c\n    %r: f32 = fadd %a, %t\n    ret %r\n}\n"
    );
    let mean = import_function(&m, m.function_by_name("mean").unwrap()).unwrap();
    assert_eq!(
        print_graph(&mean.graph),
        "func @mean(%arr: array<f32>) -> f32 {\n    %n: i64 = length %arr\n    %s: f32 = sum %arr\n    %len: f32 = sitofp %n\n    %m: f32 = fdiv %s, %len\n    ret %m\n}\n"
    );
    assert!(matches!(mean.params[..], [ImportedParam::Array { length: Some(_), .. }]));
}

/// Compares the import with the Keel function on `n` random argument sets.
fn agree(m: &Module, name: &str, n: usize, seed: u64) -> (usize, usize) {
    let t = agree_with(m, name, n, seed, import_function);
    if let Some(first) = t.first {
        panic!("{} disagreements; the first: {first}", t.wrong);
    }
    (t.same, t.traps)
}

/// What comparing an import with its Keel function found.
#[derive(Default, Debug)]
struct Tally {
    same: usize,
    traps: usize,
    wrong: usize,
    first: Option<String>,
}

/// [`agree`] with any importer, counting disagreements.
fn agree_with(
    m: &Module,
    name: &str,
    n: usize,
    seed: u64,
    importer: impl Fn(&Module, ir_core::FuncId) -> Result<vectorize::import::Imported, vectorize::import::ImportError>,
) -> Tally {
    let fid = m.function_by_name(name).unwrap();
    let imp = importer(m, fid).unwrap_or_else(|e| panic!("{name}: {e}"));
    vectorize::verify(&imp.graph).unwrap();
    let f = m.function(fid).unwrap();
    let mut rng = SplitMix64::new(seed);
    let mut t = Tally::default();
    for _ in 0..n {
        let args: Vec<Imm> = f
            .params()
            .iter()
            .map(|&p| random_value(ValTy::scalar(f.var_type(p).unwrap().into()), &mut rng).scalar().unwrap().into())
            .collect();
        let keel = run(m, fid, &args, Config::default());
        let gargs: Vec<Value> = imp
            .params
            .iter()
            .map(|p| match p {
                ImportedParam::Scalar(v) => Value::Scalar(args[f.params().iter().position(|q| q == v).unwrap()].into()),
                ImportedParam::Array { mem, .. } => {
                    let o = m.mem(*mem).unwrap();
                    let init: Vec<vectorize::Imm> = o.init.iter().map(|&x| x.into()).collect();
                    Value::from(vectorize::Array::from_imms(o.elem.into(), &init).unwrap())
                }
            })
            .collect();
        let graph = eval(&imp.graph, imp.func, &gargs, EvalConfig::default());
        let mismatch = match (keel, graph) {
            (Ok(k), Ok(g)) => {
                let k: Vec<Value> = k.results.into_iter().map(|x| Value::Scalar(x.into())).collect();
                if k == g {
                    t.same += 1;
                    None
                } else {
                    Some(format!("Keel {k:?}, graph {g:?}"))
                }
            }
            (Err(_), Err(_)) => {
                t.traps += 1;
                None
            }
            (k, g) => Some(format!("Keel {:?}, graph {:?}", k.map(|o| o.results), g)),
        };
        if let Some(m) = mismatch {
            t.wrong += 1;
            t.first.get_or_insert_with(|| format!("{name} on {args:?}: {m}\n{}", print_graph(&imp.graph)));
        }
    }
    t
}

const CONTROL: &str = "mem @tab: i32[4] dram = [10, 20, 30, 40]

func @diamond(%a: i32, %b: i32, %c: i1) -> i32 {
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

func @nest(%a: i64, %b: i64) -> i64, i64 {
    var %x: i64
    var %y: i64
    var %c: i1
    var %d: i1
bb0:
    %y = copy %b
    %c = setp.sgt %a, 0
    br %c, bb1, bb4
bb1:
    %d = setp.sgt %b, %a
    br %d, bb2, bb3
bb2:
    %x = urem %b, %a
    jump bb5
bb3:
    %x = sub %a, %b
    %y = neg %y
    jump bb5
bb4:
    %x = copy 7
    jump bb5
bb5:
    ret %x, %y
}

func @tri(%a: f64, %b: f64) -> f64 {
    var %x: f64
    var %c: i1
bb0:
    %x = fmul %a, %b
    %c = fsetp.lt %x, 0.0
    br %c, bb1, bb2
bb1:
    %x = fneg %x
    jump bb2
bb2:
    ret %x
}

func @sw(%v: i32, %a: i32) -> i32 {
    var %x: i32
bb0:
    switch %v, bb3, [0: bb1, 1: bb2, 2: bb1]
bb1:
    %x = add %a, %v
    jump bb4
bb2:
    %x = udiv %a, %v
    jump bb4
bb3:
    %x = copy -1
    jump bb4
bb4:
    ret %x
}

func @ph(%a: i32, %c: i1) -> i32 {
    var %x: i32
    var %y: i32
    var %z: i32
bb0:
    br %c, bb1, bb2
bb1:
    %x = add %a, 1
    jump bb3
bb2:
    %y = mul %a, 3
    jump bb3
bb3:
    %z = phi(bb1: %x, bb2: %y)
    ret %z
}

func @tr(%a: i32) -> i32 {
    var %c: i1
bb0:
    %c = setp.sgt %a, 5
    br %c, bb1, bb2
bb1:
    trap
bb2:
    ret %a
}

func @rets(%a: i32) -> i32 {
    var %c: i1
    var %x: i32
bb0:
    %c = setp.slt %a, 0
    br %c, bb1, bb2
bb1:
    %x = neg %a
    ret %x
bb2:
    ret %a
}

func @ld(%i: i64) -> i32 {
    var %x: i32
    var %ok: i1
bb0:
    %ok = setp.ult %i, 4
    br %ok, bb1, bb2
bb1:
    %x = load @tab[%i]
    jump bb3
bb2:
    %x = copy 0
    jump bb3
bb3:
    ret %x
}
";

#[test]
fn control_flow_imports_to_what_keel_computes() {
    let m = module(CONTROL);
    let (mut same, mut traps) = (0, 0);
    for (i, name) in ["diamond", "nest", "tri", "sw", "ph", "tr", "rets", "ld"].iter().enumerate() {
        let (s, t) = agree(&m, name, 400, i as u64);
        same += s;
        traps += t;
    }
    assert!(same > 2500 && traps > 20, "{same} agreed, {traps} trapped in both");
}

#[test]
fn planted_import_bugs_are_caught() {
    let m = module(CONTROL);
    for bug in [Bug::JoinSelectSwapped, Bug::TrapsUnmasked] {
        let wrong: usize = ["diamond", "nest", "tri", "sw", "ph", "tr", "rets", "ld"]
            .iter()
            .enumerate()
            .map(|(i, name)| with_bug(bug, || agree_with(&m, name, 100, i as u64, import_function)).wrong)
            .sum();
        assert!(wrong > 0, "{bug:?} went unnoticed");
    }
}

#[test]
fn unsupported_code_is_an_error_naming_the_instruction() {
    let m = module(
        "mem @o: i32[4] dram
func @lp(%n: i32) -> i32 {
    var %i: i32
    var %c: i1
bb0:
    %i = copy 0
    jump bb1
bb1:
    %c = setp.slt %i, %n
    br %c, bb2, bb3
bb2:
    %i = add %i, 1
    jump bb1
bb3:
    ret %i
}

func @st(%v: i32) {
bb0:
    store @o[0], %v
    ret
}

func @un(%c: i1) -> i32 {
    var %x: i32
bb0:
    br %c, bb1, bb2
bb1:
    %x = copy 1
    jump bb2
bb2:
    ret %x
}
",
    );
    let e = import_function(&m, m.function_by_name("lp").unwrap()).unwrap_err();
    assert!(e.kind == ImportErrorKind::Loop && e.inst.is_some(), "{e}");
    assert!(e.to_string().contains("loops are not imported"), "{e}");
    let e = import_function(&m, m.function_by_name("st").unwrap()).unwrap_err();
    assert!(e.kind == ImportErrorKind::Unsupported(ir_core::Opcode::Store) && e.inst.is_some(), "{e}");
    assert!(e.to_string().contains("`store` is not imported"), "{e}");
    let e = import_function(&m, m.function_by_name("un").unwrap()).unwrap_err();
    assert_eq!(e.kind, ImportErrorKind::MaybeUndefined("x".into()));
    assert!(e.kind.to_string().contains("`%x` may be read before it is defined"), "{e}");
}

#[test]
fn generated_scalar_programs_import_back() {
    // Graph -> Keel (lowered with one lane of nothing: a plain scalar
    // function with diamonds) -> graph again: the same results as Keel.
    let cfg = GenConfig { arrays: false, lifted: false, loops: false, ..GenConfig::default() };
    let (mut checked, mut traps) = (0, 0);
    for seed in 0..300u64 {
        let mut s = SplitMix64::new(seed);
        let gn = generate(&cfg, &mut s);
        let l = lower(
            &gn.graph,
            gn.func,
            LowerOptions { lanes: Lanes::Fixed(1), elements: 0, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP },
        )
        .unwrap();
        let f = l.module.function(l.func).unwrap();
        let name = f.name().to_string();
        let (c, t) = agree(&l.module, &name, 20, seed);
        checked += c;
        traps += t;
    }
    assert!(checked > 4000 && traps > 0, "{checked} agreed, {traps} trapped");
}

#[test]
fn imported_vectorized_lowered_equals_keel_per_element() {
    let m = module(&std::fs::read_to_string("../../docs/examples/vectorize_examples.kir").unwrap());
    let mut rng = SplitMix64::new(9);
    // p(a, b, c) over 64 lanes, through import, vmap, lowering, interpretation.
    let pid = m.function_by_name("p").unwrap();
    let imp = import_function(&m, pid).unwrap();
    let v = vectorize::vectorize(&imp.graph, imp.func, &[true, true, true]).unwrap();
    for lanes in [Lanes::Fixed(64), Lanes::Dynamic { capacity: 100 }] {
        let l = lower(
            &v.graph,
            v.func,
            LowerOptions { lanes, elements: 0, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP },
        )
        .unwrap();
        let xs: Vec<Vec<Imm>> = (0..3)
            .map(|_| {
                (0..64).map(|_| random_value(ValTy::scalar(ScalarTy::F32), &mut rng).scalar().unwrap().into()).collect()
            })
            .collect();
        let args: Vec<Value> = xs
            .iter()
            .map(|c| {
                let lanes: Vec<vectorize::Imm> = c.iter().map(|&x| x.into()).collect();
                Value::from(vectorize::Array::from_imms(ScalarTy::F32, &lanes).unwrap())
            })
            .collect();
        let got = l.run(&args, Config::default()).unwrap();
        for (i, ((&a, &b), &c)) in xs[0].iter().zip(&xs[1]).zip(&xs[2]).enumerate() {
            let want = run(&m, pid, &[a, b, c], Config::default()).unwrap().results[0];
            assert_eq!(got[0].array().unwrap().item(1, i), Value::Scalar(want.into()), "lane {i}");
        }
    }
    // mean over 7 rows of ragged lengths: write each row to @arr, run @mean.
    let mid = m.function_by_name("mean").unwrap();
    let imp = import_function(&m, mid).unwrap();
    let v = vectorize::vectorize(&imp.graph, imp.func, &[true]).unwrap();
    let l = lower(
        &v.graph,
        v.func,
        LowerOptions { lanes: Lanes::Fixed(7), elements: 256, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP },
    )
    .unwrap();
    let rows: Vec<Value> = (0..7).map(|_| random_value(ValTy::array(ScalarTy::F32, 1), &mut rng)).collect();
    let batch = Value::array_of(ValTy::array(ScalarTy::F32, 1), &rows).unwrap();
    let got = l.run(&[batch], Config::default()).unwrap();
    let arr = m.mems().find(|(_, o)| &*o.name == "arr").unwrap().0;
    for (i, row) in rows.iter().enumerate() {
        let a = row.array().unwrap();
        let mut interp = ir_core::interp::Interpreter::new(&m, Config::default()).unwrap();
        interp.memory_mut().write(arr, &a.scalars().map(Imm::from).collect::<Vec<_>>()).unwrap();
        let want = interp.call(mid, &[Imm::int(Type::I64, a.len() as i64)]).unwrap()[0];
        assert_eq!(got[0].array().unwrap().item(1, i), Value::Scalar(want.into()), "row {i}: {row}");
    }
}

#[test]
fn a_var_defined_many_times_gets_a_name_per_definition() {
    // 3,000 definitions of `%x`: each gets its own name (`x`, `x.1`, ...),
    // found in linear time (the suffix search resumes where it stopped).
    let n = 3000;
    let mut text = String::from("func @f(%a: i32) -> i32 {\n    var %x: i32\nbb0:\n    %x = add %a, 1\n");
    for _ in 1..n {
        text += "    %x = mul %x, %a\n";
    }
    text += "    ret %x\n}\n";
    let m = module(&text);
    let imp = import_function(&m, m.function_by_name("f").unwrap()).unwrap();
    let printed = print_graph(&imp.graph);
    assert!(printed.contains("    %x: i32 = add %a, %0\n"), "{}", &printed[..200]);
    assert!(printed.contains(&format!("    %x.{}: i32 = mul %x.{}, %a\n", n - 1, n - 2)), "{}", &printed[..200]);
    assert_eq!(agree(&m, "f", 20, 7).0, 20);
}
