//! The state shared by the server task and the [`DemoServer`](crate::DemoServer) handle.

use std::sync::{Mutex, MutexGuard};

use tokio::sync::{oneshot, watch};

use crate::data::Data;
use crate::fault::FaultRegistry;
use crate::hold::HoldRegistry;
use crate::record::RecordedRequest;

/// Everything the routes and the test handle share: the data, the request log, the holds and
/// the armed faults.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) data: Mutex<Data>,
    pub(crate) log: Mutex<Vec<RecordedRequest>>,
    pub(crate) holds: HoldRegistry,
    pub(crate) faults: FaultRegistry,
    /// The log's length, announced after each request is recorded (and queued, if held).
    pub(crate) logged: watch::Sender<usize>,
}

impl Shared {
    /// Fresh state with the seeded data set and an empty log.
    pub(crate) fn seeded() -> Self {
        Shared {
            data: Mutex::new(Data::seeded()),
            log: Mutex::new(Vec::new()),
            holds: HoldRegistry::default(),
            faults: FaultRegistry::default(),
            logged: watch::Sender::new(0),
        }
    }

    /// Logs a request, hands it to the hold on its path if there is one (returning what to wait
    /// on), then announces the new log length.
    pub(crate) fn record(&self, request: RecordedRequest) -> Option<oneshot::Receiver<()>> {
        self.log().push(request.clone());
        let release = self.holds.check(request);
        self.announce();
        release
    }

    /// Empties the log.
    pub(crate) fn clear_log(&self) {
        self.log().clear();
        self.announce();
    }

    /// Back to the seed: fresh data, an empty log, no armed faults. Holds stay.
    pub(crate) fn reset(&self) {
        *self.data() = Data::seeded();
        self.faults.clear();
        self.clear_log();
    }

    fn announce(&self) {
        let len = self.log().len();
        self.logged.send_replace(len);
    }

    /// The data, locked.
    pub(crate) fn data(&self) -> MutexGuard<'_, Data> {
        lock(&self.data)
    }

    /// The request log, locked.
    pub(crate) fn log(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        lock(&self.log)
    }
}

/// Locks a mutex, ignoring poisoning: no lock is held across code that can panic, and a test
/// helper must keep working even if some other thread did.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
