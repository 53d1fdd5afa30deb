//! One vectorization of a `benches::vectorize_graphs::big_graph`, for
//! deterministic instruction counts under callgrind (wall-clock figures on
//! a shared machine are noisy):
//!
//! ```sh
//! cargo build --release -p benches --example vectorize_count
//! valgrind --tool=callgrind --toggle-collect='*Vectorizer::vectorize*' \
//!     target/release/examples/vectorize_count 100000 flat
//! ```
//!
//! Arguments: the node count and `flat` or `structured`.

use benches::vectorize_graphs::{IN_AXES, big_graph};
use vectorize::Vectorizer;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let structured = args.next().as_deref() == Some("structured");
    let (g, f) = big_graph(n, structured);
    let v = Vectorizer::default().vectorize(&g, f, &IN_AXES).expect("vectorizes");
    println!("{} nodes in, {} out", g.len(), v.graph.len());
}
