//! [`DemoServer`]: starting, stopping and inspecting one server.

use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::thread::JoinHandle;

use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::data::{Record, position};
use crate::fault::Fault;
use crate::hold::Hold;
use crate::options::ServerOptions;
use crate::record::RecordedRequest;
use crate::routes;
use crate::state::Shared;

/// A running demo API with its own freshly seeded data, listening on `127.0.0.1`.
///
/// Dropping it stops the server: it stops accepting connections, and idle connections are closed.
#[derive(Debug)]
pub struct DemoServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// Stops a server on the test's runtime.
    shutdown: Option<oneshot::Sender<()>>,
    /// A server on a thread of its own.
    thread: Option<ServerThread>,
}

/// A server on a thread of its own, with its own single-threaded tokio runtime, listening on
/// `127.0.0.1:0`. Dropping it drops that runtime, which cancels the server and every
/// connection, and joins the thread.
#[derive(Debug)]
pub(crate) struct ServerThread {
    pub(crate) addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ServerThread {
    /// Binds the listener and runs `serve(listener)` on a thread named `name ADDR`.
    pub(crate) fn start<F, S>(name: &str, serve: S) -> io::Result<ServerThread>
    where
        S: FnOnce(TcpListener) -> F + Send + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        let std_listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let listener = {
            let _entered = runtime.enter();
            TcpListener::from_std(std_listener)?
        };
        let (shutdown, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("{name} {addr}"))
            .spawn(move || {
                runtime.block_on(async move {
                    tokio::spawn(serve(listener));
                    let _ = stopped.await;
                });
                // Dropping the runtime here cancels the server and every connection, held ones too.
                drop(runtime);
            })?;
        Ok(ServerThread {
            addr,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }
}

impl Drop for ServerThread {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            // The thread only waits for the signal just sent, then drops its runtime.
            let _ = thread.join();
        }
    }
}

