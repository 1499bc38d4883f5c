//! Retrying a request that failed for a reason that may pass: exponential backoff with jitter.

use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use reqwest::header::HeaderValue;

use crate::error::Error;

/// How a request is retried after a failure that may pass: a transport error reqwest reported
/// (a refused or reset connection, say) or a `408`, `429`, `500`, `502`, `503` or `504`
/// answer. Other errors (another status, a body that does not decode, a redirect restcache
/// refuses, the whole-fetch timeout) are final.
///
/// Retry `n` (from 0) waits a random delay between half and all of
/// `min(initial_delay × 2ⁿ, max_delay)` ("equal jitter"), so clients that failed together do not
/// come back together. An answer whose `Retry-After` asks for a longer wait
/// ([`Error::retry_after`]) is retried after that wait, or not at all when it asks for more
/// than `max_delay`. Every attempt and every delay count against the Controller's
/// [`timeout`](crate::controller::ControllerBuilder::timeout).
///
/// GETs use the Controller's policy ([`Retry::default`] unless
/// [`ControllerBuilder::retry`](crate::controller::ControllerBuilder::retry) says otherwise);
/// mutations are not retried unless their endpoint sets a policy
/// ([`EndpointOptions::retry`](crate::rest::EndpointOptions::retry)), since a mutation that
/// failed in transit may still have been applied.
///
/// ```
/// use restcache::rest::Retry;
/// use std::time::Duration;
///
/// let patient = Retry::new(4, Duration::from_millis(200)).max_delay(Duration::from_secs(2));
/// assert_eq!(patient.retries(), 4);
/// assert!(patient.delay(0) >= Duration::from_millis(100) && patient.delay(0) <= Duration::from_millis(200));
/// // Capped: half to all of 2 s.
/// assert!(patient.delay(10) >= Duration::from_secs(1) && patient.delay(10) <= Duration::from_secs(2));
/// assert_eq!(Retry::never().retries(), 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Retry {
    retries: u32,
    initial_delay: Duration,
    max_delay: Duration,
}

/// The most retries a policy may ask for.
pub const MAX_RETRIES: u32 = 10;

impl Default for Retry {
    /// Two retries, after 250–500 ms and 500 ms–1 s, capped at 10 s.
    fn default() -> Self {
        Retry {
            retries: 2,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(10),
        }
    }
}

impl Retry {
    /// `retries` retries, the first after up to `initial_delay`, each later one after up to
    /// twice the one before, capped at 10 s (see [`max_delay`](Self::max_delay)). Checked when
    /// the Controller or endpoint is built: more than [`MAX_RETRIES`], or a zero delay with
    /// retries, is `Error::InvalidConfig`.
    ///
    /// ```
    /// use restcache::rest::Retry;
    /// use std::time::Duration;
    /// assert_eq!(Retry::new(3, Duration::from_millis(100)).retries(), 3);
    /// ```
    pub fn new(retries: u32, initial_delay: Duration) -> Self {
        Retry {
            retries,
            initial_delay,
            max_delay: Duration::from_secs(10).max(initial_delay),
        }
    }

    /// No retry: the first failure is final.
    ///
    /// ```
    /// assert_eq!(restcache::rest::Retry::never().retries(), 0);
    /// ```
    pub fn never() -> Self {
        Retry {
            retries: 0,
            initial_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
        }
    }

    /// Caps each delay (before jitter) at `max`, which must be at least the initial delay.
    ///
    /// ```
    /// use restcache::rest::Retry;
    /// use std::time::Duration;
    /// let capped = Retry::new(5, Duration::from_millis(100)).max_delay(Duration::from_millis(300));
    /// assert!(capped.delay(4) <= Duration::from_millis(300));
    /// ```
    pub fn max_delay(mut self, max: Duration) -> Self {
        self.max_delay = max;
        self
    }

    /// How many times a failed request is sent again.
    ///
    /// ```
    /// assert_eq!(restcache::rest::Retry::default().retries(), 2);
    /// ```
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The wait before retry `n` (from 0): a random duration between half and all of
    /// `min(initial_delay × 2ⁿ, max_delay)`.
    ///
    /// ```
    /// use restcache::rest::Retry;
    /// use std::time::Duration;
    /// let d = Retry::new(2, Duration::from_millis(400)).delay(1);
    /// assert!(d >= Duration::from_millis(400) && d <= Duration::from_millis(800));
    /// ```
    pub fn delay(&self, n: u32) -> Duration {
        let full = self
            .initial_delay
            .saturating_mul(1u32.checked_shl(n).unwrap_or(u32::MAX))
            .min(self.max_delay);
        let half = full / 2;
        let spread = u64::try_from((full - half).as_nanos()).unwrap_or(u64::MAX);
        // std's per-process random keys, hashed with a fresh state each time: random enough to
        // spread clients apart, and no dependency.
        let random = RandomState::new().hash_one(n);
        half + Duration::from_nanos(random % spread.saturating_add(1))
    }

