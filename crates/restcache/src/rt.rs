//! What differs between a native process and a browser page: the clock, spawning tasks, timers
//! and whether futures must be `Send`. Everything else in the crate is the same on both.
//!
//! Natively this is tokio: its clock (so tests can pause time), its tasks and its timers. In
//! WebAssembly (`target_arch = "wasm32"`) it is the browser: `performance.now()` through
//! `web-time`, tasks on the page's event loop (`wasm-bindgen-futures`), and `setTimeout` timers
//! (`gloo-timers`). A browser's futures (JavaScript promises) never leave its one thread, so
//! there they need not be `Send`.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::error::Error;

/// The clock restcache stamps writes and expiry with.
///
/// Natively it is [`tokio::time::Instant`], so a test's paused clock (`start_paused`) drives
/// expiry and polling; in the browser it is `web_time::Instant`, read from
/// `performance.now()` (std's `Instant::now` is not available there).
///
/// ```
/// let now = restcache::Instant::now();
/// assert!(now + std::time::Duration::from_secs(1) > now);
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub type Instant = tokio::time::Instant;
/// The clock restcache stamps writes and expiry with: the browser's `performance.now()`.
#[cfg(target_arch = "wasm32")]
pub type Instant = web_time::Instant;

/// The wall clock, which snapshots carry times in: std's natively, the browser's `Date.now()`
/// through `web-time` in WebAssembly.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type SystemTime = std::time::SystemTime;
#[cfg(target_arch = "wasm32")]
pub(crate) type SystemTime = web_time::SystemTime;

/// The wall clock now, in nanoseconds since the UNIX epoch (negative before it, saturating).
pub(crate) fn wall_nanos_now() -> i64 {
    let nanos = |d: Duration| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
    match SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => nanos(after),
        Err(before) => -nanos(before.duration()),
    }
}

/// A boxed future, as returned by [`EndpointHooks::headers`](crate::rest::EndpointHooks::headers)
/// and by awaiting a fetch: `Send` natively, where tasks move between threads; not `Send` in
/// the browser, whose futures stay on the page's thread.
///
/// ```
/// use restcache::rest::BoxFuture;
/// let ready: BoxFuture<'static, u8> = Box::pin(async { 7 });
/// # drop(ready);
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
/// A boxed future; in the browser it need not be `Send`.
#[cfg(target_arch = "wasm32")]
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// `Send` natively; every type in the browser, whose tasks never leave its thread.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) trait MaybeSend: Send {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Send> MaybeSend for T {}
#[cfg(target_arch = "wasm32")]
pub(crate) trait MaybeSend {}
#[cfg(target_arch = "wasm32")]
impl<T> MaybeSend for T {}

/// A task the Controller started. Dropping it leaves the task running; [`abort`](Self::abort)
/// stops it at its next `.await`.
pub(crate) struct Task {
    #[cfg(not(target_arch = "wasm32"))]
    handle: tokio::task::JoinHandle<()>,
    #[cfg(target_arch = "wasm32")]
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Task {
    /// Whether the task has ended (natively, also when the runtime it ran on shut down; in the
    /// browser a task is never seen to end).
    pub(crate) fn is_finished(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        return self.handle.is_finished();
        #[cfg(target_arch = "wasm32")]
        false
    }

    /// Stops the task.
    pub(crate) fn abort(&mut self) {
        #[cfg(not(target_arch = "wasm32"))]
        self.handle.abort();
        #[cfg(target_arch = "wasm32")]
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Where the Controller runs its tasks: the current tokio runtime natively, the page's event
/// loop in the browser.
#[derive(Clone)]
pub(crate) struct Spawner {
    #[cfg(not(target_arch = "wasm32"))]
    runtime: tokio::runtime::Handle,
}

impl Spawner {
    /// The spawner of this thread; natively an error if no tokio runtime is running.
    pub(crate) fn current() -> Result<Self, Error> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let runtime = tokio::runtime::Handle::try_current().map_err(|_| Error::InvalidConfig {
                reason: "restcache runs its fetches and subscriptions on a tokio runtime; none is running".into(),
            })?;
            Ok(Spawner { runtime })
        }
        #[cfg(target_arch = "wasm32")]
        Ok(Spawner {})
    }

    /// Runs `task` on its own.
    pub(crate) fn spawn(&self, task: impl Future<Output = ()> + MaybeSend + 'static) -> Task {
        #[cfg(not(target_arch = "wasm32"))]
        {
            Task {
                handle: self.runtime.spawn(task),
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            wasm_bindgen_futures::spawn_local(async move {
                tokio::select! {
                    () = task => {}
                    // Only `abort` stops it: a dropped handle leaves it running.
                    Ok(()) = stopped => {}
                }
            });
            Task { stop: Some(stop) }
        }
    }
}

/// The longest a wait or an expiry lasts: a longer duration (`Duration::MAX` for "never") is cut
/// to it. No process outlives it, and the instant it gives stays well within what the clock can
/// name and what a stamp holds.
const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3_600);

/// `at + by`, with `by` cut to a century: a duration past what the clock can name (an expiry,
/// a poll period, a retry delay of `Duration::MAX`) is a time that never comes, not an overflow
/// (R-EXP-1). A clock that cannot count a century past `at` gives `at`.
pub(crate) fn later(at: Instant, by: Duration) -> Instant {
    at.checked_add(by.min(FOREVER)).unwrap_or(at)
}

/// Waits until `at` (at once if it has passed).
pub(crate) async fn sleep_until(at: Instant) {
    #[cfg(not(target_arch = "wasm32"))]
    tokio::time::sleep_until(at).await;
    // `setTimeout` takes a delay of at most 2^31 - 1 ms (about 24.8 days), and fires at once for
    // a longer one: a longer wait is slept in parts.
    #[cfg(target_arch = "wasm32")]
    loop {
        let wait = at.saturating_duration_since(Instant::now());
        if wait.is_zero() {
            break;
        }
        let ms = u32::try_from(wait.as_millis()).map_or(i32::MAX as u32, |ms| ms.clamp(1, i32::MAX as u32));
        gloo_timers::future::TimeoutFuture::new(ms).await;
    }
}

/// `work`'s output, or `None` if it did not finish within `limit`. A limit past every instant
/// the clock can name (`Duration::MAX`) never fires.
pub(crate) async fn timeout<F: Future>(limit: Duration, work: F) -> Option<F::Output> {
    let Some(deadline) = Instant::now().checked_add(limit) else {
        return Some(work.await);
    };
    tokio::select! {
        biased;
        done = work => Some(done),
        () = sleep_until(deadline) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{FOREVER, Instant, later};

    /// R-EXP-1: an expiry, period or delay longer than the clock reaches is a century on, not a
    /// panic; any shorter one is added as it is.
    #[test]
    fn r_exp_1_a_duration_past_the_clock_is_cut_to_a_century() {
        let now = Instant::now();
        assert_eq!(later(now, Duration::from_secs(5)), now + Duration::from_secs(5));
        assert_eq!(later(now, FOREVER), now + FOREVER);
        assert_eq!(later(now, Duration::MAX), now + FOREVER);
        assert_eq!(later(now, Duration::new(u64::MAX / 2, 0)), now + FOREVER);
    }
}
