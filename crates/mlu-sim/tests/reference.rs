//! Every instruction's numeric semantics against the reference: the
//! `ir-core` interpreter running the same operation as Keel IR (tensor ops,
//! scalar ops, compares, selects, conversions, loads, stores), or a plain
//! Rust loop where Keel has no such operation (2-D copies, vector
//! conversions). Random operands with edge cases (NaN with payloads, ±0,
//! infinities, subnormals, MIN/MAX, overflow wrap), sizes 0 to the largest
//! that fits, in-place and partly overlapping ranges, broadcast scalars;
//! traps must agree. Results are compared bit for bit, except that two NaN
//! results of an arithmetic operation are equal whatever their sign and
//! payload: Keel IR leaves those unspecified (`docs/ir.md` §6.7), and the
//! compiler may order a commutative operation's operands either way.
//! Operations that move bits (negation, absolute value, fill, copies,
//! `bitcast`) are compared exactly, NaNs included.
//!
//! A planted bug (`Bug::VaddUlp`: `vadd.f32` off by one ulp) must be
//! caught, proving the comparison can fail.

use ir_core::interp::{self, Config as IrConfig};
use ir_core::{Imm, Type};
use mlu_isa::{BinOp, ConvOp, FloatCC, IntCC, MachineConfig, RedOp, Ty, UnOp, VBinOp, VUnOp, text};
use mlu_sim::fuzzing::{self, Bug};
use mlu_sim::{Instance, Mode, SimOptions, Simulator};

use mlu_isa::fuzzing::SplitMix64 as Rng;

fn ir_ty(t: Ty) -> Type {
    match t {
        Ty::I1 => Type::I1,
        Ty::I8 => Type::I8,
        Ty::I16 => Type::I16,
        Ty::I32 => Type::I32,
        Ty::I64 => Type::I64,
        Ty::F32 => Type::F32,
        Ty::F64 => Type::F64,
    }
}

/// A random value of `t` with a bias to edge cases.
fn value(r: &mut Rng, t: Ty) -> u64 {
    let x = r.next_u64();
    let v = match (x % 5, t) {
        (0, Ty::F32) => u64::from(
            [
                0u32,
                0x8000_0000,
                0x7fc0_0000,
                0xffa0_0001,
                0x7f80_0000,
                0xff80_0000,
                1,
                0x7f7f_ffff,
                0x3f80_0000,
                0xbf00_0000,
            ][(x >> 8) as usize % 10],
        ),
        (0, Ty::F64) => {
            [0, 1 << 63, 0x7ff8_0000_0000_0000, 0xfff0_0000_0000_0000, 0x7ff0_0000_0000_0000, 1, 0x3ff0_0000_0000_0000]
                [(x >> 8) as usize % 7]
        }
        (0, _) => [0, 1, u64::MAX, 1 << (t.bits() - 1), (1 << (t.bits() - 1)) - 1, 2][(x >> 8) as usize % 6],
        (1, Ty::F32) => u64::from(((x >> 16) as i16 as f32 / 64.0).to_bits()),
        (1, Ty::F64) => ((x >> 16) as i16 as f64 / 3.0).to_bits(),
        (1, _) => (x >> 16) % 7,
        _ => x >> (x % 13),
    };
    t.canonical(v)
}

/// A small machine (cheap to create): 64 KiB NRAM, 16 KiB WRAM.
fn config() -> MachineConfig {
    MachineConfig {
        name: "ref".into(),
        nram_bytes: 64 * 1024,
        wram_bytes: 16 * 1024,
        sram_bytes: 4096,
        ..MachineConfig::mlu370()
    }
}

