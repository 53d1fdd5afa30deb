//! Imports each `.wasm` file named on the command line and reports the
//! import rate, the failures, the intrinsics used and the time taken; then
//! checks that every imported function verifies and that the text
//! round-trips (print → parse → print).
//!
//! `cargo run --release -p wasm-import --example wasm_stats -- FILE.wasm...`
//! (`--print` also writes the IR next to each input, as `FILE.kir`).

use std::time::Instant;

fn main() {
    let mut print = false;
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        if arg == "--print" {
            print = true;
        } else {
            files.push(arg);
        }
    }
    let mut ok = true;
    for path in files {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                ok = false;
                continue;
            }
        };
        let start = Instant::now();
        let imported = match wasm_import::import(&bytes, &wasm_import::ImportOptions::default()) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("{path}: {e}");
                ok = false;
                continue;
            }
        };
        let import_time = start.elapsed();
        let c = &imported.counts;
        println!(
            "{path}: {} bytes; {}/{} functions imported ({:.2}%), {} failed, {} externs; {} blocks, {} instructions ({} intrinsics); import {:.0} ms",
            bytes.len(),
            c.imported,
            c.functions,
            100.0 * imported.rate(),
            c.failed,
            c.externs,
            c.blocks,
            c.instructions,
            c.intrinsics,
            import_time.as_secs_f64() * 1e3
        );
        for f in imported.functions.iter().filter(|f| f.result.is_err()) {
            if let Err(e) = &f.result {
                println!("  failed: function {} (@{}): {e}", f.index, f.name);
            }
        }
        for note in &imported.notes {
            println!("  note: {note}");
        }
        let mut top: Vec<_> = imported.intrinsics.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let shown: Vec<String> = top.iter().take(12).map(|(n, k)| format!("{n} {k}")).collect();
        println!("  intrinsics: {} kinds; top: {}", top.len(), shown.join(", "));

        let start = Instant::now();
        let verified = ir_core::verify_module(&imported.module, &ir_core::VerifyOptions::default());
        let verify_time = start.elapsed();
        let start = Instant::now();
        let text = ir_core::text::print_module(&imported.module);
        let print_time = start.elapsed();
        let start = Instant::now();
        let round_trip = match ir_core::text::parse(&text) {
            Ok((again, _)) => ir_core::text::print_module(&again) == text,
            Err(d) => {
                eprintln!("  parse error: {:?}", d.first());
                false
            }
        };
        let parse_time = start.elapsed();
        println!(
            "  verify: {} ({:.0} ms); text {} bytes, print {:.0} ms, parse+print {:.0} ms, round trip {}",
            if verified.is_ok() { "ok" } else { "FAILED" },
            verify_time.as_secs_f64() * 1e3,
            text.len(),
            print_time.as_secs_f64() * 1e3,
            parse_time.as_secs_f64() * 1e3,
            if round_trip { "ok" } else { "FAILED" }
        );
        if let Err(e) = verified {
            ok = false;
            for line in e.to_string().lines().take(5) {
                println!("    {line}");
            }
        }
        ok &= round_trip;
        if print {
            let out = format!("{path}.kir");
            if let Err(e) = std::fs::write(&out, &text) {
                eprintln!("{out}: {e}");
            }
        }
    }
    if !ok {
        std::process::exit(1);
    }
}
