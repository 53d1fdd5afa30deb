//! Bad input is an error, never a panic: corruptions of well-formed code
//! (an instruction listed twice or out of range, an object or symbol out of
//! range, reversed bounds, a symbol change naming nothing, successors out
//! of range or predecessor lists that disagree, code of another graph's
//! size) are rejected by every entry point (the analysis, a warm context,
//! the baseline, the queries, the byte oracle); foreign ids in queries
//! answer nothing. Planting a bug in the checks (accepting an instruction
//! listed twice) makes the test fail with a small case.

use cfg_dom::{Graph, Versioned};
use foreign_ir::{Guard, Start, Symbol, Toy};
use memdep::{Access, Effects, InputError, MemCode, MemDep, MemQueries, Site, SymbolChange};
use proptest::prelude::*;

/// A toy function with `n` statements in a loop, from a seed.
fn program(seed: u64) -> Toy {
    let mut t = foreign_ir::programs::tiled_loop();
    // Vary it a little with the seed: an extra statement and a variable.
    let extra = foreign_ir::Stmt {
        text: "s3".into(),
        touches: vec![foreign_ir::Touch {
            buf: (seed % 3) as u32,
            start: Start::At((seed % 16) as i64),
            len: Some(4),
            write: seed.is_multiple_of(2),
        }],
        guard: if seed.is_multiple_of(3) { Guard::Hidden } else { Guard::None },
        ..foreign_ir::Stmt::default()
    };
    t.stmts.push(extra);
    t.blocks[2].0.push(3);
    t.symbols =
        vec![Symbol { counter: Some((1, 1)), ..Symbol::default() }, Symbol { set_by: vec![0], ..Symbol::default() }];
    t
}

/// A wrapper that changes what a toy says, to corrupt it in ways the toy
/// itself cannot express.
struct Twist<'a> {
    toy: &'a Toy,
    bad_bounds: bool,
    extra_block: bool,
}

impl Versioned for Twist<'_> {}

impl MemCode for Twist<'_> {
    fn num_blocks(&self) -> usize {
        self.toy.num_blocks() + usize::from(self.extra_block)
    }
    fn num_insts(&self) -> usize {
        self.toy.num_insts()
    }
    fn num_objects(&self) -> usize {
        self.toy.num_objects()
    }
    fn object_len(&self, o: u32) -> Option<u64> {
        self.toy.object_len(o)
    }
    fn num_symbols(&self) -> usize {
        self.toy.num_symbols()
    }
    fn block_insts(&self, b: u32) -> impl Iterator<Item = u32> + '_ {
        self.toy.blocks.get(b as usize).into_iter().flat_map(|x| x.0.iter().copied())
    }
    fn accesses(&self, i: u32, out: &mut Vec<Access>) -> Effects {
        let e = self.toy.accesses(i, out);
        if self.bad_bounds
            && let Some(a) = out.last_mut()
        {
            *a = a.within(9, 3);
        }
        e
    }
    fn symbol_changes(&self, s: u32, out: &mut Vec<SymbolChange>) {
        self.toy.symbol_changes(s, out)
    }
}

/// Every entry point on `g` and `code`: each must return an error.
fn all_reject(g: &impl Graph, code: &impl MemCode) -> Result<(), TestCaseError> {
    prop_assert!(memdep::memdep(g, code).is_err());
    let mut warm = MemDep::new();
    prop_assert!(warm.compute(&program(1), &program(1)).is_ok());
    prop_assert!(warm.compute(g, code).is_err());
    prop_assert!(memdep::naive(g, code).is_err());
    prop_assert!(MemQueries::new(g, code).is_err());
    prop_assert!(memdep::fuzzing::byte_oracle(g, code).is_err());
    Ok(())
}

/// Corruption `kind` of `t`.
fn corrupt(t: &Toy, kind: u8) -> Toy {
    let mut t = t.clone();
    match kind {
        0 => t.blocks[2].0.push(0),                    // listed twice
        1 => t.blocks[2].0.push(t.stmts.len() as u32), // out of range
        2 => t.stmts[0].touches[0].buf = 7,            // object out of range
        3 => t.stmts[0].touches[0].start = Start::Symbol { symbol: 9, scale: 1, add: 0 },
        4 => t.symbols[1].set_by.push(99),       // symbol change at no instruction
        5 => t.symbols[1].set_on_entry.push(17), // at no block
        6 => t.blocks[1].1.push(40),             // successor out of range
        _ => t.blocks[0].1.push(3),              // an edge the predecessor lists lack
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn corrupted_code_is_an_error(seed in 0u64..64, kind in 0u8..8) {
        let t = corrupt(&program(seed), kind);
        all_reject(&t, &t)?;
    }

    #[test]
    fn twisted_code_is_an_error(seed in 0u64..64, bounds in any::<bool>()) {
        let t = program(seed);
        let twist = Twist { toy: &t, bad_bounds: bounds, extra_block: !bounds };
        all_reject(&t, &twist)?;
    }
}

#[test]
fn errors_say_what_is_wrong() {
    let t = corrupt(&program(0), 0);
    let e = memdep::memdep(&t, &t).unwrap_err();
    assert!(matches!(e, InputError::InstListedTwice { inst: 0, block: 2 }), "{e:?}");
    assert!(e.to_string().contains("listed a second time"), "{e}");
    let t = corrupt(&program(0), 2);
    assert!(memdep::memdep(&t, &t).unwrap_err().to_string().contains("accesses object 7"));
    let t = corrupt(&program(0), 7);
    assert!(matches!(memdep::memdep(&t, &t), Err(InputError::Graph(_))));
}

#[test]
fn foreign_ids_answer_nothing() {
    let t = program(3);
    let deps = memdep::memdep(&t, &t).unwrap();
    let q = MemQueries::new(&t, &t).unwrap();
    let far = 1_000_000;
    assert!(deps.defs_of(far).is_empty() && deps.uses_of(far).is_empty());
    assert!(deps.output_of(far).is_empty() && deps.anti_of(far).is_empty());
    assert!(deps.sites().use_site(far).is_none() && deps.sites().def_site(far).is_none());
    assert!(deps.sites().uses_of_inst(far).is_empty() && deps.reaching_insts(far).is_empty());
    assert!(!deps.depends(far, far).any() && !deps.reaches(far, far));
    assert!(q.access(far, 0).is_none() && q.accesses(far).is_empty() && q.block_of(far).is_none());
    let l = q.loops().loops().next().unwrap();
    let bogus = Site { inst: far, access: 3 };
    assert!(q.loop_carried(l, bogus, bogus).is_dep());
    assert!(q.may_overlap(bogus, bogus).is_dep());
    let a = q.access(0, 0).unwrap();
    assert!(!q.clobbered_between(far, far, &a));
}

/// The corruption test fails when a check is missing: with the "listed
/// twice" check planted away, corruption 0 is no longer rejected.
#[test]
fn a_planted_missing_check_is_caught() {
    let t = corrupt(&program(0), 0);
    let outcome = memdep::fuzzing::with_bug(memdep::fuzzing::Bug::AcceptListedTwice, || {
        std::panic::catch_unwind(|| all_reject(&t, &t).is_err())
    });
    assert!(outcome.unwrap_or(true), "the missing check went unnoticed");
    assert!(all_reject(&t, &t).is_ok());
}
