//! The foreign front end of `examples/foreign_frontend.rs`, checked against
//! its own language: random expression trees of the toy language (its AST,
//! nothing of Keel's) are emitted through `vectorize::Builder`, vectorized
//! with every combination of mapped and unmapped inputs (at least one
//! mapped; none is an error), and evaluated on
//! 0, 1 and 7 lanes; each lane must equal, bit for bit, what a direct
//! interpreter of the toy AST computes for that lane. Special floats (NaN,
//! ±0, ±∞) are among the inputs. A bug planted in the toy interpreter
//! (`<=` for `<`) is caught. A deep tree (10^4 nested additions) goes
//! through the same path.

#[allow(dead_code)]
#[path = "../examples/foreign_frontend.rs"]
mod foreign_frontend;

use foreign_frontend::{Expr, fold, function};
use vectorize::eval::{EvalConfig, eval};
use vectorize::{Imm, ScalarTy, ValTy, Value, Vectorizer};

/// SplitMix64: the test's own seeded choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn float(&mut self) -> f64 {
        const SPECIAL: [f64; 6] = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.0];
        match self.below(8) {
            0 => SPECIAL[self.below(SPECIAL.len() as u64) as usize],
            _ => (self.below(2001) as f64 - 1000.0) / 8.0,
        }
    }
}

/// A random tree of about `budget` nodes over `inputs` inputs, built with
/// an explicit stack of holes to fill.
fn random_expr(rng: &mut Rng, inputs: usize, budget: usize) -> Expr {
    enum Slot {
        Fill,
        Add,
        Mul,
        IfLess,
    }
    let mut work = vec![Slot::Fill];
    let mut done: Vec<Expr> = Vec::new();
    let mut made = 0;
    while let Some(s) = work.pop() {
        match s {
            Slot::Fill => {
                made += 1;
                let leaf = made > budget || rng.below(3) == 0;
                if leaf {
                    done.push(if rng.below(4) == 0 {
                        Expr::Num(rng.float())
                    } else {
                        Expr::Input(rng.below(inputs as u64) as usize)
                    });
                    continue;
                }
                let (node, arity) = match rng.below(3) {
                    0 => (Slot::Add, 2),
                    1 => (Slot::Mul, 2),
                    _ => (Slot::IfLess, 4),
                };
                work.push(node);
                work.extend((0..arity).map(|_| Slot::Fill));
            }
            Slot::Add | Slot::Mul => {
                let (y, x) = (done.pop().unwrap(), done.pop().unwrap());
                let (x, y) = (Box::new(x), Box::new(y));
                done.push(if matches!(s, Slot::Add) { Expr::Add(x, y) } else { Expr::Mul(x, y) });
            }
            Slot::IfLess => {
                let (f, t, c, a) = (done.pop().unwrap(), done.pop().unwrap(), done.pop().unwrap(), done.pop().unwrap());
                done.push(Expr::IfLess(Box::new(a), Box::new(c), Box::new(t), Box::new(f)));
            }
        }
    }
    done.pop().unwrap()
}

/// The toy language's own meaning of `e` on `env` (folded without
/// recursion).
/// `planted` is a bug (`<=` for `<`) that the comparison must notice.
fn interpret(e: &Expr, env: &[f64], planted: bool) -> f64 {
    fold(e, |e, v| match e {
        Expr::Input(i) => env[*i],
        Expr::Num(x) => *x,
        Expr::Add(..) => v[0] + v[1],
        Expr::Mul(..) => v[0] * v[1],
        Expr::IfLess(..) => {
            if v[0] < v[1] || (planted && v[0] == v[1]) {
                v[2]
            } else {
                v[3]
            }
        }
    })
}

