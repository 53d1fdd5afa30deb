//! The parser fuzz target's check (`ir_core::fuzzing::check_parse`) run a
//! fixed number of times on mutations of the bundled examples, so `cargo
//! test` exercises the fuzz property even where cargo-fuzz is not
//! installed. The mutation sequence is seeded: a failure reproduces; no
//! clock is read, so the test does the same work on any machine.

use ir_core::fuzzing::check_parse;

/// Mutated inputs per run (about a second and a half on the 2-core CI machine
/// when set; a fixed count, so the test does the same work anywhere).
const MUTATED_RUNS: usize = 80_000;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Tokens worth splicing in: they reach deeper parser states than bytes.
const DICT: &[&str] = &[
    "%x",
    "@v",
    "bb0",
    "bb1:",
    "phi(bb0: 1)",
    "@%p ",
    "@!%p ",
    "i32 ",
    "f32 -0.0",
    "nan:0x1",
    "[",
    "]",
    ",",
    "\n",
    "setp.slt",
    "tfma",
    "matmul",
    "switch %x, bb1, [1: bb0]",
    "call @f(",
    "\"",
    "}",
    "{",
    "var %q: i1\n",
    "1e400",
    "0x",
    "-",
    ";",
];

fn mutate(rng: &mut XorShift, input: &mut Vec<u8>, pool: &[Vec<u8>]) {
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(input.len() + 1);
        match rng.below(6) {
            0 if !input.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(input.len());
                input.drain(at.min(end)..end);
            }
            1 if at < input.len() => input[at] = rng.next() as u8,
            2 => {
                let tok = DICT[rng.below(DICT.len())].as_bytes();
                input.splice(at..at, tok.iter().copied());
            }
            3 => {
                let other = &pool[rng.below(pool.len())];
                let from = rng.below(other.len());
                let to = (from + rng.below(200)).min(other.len());
                input.splice(at..at, other[from..to].iter().copied());
            }
            4 if !input.is_empty() => {
                // Duplicate a line: labels and declarations collide.
                let start = input[..at.min(input.len())].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                let end = input[start..].iter().position(|&b| b == b'\n').map_or(input.len(), |p| start + p + 1);
                let line = input[start..end].to_vec();
                input.splice(start..start, line);
            }
            _ => input.truncate(at),
        }
    }
}

#[test]
fn parser_fuzz_property_holds_on_mutated_examples() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples");
    // The files of docs/examples (not its subfolders, such as the MLU kernels).
    let mut pool: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    pool.sort();
    for seed in &pool {
        check_parse(seed);
    }
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..MUTATED_RUNS {
        let mut input = pool[rng.below(pool.len())].clone();
        mutate(&mut rng, &mut input, &pool);
        check_parse(&input);
    }
}
