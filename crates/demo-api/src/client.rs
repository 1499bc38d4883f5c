//! A minimal HTTP/1.1 client over a raw TCP stream, for tests that want to see exactly what went
//! over the wire without a full HTTP client.
//!
//! Each call opens a connection, sends one request with `Connection: close`, reads until the server
//! closes, and parses the response (`Content-Length`, chunked, or close-delimited bodies).
//!
//! ```
//! use demo_api::{DemoServer, client};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let server = DemoServer::start().await?;
//! let made = client::request(server.addr(), "POST", "/todos", &[("Content-Type", "application/json")],
//!     Some(br#"{"title":"New"}"#)).await?;
//! assert_eq!(made.status, 201);
//! assert_eq!(made.header("content-type"), Some("application/json"));
//! assert_eq!(made.json().unwrap()["id"], 31);
//! # Ok(())
//! # }
//! ```

use std::io;
use std::net::SocketAddr;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A parsed response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code, e.g. `200`.
    pub status: u16,
    /// Every header in order, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body, with any chunked transfer coding removed.
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of the header `name` (matched case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON; `None` if it is not JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The body as (lossy) UTF-8 text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Parses a complete response as read from the connection. `method` is the request's (a
    /// response to `HEAD` has no body). A body shorter than its `Content-Length` or chunked
    /// framing says is an [`io::ErrorKind::UnexpectedEof`] error.
    pub fn parse(raw: &[u8], method: &str) -> io::Result<Response> {
        let end = find(raw, b"\r\n\r\n").ok_or_else(|| eof("the response head is incomplete"))?;
        let head = std::str::from_utf8(&raw[..end]).map_err(|_| invalid("the response head is not UTF-8"))?;
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| invalid("bad status line"))?;
        let headers = lines
            .map(|line| {
                let (name, value) = line.split_once(':').ok_or_else(|| invalid("bad header line"))?;
                Ok((name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            })
            .collect::<io::Result<Vec<_>>>()?;
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        let rest = &raw[end + 4..];
        let bodiless = method.eq_ignore_ascii_case("HEAD") || matches!(status, 100..=199 | 204 | 304);
        response.body = if bodiless {
            Vec::new()
        } else if response
            .header("transfer-encoding")
            .is_some_and(|te| te.eq_ignore_ascii_case("chunked"))
        {
            dechunk(rest)?
        } else if let Some(length) = response.header("content-length") {
            let length: usize = length.parse().map_err(|_| invalid("bad Content-Length"))?;
            rest.get(..length)
                .ok_or_else(|| eof("the body is shorter than its Content-Length"))?
                .to_vec()
        } else {
            rest.to_vec()
        };
        Ok(response)
    }
}

/// Sends one request and returns the parsed response. `target` is the path and query
/// (`/todos?page=2`); `headers` are sent as given after `Host` and `Connection: close`, and a
/// `Content-Length` is added for a body unless `headers` has one.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> io::Result<Response> {
    let raw = exchange(addr, &encode(addr, method, target, headers, body)).await?;
    Response::parse(&raw, method)
}

/// `GET target` with no extra headers.
pub async fn get(addr: SocketAddr, target: &str) -> io::Result<Response> {
    request(addr, "GET", target, &[], None).await
}

/// The bytes of a request as [`request`] sends them.
pub fn encode(addr: SocketAddr, method: &str, target: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> Vec<u8> {
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let has_length = headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("content-length"));
    if let (Some(body), false) = (body, has_length) {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.unwrap_or_default());
    bytes
}

/// Writes `raw` to a new connection and returns everything read until the server closes it. An
/// error while reading (e.g. a reset) is returned only if nothing was read.
pub async fn exchange(addr: SocketAddr, raw: &[u8]) -> io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(raw).await?;
    let mut received = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) => return Ok(received),
            Ok(n) => received.extend_from_slice(&buf[..n]),
            Err(e) if received.is_empty() => return Err(e),
            Err(_) => return Ok(received),
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn invalid(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.to_owned())
}

fn eof(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, message.to_owned())
}

/// Removes the chunked transfer coding (chunk extensions and trailers are ignored).
fn dechunk(mut rest: &[u8]) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = find(rest, b"\r\n").ok_or_else(|| eof("a chunk size line is incomplete"))?;
        let line = std::str::from_utf8(&rest[..line_end]).map_err(|_| invalid("bad chunk size line"))?;
        let size_hex = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_hex, 16).map_err(|_| invalid("bad chunk size"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        let chunk = rest.get(..size).ok_or_else(|| eof("a chunk is incomplete"))?;
        body.extend_from_slice(chunk);
        rest = rest.get(size + 2..).ok_or_else(|| eof("a chunk is not terminated"))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_content_length_and_chunked_bodies() {
        let plain = Response::parse(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", "GET").unwrap();
        assert_eq!((plain.status, plain.body.as_slice()), (200, &b"{}"[..]));
        let chunked = Response::parse(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n",
            "GET",
        )
        .unwrap();
        assert_eq!(chunked.text(), "abcde");
        let short = Response::parse(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}", "GET").unwrap_err();
        assert_eq!(short.kind(), io::ErrorKind::UnexpectedEof);
        let not_modified = Response::parse(b"HTTP/1.1 304 Not Modified\r\n\r\n", "GET").unwrap();
        assert!(not_modified.body.is_empty());
    }
}