/// Vectorizes `e` with `mapped` inputs, runs it on `lanes` lanes and
/// compares every lane with [`interpret`] bit for bit. Returns the lanes
/// checked and the lanes that disagree.
fn check(e: &Expr, mapped: &[bool], lanes: usize, rng: &mut Rng, planted: bool) -> (usize, usize) {
    let (g, f) = function(e, mapped.len());
    let v = Vectorizer::default().vectorize(&g, f, mapped).expect("the toy language vectorizes");
    let f64t = ValTy::scalar(ScalarTy::F64);
    // Per input: one value per lane when mapped, one value for all otherwise.
    let columns: Vec<Vec<f64>> =
        mapped.iter().map(|&m| (0..if m { lanes } else { 1 }).map(|_| rng.float()).collect()).collect();
    let args: Vec<Value> = columns
        .iter()
        .zip(mapped)
        .map(|(col, &m)| {
            let scalars: Vec<Value> = col.iter().map(|&x| Value::Scalar(Imm::f64(x))).collect();
            if m { Value::array_of(f64t, &scalars).unwrap() } else { scalars[0].clone() }
        })
        .collect();
    let out = eval(&v.graph, v.func, &args, EvalConfig::default()).expect("runs");
    let Value::Array(ys) = &out[0] else { panic!("a batch of results, got {}", out[0]) };
    assert_eq!(ys.len(), lanes);
    let mut wrong = 0;
    for (lane, y) in ys.scalars().enumerate() {
        let env: Vec<f64> = columns.iter().zip(mapped).map(|(col, &m)| col[if m { lane } else { 0 }]).collect();
        let want = interpret(e, &env, planted);
        if y.bits() != want.to_bits() {
            if !planted {
                eprintln!("lane {lane} of {env:?}: got {}, the toy language says {want}", y.as_f64());
            }
            wrong += 1;
        }
    }
    (lanes, wrong)
}

/// Runs 300 random toy programs (1 to 3 inputs, up to 40 nodes) under
/// every mapping and on 0, 1 and 7 lanes: (lanes checked, lanes wrong).
fn random_programs(planted: bool) -> (usize, usize) {
    let mut rng = Rng(14);
    let (mut checked, mut wrong) = (0, 0);
    for program in 0..300 {
        let inputs = 1 + program % 3;
        let e = random_expr(&mut rng, inputs, 1 + program % 40);
        // Mapping nothing leaves the batch size unknown: an error, as in JAX.
        let (g, f) = function(&e, inputs);
        assert!(Vectorizer::default().vectorize(&g, f, &vec![false; inputs]).is_err());
        for mask in 1..1u32 << inputs {
            let mapped: Vec<bool> = (0..inputs).map(|i| mask >> i & 1 == 1).collect();
            for lanes in [0, 1, 7] {
                let (c, w) = check(&e, &mapped, lanes, &mut rng, planted);
                checked += c;
                wrong += w;
            }
        }
    }
    (checked, wrong)
}

#[test]
fn random_toy_programs_vectorize_to_the_toy_languages_meaning() {
    // 100 programs each of 1, 2 and 3 inputs: (1 + 3 + 7) mappings × 8 lanes.
    assert_eq!(random_programs(false), (8_800, 0));
}

#[test]
fn a_planted_interpreter_bug_is_caught() {
    let (checked, wrong) = random_programs(true);
    assert_eq!(checked, 8_800);
    assert!(wrong > 0, "the comparison never tells `<` from `<=`");
}

#[test]
fn a_deep_toy_program_vectorizes_without_recursion() {
    let mut e = Expr::Input(0);
    for i in 0..10_000 {
        e = Expr::Add(Box::new(e), Box::new(if i % 2 == 0 { Expr::Input(1) } else { Expr::Num(0.5) }));
    }
    let mut rng = Rng(3);
    assert_eq!(check(&e, &[true, false], 7, &mut rng, false), (7, 0));
    // The tree drops without recursion too: unlink it node by node.
    let mut cur = e;
    while let Expr::Add(x, _) = cur {
        cur = *x;
    }
}
