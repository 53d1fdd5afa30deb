//! Deeply nested graph-IR programs, shared by the text and lowering tests
//! (issue 30's shapes: `apply`, `if` and `while` nested to any depth).

/// `depth` nested lambdas, each applying the next.
pub fn nested(depth: usize) -> String {
    let mut text = String::from("func @f(%a: i64) -> i64 {\n");
    for i in 0..depth {
        text.push_str(&format!("%l{i} = lambda (%x{i}: i64) -> i64 {{\n"));
    }
    text.push_str(&format!("%y: i64 = neg %x{}\nret %y\n}}\n", depth - 1));
    for i in (0..depth).rev() {
        let x = if i == 0 { "%a".to_string() } else { format!("%x{}", i - 1) };
        text.push_str(&format!("%r{i}: i64 = apply %l{i}, {x}\n"));
        text.push_str(&format!("ret %r{i}\n}}\n"));
    }
    text
}

/// `depth` nested `if`s: each `then` branch holds the next `if`, each
/// `else` branch negates; the innermost `then` doubles. So `f(c, a)` is
/// `2a` when `c` holds and `-a` otherwise.
pub fn nested_ifs(depth: usize) -> String {
    let mut text = String::from("func @f(%c: i1, %a: i64) -> i64 {\n");
    for i in 0..depth {
        text.push_str(&format!(
            "%e{i} = lambda (%ec{i}: i1, %ex{i}: i64) -> i64 {{\n%en{i}: i64 = neg %ex{i}\nret %en{i}\n}}\n"
        ));
        text.push_str(&format!("%t{i} = lambda (%c{i}: i1, %x{i}: i64) -> i64 {{\n"));
    }
    text.push_str(&format!("%y: i64 = add %x{0}, %x{0}\nret %y\n}}\n", depth - 1));
    for i in (0..depth).rev() {
        let (c, x) = if i == 0 {
            ("%c".to_string(), "%a".to_string())
        } else {
            (format!("%c{}", i - 1), format!("%x{}", i - 1))
        };
        text.push_str(&format!("%r{i}: i64 = if {c}, %t{i}, %e{i}, {c}, {x}\nret %r{i}\n}}\n"));
    }
    text
}

/// `depth` nested `while`s: level `i`'s body runs level `i + 1`'s loop and
/// adds one; each loop runs while its state is below 1; the innermost body
/// adds one. So `f(0)` is `depth + 1` and `f(a)` is `a + 1` for `a >= 1`.
pub fn nested_whiles(depth: usize) -> String {
    let mut text = String::from("func @f(%a: i64) -> i64 {\n");
    for i in 0..depth {
        text.push_str(&format!(
            "%c{i} = lambda (%cx{i}: i64) -> i1 {{\n%ck{i}: i64 = const 1\n%cp{i}: i1 = setp.slt %cx{i}, %ck{i}\nret %cp{i}\n}}\n"
        ));
        text.push_str(&format!("%b{i} = lambda (%x{i}: i64) -> i64 {{\n"));
    }
    text.push_str(&format!("%k: i64 = const 1\n%y: i64 = add %x{}, %k\nret %y\n}}\n", depth - 1));
    for i in (0..depth).rev() {
        let x = if i == 0 { "%a".to_string() } else { format!("%x{}", i - 1) };
        text.push_str(&format!(
            "%w{i}: i64 = while %c{i}, %b{i}, {x}\n%o{i}: i64 = const 1\n%v{i}: i64 = add %w{i}, %o{i}\nret %v{i}\n}}\n"
        ));
    }
    text
}
