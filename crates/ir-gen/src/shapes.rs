//! Hand-shaped hostile programs, as Keel IR text: the inputs on which a
//! quadratic algorithm shows, kept here so that the crates' tests and the
//! CLI's hostile tests build the same ones.
//!
//! Invariants: every text parses and verifies; each generator runs in time
//! linear in its output, without recursion.

use std::fmt::Write;

/// A loop nest `depth` deep (`2 depth + 2` blocks: the entry, `depth`
/// headers, `depth` latches, the exit) where level `i`'s header defines `%v<i>` and its
/// latch reads it: each `%v<i>` is dead at every header, but semi-pruned
/// phi placement puts one at every enclosing header, about `depth² / 2`
/// phis (issue 30). `%s` is set in the entry and in every latch and
/// returned.
///
/// ```
/// let text = ir_gen::shapes::nest_of_live_vars(2);
/// let (module, _) = ir_core::text::parse(&text).unwrap();
/// assert!(module.function_by_name("nest").is_some());
/// ```
pub fn nest_of_live_vars(depth: usize) -> String {
    let mut s = String::from("func @nest(%c: i1, %n: i32) -> i32 {\n");
    for i in 1..=depth {
        let _ = writeln!(s, "    var %v{i}: i32");
    }
    s += "    var %s: i32\nbb0:\n    %s = const 0\n    jump bb1\n";
    for i in 1..=depth {
        let _ = write!(s, "bb{i}:\n    %v{i} = add %n, {i}\n    jump bb{}\n", i + 1);
    }
    for i in (1..=depth).rev() {
        let b = 2 * depth + 1 - i;
        let _ = write!(s, "bb{b}:\n    %s = add %v{i}, 1\n    br %c, bb{i}, bb{}\n", b + 1);
    }
    let _ = write!(s, "bb{}:\n    ret %s\n}}\n", 2 * depth + 1);
    s
}
