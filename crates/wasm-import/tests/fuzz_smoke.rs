//! Smoke runs of the fuzz property (`wasm_import::fuzzing::check`): on
//! arbitrary bytes, on valid modules with bytes flipped, inserted and
//! deleted (most stay inside sections, so they reach the validator and,
//! when still valid, the translator), and on a real corpus when
//! `KEEL_WASM_CORPUS` names a directory of `.wasm` files.

use proptest::prelude::*;
use wasm_import::fuzzing::check;

/// Valid seed modules covering most of the translator.
fn seeds() -> Vec<Vec<u8>> {
    let sources = [
        r#"(module (memory 1) (data (i32.const 8) "seed") (global $g (mut i32) (i32.const 1))
          (func $f (export "f") (param i32 i64) (result i32) (local f32 v128)
            (block $b (result i32)
              (loop $l
                (br_if $l (i32.eqz (i32.load8_u offset=2 (local.get 0))))
                (i64.store (local.get 0) (local.get 1))
                (global.set $g (i32.add (global.get $g) (i32.const 1))))
              (br_table $b $b (i32.const 3) (local.get 0))))
          (func (param i32) (result i32)
            (if (result i32) (local.get 0) (then (call $f (local.get 0) (i64.const 2))) (else (i32.const 0)))))"#,
        r#"(module (memory 1) (table 2 funcref) (type $t (func (param f64) (result f64)))
          (func $sq (type $t) (f64.mul (local.get 0) (local.get 0)))
          (elem (i32.const 0) $sq)
          (func (param f64 i32) (result f64 i32)
            (call_indirect (type $t) (local.get 0) (local.get 1))
            (i32.trunc_sat_f64_s (f64.nearest (local.get 0)))
            (memory.fill (i32.const 0) (i32.const 7) (i32.const 16))
            (memory.copy (i32.const 4) (i32.const 0) (i32.const 8))))"#,
        r#"(module (memory 1)
          (func (param i32) (result i32)
            (local.get 0)
            (block (param i32) (result i32 i32) (i32.const 1))
            (select (i32.const 2) (i32.lt_s (i32.const 1) (i32.const 2)))
            (i32.add)
            (v128.store (i32.const 0) (i32x4.splat (local.get 0)))
            (drop (memory.grow (i32.const 0)))))"#,
    ];
    sources.iter().map(|s| wat::parse_str(s).expect("seed module")).collect()
}

#[test]
fn seeds_hold() {
    for seed in seeds() {
        check(&seed);
    }
}

#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = bytes.len().max(1);
        match *e {
            Edit::Flip(i, x) => {
                if let Some(b) = bytes.get_mut(i % n) {
                    *b ^= x;
                }
            }
            Edit::Insert(i, x) => bytes.insert(i % (bytes.len() + 1), x),
            Edit::Delete(i) => {
                if !bytes.is_empty() {
                    bytes.remove(i % n);
                }
            }
        }
    }
    bytes
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(i, x)| Edit::Flip(i, x)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, x)| Edit::Insert(i, x)),
        any::<usize>().prop_map(Edit::Delete),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..200), header in any::<bool>()) {
        if header {
            // Past the magic number, so the section parser gets exercised.
            let mut with = b"\0asm\x01\0\0\0".to_vec();
            with.append(&mut bytes);
            bytes = with;
        }
        check(&bytes);
    }

    #[test]
    fn edited_modules_hold(seed in 0usize..3, edits in proptest::collection::vec(edit(), 1..4)) {
        let seeds = seeds();
        check(&apply(seeds[seed].clone(), &edits));
    }
}

#[test]
fn corpus_holds() {
    let Ok(dir) = std::env::var("KEEL_WASM_CORPUS") else { return };
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("KEEL_WASM_CORPUS is a directory") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|x| x == "wasm") {
            check(&std::fs::read(&path).expect("readable"));
            n += 1;
        }
    }
    assert!(n > 0, "no .wasm files in {dir}");
}
