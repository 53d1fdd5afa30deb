//! Debug helper (temporary): runs PRE and LCM on a file, prints per-inst counts differences.
use ir_core::interp::{Config, run};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let m = if let Some(seed) = path.strip_prefix("gen:") {
        let seed: u64 = seed.parse().unwrap();
        svfg_pre::fuzzing::to_ssa(&svfg_pre::fuzzing::programs::redundant(seed, 1 + (seed % 12) as usize).0).unwrap()
    } else {
        let src = std::fs::read_to_string(path).unwrap();
        ir_core::text::parse(&src).unwrap().0
    };
    let main = m.function_by_name("main").unwrap();
    let args: Vec<ir_core::Imm> = std::env::args()
        .skip(2)
        .map(|s| s.parse::<u64>().unwrap())
        .zip(m.function(main).unwrap().signature().params.clone())
        .map(|(b, t)| ir_core::Imm::from_bits(t, b))
        .collect();
    let pre = svfg_pre::fuzzing::transform(&m, Some(svfg_pre::Method::Svfg), Default::default()).unwrap();
    let lcm = svfg_pre::fuzzing::transform(&m, None, Default::default()).unwrap();
    for (name, mm) in [("before", &m), ("pre", &pre), ("lcm", &lcm)] {
        let o = run(mm, main, &args, Config::default());
        match o {
            Ok(o) => {
                let c = svfg_pre::fuzzing::computations(mm, &o.stats);
                let nz: Vec<_> = c
                    .iter()
                    .enumerate()
                    .filter(|x| *x.1 > 0)
                    .map(|(i, n)| (ir_core::Opcode::ALL[i].name(), *n))
                    .collect();
                println!("{name}: {:?}", nz);
            }
            Err(t) => println!("{name}: trap {:?}", t.kind),
        }
    }
    if std::env::var("DUMP").is_ok() {
        dump(&svfg_pre::fuzzing::to_ssa(&m).unwrap());
    }
    if std::env::var("SHOW").is_ok() {
        println!("{}", ir_core::text::print_module(&pre));
        println!("{}", ir_core::text::print_module(&lcm));
    }
}
#[allow(dead_code)]
fn dump(m: &ir_core::Module) {
    let f = m.function(m.function_by_name("main").unwrap()).unwrap();
    let (s, vns) = svfg_pre::build_svfg(f).unwrap();
    for p in &s.phis {
        println!(
            "phi vn{} {:?} at bb{} ds={} cba={} used={} src={:?} args={:?}",
            p.value.0,
            vns.kind(p.value),
            p.node,
            p.down_safe,
            p.can_be_avail,
            p.used,
            p.sources,
            p.insert_args
        );
    }
}