/// Runs an MLU program on one core; returns `out` or the trap kind.
fn run_mlu(src: &str, inputs: &[(&str, &[u64])], out: &str, plant: Option<Bug>) -> Result<Vec<u64>, mlu_sim::TrapKind> {
    let (p, _) = text::parse(src).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    mlu_isa::verify(&p, &config()).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    let opts = SimOptions { cores: Some(1), mode: Mode::Functional, ..SimOptions::default() };
    let mut sim = Simulator::new(&p, &config(), opts).unwrap();
    for (n, v) in inputs {
        sim.write(n, v).unwrap();
    }
    let outcome = match plant {
        Some(bug) => fuzzing::with_bug(bug, || sim.run()),
        None => sim.run(),
    };
    outcome.map_err(|t| t.kind)?;
    Ok(sim.read(out, Instance::Core(0)).unwrap())
}

/// Runs `@main` of an IR module; returns object `out` or the trap kind.
fn run_ir(src: &str, inputs: &[(&str, Ty, &[u64])], out: &str) -> Result<Vec<u64>, interp::TrapKind> {
    let (m, _) = ir_core::text::parse(src).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    ir_core::verify_module(&m, &ir_core::VerifyOptions::default()).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    let mut it = interp::Interpreter::new(&m, IrConfig::default()).unwrap();
    let by_name = |n: &str| m.mems().find(|(_, o)| &*o.name == n).map(|(id, _)| id).unwrap();
    for (n, t, v) in inputs {
        let imms: Vec<Imm> = v.iter().map(|&b| Imm::from_bits(ir_ty(*t), b)).collect();
        it.memory_mut().write(by_name(n), &imms).unwrap();
    }
    let f = m.function_by_name("main").unwrap();
    it.call(f, &[]).map_err(|t| t.kind)?;
    Ok(it.memory().elements(by_name(out)).iter().map(|i| i.bits()).collect())
}

/// Whether two results agree (see the module doc): equal bits, or both a
/// NaN of float type `t` when `any_nan` (an arithmetic result).
fn same(t: Ty, any_nan: bool, x: u64, y: u64) -> bool {
    let nan = |b: u64| match t {
        Ty::F32 => f32::from_bits(b as u32).is_nan(),
        Ty::F64 => f64::from_bits(b).is_nan(),
        _ => false,
    };
    x == y || (any_nan && nan(x) && nan(y))
}

fn agree(what: &str, t: Ty, mlu: Result<Vec<u64>, mlu_sim::TrapKind>, ir: Result<Vec<u64>, interp::TrapKind>) -> bool {
    let exact = what.contains("vneg") || what.contains("vabs") || what.contains("vfill");
    match (&mlu, &ir) {
        (Ok(a), Ok(b)) => {
            if a.len() != b.len() || a.iter().zip(b).any(|(&x, &y)| !same(t, !exact, x, y)) {
                let i = a.iter().zip(b).position(|(&x, &y)| !same(t, !exact, x, y)).unwrap_or(0);
                eprintln!("{what}: element {i}: mlu {:#x}, interpreter {:#x}", a[i], b[i]);
                return false;
            }
            true
        }
        (
            Err(mlu_sim::TrapKind::Arithmetic),
            Err(interp::TrapKind::DivisionByZero | interp::TrapKind::IntegerOverflow),
        ) => true,
        _ => {
            eprintln!("{what}: mlu {:?}, interpreter {:?}", mlu.as_ref().err(), ir.as_ref().err());
            false
        }
    }
}

const VTYPES: [Ty; 6] = [Ty::I8, Ty::I16, Ty::I32, Ty::I64, Ty::F32, Ty::F64];

/// The largest element count (a multiple of 64) for which three buffers
/// and a one-element object fit the reference machine's NRAM.
fn max_count(t: Ty) -> u64 {
    ((64 * 1024 - 128) / 3 / t.bytes()) / 64 * 64
}

/// A vector source's layout: 0: `@a`, 1: `@b`, 2: the destination itself,
/// 3: a broadcast scalar.
#[derive(Copy, Clone, Debug)]
enum Lay {
    A,
    B,
    Dst,
    Scalar,
}