impl DemoServer {
    /// Seeds the data, binds `127.0.0.1:0` and serves on a task spawned on the current tokio runtime.
    ///
    /// Must be called from within a tokio runtime with I/O and time enabled (`#[tokio::test]`,
    /// `#[tokio::main]`); the server runs as long as that runtime does. Use
    /// [`DemoServer::start_on_thread`] to give the server a runtime of its own instead.
    ///
    /// ```
    /// use demo_api::{DemoServer, client};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let server = DemoServer::start().await?;
    /// assert!(server.base_url().starts_with("http://127.0.0.1:"));
    ///
    /// let todo = client::get(server.addr(), "/todos/3").await?.json().unwrap();
    /// assert_eq!(todo["title"], "Todo 3");
    /// assert_eq!(todo["completed"], true);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start() -> io::Result<DemoServer> {
        Self::start_on_port(0).await
    }

    /// Like [`DemoServer::start`], on `127.0.0.1:port` (`0` picks a free port).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let server = demo_api::DemoServer::start_on_port(0).await?;
    /// assert_ne!(server.addr().port(), 0);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start_on_port(port: u16) -> io::Result<DemoServer> {
        Self::start_with(ServerOptions::new().port(port)).await
    }

    /// Like [`DemoServer::start`], as `options` say: on their port, and serving their static
    /// directory under `/app/` if they name one (see [`ServerOptions`]).
    ///
    /// # Errors
    ///
    /// If the static directory does not exist or is not a directory, or the port cannot be bound.
    ///
    /// ```
    /// use demo_api::{DemoServer, ServerOptions, client};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let dir = std::env::temp_dir().join(format!("demo-api-start-with-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("pkg"))?;
    /// std::fs::write(dir.join("pkg/app.js"), "export const answer = 42;")?;
    ///
    /// let server = DemoServer::start_with(ServerOptions::new().serve_static(&dir)).await?;
    /// let script = client::get(server.addr(), "/app/pkg/app.js").await?;
    /// assert_eq!(script.header("content-type"), Some("text/javascript"));
    /// assert_eq!(client::get(server.addr(), "/app/../Cargo.toml").await?.status, 404);
    /// assert_eq!(client::get(server.addr(), "/todos/1").await?.status, 200, "the API as usual");
    /// # drop(server);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start_with(options: ServerOptions) -> io::Result<DemoServer> {
        let static_root = options.static_root()?;
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, options.port)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::seeded());
        let (shutdown, stopped) = oneshot::channel::<()>();
        let app = routes::router(Arc::clone(&shared), static_root);
        tokio::spawn(async move {
            let serve = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = stopped.await;
            });
            // `serve` only returns after the shutdown signal; accept errors are retried inside.
            let _ = serve.await;
        });
        Ok(DemoServer {
            addr,
            shared,
            shutdown: Some(shutdown),
            thread: None,
        })
    }

    /// Starts the server on a thread of its own with its own single-threaded tokio runtime.
    ///
    /// Works from synchronous code, and keeps the server on real time when the test's runtime has
    /// its clock paused. Dropping the server stops the runtime and joins the thread.
    ///
    /// ```
    /// let server = demo_api::DemoServer::start_on_thread()?;
    /// let mut stream = std::net::TcpStream::connect(server.addr())?;
    /// use std::io::{Read, Write};
    /// stream.write_all(b"GET /users/u1 HTTP/1.1\r\nHost: demo\r\nConnection: close\r\n\r\n")?;
    /// let mut response = String::new();
    /// stream.read_to_string(&mut response)?;
    /// assert!(response.starts_with("HTTP/1.1 200"));
    /// assert!(response.contains("Ada Lovelace"));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn start_on_thread() -> io::Result<DemoServer> {
        let shared = Arc::new(Shared::seeded());
        let app = routes::router(Arc::clone(&shared), None);
        let thread = ServerThread::start("demo-api", |listener| async move {
            let _ = axum::serve(listener, app).await;
        })?;
        Ok(DemoServer {
            addr: thread.addr,
            shared,
            shutdown: None,
            thread: Some(thread),
        })
    }

    /// The address the server listens on (always `127.0.0.1`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in arrival order; each is recorded before it is handled, so
    /// held requests are included. CORS preflights and the `/_control/` routes are not recorded.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.log().clone()
    }

    /// Empties the request log.
    pub fn clear_requests(&self) {
        self.shared.clear_log();
    }

    /// Waits until the request log holds at least `count` requests (counting from the last
    /// [`DemoServer::clear_requests`]). When it returns, each of those requests has been recorded
    /// and, if its path is held, is already waiting on its [`Hold`]. No polling: it wakes when a
    /// request is recorded.
    ///
    /// ```
    /// use demo_api::{DemoServer, client};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let server = DemoServer::start().await?;
    /// let hold = server.hold("/users");
    /// let addr = server.addr();
    /// let pending = tokio::spawn(async move { client::get(addr, "/users").await });
    /// server.wait_for_requests(1).await;
    /// assert_eq!(server.requests()[0].path, "/users");
    /// drop(hold); // releases the queued request
    /// assert_eq!(pending.await.unwrap()?.status, 200);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn wait_for_requests(&self, count: usize) {
        let mut logged = self.shared.logged.subscribe();
        // The sender lives in `shared`, which `self` keeps alive, so this cannot fail.
        let _ = logged.wait_for(|&len| len >= count).await;
    }

    /// From now on, requests whose path (without the query) equals `path` are recorded and then
    /// wait until the test releases them through the returned [`Hold`]. Holding a path again
    /// replaces the earlier hold for new arrivals.
    pub fn hold(&self, path: &str) -> Hold {
        self.shared.holds.hold(path)
    }

    /// Arms `fault` for one request to `path` (the path without the query, any method): the
    /// next request to arrive there is recorded, waits on a [`DemoServer::hold`] if its path is
    /// held, and is then answered by the fault instead of its route (see [`Fault`]). Injecting
    /// several faults for a path arms that many requests, in order; later requests are handled
    /// normally again.
    ///
    /// # Panics
    ///
    /// If `fault` is a [`Fault::Status`] whose code is not in `100..=999`, or a
    /// [`Fault::Redirect`] whose status is not in `300..=399` or whose `to` is not a valid
    /// header value, or a [`Fault::Raw`] whose `content_type` is not a valid header value, or a
    /// [`Fault::Huge`], [`Fault::HugeChunked`] or [`Fault::Deep`] whose body would be bigger
    /// than 1 GiB.
    ///
    /// ```
    /// use demo_api::{DemoServer, Fault, client};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let server = DemoServer::start().await?;
    /// server.inject("/todos/2", Fault::Status(503));
    /// server.inject("/todos/2", Fault::Html);
    /// assert_eq!(server.armed_faults("/todos/2"), 2);
    ///
    /// let failed = client::request(server.addr(), "PATCH", "/todos/2", &[], Some(br#"{"title":"x"}"#)).await?;
    /// assert_eq!(failed.status, 503);
    /// assert_eq!(failed.json().unwrap()["error"], "injected 503");
    /// assert_eq!(server.todo(2).unwrap()["title"], "Todo 2", "the faulted PATCH changed nothing");
    /// let html = client::get(server.addr(), "/todos/2?any=query").await?;
    /// assert_eq!(html.header("content-type"), Some("text/html; charset=utf-8"));
    /// assert_eq!(client::get(server.addr(), "/todos/2").await?.json().unwrap()["id"], 2);
    /// assert_eq!(server.armed_faults("/todos/2"), 0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn inject(&self, path: &str, fault: Fault) {
        if let Some(problem) = fault.problem() {
            panic!("{problem}");
        }
        self.shared.faults.inject(path, fault);
    }

    /// How many faults [`DemoServer::inject`] armed for `path` that no request has used yet.
    pub fn armed_faults(&self, path: &str) -> usize {
        self.shared.faults.armed(path)
    }

    /// Every todo the server holds, in id order.
    pub fn todos(&self) -> Vec<Value> {
        values(&self.shared.data().todos)
    }

    /// The todo with this id, if the server holds it.
    pub fn todo(&self, id: u64) -> Option<Value> {
        let data = self.shared.data();
        position(&data.todos, &id.to_string()).map(|i| Value::Object(data.todos[i].clone()))
    }

    /// Inserts a todo, or replaces the one with the same `id`, behind any client's back (for
    /// "the server changed" tests). Returns `false`, changing nothing, if `todo` is not an object
    /// with a numeric `id`.
    pub fn upsert_todo(&self, todo: Value) -> bool {
        let Value::Object(record) = todo else { return false };
        let Some(id) = record.get("id").and_then(Value::as_u64) else {
            return false;
        };
        let mut data = self.shared.data();
        match position(&data.todos, &id.to_string()) {
            Some(i) => data.todos[i] = record,
            None => {
                data.todos.push(record);
                data.todos.sort_by_key(|t| t.get("id").and_then(Value::as_u64));
            }
        }
        true
    }

    /// Every user the server holds, in id order.
    pub fn users(&self) -> Vec<Value> {
        values(&self.shared.data().users)
    }

    /// Every feed item the server holds, in id order (the unknown-type item included).
    pub fn feed(&self) -> Vec<Value> {
        values(&self.shared.data().feed)
    }
}

fn values(records: &[Record]) -> Vec<Value> {
    records.iter().cloned().map(Value::Object).collect()
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        self.shared.holds.clear();
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        // Stops the thread's runtime, if the server has one, and joins the thread.
        self.thread.take();
    }
}
