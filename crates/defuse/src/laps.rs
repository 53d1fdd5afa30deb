//! Phase timing on request. Reading the clock costs tens of nanoseconds,
//! as much as a whole phase of a small function, so both methods read it
//! only when their caller asks for the phases (`*_timed`); otherwise every
//! lap is zero and the clock is never read.

use std::time::{Duration, Instant};

/// A stopwatch that runs only when asked to.
pub(crate) struct Laps(Option<Instant>);

impl Laps {
    /// Started now when `timed`, else never running.
    pub(crate) fn start(timed: bool) -> Laps {
        Laps(timed.then(Instant::now))
    }

    /// The time since the start or the last lap (zero when not timed).
    pub(crate) fn lap(&mut self) -> Duration {
        match self.0 {
            Some(t) => {
                let now = Instant::now();
                self.0 = Some(now);
                now - t
            }
            None => Duration::ZERO,
        }
    }
}