/// One element-wise case: MLU text and IR text for `n` elements of `t`.
fn elementwise(mnemonic: &str, ir_op: &str, t: Ty, srcs: &[Lay], n: u64, shift: u64) -> (String, String) {
    // Three objects of n + shift elements; the destination is `@d + shift`
    // (`shift` elements: partial overlap when a source is the destination).
    let len = n + shift;
    let w = t.bytes();
    let mut mlu =
        format!(".mem @a: {t}[{len}] nram\n.mem @b: {t}[{len}] nram\n.mem @d: {t}[{len}] nram\n.mem @s: {t}[1] nram\n");
    mlu += &format!("    ld.{t} %r1, nram[@s]\n");
    let dst = format!("nram[@d + {}]", shift * w);
    let mut ir = format!(
        "mem @a: {t}[{len}] nram\nmem @b: {t}[{len}] nram\nmem @d: {t}[{len}] nram\nmem @s: {t}[1] nram\n\nfunc @main() {{\n    var %s: {t}\nbb0:\n    %s = load @s[0]\n"
    );
    let m_src = |l: &Lay| match l {
        Lay::A => "nram[@a]".to_string(),
        Lay::B => "nram[@b]".to_string(),
        Lay::Dst => "nram[@d]".to_string(),
        Lay::Scalar => "%r1".to_string(),
    };
    let i_src = |l: &Lay| match l {
        Lay::A => format!("@a[0, {n}]"),
        Lay::B => format!("@b[0, {n}]"),
        Lay::Dst => format!("@d[0, {n}]"),
        Lay::Scalar => "%s".to_string(),
    };
    let ms: Vec<String> = srcs.iter().map(m_src).collect();
    let is: Vec<String> = srcs.iter().map(i_src).collect();
    mlu += &format!("    {mnemonic}.{t} {dst}, {}, {n}\n    exit\n", ms.join(", "));
    ir += &format!("    {ir_op} @d[{shift}, {n}], {}\n    ret\n}}\n", is.join(", "));
    (mlu, ir)
}

fn inputs(r: &mut Rng, t: Ty, len: u64) -> Vec<(String, Vec<u64>)> {
    ["a", "b", "d", "s"]
        .iter()
        .map(|&o| (o.to_string(), (0..if o == "s" { 1 } else { len }).map(|_| value(r, t)).collect()))
        .collect()
}

fn compare_case(mlu: &str, ir: &str, t: Ty, ins: &[(String, Vec<u64>)], plant: Option<Bug>) -> bool {
    let mi: Vec<(&str, &[u64])> = ins.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
    let ii: Vec<(&str, Ty, &[u64])> = ins.iter().map(|(n, v)| (n.as_str(), t, v.as_slice())).collect();
    agree(mlu, t, run_mlu(mlu, &mi, "d", plant), run_ir(ir, &ii, "d"))
}

#[test]
fn vector_operations_match_the_interpreter() {
    let mut r = Rng(0x7e57);
    let mut cases = 0;
    for t in VTYPES {
        let counts = [0, 64, 128, 640, max_count(t)];
        for (round, &n) in counts.iter().enumerate() {
            let shift = if round % 2 == 1 { 128 } else { 0 };
            let n = if shift > 0 { n.min(max_count(t) - 128) } else { n };
            let layouts: [&[Lay]; 5] = [
                &[Lay::A, Lay::B],
                &[Lay::A, Lay::Scalar],
                &[Lay::Scalar, Lay::B],
                &[Lay::Dst, Lay::A],
                &[Lay::Dst, Lay::Dst],
            ];
            for op in VBinOp::ALL {
                let ir_op = format!("t{}", &op.name()[1..]);
                for lay in layouts {
                    let (m, i) = elementwise(op.name(), &ir_op, t, lay, n, shift);
                    let ins = inputs(&mut r, t, n + shift);
                    assert!(compare_case(&m, &i, t, &ins, None));
                    cases += 1;
                }
            }
            for op in VUnOp::ALL.iter().filter(|o| o.class().accepts(t)) {
                let ir_op = format!("t{}", &op.name()[1..]);
                for lay in [[Lay::A], [Lay::Dst]] {
                    let (m, i) = elementwise(op.name(), &ir_op, t, &lay, n, shift);
                    let ins = inputs(&mut r, t, n + shift);
                    assert!(compare_case(&m, &i, t, &ins, None));
                    cases += 1;
                }
            }
            for lay in [[Lay::A, Lay::B, Lay::Dst], [Lay::Scalar, Lay::A, Lay::B], [Lay::Dst, Lay::Scalar, Lay::Dst]] {
                let (m, i) = elementwise("vfma", "tfma", t, &lay, n, shift);
                let ins = inputs(&mut r, t, n + shift);
                assert!(compare_case(&m, &i, t, &ins, None));
                cases += 1;
            }
            let (m, i) = elementwise("vfill", "tfill", t, &[Lay::Scalar], n, shift);
            let ins = inputs(&mut r, t, n + shift);
            assert!(compare_case(&m, &i, t, &ins, None));
            cases += 1;
        }
    }
    assert!(cases > 500, "{cases}");
}

