//! `target-mlu`: the MLU-style accelerator backend.
//!
//! **Status: not yet implemented.** This crate exposes no API yet. It will
//! define the target ISA (clusters of IPU cores with NRAM/WRAM, a shared
//! SRAM, GDMA/IODMA/MVDMA transfers; see the digest's accelerator section)
//! and lower Keel IR to it. Only the simulator (`mlu-sim`) and the CLI
//! depend on this crate.
//!
//! Depends on: `ir-core`, `cfg-dom`, `memdep`, `regalloc-pebble`.

#![deny(missing_docs)]