    /// `Error::InvalidConfig` for a policy that makes no sense: too many retries, a zero delay
    /// with retries, or a cap below the initial delay.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let reason = if self.retries > MAX_RETRIES {
            format!("{} retries is more than the {MAX_RETRIES} allowed", self.retries)
        } else if self.retries > 0 && self.initial_delay.is_zero() {
            "a zero retry delay would resend at once; give a delay of at least 1 ms".into()
        } else if self.max_delay < self.initial_delay {
            format!(
                "max_delay {:?} is below the initial delay {:?}",
                self.max_delay, self.initial_delay
            )
        } else {
            return Ok(());
        };
        Err(Error::InvalidConfig { reason })
    }

    /// Whether the request is sent again after attempt `n` (from 0) failed with `error`: a
    /// retry is left, the failure may pass, and the answer's `Retry-After` asks for no more
    /// than [`max_delay`](Self::max_delay).
    pub(crate) fn retries_after(&self, n: u32, error: &Error) -> bool {
        n < self.retries && Self::may_pass(error) && error.retry_after().is_none_or(|asked| asked <= self.max_delay)
    }

    /// The wait before retry `n` after `error`: [`delay`](Self::delay), or as long as the
    /// answer's `Retry-After` asked if that is longer.
    pub(crate) fn wait(&self, n: u32, error: &Error) -> Duration {
        self.delay(n).max(error.retry_after().unwrap_or_default())
    }

    /// Whether `error` may pass if the request is sent again.
    pub(crate) fn may_pass(error: &Error) -> bool {
        match error {
            Error::Transport { source, timed_out, .. } => source.is_some() && !timed_out,
            Error::Status { status, .. } => matches!(status.as_u16(), 408 | 429 | 500 | 502 | 503 | 504),
            _ => false,
        }
    }
}

/// The wait a `Retry-After` value asks for: a number of seconds, or the time from now until the
/// HTTP date it names (zero for a date gone by). More seconds than a `u64` holds ask for
/// `Duration::MAX`, longer than any policy waits. `None` for anything else, which is ignored.
pub(crate) fn retry_after(value: &HeaderValue) -> Option<Duration> {
    let text = value.to_str().ok()?.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return Some(text.parse().map_or(Duration::MAX, Duration::from_secs));
    }
    let at = httpdate::parse_http_date(text)
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let now = Duration::from_nanos(u64::try_from(crate::rt::wall_nanos_now()).unwrap_or(0));
    Some(at.saturating_sub(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_within_their_jitter_and_stop_at_the_cap() {
        let r = Retry::new(8, Duration::from_millis(100)).max_delay(Duration::from_millis(1000));
        for n in 0..8 {
            let full = Duration::from_millis(100 * (1 << n)).min(Duration::from_millis(1000));
            for _ in 0..50 {
                let d = r.delay(n);
                assert!(
                    d >= full / 2 && d <= full,
                    "retry {n}: {d:?} outside {:?}..={full:?}",
                    full / 2
                );
            }
        }
    }

    #[test]
    fn jitter_spreads_the_delays() {
        let r = Retry::new(1, Duration::from_secs(1));
        let distinct: std::collections::HashSet<Duration> = (0..20).map(|_| r.delay(0)).collect();
        assert!(distinct.len() > 10, "{distinct:?}");
    }

    #[test]
    fn huge_retry_numbers_do_not_overflow() {
        let r = Retry::new(10, Duration::from_secs(1)).max_delay(Duration::from_secs(5));
        assert!(r.delay(u32::MAX) <= Duration::from_secs(5));
    }

    /// R-REQ-5: `Retry-After` is whole seconds or an HTTP date; nothing else names a time.
    #[test]
    fn r_req_5_retry_after_is_seconds_or_a_date() {
        let asked = |text: &str| retry_after(&HeaderValue::from_str(text).unwrap());
        assert_eq!(asked("120"), Some(Duration::from_secs(120)));
        assert_eq!(asked(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(asked("0"), Some(Duration::ZERO));
        assert_eq!(asked("184467440737095516160"), Some(Duration::MAX));
        assert_eq!(asked("Sun, 06 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
        let soon = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(90));
        assert!(asked(&soon).is_some_and(|d| d > Duration::from_secs(88) && d <= Duration::from_secs(90)));
        for nothing in ["", "-1", "+1", "1.5", "1e3", "soon", "٣", "Sun, 06 Nov 1994"] {
            assert_eq!(asked(nothing), None, "{nothing:?}");
        }
        assert_eq!(retry_after(&HeaderValue::from_bytes(b"\xff").unwrap()), None);
    }

    #[test]
    fn a_retry_waits_what_the_server_asks_up_to_the_cap() {
        let busy = |after: Option<u64>| Error::Status {
            status: reqwest::StatusCode::SERVICE_UNAVAILABLE,
            url: String::new(),
            body: String::new(),
            retry_after: after.map(Duration::from_secs),
        };
        let r = Retry::new(2, Duration::from_millis(100)).max_delay(Duration::from_secs(5));
        assert!(r.wait(0, &busy(None)) <= Duration::from_millis(100));
        assert_eq!(r.wait(0, &busy(Some(5))), Duration::from_secs(5));
        assert!(r.wait(0, &busy(Some(0))) >= Duration::from_millis(50));
        assert!(r.retries_after(0, &busy(Some(5))) && r.retries_after(1, &busy(None)));
        assert!(!r.retries_after(0, &busy(Some(6))), "asks for more than the cap");
        assert!(!r.retries_after(2, &busy(None)), "no retry left");
    }

    #[test]
    fn nonsense_policies_are_refused() {
        assert!(Retry::new(11, Duration::from_millis(1)).check().is_err());
        assert!(Retry::new(1, Duration::ZERO).check().is_err());
        assert!(
            Retry::new(1, Duration::from_secs(2))
                .max_delay(Duration::from_secs(1))
                .check()
                .is_err()
        );
        assert!(Retry::never().check().is_ok());
        assert!(Retry::default().check().is_ok());
    }
}