#[test]
fn reductions_match_the_interpreter() {
    let mut r = Rng(0x5ed);
    for t in VTYPES {
        for n in [0u64, 64, 192, 1024, max_count(t)] {
            for op in RedOp::ALL {
                let ir_op = if *op == RedOp::Sum { "tsum" } else { "tredmax" };
                let mlu = format!(
                    ".mem @a: {t}[{n}] nram\n.mem @d: {t}[1] nram\n    {}.{t} %r2, nram[@a], {n}\n    st.{t} nram[@d], %r2\n    exit\n",
                    op.name()
                );
                let ir = format!(
                    "mem @a: {t}[{n}] nram\nmem @d: {t}[1] nram\n\nfunc @main() {{\n    var %r: {t}\nbb0:\n    %r = {ir_op} @a[0, {n}]\n    store @d[0], %r\n    ret\n}}\n"
                );
                let a: Vec<u64> = (0..n).map(|_| value(&mut r, t)).collect();
                assert!(agree(&mlu, t, run_mlu(&mlu, &[("a", &a)], "d", None), run_ir(&ir, &[("a", t, &a)], "d")));
            }
        }
    }
}

#[test]
fn matmul_matches_the_interpreter() {
    let mut r = Rng(0x3a7);
    for t in VTYPES {
        for (m, k, n) in [(0, 3, 4), (2, 0, 3), (1, 1, 1), (2, 4, 3), (7, 5, 9), (16, 16, 16), (3, 64, 2)] {
            let mlu = format!(
                ".mem @a: {t}[{}] nram\n.mem @d: {t}[{}] nram\n.mem @b: {t}[{}] wram\n    mmul.{t} nram[@d], nram[@a], wram[@b], {m}, {k}, {n}\n    exit\n",
                (m * k).max(1),
                (m * n).max(1),
                (k * n).max(1)
            );
            let ir = format!(
                "mem @a: {t}[{}] nram\nmem @d: {t}[{}] nram\nmem @b: {t}[{}] wram\n\nfunc @main() {{\nbb0:\n    matmul @d[0, {}], @a[0, {}], @b[0, {}], {m}, {k}, {n}\n    ret\n}}\n",
                (m * k).max(1),
                (m * n).max(1),
                (k * n).max(1),
                m * n,
                m * k,
                k * n
            );
            let a: Vec<u64> = (0..m * k).map(|_| value(&mut r, t)).collect();
            let b: Vec<u64> = (0..k * n).map(|_| value(&mut r, t)).collect();
            let mi = [("a", a.as_slice()), ("b", b.as_slice())];
            let ii = [("a", t, a.as_slice()), ("b", t, b.as_slice())];
            assert!(agree(&mlu, t, run_mlu(&mlu, &mi, "d", None), run_ir(&ir, &ii, "d")));
        }
    }
}

