//! Shared test helpers: structural comparison of modules and a generator of
//! builder-made functions.

#![allow(dead_code)]

pub mod equal;
pub mod gen_fn;
