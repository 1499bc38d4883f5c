//! Polling while subscribed, per key, at the smallest frequency of the key's streams (R-SUB-4/5).

use std::time::Duration;

use crate::rt::Instant;
use tokio::sync::watch;

use super::Controller;
use super::fetch::{Prepared, Reader};
use crate::rt::{self, Spawner, Task};
use crate::schema::Schema;

/// The poller of one key.
pub(crate) struct Poller {
    /// The frequency of each live stream, by stream id.
    streams: Vec<(u64, Duration)>,
    period: watch::Sender<Duration>,
    task: Task,
}

impl Poller {
    fn set_period(&self) {
        if let Some(min) = self.streams.iter().map(|(_, d)| *d).min() {
            self.period.send_if_modified(|p| std::mem::replace(p, min) != min);
        }
    }
}

/// One stream's share of a key's polling; dropping it removes its frequency.
pub(crate) struct PollGuard {
    ctrl: Controller,
    key: String,
    id: u64,
}

impl Drop for PollGuard {
    fn drop(&mut self) {
        let mut pollers = self.ctrl.inner.pollers.lock();
        let Some(poller) = pollers.get_mut(&self.key) else {
            return;
        };
        poller.streams.retain(|(id, _)| *id != self.id);
        if poller.streams.is_empty() {
            // A poll already in flight runs on its own task and still commits.
            poller.task.abort();
            pollers.remove(&self.key);
        } else {
            poller.set_period();
        }
    }
}

impl Controller {
    /// Adds a stream's frequency to the polling of `req`'s key, starting it if needed.
    pub(crate) fn poll<S: Schema>(&self, spawner: &Spawner, req: Prepared, id: u64, every: Duration) -> PollGuard {
        let key = req.key.clone();
        let mut pollers = self.inner.pollers.lock();
        match pollers.get_mut(&key) {
            Some(poller) => {
                poller.streams.push((id, every));
                poller.set_period();
            }
            None => {
                let (period, rx) = watch::channel(every);
                let task = spawner.spawn(poll_loop::<S>(self.clone(), req, rx));
                pollers.insert(
                    key.clone(),
                    Poller {
                        streams: vec![(id, every)],
                        period,
                        task,
                    },
                );
            }
        }
        PollGuard {
            ctrl: self.clone(),
            key,
            id,
        }
    }
}

/// The first poll is one period after the key was last written (at once if it never was);
/// each later one a period after the previous one started. A new period applies from the last
/// start: `max(now, T + period)`. While the Controller is offline no poll starts; one that fell
/// due meanwhile starts when it is back online.
async fn poll_loop<S: Schema>(ctrl: Controller, req: Prepared, mut period: watch::Receiver<Duration>) {
    let mut online = ctrl.inner.online.subscribe();
    let mut every = *period.borrow_and_update();
    let mut last_start: Option<Instant> = None;
    loop {
        let anchor = last_start.or_else(|| ctrl.inner.store.lock().meta(&req.key).map(|m| m.written_at));
        let at = anchor.map_or_else(Instant::now, |t| rt::later(t, every).max(Instant::now()));
        tokio::select! {
            // A new period applies before the next poll is decided.
            biased;
            changed = period.changed() => {
                if changed.is_err() {
                    return;
                }
                every = *period.borrow_and_update();
            }
            () = rt::sleep_until(at) => {
                if !*online.borrow_and_update() {
                    // Paused: wait to be back online, then decide again.
                    if online.wait_for(|up| *up).await.is_err() {
                        return;
                    }
                    continue;
                }
                last_start = Some(Instant::now());
                drop(ctrl.start::<S>(req.clone(), Reader::Detached));
            }
        }
    }
}