/// A scalar instruction `OP.SUFFIX %r3, %r1, %r2` (or one operand) against
/// the IR instruction `%r = irop %a, %b` on many random operand pairs.
fn scalar_cases(mnemonic: &str, ir_inst: &str, arg: Ty, res: Ty, operands: usize, r: &mut Rng) {
    let ops = if operands == 1 { "%r1" } else { "%r1, %r2" };
    let mlu = format!(
        ".mem @a: {arg}[1] nram\n.mem @b: {arg}[1] nram\n.mem @d: {res}[1] nram\n    ld.{arg} %r1, nram[@a]\n    ld.{arg} %r2, nram[@b]\n    {mnemonic} %r3, {ops}\n    st.{res} nram[@d], %r3\n    exit\n"
    );
    let ir = format!(
        "mem @a: {arg}[1] nram\nmem @b: {arg}[1] nram\nmem @d: {res}[1] nram\n\nfunc @main() {{\n    var %a: {arg}\n    var %b: {arg}\n    var %r: {res}\nbb0:\n    %a = load @a[0]\n    %b = load @b[0]\n    %r = {ir_inst}\n    store @d[0], %r\n    ret\n}}\n"
    );
    // Parse once, run many times.
    let (p, _) = text::parse(&mlu).unwrap();
    let (m, _) = ir_core::text::parse(&ir).unwrap_or_else(|e| panic!("{e:?}\n{ir}"));
    ir_core::verify_module(&m, &ir_core::VerifyOptions::default()).unwrap_or_else(|e| panic!("{e:?}\n{ir}"));
    let id = |n: &str| m.mems().find(|(_, o)| &*o.name == n).map(|(i, _)| i).unwrap();
    for _ in 0..60 {
        let (a, b) = (value(r, arg), value(r, arg));
        let mut sim = Simulator::new(
            &p,
            &config(),
            SimOptions { cores: Some(1), mode: Mode::Functional, ..SimOptions::default() },
        )
        .unwrap();
        sim.write("a", &[a]).unwrap();
        sim.write("b", &[b]).unwrap();
        let got = sim.run().map(|_| sim.read("d", Instance::Core(0)).unwrap()).map_err(|t| t.kind);
        let mut it = interp::Interpreter::new(&m, IrConfig::default()).unwrap();
        it.memory_mut().write(id("a"), &[Imm::from_bits(ir_ty(arg), a)]).unwrap();
        it.memory_mut().write(id("b"), &[Imm::from_bits(ir_ty(arg), b)]).unwrap();
        let want = it
            .call(m.function_by_name("main").unwrap(), &[])
            .map(|_| it.memory().elements(id("d")).iter().map(|i| i.bits()).collect::<Vec<_>>())
            .map_err(|t| t.kind);
        // Only arithmetic can make a NaN whose bits are unspecified.
        let arith = !matches!(mnemonic.split('.').next(), Some("fneg" | "fabs" | "fcopysign" | "bitcast"));
        let ok = match (&got, &want) {
            (Ok(x), Ok(y)) => x.len() == y.len() && x.iter().zip(y).all(|(&p, &q)| same(res, arith, p, q)),
            (Err(mlu_sim::TrapKind::Arithmetic), Err(_)) => true,
            _ => false,
        };
        assert!(ok, "{mnemonic} on {a:#x}, {b:#x}: mlu {got:x?}, interpreter {want:x?}");
    }
}

