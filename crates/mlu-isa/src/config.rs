//! Machine configurations: the MLU270/370/590-like presets and custom ones.
//!
//! The memory sizes, the 4 cores per cluster, the 128-byte vector
//! alignment, the 64-element count rule, the 64-byte WRAM alignment, the
//! 64-byte DRAM granule, the 128 bytes per vector cycle, the MLU370 clock
//! and the scalar latencies' ranges are public facts (`docs/mlu-isa.md` §10
//! lists the sources, and §1 cites them by number). Every other number
//! (cluster counts, bandwidths, DMA and barrier latencies, matrix-unit
//! rate, queue depth) is a model choice, marked as such in
//! `docs/mlu-isa.md`, and can be changed in a custom configuration.
//!
//! Invariants: a configuration that passed [`MachineConfig::validate`] has
//! nonzero rates, sizes and counts of at most [`MAX_CONFIG_VALUE`] (2^40),
//! power-of-two alignments and DRAM granule of at most [`MAX_CONFIG_ALIGN`]
//! (1 MiB), and at most 65 536 registers, so cost formulas never divide by zero and register
//! numbers fit a [`Reg`](crate::Reg). The text form (`key = value` lines,
//! [`MachineConfig::parse`]) and [`MachineConfig::to_text`] are inverse.
//! A configuration that breaks them is a [`ConfigError`] naming the key and
//! its value.

use crate::text::{Diagnostic, Span};
use core::fmt;

