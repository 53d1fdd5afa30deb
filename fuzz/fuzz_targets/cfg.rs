//! Dominance fuzzing: any bytes decode (through
//! `ir_gen::graphs::graph_from_bytes`, at most `cfg_dom::fuzzing::MAX_NODES`
//! nodes) to a graph on which the DFS, dominator and post-dominator trees,
//! dominance frontiers, iterated frontiers and the reducibility test agree
//! with the textbook oracles of `cfg_dom::oracle`, on a `CsrGraph` and on a
//! petgraph view (`cfg_dom::fuzzing::check_edges`; `cargo test -p cfg-dom
//! --test fuzz_smoke` runs it for 1.5 s).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let g = ir_gen::graphs::graph_from_bytes(data, cfg_dom::fuzzing::MAX_NODES);
    cfg_dom::fuzzing::check_edges(g.nodes, &g.edges);
});
