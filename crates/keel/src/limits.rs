//! The ranges of the CLI's numeric options, checked when the command line
//! is parsed: a value outside its range is a usage error (exit 2, clap's
//! message naming the option and the range), never a value that a pass
//! later turns into an allocation it cannot make.
//!
//! Each range is the most the code below can honour:
//! - registers (`--regs`, `--vregs`): 1..=65,536, the most general-purpose
//!   registers an MLU configuration may declare (`mlu_isa::MachineConfig`);
//!   the allocators' per-register tables grow with it;
//! - cores and clusters (`--cores`, `--clusters`): 1..=4,096, the most cores
//!   a configuration may have;
//! - lengths in Keel IR (`vectorize --lanes`, `--capacity`, `--elements`):
//!   1..=2^40, the longest memory object (`ir_core::MAX_MEM_LEN`);
//! - staging buffers (`--tile-bytes`): a multiple of 512 from 512 to 1 GiB;
//! - worker threads (`--jobs`): 1..=1,000,000 (more than the cores is
//!   clamped to the cores);
//! - `sim --timeline` width: 1..=10,000 columns.

use clap::builder::{RangedI64ValueParser, RangedU64ValueParser};

/// `--regs`, `--vregs`.
pub(crate) fn registers() -> RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=65_536)
}

/// `--cores`, `--clusters`.
pub(crate) fn cores() -> RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=4096)
}

/// A length in Keel IR.
pub(crate) fn ir_length() -> RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=ir_core::MAX_MEM_LEN)
}

/// `--jobs`.
pub(crate) fn jobs() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(1..=1_000_000)
}

/// `sim --timeline` width.
pub(crate) fn timeline_width() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(1..=10_000)
}

/// Largest `--tile-bytes`.
const MAX_TILE_BYTES: u64 = 1 << 30;

/// `--tile-bytes`: a multiple of 512 from 512 to 1 GiB.
pub(crate) fn tile_bytes(text: &str) -> Result<u64, String> {
    let bytes: u64 = text.parse().map_err(|_| format!("`{text}` is not a byte count"))?;
    if bytes < 512 || !bytes.is_multiple_of(512) || bytes > MAX_TILE_BYTES {
        return Err(format!("{bytes} is not a multiple of 512 from 512 to {MAX_TILE_BYTES}"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_bytes_are_multiples_of_512() {
        assert_eq!(tile_bytes("512"), Ok(512));
        assert_eq!(tile_bytes("65536"), Ok(65536));
        for bad in ["0", "1", "511", "513", "2147483648", "x", "-512"] {
            assert!(tile_bytes(bad).is_err(), "{bad}");
        }
    }
}
