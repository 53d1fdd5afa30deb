//! The ends of the position line, shared by both forms of a segment map
//! and by their users.

/// `+∞` as an exclusive end.
pub(crate) const INF: i64 = i64::MAX;
/// `-∞` as a start.
pub(crate) const NEG_INF: i64 = i64::MIN;