/// Why a configuration is refused: each variant names the offending key
/// (and value).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ConfigError {
    /// A key the text form does not have.
    UnknownKey {
        /// The key as written.
        key: String,
    },
    /// A value too large for its key's field.
    TooLarge {
        /// The key.
        key: &'static str,
        /// The value given.
        value: u64,
    },
    /// A value over the most Keel models for its key ([`MAX_CONFIG_VALUE`], or
    /// [`MAX_CONFIG_ALIGN`] for alignments and the DRAM granule), so that cycle
    /// and byte counters cannot wrap.
    OverLimit {
        /// The key.
        key: &'static str,
        /// The value given.
        value: u64,
        /// The most allowed.
        max: u64,
    },
    /// A rate, size or count that is zero.
    NotPositive {
        /// The key.
        key: &'static str,
    },
    /// An alignment or granule that is not a power of two.
    NotPowerOfTwo {
        /// The key.
        key: &'static str,
        /// Its value.
        value: u64,
    },
    /// More registers than a [`Reg`](crate::Reg) can number (65 536).
    TooManyGprs {
        /// The `gprs` value.
        gprs: u32,
    },
    /// More cores than the simulator models (4096).
    TooManyCores {
        /// `clusters × cores_per_cluster`.
        cores: u32,
    },
    /// A name that is empty or holds white space.
    BadName {
        /// The name.
        name: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownKey { key } => write!(f, "unknown key `{key}`"),
            ConfigError::TooLarge { key, value } => write!(f, "`{key}` = {value} is too large"),
            ConfigError::OverLimit { key, value, max } => {
                write!(f, "`{key}` = {value} is over {max}, the most Keel models")
            }
            ConfigError::NotPositive { key } => write!(f, "`{key}` must be positive"),
            ConfigError::NotPowerOfTwo { key, value } => write!(f, "`{key}` = {value} must be a power of two"),
            ConfigError::TooManyGprs { gprs } => write!(f, "`gprs` = {gprs} is more than 65536"),
            ConfigError::TooManyCores { cores } => {
                write!(f, "{cores} cores is more than the 4096 the simulator models")
            }
            ConfigError::BadName { name } => write!(f, "the name `{name}` must be one word"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The most any numeric key may be: 2^40 (bytes, cycles, counts, rates).
pub const MAX_CONFIG_VALUE: u64 = 1 << 40;

/// The most an alignment or the DRAM granule may be: 1 MiB.
pub const MAX_CONFIG_ALIGN: u64 = 1 << 20;

macro_rules! config_fields {
    ($($(#[$doc:meta])* $field:ident : $ty:ty),+ $(,)?) => {
        /// A machine: its shape, memories, registers, latencies and rates.
        /// Times are in cycles, sizes in bytes, rates in bytes (or
        /// multiply-accumulates) per cycle.
        #[derive(Clone, PartialEq, Eq, Debug)]
        pub struct MachineConfig {
            /// A name for reports (`mlu370`, or a custom one).
            pub name: String,
            $($(#[$doc])* pub $field: $ty,)+
        }

        impl MachineConfig {
            /// Every numeric key of the text form, in order.
            pub const KEYS: &'static [&'static str] = &[$(stringify!($field)),+];

            fn set(&mut self, key: &str, value: u64) -> Result<(), ConfigError> {
                match key {
                    $(stringify!($field) => {
                        self.$field = <$ty>::try_from(value)
                            .map_err(|_| ConfigError::TooLarge { key: stringify!($field), value })?;
                    })+
                    _ => return Err(ConfigError::UnknownKey { key: key.to_string() }),
                }
                Ok(())
            }

            /// The value of a numeric key.
            pub fn get(&self, key: &str) -> Option<u64> {
                match key {
                    $(stringify!($field) => Some(u64::from(self.$field)),)+
                    _ => None,
                }
            }
        }
    };
}

config_fields! {
    /// Clusters on the chip (the most a run may launch).
    clusters: u32,
    /// IPU cores per cluster (4 on every MLU generation here).
    cores_per_cluster: u32,
    /// General-purpose registers per core (64 bits each).
    gprs: u32,
    /// NRAM per core.
    nram_bytes: u64,
    /// WRAM per core.
    wram_bytes: u64,
    /// SRAM per cluster.
    sram_bytes: u64,
    /// The most DRAM a program may declare.
    dram_bytes: u64,
    /// Alignment of vector and matrix operands in NRAM, and of objects in NRAM, SRAM and DRAM.
    vector_align: u64,
    /// Alignment of WRAM operands and objects.
    wram_align: u64,
    /// Vector element counts must be multiples of this.
    count_multiple: u64,
    /// DRAM moves whole granules; a partial granule written costs a read-modify-write.
    dram_granule: u64,
    /// Clock in MHz (reports convert cycles to time with it).
    clock_mhz: u32,
    /// Instructions that may wait in each non-scalar pipe's queue.
    queue_depth: u32,
    /// Integer add, logic, compares, moves, selects, conversions, branches.
    lat_alu: u32,
    /// Integer multiply.
    lat_mul: u32,
    /// Integer divide and remainder, and `f64` divide.
    lat_div: u32,
    /// Float add, subtract, min, max (2 cycles: public fact).
    lat_fadd: u32,
    /// Float multiply.
    lat_fmul: u32,
    /// `f32` divide.
    lat_fdiv: u32,
    /// Square root.
    lat_sqrt: u32,
    /// `fexp`, `flog`.
    lat_exp: u32,
    /// `ftanh`, `fsigmoid`.
    lat_tanh: u32,
    /// A scalar load or store to NRAM (the front end waits for it).
    lat_nram: u32,
    /// A scalar load or store to SRAM.
    lat_sram: u32,
    /// A scalar load or store to DRAM.
    lat_dram: u32,
    /// Vector unit: bytes per cycle (128: public fact).
    vector_bytes_per_cycle: u64,
    /// Vector unit: cycles before the first result.
    vector_latency: u32,
    /// Vector unit: cycle multiplier for division, square root and transcendentals.
    vector_slow_factor: u32,
    /// Matrix unit: multiply-accumulates per cycle.
    matmul_macs_per_cycle: u64,
    /// Matrix unit: cycles before the first result.
    matmul_latency: u32,
    /// One core's IO-DMA engine: bytes per cycle.
    io_dma_bytes_per_cycle: u64,
    /// IO-DMA: cycles from issue to the first byte.
    io_dma_latency: u32,
    /// One core's Move-DMA engine: bytes per cycle.
    move_dma_bytes_per_cycle: u64,
    /// Move-DMA: cycles from issue to the first byte.
    move_dma_latency: u32,
    /// DRAM: bytes per cycle for the whole chip, shared by every transfer touching DRAM.
    dram_bytes_per_cycle: u64,
    /// SRAM: bytes per cycle per cluster, shared by the cluster's SRAM transfers.
    sram_bytes_per_cycle: u64,
    /// A local barrier: cycles from the last arrival to the release.
    barrier_local_latency: u32,
    /// A global barrier: cycles from the last arrival to the release.
    barrier_global_latency: u32,
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

impl MachineConfig {
    /// The preset names.
    pub const PRESETS: [&'static str; 3] = ["mlu270", "mlu370", "mlu590"];

    /// The fields every preset shares (`mlu370`'s model choices).
    fn base(name: &str) -> MachineConfig {
        MachineConfig {
            name: name.to_string(),
            clusters: 8,
            cores_per_cluster: 4,
            gprs: 64,
            nram_bytes: 768 * KIB,
            wram_bytes: MIB,
            sram_bytes: 4 * MIB,
            dram_bytes: 16 * 1024 * MIB,
            vector_align: 128,
            wram_align: 64,
            count_multiple: 64,
            dram_granule: 64,
            clock_mhz: 1300,
            queue_depth: 16,
            lat_alu: 1,
            lat_mul: 3,
            lat_div: 16,
            lat_fadd: 2,
            lat_fmul: 3,
            lat_fdiv: 8,
            lat_sqrt: 6,
            lat_exp: 12,
            lat_tanh: 18,
            lat_nram: 2,
            lat_sram: 24,
            lat_dram: 160,
            vector_bytes_per_cycle: 128,
            vector_latency: 8,
            vector_slow_factor: 4,
            matmul_macs_per_cycle: 256,
            matmul_latency: 16,
            io_dma_bytes_per_cycle: 64,
            io_dma_latency: 128,
            move_dma_bytes_per_cycle: 128,
            move_dma_latency: 32,
            dram_bytes_per_cycle: 192,
            sram_bytes_per_cycle: 256,
            barrier_local_latency: 16,
            barrier_global_latency: 64,
        }
    }

    /// An MLU270-like machine: 512 KiB NRAM, 1 MiB WRAM per core, 2 MiB
    /// SRAM per cluster.
    pub fn mlu270() -> MachineConfig {
        MachineConfig {
            clusters: 4,
            nram_bytes: 512 * KIB,
            wram_bytes: MIB,
            sram_bytes: 2 * MIB,
            clock_mhz: 1000,
            dram_bytes_per_cycle: 96,
            sram_bytes_per_cycle: 128,
            matmul_macs_per_cycle: 128,
            ..MachineConfig::base("mlu270")
        }
    }

    /// An MLU370-like machine: 768 KiB NRAM, 1 MiB WRAM per core, 4 MiB
    /// SRAM per cluster, 1.3 GHz.
    pub fn mlu370() -> MachineConfig {
        MachineConfig::base("mlu370")
    }

    /// An MLU590-like machine: 512 KiB NRAM, 512 KiB WRAM per core, 2 MiB
    /// SRAM per cluster.
    pub fn mlu590() -> MachineConfig {
        MachineConfig {
            clusters: 12,
            nram_bytes: 512 * KIB,
            wram_bytes: 512 * KIB,
            sram_bytes: 2 * MIB,
            clock_mhz: 1400,
            dram_bytes_per_cycle: 768,
            sram_bytes_per_cycle: 512,
            io_dma_bytes_per_cycle: 128,
            move_dma_bytes_per_cycle: 256,
            matmul_macs_per_cycle: 1024,
            ..MachineConfig::base("mlu590")
        }
    }

    /// A preset by name (`mlu270`, `mlu370`, `mlu590`).
    pub fn preset(name: &str) -> Option<MachineConfig> {
        match name {
            "mlu270" => Some(MachineConfig::mlu270()),
            "mlu370" => Some(MachineConfig::mlu370()),
            "mlu590" => Some(MachineConfig::mlu590()),
            _ => None,
        }
    }

    /// Cores on the chip.
    pub fn cores(&self) -> u32 {
        self.clusters.saturating_mul(self.cores_per_cluster)
    }

    /// The capacity of an on-chip space per instance (DRAM: the declarable limit).
    pub fn capacity(&self, space: crate::Space) -> u64 {
        match space {
            crate::Space::Nram => self.nram_bytes,
            crate::Space::Wram => self.wram_bytes,
            crate::Space::Sram => self.sram_bytes,
            crate::Space::Dram => self.dram_bytes,
        }
    }

    /// The alignment of objects and vector operands in `space`.
    pub fn align(&self, space: crate::Space) -> u64 {
        if space == crate::Space::Wram { self.wram_align } else { self.vector_align }
    }

    /// Checks the invariants in the module doc; the error names the first
    /// bad key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for &key in MachineConfig::KEYS {
            if self.get(key) == Some(0) {
                return Err(ConfigError::NotPositive { key });
            }
        }
        for &key in MachineConfig::KEYS {
            let value = self.get(key).unwrap_or(0);
            if value > MAX_CONFIG_VALUE {
                return Err(ConfigError::OverLimit { key, value, max: MAX_CONFIG_VALUE });
            }
        }
        for key in ["vector_align", "wram_align", "dram_granule"] {
            let value = self.get(key).unwrap_or(1);
            if !value.is_power_of_two() {
                return Err(ConfigError::NotPowerOfTwo { key, value });
            }
            if value > MAX_CONFIG_ALIGN {
                return Err(ConfigError::OverLimit { key, value, max: MAX_CONFIG_ALIGN });
            }
        }
        if self.gprs > 65_536 {
            return Err(ConfigError::TooManyGprs { gprs: self.gprs });
        }
        if self.cores() > 4096 {
            return Err(ConfigError::TooManyCores { cores: self.cores() });
        }
        if self.name.is_empty() || self.name.contains(char::is_whitespace) {
            return Err(ConfigError::BadName { name: self.name.clone() });
        }
        Ok(())
    }

    /// Parses a custom configuration: `key = value` lines (`;` starts a
    /// comment). `base = PRESET` (first, optional; default `mlu370`) picks
    /// the starting point, `name = WORD` renames it, and every other key of
    /// [`MachineConfig::KEYS`] overrides one number (decimal, `0x` hex, or
    /// with a `K`/`M`/`G` suffix for KiB/MiB/GiB). The result is validated.
    pub fn parse(text: &str) -> Result<MachineConfig, Diagnostic> {
        let mut config = MachineConfig::mlu370();
        let mut renamed = false;
        let mut first = true;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let body = line.split(';').next().unwrap_or("");
            let trimmed = body.trim();
            if trimmed.is_empty() {
                continue;
            }
            let lead = body.len() - body.trim_start().len();
            let span = Span::new(start + lead, start + lead + trimmed.len());
            let Some((key, value)) = trimmed.split_once('=') else {
                return Err(Diagnostic::new("expected `key = value`", span));
            };
            let (key, value) = (key.trim(), value.trim());
            let value_at = start + lead + trimmed.find('=').unwrap_or(0) + 1;
            let value_span = Span::new(value_at, start + lead + trimmed.len());
            match key {
                "base" => {
                    if !first {
                        return Err(Diagnostic::new("`base` must come first", span));
                    }
                    config = MachineConfig::preset(value).ok_or_else(|| {
                        Diagnostic::new(
                            format!("unknown preset `{value}` (expected one of {})", MachineConfig::PRESETS.join(", ")),
                            value_span,
                        )
                    })?;
                }
                "name" => {
                    config.name = value.to_string();
                    renamed = true;
                }
                _ => {
                    let v = parse_size(value).ok_or_else(|| {
                        Diagnostic::new(
                            format!("`{value}` is not a number (decimal, 0x hex, K/M/G suffix)"),
                            value_span,
                        )
                    })?;
                    config.set(key, v).map_err(|e| Diagnostic::new(e.to_string(), span))?;
                }
            }
            first = false;
        }
        if !renamed {
            config.name = format!("{}-custom", config.name);
        }
        config.validate().map_err(|e| Diagnostic::new(e.to_string(), Span::new(0, 0)))?;
        Ok(config)
    }

    /// The text form: `name = ...` then every key, one per line.
    pub fn to_text(&self) -> String {
        let mut s = format!("name = {}\n", self.name);
        for &key in MachineConfig::KEYS {
            s.push_str(&format!("{key} = {}\n", self.get(key).unwrap_or(0)));
        }
        s
    }
}

fn parse_size(text: &str) -> Option<u64> {
    let (digits, scale) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], KIB),
        b'M' => (&text[..text.len() - 1], MIB),
        b'G' => (&text[..text.len() - 1], 1024 * MIB),
        _ => (text, 1),
    };
    let v = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u64>().ok()?,
    };
    v.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_hold_the_public_memory_table() {
        let t = [("mlu270", 512, 1024, 2048), ("mlu370", 768, 1024, 4096), ("mlu590", 512, 512, 2048)];
        for (name, nram, wram, sram) in t {
            let c = MachineConfig::preset(name).unwrap();
            assert_eq!((c.nram_bytes, c.wram_bytes, c.sram_bytes), (nram * KIB, wram * KIB, sram * KIB), "{name}");
            assert_eq!(c.cores_per_cluster, 4);
            assert_eq!((c.vector_align, c.count_multiple, c.wram_align), (128, 64, 64));
            assert_eq!(c.lat_fadd, 2);
            assert!((8..=16).contains(&c.lat_fdiv) && (8..=16).contains(&c.lat_div));
            assert!((6..=18).contains(&c.lat_sqrt) && (6..=18).contains(&c.lat_exp) && (6..=18).contains(&c.lat_tanh));
            c.validate().unwrap();
        }
        assert_eq!(MachineConfig::mlu370().clock_mhz, 1300);
    }

    #[test]
    fn text_round_trips_and_overrides() {
        let c = MachineConfig::mlu590();
        assert_eq!(MachineConfig::parse(&c.to_text()).unwrap(), c);
        let custom =
            MachineConfig::parse("base = mlu270 ; small\nname = tiny\nnram_bytes = 64K\ngprs = 0x10\n").unwrap();
        assert_eq!((custom.name.as_str(), custom.nram_bytes, custom.gprs), ("tiny", 64 * KIB, 16));
        assert_eq!(custom.sram_bytes, 2 * MIB);
        assert_eq!(MachineConfig::parse("clusters = 2").unwrap().name, "mlu370-custom");
    }

    #[test]
    fn bad_text_is_a_located_error() {
        let e = MachineConfig::parse("gprs = 8\nfoo = 3\n").unwrap_err();
        assert!(e.message.contains("unknown key `foo`"), "{}", e.message);
        assert_eq!(e.span.start, 9);
        let e = MachineConfig::parse("gprs = lots").unwrap_err();
        assert!(e.message.contains("not a number"));
        let e = MachineConfig::parse("gprs = 0").unwrap_err();
        assert!(e.message.contains("`gprs` must be positive"));
        let e = MachineConfig::parse("vector_align = 100").unwrap_err();
        assert!(e.message.contains("power of two"));
        let e = MachineConfig::parse("gprs = 4\nbase = mlu270").unwrap_err();
        assert!(e.message.contains("must come first"));
        let e = MachineConfig::parse("base = mlu9").unwrap_err();
        assert!(e.message.contains("unknown preset"));
        let e = MachineConfig::parse("clusters = 99999999999").unwrap_err();
        assert!(e.message.contains("too large"));
    }

    #[test]
    fn validate_names_the_key() {
        let mut c = MachineConfig::mlu370();
        c.lat_dram = 0;
        assert_eq!(c.validate(), Err(ConfigError::NotPositive { key: "lat_dram" }));
        c = MachineConfig { wram_align: 48, ..MachineConfig::mlu370() };
        let e = c.validate().unwrap_err();
        assert_eq!(e, ConfigError::NotPowerOfTwo { key: "wram_align", value: 48 });
        assert_eq!(e.to_string(), "`wram_align` = 48 must be a power of two");
        c = MachineConfig { dram_granule: 0x4000_0000_0000_0000, ..MachineConfig::mlu370() };
        let e = c.validate().unwrap_err();
        assert_eq!(e, ConfigError::OverLimit { key: "dram_granule", value: 1 << 62, max: MAX_CONFIG_VALUE });
        c = MachineConfig { dram_granule: 1 << 21, ..MachineConfig::mlu370() };
        assert_eq!(
            c.validate(),
            Err(ConfigError::OverLimit { key: "dram_granule", value: 1 << 21, max: MAX_CONFIG_ALIGN })
        );
        c = MachineConfig { clusters: 2000, ..MachineConfig::mlu370() };
        assert_eq!(c.validate(), Err(ConfigError::TooManyCores { cores: 8000 }));
        c = MachineConfig { name: "two words".into(), ..MachineConfig::mlu370() };
        assert_eq!(c.validate().unwrap_err().to_string(), "the name `two words` must be one word");
        let mut c = MachineConfig::mlu370();
        assert_eq!(c.set("gprs", 1 << 40), Err(ConfigError::TooLarge { key: "gprs", value: 1 << 40 }));
        assert_eq!(c.set("nope", 1), Err(ConfigError::UnknownKey { key: "nope".into() }));
    }
}
