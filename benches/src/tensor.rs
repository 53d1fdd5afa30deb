//! Tensor kernels for the `memdep` benchmark: one function of `n` tensor
//! instructions in the shape accelerator code has (the digest's MLU
//! setting), from a fixed seed.
//!
//! The function is a sequence of *stages*, each one of:
//! - a **tiled loop** (saxpy-like): a counter `%t` from 0, offsets
//!   `%o = mul %t, T` plus a stage base, `dma` of DRAM tiles into NRAM
//!   buffers, a few maps on the buffers (`tfma`, `tadd`, `tmax`, `trelu`,
//!   a reduction), `dma` of a result tile back to DRAM;
//! - an **unrolled block** of the same operations with exact DRAM offsets,
//!   tile after tile;
//! - a **diamond** whose arms compute on the buffers under a guard or not,
//!   with an inexact `tfill @buf[0, %len]`;
//! - a **weights load**: `dma` into WRAM and a `matmul`.
//!
//! Vars are reused from stage to stage, as compilers emit them (the IR is
//! not SSA; `memdep` renames through SSA to relate offsets). Every access
//! is in bounds for any `%n` and `%len` (`%len` is masked). Generated as
//! text and parsed, outside any timing.

use ir_core::Module;
use ir_gen::SplitMix64;
use std::fmt::Write;

/// Elements of each DRAM object; big enough that tiles never wrap.
const DRAM: u64 = 1 << 22;

/// A kernel of about `n` tensor instructions (memory instructions in all),
/// from `seed`.
pub fn kernel(n: usize, seed: u64) -> Module {
    kernel_sized(n, seed, DRAM)
}

/// The text of [`kernel`].
pub fn kernel_text(n: usize, seed: u64) -> String {
    kernel_text_sized(n, seed, DRAM)
}

/// [`kernel`] with DRAM objects of `dram` elements (at least 2048): tiles
/// wrap around sooner, and an access with an unknown offset covers fewer
/// elements (what the element-by-element oracle needs to finish).
pub fn kernel_sized(n: usize, seed: u64, dram: u64) -> Module {
    let text = kernel_text_sized(n, seed, dram);
    ir_core::text::parse(&text).unwrap_or_else(|d| panic!("the kernel does not parse: {d:?}")).0
}

/// The text of [`kernel_sized`].
pub fn kernel_text_sized(n: usize, seed: u64, dram: u64) -> String {
    assert!(dram >= 2048, "tiles need DRAM objects of at least 2048 elements");
    let mut rng = SplitMix64::new(seed);
    let mut s = String::new();
    for name in ["x", "y", "z"] {
        writeln!(s, "mem @{name}: f32[{dram}] dram").unwrap();
    }
    writeln!(s, "mem @w: f32[4096] wram").unwrap();
    for name in ["a", "b", "c", "d"] {
        writeln!(s, "mem @{name}: f32[256] nram").unwrap();
    }
    s.push_str("\nfunc @kernel(%n: i64, %len0: i64, %k: f32, %p: i1) -> f32 {\n");
    for v in ["%t: i64", "%o: i64", "%o2: i64", "%len: i64", "%more: i1", "%acc: f32", "%r: f32"] {
        writeln!(s, "    var {v}").unwrap();
    }
    s.push_str("bb0:\n    %len = and %len0, 127\n    %acc = const 0.0\n");
    let mut block = 0u32;
    let mut made = 0usize;
    let mut tile_base = 0u64;
    let tile = 64u64;
    // The body of a tile: reads the DRAM tile at `xo`, writes the one at
    // `zo` (offset expressions), computing on the NRAM buffers.
    let body = |s: &mut String, rng: &mut SplitMix64, xo: &str, zo: &str, made: &mut usize| {
        writeln!(s, "    dma @a[0, {tile}], @x[{xo}, {tile}]").unwrap();
        writeln!(s, "    dma @b[0, {tile}], @y[{xo}, {tile}]").unwrap();
        *made += 2;
        for _ in 0..1 + rng.next_u64() % 4 {
            let line = match rng.next_u64() % 5 {
                0 => format!("    tfma @c[0, {tile}], @a[0, {tile}], %k, @b[0, {tile}]"),
                1 => format!("    tadd @c[0, {tile}], @c[0, {tile}], @a[0, {tile}]"),
                2 => format!("    tmax @d[0, {tile}], @c[0, {tile}], @b[0, {tile}]"),
                3 => format!("    trelu @c[0, {tile}], @d[0, {tile}]"),
                _ => format!("    %r = tsum @c[0, {tile}]\n    %acc = fadd %acc, %r"),
            };
            s.push_str(&line);
            s.push('\n');
            *made += 1;
        }
        writeln!(s, "    dma @z[{zo}, {tile}], @c[0, {tile}]").unwrap();
        *made += 1;
    };
    while made < n {
        match rng.next_u64() % 8 {
            0..=3 => {
                // A tiled loop over 8 tiles at most.
                let trips = 1 + rng.next_u64() % 8;
                writeln!(s, "    %t = const 0\n    jump bb{}", block + 1).unwrap();
                let (h, b, x) = (block + 1, block + 2, block + 3);
                writeln!(s, "bb{h}:\n    %more = setp.slt %t, {trips}\n    br %more, bb{b}, bb{x}").unwrap();
                writeln!(s, "bb{b}:\n    %o = mul %t, {tile}\n    %o = add %o, {tile_base}").unwrap();
                body(&mut s, &mut rng, "%o", "%o", &mut made);
                writeln!(s, "    %t = add %t, 1\n    jump bb{h}\nbb{x}:").unwrap();
                block = x;
                tile_base = (tile_base + trips * tile) % (dram - 16 * tile);
            }
            4 | 5 => {
                // Unrolled: exact offsets.
                for _ in 0..1 + rng.next_u64() % 3 {
                    let o = tile_base.to_string();
                    body(&mut s, &mut rng, &o, &o, &mut made);
                    tile_base = (tile_base + tile) % (dram - 16 * tile);
                }
            }
            6 => {
                // A diamond: guarded work on one arm, inexact on the other.
                let (t, e, j) = (block + 1, block + 2, block + 3);
                writeln!(s, "    br %p, bb{t}, bb{e}\nbb{t}:").unwrap();
                writeln!(s, "    @%p tadd @a[0, {tile}], @a[0, {tile}], @b[0, {tile}]").unwrap();
                writeln!(s, "    @!%p tfill @c[0, {tile}], 1.0\n    jump bb{j}\nbb{e}:").unwrap();
                writeln!(s, "    tfill @d[0, %len], 0.0\n    %o2 = add %len, {tile_base}").unwrap();
                writeln!(s, "    dma @z[%o2, {tile}], @d[0, {tile}]\n    jump bb{j}\nbb{j}:").unwrap();
                made += 4;
                block = j;
            }
            _ => {
                writeln!(s, "    dma @w[0, 12], @y[{tile_base}, 12]").unwrap();
                writeln!(s, "    matmul @c[0, 6], @a[0, 8], @w[0, 12], 2, 4, 3").unwrap();
                made += 2;
            }
        }
    }
    s.push_str("    ret %acc\n}\n");
    s
}

/// Memory accesses (descriptors) of a kernel's function: what the scaling
/// figures count.
pub fn accesses(m: &Module) -> usize {
    m.functions()
        .map(|(_, f)| f.blocks().flat_map(|b| f.block_insts(b)).map(|i| f.accesses(i, m).len()).sum::<usize>())
        .sum()
}