#[test]
fn scalar_operations_match_the_interpreter() {
    let mut r = Rng(0xa1);
    let ints = [Ty::I1, Ty::I8, Ty::I16, Ty::I32, Ty::I64];
    for op in BinOp::ALL {
        let tys: &[Ty] = if op.class() == mlu_isa::Class::Float { &[Ty::F32, Ty::F64] } else { &ints };
        for &t in tys {
            scalar_cases(&format!("{op}.{t}"), &format!("{op} %a, %b"), t, t, 2, &mut r);
        }
    }
    for op in UnOp::ALL {
        let tys: &[Ty] = if op.class() == mlu_isa::Class::Float { &[Ty::F32, Ty::F64] } else { &ints };
        for &t in tys {
            // fexp .. fsigmoid are Keel's tensor transcendentals, as one-element tensors.
            let ir = match op {
                UnOp::Fexp | UnOp::Flog | UnOp::Ftanh | UnOp::Fsigmoid => continue,
                _ => format!("{op} %a"),
            };
            scalar_cases(&format!("{op}.{t}"), &ir, t, t, 1, &mut r);
        }
    }
    for cc in IntCC::ALL {
        for t in ints {
            scalar_cases(&format!("setp.{cc}.{t}"), &format!("setp.{cc} %a, %b"), t, Ty::I1, 2, &mut r);
        }
    }
    for cc in FloatCC::ALL {
        for t in [Ty::F32, Ty::F64] {
            scalar_cases(&format!("fsetp.{cc}.{t}"), &format!("fsetp.{cc} %a, %b"), t, Ty::I1, 2, &mut r);
        }
    }
    for op in ConvOp::ALL {
        for from in Ty::ALL {
            for to in Ty::ALL {
                if op.legal(to, from) {
                    scalar_cases(&format!("{op}.{to}.{from}"), &format!("{op} %a"), from, to, 1, &mut r);
                }
            }
        }
    }
}

#[test]
fn selects_moves_and_special_registers() {
    // `sel` against Keel's `select` (the condition: `%a ≠ 0`), `mov` against `copy`.
    let mut r = Rng(0x5e1);
    for t in Ty::ALL {
        let mlu = format!(
            ".mem @a: {t}[1] nram\n.mem @b: {t}[1] nram\n.mem @d: {t}[2] nram\n    ld.{t} %r1, nram[@a]\n    ld.{t} %r2, nram[@b]\n    sel.{t} %r3, %r1, %r1, %r2\n    mov.{t} %r4, %r2\n    st.{t} nram[@d], %r3\n    st.{t} nram[@d + {w}], %r4\n    exit\n",
            w = t.bytes()
        );
        let zero = if t.is_float() { "bitcast %a" } else { "copy %a" };
        let ir = format!(
            "mem @a: {t}[1] nram\nmem @b: {t}[1] nram\nmem @d: {t}[2] nram\n\nfunc @main() {{\n    var %a: {t}\n    var %b: {t}\n    var %bits: {it}\n    var %c: i1\n    var %r: {t}\nbb0:\n    %a = load @a[0]\n    %b = load @b[0]\n    %bits = {zero}\n    %c = setp.ne %bits, 0\n    %r = select %c, %a, %b\n    store @d[0], %r\n    %r = copy %b\n    store @d[1], %r\n    ret\n}}\n",
            it = match t {
                Ty::F32 => Ty::I32,
                Ty::F64 => Ty::I64,
                other => other,
            },
        );
        for _ in 0..40 {
            let (a, b) = ([value(&mut r, t)], [value(&mut r, t)]);
            let mi = [("a", a.as_slice()), ("b", b.as_slice())];
            let ii = [("a", t, a.as_slice()), ("b", t, b.as_slice())];
            // Selects and moves move bits: compared exactly.
            assert_eq!(
                run_mlu(&mlu, &mi, "d", None),
                run_ir(&ir, &ii, "d").map_err(|_| mlu_sim::TrapKind::Arithmetic),
                "{t}"
            );
        }
    }
    // Special registers on a 2-cluster grid of 3 cores each.
    let src = "    sreg %r0, %taskid\n    sreg %r1, %taskdim\n    sreg %r2, %coreid\n    sreg %r3, %coredim\n    sreg %r4, %clusterid\n    sreg %r5, %clusterdim\n    exit\n";
    let (p, _) = text::parse(src).unwrap();
    let opts = SimOptions { clusters: 2, cores: Some(3), mode: Mode::Functional, ..SimOptions::default() };
    let mut sim = Simulator::new(&p, &MachineConfig::mlu370(), opts).unwrap();
    sim.run().unwrap();
    for task in 0..6u32 {
        let regs = sim.registers(task).unwrap();
        assert_eq!(&regs[..6], &[u64::from(task), 6, u64::from(task % 3), 3, u64::from(task / 3), 2]);
    }
}

