//! The assembler's fuzz property, shared by tests and fuzz targets
//! (feature `fuzzing`): [`check_text`] panics if arbitrary bytes make the
//! parser or the verifier panic, or if a program that parses does not
//! print back to itself.

use crate::{MachineConfig, text, verify};

/// Parses `bytes` (as UTF-8, lossily); whatever parses must print, parse
/// back to the same program, print identically, and verify (or not)
/// without panicking.
pub fn check_text(bytes: &[u8]) {
    let src = String::from_utf8_lossy(bytes);
    let Ok((p, _)) = text::parse(&src) else { return };
    let printed = text::print_program(&p);
    let (q, _) = text::parse(&printed).unwrap_or_else(|e| panic!("printed text does not parse: {e:?}\n{printed}"));
    assert_eq!(p, q, "the round trip changed the program:\n{printed}");
    assert_eq!(text::print_program(&q), printed, "printing is not a fixed point");
    let _ = verify(&p, &MachineConfig::mlu370());
}
