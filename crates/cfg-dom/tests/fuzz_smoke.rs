//! The `cfg` fuzz target's check (`cfg_dom::fuzzing::check_edges` on the
//! graph `ir_gen::graphs::graph_from_bytes` decodes) run a fixed number of
//! times on seeded random bytes, plus the simplest inputs, so `cargo test`
//! exercises the fuzz property even where cargo-fuzz is not installed. The
//! byte sequence is seeded: a failure reproduces; no clock is read, so the
//! test does the same work on any machine.

use cfg_dom::fuzzing::{MAX_NODES, check_edges};
use ir_gen::SplitMix64;
use ir_gen::graphs::graph_from_bytes;

/// Inputs per run (about a second and a half of checks on the 2-core CI
/// machine when this was set).
const RUNS: u32 = 1000;

/// What the fuzz target does with its input.
fn check_graph(bytes: &[u8]) {
    let g = graph_from_bytes(bytes, MAX_NODES);
    check_edges(g.nodes, &g.edges);
}

#[test]
fn fuzz_check_on_random_bytes() {
    let mut rng = SplitMix64::new(0x00c0_ffee);
    for _ in 0..RUNS {
        let len = (rng.next_u64() % 64) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        // Small graphs are the interesting ones; keep most sizes low.
        if bytes.len() > 2 && !rng.next_u64().is_multiple_of(4) {
            bytes[1] %= 48;
            bytes[2] = 0;
        }
        check_graph(&bytes);
    }
}

#[test]
fn fuzz_check_on_simple_inputs() {
    check_graph(&[]);
    for shape in 0..=255u8 {
        check_graph(&[shape]);
        check_graph(&[shape, 5, 0, shape]);
    }
    check_graph(&[0xff; 3]);
    // The empty graph and a single node, directly.
    check_edges(0, &[]);
    check_edges(1, &[]);
    check_edges(1, &[(0, 0), (0, 0)]);
}
