//! [`DripServer`]: response headers one byte at a time, never ending, over raw TCP.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

use crate::server::ServerThread;

/// The longest request head a [`DripServer`] reads; a longer one closes the connection.
const MAX_HEAD: usize = 64 * 1024;
/// What is dripped first; then `a` follows forever, so the header line never ends.
const START: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Drip: ";

/// A server below HTTP, on `127.0.0.1`, that answers every request with response headers
/// dripped one byte per `interval`, forever: `HTTP/1.1 200 OK`, then a header whose value never
/// ends. It is how a client's protection against a server that is slow on purpose is tested.
///
/// It runs on a thread of its own with its own tokio runtime, so it keeps real time when the
/// test's clock is paused. Each request head (up to the blank line) is counted once it has
/// been read, before the first byte is dripped. Dropping the server closes every connection.
///
/// ```
/// use std::io::{Read, Write};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let server = demo_api::DripServer::start(Duration::from_millis(1))?;
/// let mut stream = std::net::TcpStream::connect(server.addr())?;
/// stream.write_all(b"GET /todos/1 HTTP/1.1\r\nHost: demo\r\n\r\n")?;
/// server.wait_for_requests(1).await;
/// assert_eq!(server.requests(), 1);
/// let mut first = [0; 8];
/// stream.read_exact(&mut first)?;
/// assert_eq!(&first, b"HTTP/1.1");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct DripServer {
    requests: Arc<watch::Sender<usize>>,
    thread: ServerThread,
}

impl DripServer {
    /// Binds `127.0.0.1:0` and serves on a thread of its own, dripping one byte per `interval`.
    pub fn start(interval: Duration) -> io::Result<DripServer> {
        let requests = Arc::new(watch::Sender::new(0));
        let counted = Arc::clone(&requests);
        let thread = ServerThread::start("demo-api drip", move |listener| async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(drip(stream, interval, Arc::clone(&counted)));
            }
        })?;
        Ok(DripServer { requests, thread })
    }

    /// The address the server listens on (always `127.0.0.1`).
    pub fn addr(&self) -> SocketAddr {
        self.thread.addr
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.thread.addr)
    }

    /// How many request heads have been read so far.
    pub fn requests(&self) -> usize {
        *self.requests.borrow()
    }

    /// Waits until at least `count` request heads have been read; it wakes when one is, without
    /// polling.
    pub async fn wait_for_requests(&self, count: usize) {
        let mut read = self.requests.subscribe();
        // The sender lives in `self`, so this cannot fail.
        let _ = read.wait_for(|&n| n >= count).await;
    }
}

/// Reads one request head from `stream`, counts it, then drips the response headers forever
/// (until the client goes away or the server is dropped).
async fn drip(mut stream: TcpStream, interval: Duration, requests: Arc<watch::Sender<usize>>) {
    let mut head = Vec::new();
    let mut buf = [0; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(n) if n > 0 && head.len() + n <= MAX_HEAD => head.extend_from_slice(&buf[..n]),
            _ => return,
        }
    }
    requests.send_modify(|n| *n += 1);
    for &byte in START.iter().chain(std::iter::repeat(&b'a')) {
        if stream.write_all(&[byte]).await.is_err() {
            return;
        }
        tokio::time::sleep(interval).await;
    }
}
