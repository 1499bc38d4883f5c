//! Holding requests: a test decides when, and in which order, requests to a path are handled.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};

use crate::record::RecordedRequest;
use crate::state::lock;

/// The paths being held, each with the channel its [`Hold`] receives arrivals on.
#[derive(Debug, Default)]
pub(crate) struct HoldRegistry {
    inner: Arc<Mutex<Holds>>,
}

#[derive(Debug, Default)]
struct Holds {
    next_id: u64,
    by_path: HashMap<String, (u64, mpsc::UnboundedSender<Held>)>,
}

impl HoldRegistry {
    /// Starts holding `path`; a previous hold on the same path stops receiving new arrivals.
    pub(crate) fn hold(&self, path: &str) -> Hold {
        let (sender, arrivals) = mpsc::unbounded_channel();
        let mut holds = lock(&self.inner);
        holds.next_id += 1;
        let id = holds.next_id;
        holds.by_path.insert(path.to_owned(), (id, sender));
        Hold {
            path: path.to_owned(),
            id,
            arrivals,
            registry: Arc::clone(&self.inner),
        }
    }

    /// If the request's path is held, hands it to the [`Hold`] and returns what to wait on.
    pub(crate) fn check(&self, request: RecordedRequest) -> Option<oneshot::Receiver<()>> {
        let holds = lock(&self.inner);
        let (_, sender) = holds.by_path.get(&request.path)?;
        let (release, released) = oneshot::channel();
        // If the Hold is gone, the send fails and the request is not held.
        sender.send(Held { request, release }).ok()?;
        Some(released)
    }

    /// Stops every hold: their [`Hold::arrived`] calls panic instead of waiting forever.
    pub(crate) fn clear(&self) {
        lock(&self.inner).by_path.clear();
    }
}

/// Requests to one path, held until the test releases them; made by
/// [`DemoServer::hold`](crate::DemoServer::hold).
///
/// Each request to the path is recorded, then waits; [`Hold::arrived`] hands it to the test as a
/// [`Held`], and [`Held::release`] lets it proceed. Dropping the `Hold` releases every request it
/// still keeps and stops holding the path.
///
/// ```
/// use demo_api::{DemoServer, client};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let server = DemoServer::start().await?;
/// let mut hold = server.hold("/todos/1");
/// let addr = server.addr();
/// let first = tokio::spawn(async move { client::get(addr, "/todos/1?n=1").await });
/// let second = tokio::spawn(async move { client::get(addr, "/todos/1?n=2").await });
/// let a = hold.arrived().await;
/// let b = hold.arrived().await;
/// // Answer them in the opposite order of arrival.
/// b.release();
/// let (later, earlier) = if a.request().query.as_deref() == Some("n=1") { (second, first) } else { (first, second) };
/// assert_eq!(later.await.unwrap()?.status, 200);
/// a.release();
/// assert_eq!(earlier.await.unwrap()?.status, 200);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Hold {
    path: String,
    id: u64,
    arrivals: mpsc::UnboundedReceiver<Held>,
    registry: Arc<Mutex<Holds>>,
}

impl Hold {
    /// Waits until the next request to the held path has arrived (and been recorded), and returns
    /// it, still waiting. Requests that arrived earlier are returned first, in arrival order.
    ///
    /// # Panics
    ///
    /// If the [`DemoServer`](crate::DemoServer) was dropped, since no request can arrive any more.
    pub async fn arrived(&mut self) -> Held {
        match self.arrivals.recv().await {
            Some(held) => held,
            None => panic!(
                "the demo server holding `{}` was dropped; no request can arrive",
                self.path
            ),
        }
    }

    /// The path this hold matches.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut holds = lock(&self.registry);
        if holds.by_path.get(&self.path).is_some_and(|(id, _)| *id == self.id) {
            holds.by_path.remove(&self.path);
        }
        // Dropping `arrivals` next drops every `Held` still queued, which releases those requests.
    }
}

/// One request waiting on a [`Hold`]. [`Held::release`] lets it proceed; dropping it does too.
#[derive(Debug)]
pub struct Held {
    request: RecordedRequest,
    release: oneshot::Sender<()>,
}

impl Held {
    /// The waiting request, as recorded.
    pub fn request(&self) -> &RecordedRequest {
        &self.request
    }

    /// Resolves once the client has given up on the request: it closed the connection before
    /// the answer, and the server dropped the request's handler.
    pub async fn abandoned(&mut self) {
        self.release.closed().await;
    }

    /// Lets the request be handled.
    pub fn release(self) {
        // If the client went away, nobody is waiting any more; nothing to do.
        let _ = self.release.send(());
    }
}