#[test]
fn overlapping_one_dimensional_copies_act_as_memmove() {
    for (dst, src) in [(4u64, 0u64), (0, 4), (0, 0)] {
        let mlu =
            format!(".mem @d: i8[64] nram\n    dma nram[@d + {dst}], nram[@d + {src}], 32\n    sync.move\n    exit\n");
        let d0: Vec<u64> = (0..64).collect();
        let mut want = d0.clone();
        want.copy_within(src as usize..src as usize + 32, dst as usize);
        assert_eq!(run_mlu(&mlu, &[("d", &d0)], "d", None), Ok(want));
    }
}

#[test]
fn scalar_transcendentals_match_one_element_tensor_ops() {
    let mut r = Rng(0x7a);
    for (op, ir_op) in
        [(UnOp::Fexp, "texp"), (UnOp::Flog, "tlog"), (UnOp::Ftanh, "ttanh"), (UnOp::Fsigmoid, "tsigmoid")]
    {
        for t in [Ty::F32, Ty::F64] {
            let mlu = format!(
                ".mem @a: {t}[1] nram\n.mem @d: {t}[1] nram\n    ld.{t} %r1, nram[@a]\n    {op}.{t} %r2, %r1\n    st.{t} nram[@d], %r2\n    exit\n"
            );
            let ir = format!(
                "mem @a: {t}[1] nram\nmem @d: {t}[1] nram\n\nfunc @main() {{\nbb0:\n    {ir_op} @d[0, 1], @a[0, 1]\n    ret\n}}\n"
            );
            for _ in 0..50 {
                let a = [value(&mut r, t)];
                assert!(agree(&mlu, t, run_mlu(&mlu, &[("a", &a)], "d", None), run_ir(&ir, &[("a", t, &a)], "d")));
            }
        }
    }
}

#[test]
fn two_dimensional_copies_match_a_plain_loop() {
    let mut r = Rng(0xd2);
    for (rows, bytes, ss, ds) in
        [(0u64, 8u64, 8u64, 8u64), (1, 0, 0, 0), (3, 12, 20, 16), (8, 64, 64, 128), (5, 7, 9, 7), (4, 256, 256, 256)]
    {
        let src_len = rows.saturating_sub(1) * ss + bytes + 8;
        let dst_len = rows.saturating_sub(1) * ds + bytes + 8;
        let mlu = format!(
            ".mem @s: i8[{src_len}] dram\n.mem @d: i8[{dst_len}] nram\n    dma2d nram[@d], dram[@s], {bytes}, {ds}, {ss}, {rows}\n    sync.io\n    exit\n"
        );
        let s: Vec<u64> = (0..src_len).map(|_| value(&mut r, Ty::I8)).collect();
        let d0: Vec<u64> = (0..dst_len).map(|_| value(&mut r, Ty::I8)).collect();
        let mut want = d0.clone();
        for i in 0..rows {
            for b in 0..bytes {
                want[(i * ds + b) as usize] = s[(i * ss + b) as usize];
            }
        }
        assert_eq!(run_mlu(&mlu, &[("s", &s), ("d", &d0)], "d", None), Ok(want), "{mlu}");
    }
    // Rows overlapping in one buffer act as if gathered first.
    let mlu = ".mem @d: i8[64] nram\n    dma2d nram[@d + 4], nram[@d], 8, 4, 8, 4\n    sync.move\n    exit\n";
    let d0: Vec<u64> = (0..64).collect();
    let mut want = d0.clone();
    let gathered: Vec<u64> = (0..4).flat_map(|i| d0[i * 8..i * 8 + 8].to_vec()).collect();
    for i in 0..4 {
        for b in 0..8 {
            want[4 + i * 4 + b] = gathered[i * 8 + b];
        }
    }
    assert_eq!(run_mlu(mlu, &[("d", &d0)], "d", None), Ok(want));
}

