//! [`ServerOptions`]: what [`DemoServer::start_with`](crate::DemoServer::start_with) starts.

use std::io;
use std::path::PathBuf;

/// How [`DemoServer::start_with`](crate::DemoServer::start_with) starts a server: its port and,
/// optionally, a directory of files to serve under `/app/`.
///
/// ```
/// use demo_api::{DemoServer, ServerOptions, client};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let dir = std::env::temp_dir().join(format!("demo-api-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("index.html"), "<!doctype html><title>app</title>")?;
///
/// let server = DemoServer::start_with(ServerOptions::new().port(0).serve_static(&dir)).await?;
/// let page = client::get(server.addr(), "/app/").await?;
/// assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
/// assert_eq!(page.text(), "<!doctype html><title>app</title>");
/// assert!(server.requests().is_empty(), "files are not recorded");
/// # drop(server);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerOptions {
    pub(crate) port: u16,
    pub(crate) static_dir: Option<PathBuf>,
}

impl ServerOptions {
    /// Any free port, no files served: what [`DemoServer::start`](crate::DemoServer::start) uses.
    ///
    /// ```
    /// assert_eq!(demo_api::ServerOptions::new(), demo_api::ServerOptions::new().port(0));
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Listens on `127.0.0.1:port`; `0` (the default) picks a free port.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// let free = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    /// let server = demo_api::DemoServer::start_with(demo_api::ServerOptions::new().port(free)).await?;
    /// assert_eq!(server.addr().port(), free);
    /// # Ok(())
    /// # }
    /// ```
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Also serves the files of `dir` under `/app/` (see the crate docs' "Static files");
    /// [`DemoServer::start_with`](crate::DemoServer::start_with) fails if `dir` is not a
    /// directory.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let missing = demo_api::ServerOptions::new().serve_static("/no/such/dir");
    /// let error = demo_api::DemoServer::start_with(missing).await.unwrap_err();
    /// assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    /// assert!(error.to_string().contains("/no/such/dir"));
    /// # }
    /// ```
    pub fn serve_static(mut self, dir: impl Into<PathBuf>) -> Self {
        self.static_dir = Some(dir.into());
        self
    }

    /// The directory to serve, made absolute with every symbolic link resolved, or an error
    /// naming it if it is not a directory.
    pub(crate) fn static_root(&self) -> io::Result<Option<PathBuf>> {
        let Some(dir) = &self.static_dir else { return Ok(None) };
        let named = |e: io::Error| io::Error::new(e.kind(), format!("static directory {}: {e}", dir.display()));
        let root = dir.canonicalize().map_err(named)?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("static directory {}: not a directory", dir.display()),
            ));
        }
        Ok(Some(root))
    }
}
