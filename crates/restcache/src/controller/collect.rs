//! The collector's task (R-GC-5): a cycle every interval, one step at a time.

use std::sync::{Arc, Weak};
use std::time::Duration;

use super::{Controller, Inner};
use crate::rt::{self, Instant, Spawner};

impl Controller {
    /// Starts the collector's task if the store collects and it does not run (not started
    /// yet, or ended with the runtime it ran on; natively, it needs a tokio runtime).
    pub(crate) fn start_collector(&self) {
        let Some((every, task)) = &self.inner.collector else {
            return;
        };
        let mut task = task.lock();
        if task.as_ref().is_some_and(|t| !t.is_finished()) {
            return;
        }
        if let Ok(spawner) = Spawner::current() {
            *task = Some(spawner.spawn(collect_loop(Arc::downgrade(&self.inner), *every)));
        }
    }
}

/// Every `every`, a whole cycle, a step at a time with the store's lock taken for each step
/// only, letting other tasks run in between. Ends once the Controller is gone.
async fn collect_loop(inner: Weak<Inner>, every: Duration) {
    loop {
        rt::sleep_until(rt::later(Instant::now(), every)).await;
        loop {
            let Some(inner) = inner.upgrade() else { return };
            let report = inner.store.lock().gc_step();
            let ctrl = Controller { inner };
            if report.keys > 0 || report.rows > 0 {
                ctrl.notify();
            }
            // A cycle waits while optimistic layers are pending: until the next interval.
            if report.done || report.blocked {
                break;
            }
            drop(ctrl);
            tokio::task::yield_now().await;
        }
    }
}
