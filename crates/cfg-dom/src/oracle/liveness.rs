//! Placeholder: being written (issue 4).