#[test]
fn two_dimensional_copies_within_one_memory_match_a_byte_model() {
    // Every row is read before any is written, whichever way the simulator
    // copies: in place (disjoint ranges), through gathered rows (the ranges
    // overlap), or through the staged source range (rows overlapping each
    // other, so the range is smaller than the rows).
    let mut r = Rng(0xd3);
    for (dst, src, bytes, ds, ss, rows) in [
        (128u64, 0u64, 8u64, 16u64, 8u64, 6u64),
        (0, 64, 8, 16, 8, 6),
        (4, 0, 8, 4, 8, 4),
        (0, 4, 8, 4, 8, 4),
        (2, 0, 8, 16, 3, 10),
        (0, 3, 12, 5, 2, 9),
        (5, 5, 8, 3, 3, 7),
        (0, 0, 4, 0, 1, 5),
        (7, 1, 6, 6, 0, 5),
    ] {
        let mlu = format!(
            ".mem @d: i8[256] nram\n    dma2d nram[@d + {dst}], nram[@d + {src}], {bytes}, {ds}, {ss}, {rows}\n    sync.move\n    exit\n"
        );
        let d0: Vec<u64> = (0..256).map(|_| value(&mut r, Ty::I8)).collect();
        let rows_read: Vec<Vec<u64>> =
            (0..rows).map(|i| d0[(src + i * ss) as usize..(src + i * ss + bytes) as usize].to_vec()).collect();
        let mut want = d0.clone();
        for (i, row) in rows_read.iter().enumerate() {
            let at = (dst + i as u64 * ds) as usize;
            want[at..at + bytes as usize].copy_from_slice(row);
        }
        assert_eq!(run_mlu(&mlu, &[("d", &d0)], "d", None), Ok(want), "{mlu}");
    }
}

#[test]
fn vector_conversions_match_a_plain_loop() {
    let mut r = Rng(0xc0);
    for (op, to, from) in [
        (ConvOp::Sitofp, Ty::F32, Ty::I32),
        (ConvOp::FptosiSat, Ty::I8, Ty::F64),
        (ConvOp::Fptrunc, Ty::F32, Ty::F64),
        (ConvOp::Sext, Ty::I64, Ty::I16),
        (ConvOp::Fptosi, Ty::I32, Ty::F32),
    ] {
        let n = 128;
        let mlu = format!(
            ".mem @a: {from}[{n}] nram\n.mem @d: {to}[{n}] nram\n    vcvt.{op}.{to}.{from} nram[@d], nram[@a], {n}\n    exit\n"
        );
        let a: Vec<u64> = (0..n).map(|_| value(&mut r, from)).collect();
        let want: Result<Vec<u64>, _> = a.iter().map(|&x| mlu_isa::semantics::convert(op, to, from, x)).collect();
        let got = run_mlu(&mlu, &[("a", &a)], "d", None);
        match want {
            Ok(w) => assert_eq!(got, Ok(w), "{mlu}"),
            Err(_) => assert_eq!(got, Err(mlu_sim::TrapKind::Arithmetic), "{mlu}"),
        }
    }
}

#[test]
fn a_planted_bug_is_caught() {
    let t = Ty::F32;
    let (m, i) = elementwise("vadd", "tadd", t, &[Lay::A, Lay::B], 64, 0);
    let mut r = Rng(1);
    let mut ins = inputs(&mut r, t, 64);
    // Finite first elements, so an ulp shows.
    ins[0].1[0] = u64::from(1.5f32.to_bits());
    ins[1].1[0] = u64::from(2.25f32.to_bits());
    assert!(compare_case(&m, &i, t, &ins, None));
    assert!(!compare_case(&m, &i, t, &ins, Some(Bug::VaddUlp)), "the planted bug went unnoticed");
}
