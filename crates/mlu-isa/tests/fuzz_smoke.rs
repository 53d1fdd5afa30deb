//! The assembler fuzz check (`mlu_isa::fuzzing::check_text`) on a fixed
//! number of seeded inputs: the bundled kernels, byte-mutated (flips,
//! insertions of syntax characters, truncations, line swaps). No clock is
//! read: the same work on any machine.

use mlu_isa::fuzzing::SplitMix64;
use std::path::Path;

const RUNS_PER_FILE: usize = 3000;

#[test]
fn mutated_kernels_never_panic_and_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/mlu");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).expect("docs/examples/mlu exists").flatten().map(|e| e.path()).collect();
    files.sort();
    assert!(files.len() >= 5, "the bundled kernels are missing");
    let alphabet = b"%@[],:+-=.;\n 0123456789abcdefxnrm";
    let mut s = SplitMix64(0xa55e_b1e5);
    for f in files {
        let base = std::fs::read(&f).unwrap();
        mlu_isa::fuzzing::check_text(&base);
        for _ in 0..RUNS_PER_FILE {
            let mut b = base.clone();
            for _ in 0..1 + s.next_u64() % 4 {
                let at = (s.next_u64() as usize) % b.len().max(1);
                match s.next_u64() % 4 {
                    0 if !b.is_empty() => b[at] = alphabet[(s.next_u64() as usize) % alphabet.len()],
                    1 => b.insert(at.min(b.len()), alphabet[(s.next_u64() as usize) % alphabet.len()]),
                    2 if !b.is_empty() => {
                        b.remove(at);
                    }
                    _ => b.truncate(at),
                }
            }
            mlu_isa::fuzzing::check_text(&b);
        }
    }
}
