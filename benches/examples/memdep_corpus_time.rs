//! One-shot timings of memdep and the naive baseline on the 20 largest
//! corpus functions (development aid; the figures come from the criterion
//! benchmark).
use std::time::Instant;
fn main() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut all = Vec::new();
    for name in ["sql-wasm.wasm", "onigasm.wasm", "brotli_wasm_bg.wasm", "web-tree-sitter.wasm"] {
        let Ok(bytes) = std::fs::read(dir.join(name)) else { continue };
        let imported = wasm_import::import(&bytes, &Default::default()).unwrap();
        let m = std::rc::Rc::new(imported.module);
        for (id, f) in m.functions() {
            all.push((f.num_insts(), name, id, m.clone()));
        }
    }
    all.sort_by_key(|x| std::cmp::Reverse(x.0));
    for (n, name, id, m) in all.into_iter().take(20) {
        let f = m.function(id).unwrap();
        let s = memdep::Summaries::of(&m);
        let code = memdep::KeelCode::new(&m, f, Some(&s));
        let cfg = f.cfg();
        let t = Instant::now();
        let d = memdep::MemDep::new().compute(&cfg, &code).unwrap();
        let e = t.elapsed();
        let t = Instant::now();
        let _ = memdep::MemDep::new().compute_function(&m, f, Some(&s)).unwrap();
        let e2 = t.elapsed();
        let c = d.counts();
        let t = Instant::now();
        let b = if n < 6000 { Some(memdep::naive(&cfg, &code).unwrap()) } else { None };
        let eb = t.elapsed();
        println!(
            "{name} @{} insts {n} blocks {}: memdep {e:?} (+adapter {e2:?}) naive {:?} pairs {} ranges {} uses {} defs {}",
            f.name(),
            f.num_blocks(),
            b.map(|_| eb),
            c.pairs,
            c.ranges,
            c.uses,
            c.defs
        );
    }
}
