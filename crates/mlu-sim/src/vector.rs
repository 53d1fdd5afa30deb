//! Vector and matrix kernels over a core's NRAM bytes: the fast,
//! type-specialized form of `mlu_isa::semantics`.
//!
//! Element-wise operations run in blocks of [`BLOCK`] elements: each block
//! decodes its sources into arrays, computes, and encodes the result, so the
//! inner loops are plain array loops the compiler vectorizes. A source
//! range identical to the destination or disjoint from it is read in place
//! (a block reads before it writes); one that overlaps it partly is copied
//! to a scratch buffer first, so every instruction behaves as if all its
//! sources were read before any element is written (`docs/ir.md` §6.7).
//!
//! Invariants: the caller has checked every range against the buffer;
//! operations that can trap (integer division, float-to-integer
//! conversion) check every element before writing any; reductions and
//! `mmul` add in index order, one rounding per step, exactly as the
//! semantics module does (tests check each kernel against it).

use crate::memory::{load_bits, store_bits};
use mlu_isa::semantics::{self, ArithError};
use mlu_isa::{ConvOp, RedOp, Ty, VBinOp, VUnOp};

/// Elements per block.
pub(crate) const BLOCK: usize = 256;

/// Where a source's elements come from.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Src {
    /// The NRAM buffer at this byte offset.
    Buf(usize),
    /// The scratch buffer at this byte offset.
    Scratch(usize),
    /// One value (canonical bits) for every element.
    Scalar(u64),
}

/// Prepares sources: a memory source overlapping `[dst, dst + len)` other
/// than exactly is copied to `scratch`.
pub(crate) fn stage(buf: &[u8], scratch: &mut Vec<u8>, dst: usize, len: usize, srcs: &mut [Src]) {
    scratch.clear();
    for s in srcs {
        if let Src::Buf(off) = *s
            && off != dst
            && off < dst + len
            && dst < off + len
        {
            let at = scratch.len();
            scratch.extend_from_slice(&buf[off..off + len]);
            *s = Src::Scratch(at);
        }
    }
}

trait Elem: Copy + Default {
    const W: usize;
    fn decode(b: &[u8]) -> Self;
    fn encode(self, b: &mut [u8]);
    fn from_bits(bits: u64) -> Self;
    /// Decodes `out.len()` elements from the start of `b` (fixed-size
    /// chunks, so the loop compiles to plain vector loads).
    fn decode_all(b: &[u8], out: &mut [Self]);
    /// Encodes `vals` to the start of `b`.
    fn encode_all(vals: &[Self], b: &mut [u8]);
}

macro_rules! elem_int {
    ($t:ty, $u:ty) => {
        impl Elem for $t {
            const W: usize = size_of::<$t>();
            fn decode(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap_or_default())
            }
            fn encode(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
            fn from_bits(bits: u64) -> Self {
                bits as $u as $t
            }
            fn decode_all(b: &[u8], out: &mut [Self]) {
                for (o, c) in out.iter_mut().zip(b.as_chunks::<{ size_of::<$t>() }>().0) {
                    *o = <$t>::from_le_bytes(*c);
                }
            }
            fn encode_all(vals: &[Self], b: &mut [u8]) {
                for (v, c) in vals.iter().zip(b.as_chunks_mut::<{ size_of::<$t>() }>().0) {
                    *c = v.to_le_bytes();
                }
            }
        }
    };
}
elem_int!(i8, u8);
elem_int!(i16, u16);
elem_int!(i32, u32);
elem_int!(i64, u64);

macro_rules! elem_float {
    ($t:ty, $u:ty) => {
        impl Elem for $t {
            const W: usize = size_of::<$t>();
            fn decode(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap_or_default())
            }
            fn encode(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
            fn from_bits(bits: u64) -> Self {
                <$t>::from_bits(bits as $u)
            }
            fn decode_all(b: &[u8], out: &mut [Self]) {
                for (o, c) in out.iter_mut().zip(b.as_chunks::<{ size_of::<$t>() }>().0) {
                    *o = <$t>::from_le_bytes(*c);
                }
            }
            fn encode_all(vals: &[Self], b: &mut [u8]) {
                for (v, c) in vals.iter().zip(b.as_chunks_mut::<{ size_of::<$t>() }>().0) {
                    *c = v.to_le_bytes();
                }
            }
        }
    };
}
elem_float!(f32, u32);
elem_float!(f64, u64);

/// The arithmetic of an element type, with Keel's semantics.
trait Num: Elem {
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    /// Division (the caller checked integer divisors).
    fn div(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    fn neg(a: Self) -> Self;
    fn abs(a: Self) -> Self;
    /// Whether `a / b` traps (integers: zero divisor, `MIN / −1`).
    fn div_traps(a: Self, b: Self) -> Option<ArithError>;
}

macro_rules! num_int {
    ($t:ty) => {
        impl Num for $t {
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn sub(a: Self, b: Self) -> Self {
                a.wrapping_sub(b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            fn div(a: Self, b: Self) -> Self {
                a.checked_div(b).unwrap_or(0)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn neg(a: Self) -> Self {
                a.wrapping_neg()
            }
            fn abs(a: Self) -> Self {
                a.wrapping_abs()
            }
            fn div_traps(a: Self, b: Self) -> Option<ArithError> {
                if b == 0 {
                    Some(ArithError::DivisionByZero)
                } else if a == <$t>::MIN && b == -1 {
                    Some(ArithError::Overflow)
                } else {
                    None
                }
            }
        }
    };
}
num_int!(i8);
num_int!(i16);
num_int!(i32);
num_int!(i64);

macro_rules! num_float {
    ($t:ty) => {
        impl Num for $t {
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            fn sub(a: Self, b: Self) -> Self {
                a - b
            }
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
            fn div(a: Self, b: Self) -> Self {
                a / b
            }
            /// IEEE 754-2019 `minimum`: NaN-propagating, `−0 < +0`.
            fn min(a: Self, b: Self) -> Self {
                if a.is_nan() {
                    a
                } else if b.is_nan() {
                    b
                } else if a == b {
                    if a.is_sign_negative() { a } else { b }
                } else if a < b {
                    a
                } else {
                    b
                }
            }
            /// IEEE 754-2019 `maximum`.
            fn max(a: Self, b: Self) -> Self {
                if a.is_nan() {
                    a
                } else if b.is_nan() {
                    b
                } else if a == b {
                    if a.is_sign_negative() { b } else { a }
                } else if a > b {
                    a
                } else {
                    b
                }
            }
            fn neg(a: Self) -> Self {
                -a
            }
            fn abs(a: Self) -> Self {
                a.abs()
            }
            fn div_traps(_: Self, _: Self) -> Option<ArithError> {
                None
            }
        }
    };
}
num_float!(f32);
num_float!(f64);

fn src_slice<'a>(buf: &'a [u8], scratch: &'a [u8], s: Src, at: usize, len: usize) -> Option<&'a [u8]> {
    match s {
        Src::Buf(o) => Some(&buf[o + at..o + at + len]),
        Src::Scratch(o) => Some(&scratch[o + at..o + at + len]),
        Src::Scalar(_) => None,
    }
}

fn fill_src<T: Elem>(
    buf: &[u8],
    scratch: &[u8],
    s: Src,
    at: usize,
    n: usize,
    out: &mut [T; BLOCK],
    scalar: &mut Option<u64>,
) {
    match src_slice(buf, scratch, s, at * T::W, n * T::W) {
        Some(bytes) => T::decode_all(bytes, &mut out[..n]),
        None => {
            // A broadcast: fill once.
            if let Src::Scalar(bits) = s
                && *scalar != Some(bits)
            {
                out.fill(T::from_bits(bits));
                *scalar = Some(bits);
            }
        }
    }
}

/// `dst[i] = f(a[i], b[i], c[i])` for `n` elements of type `T`.
fn map3<T: Elem>(buf: &mut [u8], scratch: &[u8], dst: usize, srcs: [Src; 3], n: usize, f: impl Fn(T, T, T) -> T) {
    let mut arrs = [[T::default(); BLOCK]; 3];
    let mut scalars = [None; 3];
    let mut out = [T::default(); BLOCK];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        for (j, s) in srcs.iter().enumerate() {
            fill_src(buf, scratch, *s, done, k, &mut arrs[j], &mut scalars[j]);
        }
        let [a, b, c] = &arrs;
        for (i, o) in out[..k].iter_mut().enumerate() {
            *o = f(a[i], b[i], c[i]);
        }
        T::encode_all(&out[..k], &mut buf[dst + done * T::W..dst + (done + k) * T::W]);
        done += k;
    }
}

fn scan_div<T: Num>(buf: &[u8], scratch: &[u8], srcs: [Src; 3], n: usize) -> Result<(), ArithError> {
    let mut arrs = [[T::default(); BLOCK]; 2];
    let mut scalars = [None; 2];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        fill_src(buf, scratch, srcs[0], done, k, &mut arrs[0], &mut scalars[0]);
        fill_src(buf, scratch, srcs[1], done, k, &mut arrs[1], &mut scalars[1]);
        if let Some(e) = arrs[0][..k].iter().zip(&arrs[1][..k]).find_map(|(&a, &b)| T::div_traps(a, b)) {
            return Err(e);
        }
        done += k;
    }
    Ok(())
}

fn binary_typed<T: Num>(
    buf: &mut [u8],
    scratch: &[u8],
    op: VBinOp,
    dst: usize,
    srcs: [Src; 3],
    n: usize,
) -> Result<(), ArithError> {
    match op {
        VBinOp::Add => map3(buf, scratch, dst, srcs, n, |a: T, b, _| T::add(a, b)),
        VBinOp::Sub => map3(buf, scratch, dst, srcs, n, |a: T, b, _| T::sub(a, b)),
        VBinOp::Mul => map3(buf, scratch, dst, srcs, n, |a: T, b, _| T::mul(a, b)),
        VBinOp::Div => {
            scan_div::<T>(buf, scratch, srcs, n)?;
            map3(buf, scratch, dst, srcs, n, |a: T, b, _| T::div(a, b));
        }
        VBinOp::Min => map3(buf, scratch, dst, srcs, n, |a: T, b, _| T::min(a, b)),
        VBinOp::Max => map3(buf, scratch, dst, srcs, n, |a: T, b, _| T::max(a, b)),
    }
    Ok(())
}

macro_rules! by_type {
    ($ty:expr, $f:ident, $($arg:expr),*) => {
        match $ty {
            Ty::I8 => $f::<i8>($($arg),*),
            Ty::I16 => $f::<i16>($($arg),*),
            Ty::I32 => $f::<i32>($($arg),*),
            Ty::I64 => $f::<i64>($($arg),*),
            Ty::F32 => $f::<f32>($($arg),*),
            // `i1` never reaches a kernel (it is a static fault); f64 covers the rest.
            Ty::F64 | Ty::I1 => $f::<f64>($($arg),*),
        }
    };
}

/// `vadd` .. `vmax` (`c` is unused).
pub(crate) fn binary(
    buf: &mut [u8],
    scratch: &[u8],
    op: VBinOp,
    ty: Ty,
    dst: usize,
    [a, b]: [Src; 2],
    n: usize,
) -> Result<(), ArithError> {
    let srcs = [a, b, Src::Scalar(0)];
    by_type!(ty, binary_typed, buf, scratch, op, dst, srcs, n)
}

fn fma_typed<T: Num>(buf: &mut [u8], scratch: &[u8], dst: usize, srcs: [Src; 3], n: usize) {
    map3(buf, scratch, dst, srcs, n, |a: T, b, c| T::add(T::mul(a, b), c));
}

/// `vfma`: `a·b + c`, unfused.
pub(crate) fn fma(buf: &mut [u8], scratch: &[u8], ty: Ty, dst: usize, srcs: [Src; 3], n: usize) {
    by_type!(ty, fma_typed, buf, scratch, dst, srcs, n)
}

trait Transcendental: Num {
    fn exp(a: Self) -> Self;
    fn ln(a: Self) -> Self;
    fn sqrt(a: Self) -> Self;
    fn tanh(a: Self) -> Self;
    fn sigmoid(a: Self) -> Self;
    fn zero() -> Self;
}

macro_rules! trans_float {
    ($t:ty) => {
        impl Transcendental for $t {
            fn exp(a: Self) -> Self {
                a.exp()
            }
            fn ln(a: Self) -> Self {
                a.ln()
            }
            fn sqrt(a: Self) -> Self {
                a.sqrt()
            }
            fn tanh(a: Self) -> Self {
                a.tanh()
            }
            fn sigmoid(a: Self) -> Self {
                1.0 / (1.0 + (-a).exp())
            }
            fn zero() -> Self {
                0.0
            }
        }
    };
}
trans_float!(f32);
trans_float!(f64);

macro_rules! trans_int {
    ($t:ty) => {
        // Transcendentals on integers are static faults; never called.
        impl Transcendental for $t {
            fn exp(a: Self) -> Self {
                a
            }
            fn ln(a: Self) -> Self {
                a
            }
            fn sqrt(a: Self) -> Self {
                a
            }
            fn tanh(a: Self) -> Self {
                a
            }
            fn sigmoid(a: Self) -> Self {
                a
            }
            fn zero() -> Self {
                0
            }
        }
    };
}
trans_int!(i8);
trans_int!(i16);
trans_int!(i32);
trans_int!(i64);

fn unary_typed<T: Transcendental>(buf: &mut [u8], scratch: &[u8], op: VUnOp, dst: usize, src: Src, n: usize) {
    let srcs = [src, Src::Scalar(0), Src::Scalar(0)];
    match op {
        VUnOp::Neg => map3(buf, scratch, dst, srcs, n, |a: T, _, _| T::neg(a)),
        VUnOp::Abs => map3(buf, scratch, dst, srcs, n, |a: T, _, _| T::abs(a)),
        VUnOp::Relu => map3(buf, scratch, dst, srcs, n, |a: T, _, _| T::max(a, T::zero())),
        VUnOp::Exp => map3(buf, scratch, dst, srcs, n, |a: T, _, _| T::exp(a)),
        VUnOp::Log => map3(buf, scratch, dst, srcs, n, |a: T, _, _| T::ln(a)),
        VUnOp::Sqrt => map3(buf, scratch, dst, srcs, n, |a: T, _, _| T::sqrt(a)),
        VUnOp::Tanh => map3(buf, scratch, dst, srcs, n, |a: T, _, _| T::tanh(a)),
        VUnOp::Sigmoid => map3(buf, scratch, dst, srcs, n, |a: T, _, _| T::sigmoid(a)),
    }
}

/// `vneg` .. `vsigmoid`. Float negation must flip only the sign bit (NaN
/// payloads kept): Rust's `-x` on floats does exactly that.
pub(crate) fn unary(buf: &mut [u8], scratch: &[u8], op: VUnOp, ty: Ty, dst: usize, src: Src, n: usize) {
    by_type!(ty, unary_typed, buf, scratch, op, dst, src, n)
}

/// `vfill`.
pub(crate) fn fill(buf: &mut [u8], ty: Ty, dst: usize, value: u64, n: usize) {
    let w = ty.bytes() as usize;
    let mut one = [0u8; 8];
    store_bits(&mut one[..w], ty, value);
    for ch in buf[dst..dst + n * w].chunks_exact_mut(w) {
        ch.copy_from_slice(&one[..w]);
    }
}

/// `vcvt`: checks every element, then converts (sources staged as for the
/// other operations).
pub(crate) fn convert(
    buf: &mut [u8],
    scratch: &[u8],
    (op, to, from): (ConvOp, Ty, Ty),
    dst: usize,
    src: Src,
    n: usize,
) -> Result<(), ArithError> {
    let (wf, wt) = (from.bytes() as usize, to.bytes() as usize);
    let read = |buf: &[u8], i: usize| -> u64 {
        match src {
            Src::Buf(o) => load_bits(&buf[o + i * wf..o + (i + 1) * wf], from),
            Src::Scratch(o) => load_bits(&scratch[o + i * wf..o + (i + 1) * wf], from),
            Src::Scalar(b) => b,
        }
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(semantics::convert(op, to, from, read(buf, i))?);
    }
    for (i, v) in out.into_iter().enumerate() {
        store_bits(&mut buf[dst + i * wt..dst + (i + 1) * wt], to, v);
    }
    Ok(())
}

fn reduce_typed<T: Num>(bytes: &[u8], op: RedOp, n: usize) -> Option<T> {
    let mut it = bytes[..n * T::W].chunks_exact(T::W).map(T::decode);
    let first = it.next()?;
    Some(match op {
        RedOp::Sum => it.fold(first, T::add),
        RedOp::Max => it.fold(first, T::max),
    })
}

trait ToBits {
    fn to_bits64(self, ty: Ty) -> u64;
}

macro_rules! to_bits_int {
    ($t:ty) => {
        impl ToBits for $t {
            fn to_bits64(self, ty: Ty) -> u64 {
                ty.canonical(self as i64 as u64)
            }
        }
    };
}
to_bits_int!(i8);
to_bits_int!(i16);
to_bits_int!(i32);
to_bits_int!(i64);

impl ToBits for f32 {
    fn to_bits64(self, _: Ty) -> u64 {
        u64::from(self.to_bits())
    }
}

impl ToBits for f64 {
    fn to_bits64(self, _: Ty) -> u64 {
        self.to_bits()
    }
}

fn reduce_bits<T: Num + ToBits>(bytes: &[u8], op: RedOp, ty: Ty, n: usize) -> u64 {
    reduce_typed::<T>(bytes, op, n).map_or(semantics::reduce_empty(op, ty), |v| v.to_bits64(ty))
}

/// `vredsum` / `vredmax` over `n` elements at the start of `bytes`.
pub(crate) fn reduce(bytes: &[u8], op: RedOp, ty: Ty, n: usize) -> u64 {
    by_type!(ty, reduce_bits, bytes, op, ty, n)
}

fn matmul_typed<T: Num + ToBits>(
    buf: &mut [u8],
    wbuf: &[u8],
    c: usize,
    a: usize,
    b: usize,
    dims: (usize, usize, usize),
) {
    let (m, k, n) = dims;
    let av: Vec<T> = buf[a..a + m * k * T::W].chunks_exact(T::W).map(T::decode).collect();
    let bv: Vec<T> = wbuf[b..b + k * n * T::W].chunks_exact(T::W).map(T::decode).collect();
    let mut out = vec![T::default(); m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc: Option<T> = None;
            for p in 0..k {
                let prod = T::mul(av[i * k + p], bv[p * n + j]);
                acc = Some(match acc {
                    None => prod,
                    Some(s) => T::add(s, prod),
                });
            }
            out[i * n + j] = acc.unwrap_or_default();
        }
    }
    for (v, ch) in out.iter().zip(buf[c..c + m * n * T::W].chunks_exact_mut(T::W)) {
        v.encode(ch);
    }
}

/// `mmul`: `C = A·B`, `A` and `C` in `buf` (NRAM), `B` in `wbuf` (WRAM);
/// every product and sum rounded, sums in increasing `p` from the first
/// product; `k = 0` writes zeros.
pub(crate) fn matmul(buf: &mut [u8], wbuf: &[u8], ty: Ty, c: usize, a: usize, b: usize, dims: (usize, usize, usize)) {
    by_type!(ty, matmul_typed, buf, wbuf, c, a, b, dims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlu_isa::semantics;

    use mlu_isa::fuzzing::SplitMix64 as Rng;

    const SPECIAL_F32: [u32; 8] =
        [0, 0x8000_0000, 0x7fc0_0000, 0xffa0_0001, 0x7f80_0000, 0xff80_0000, 0x0000_0001, 0x3f80_0000];

    fn value(rng: &mut Rng, ty: Ty) -> u64 {
        let r = rng.next_u64();
        let v = match r % 4 {
            0 if ty == Ty::F32 => u64::from(SPECIAL_F32[(r >> 8) as usize % SPECIAL_F32.len()]),
            0 if ty == Ty::F64 => [0, 1 << 63, 0x7ff8_0000_0000_0000, 0x7ff0_0000_0000_0000, 1][(r >> 8) as usize % 5],
            0 => [0, 1, u64::MAX, 1 << (ty.bits() - 1)][(r >> 8) as usize % 4],
            1 if ty == Ty::F32 => u64::from((((r >> 8) as i32 % 1000) as f32).to_bits() ^ ((r as u32 & 1) << 31)),
            1 if ty == Ty::F64 => (((r >> 8) as i32 % 1000) as f64 / 7.0).to_bits(),
            _ => r >> (r % 7),
        };
        ty.canonical(v)
    }

    /// Every kernel against the semantics module, element by element, on
    /// random and special operands, with in-place, disjoint and partly
    /// overlapping ranges and broadcast scalars.
    #[test]
    fn kernels_match_semantics() {
        let mut rng = Rng(7);
        for ty in [Ty::I8, Ty::I16, Ty::I32, Ty::I64, Ty::F32, Ty::F64] {
            let w = ty.bytes() as usize;
            for round in 0..40 {
                let n = [0, 1, 7, 255, 256, 257, 600][round % 7];
                let mut buf = vec![0u8; 4 * 700 * w];
                for ch in buf.chunks_exact_mut(w) {
                    let v = value(&mut rng, ty);
                    store_bits(ch, ty, v);
                }
                let before = buf.clone();
                let elem = |b: &[u8], off: usize, i: usize| load_bits(&b[off + i * w..off + (i + 1) * w], ty);
                // Layouts: (dst, a, b) element offsets.
                let layout = [(0, 700, 1400), (0, 0, 700), (3, 0, 1400), (0, 2, 2)][round % 4];
                let (d, a, b) = (layout.0 * w, layout.1 * w, layout.2 * w);
                let broadcast = round % 5 == 4;
                let sb = value(&mut rng, ty);
                for op in VBinOp::ALL {
                    let mut got = before.clone();
                    let mut scratch = Vec::new();
                    let mut srcs = [Src::Buf(a), if broadcast { Src::Scalar(sb) } else { Src::Buf(b) }];
                    stage(&got, &mut scratch, d, n * w, &mut srcs);
                    let r = binary(&mut got, &scratch, *op, ty, d, srcs, n);
                    let want: Result<Vec<u64>, ArithError> = (0..n)
                        .map(|i| {
                            let y = if broadcast { sb } else { elem(&before, b, i) };
                            semantics::vbinary(*op, ty, elem(&before, a, i), y)
                        })
                        .collect();
                    match (r, want) {
                        (Ok(()), Ok(want)) => {
                            for (i, wv) in want.iter().enumerate() {
                                assert_eq!(elem(&got, d, i), *wv, "{op} {ty} n={n} i={i} layout {layout:?}");
                            }
                        }
                        (Err(e), Err(f)) => {
                            assert_eq!(e, f);
                            assert_eq!(got, before, "a trapping {op} wrote");
                        }
                        (r, want) => panic!("{op} {ty}: kernel {r:?}, semantics {:?}", want.map(|_| ())),
                    }
                }
                for op in VUnOp::ALL.iter().filter(|o| o.class().accepts(ty)) {
                    let mut got = before.clone();
                    let mut scratch = Vec::new();
                    let mut srcs = [Src::Buf(a)];
                    stage(&got, &mut scratch, d, n * w, &mut srcs);
                    unary(&mut got, &scratch, *op, ty, d, srcs[0], n);
                    for i in 0..n {
                        assert_eq!(
                            elem(&got, d, i),
                            semantics::vunary(*op, ty, elem(&before, a, i)),
                            "{op} {ty} i={i}"
                        );
                    }
                }
                let mut got = before.clone();
                let mut scratch = Vec::new();
                let mut srcs = [Src::Buf(a), Src::Buf(b), Src::Scalar(sb)];
                stage(&got, &mut scratch, d, n * w, &mut srcs);
                fma(&mut got, &scratch, ty, d, srcs, n);
                for i in 0..n {
                    let want = semantics::vfma(ty, elem(&before, a, i), elem(&before, b, i), sb);
                    assert_eq!(elem(&got, d, i), want, "vfma {ty} i={i}");
                }
                for op in RedOp::ALL {
                    let mut want = semantics::reduce_empty(*op, ty);
                    for i in 0..n {
                        want = if i == 0 {
                            elem(&before, a, 0)
                        } else {
                            semantics::reduce_step(*op, ty, want, elem(&before, a, i))
                        };
                    }
                    assert_eq!(reduce(&before[a..], *op, ty, n), want, "{op} {ty} n={n}");
                }
            }
        }
    }

    #[test]
    fn matmul_matches_the_definition() {
        let mut rng = Rng(3);
        for ty in [Ty::I32, Ty::F32, Ty::F64, Ty::I8] {
            let w = ty.bytes() as usize;
            for (m, k, n) in [(2, 4, 3), (1, 0, 5), (3, 7, 1), (4, 4, 4)] {
                let mut buf = vec![0u8; 4096];
                let mut wbuf = vec![0u8; 4096];
                for ch in buf.chunks_exact_mut(w).chain(wbuf.chunks_exact_mut(w)) {
                    let v = value(&mut rng, ty);
                    store_bits(ch, ty, v);
                }
                let before = buf.clone();
                let (c, a) = (2048, 0);
                matmul(&mut buf, &wbuf, ty, c, a, 0, (m, k, n));
                let at = |b: &[u8], off: usize, i: usize| load_bits(&b[off + i * w..off + (i + 1) * w], ty);
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = None;
                        for p in 0..k {
                            let prod =
                                semantics::vbinary(VBinOp::Mul, ty, at(&before, a, i * k + p), at(&wbuf, 0, p * n + j))
                                    .unwrap();
                            acc = Some(match acc {
                                None => prod,
                                Some(s) => semantics::vbinary(VBinOp::Add, ty, s, prod).unwrap(),
                            });
                        }
                        assert_eq!(at(&buf, c, i * n + j), acc.unwrap_or(0), "{ty} {m}x{k}x{n} [{i},{j}]");
                    }
                }
            }
        }
    }
}
