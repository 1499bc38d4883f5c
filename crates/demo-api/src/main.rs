//! `cargo run -p demo-api [-- --port N] [--port-file PATH] [--static DIR]`: serves the demo API on
//! `127.0.0.1` until interrupted.
//!
//! - `--port N`: listen on port N; `0`, the default, picks a free port.
//! - `--port-file PATH`: once listening, write the port number (and a newline) to PATH, so a
//!   script that started the server with `--port 0` learns the port without reading its output.
//!   The file is written whole under another name, then renamed to PATH.
//! - `--static DIR`: also serve the files of DIR under `/app/` (see the library's "Static files").
//!
//! Each option may also be written `--option=VALUE`. Once listening (and after writing the port
//! file), the server prints `listening on http://127.0.0.1:PORT`. Bad arguments exit with status
//! 2, a server that cannot start (a port in use, DIR not a directory) with status 1.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use demo_api::{DemoServer, ServerOptions};

const USAGE: &str = "usage: demo-api [--port N] [--port-file PATH] [--static DIR]";

/// What the command line asks for.
#[derive(Debug, Default, PartialEq, Eq)]
struct Args {
    /// `--port`; `0` when absent.
    port: u16,
    /// `--port-file`.
    port_file: Option<PathBuf>,
    /// `--static`.
    static_dir: Option<PathBuf>,
}

/// Parses the arguments after the program name; a later option overrides an earlier one.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args::default();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
            None => (arg, None),
        };
        if !matches!(name.as_str(), "--port" | "--port-file" | "--static") {
            return Err(format!("unknown argument `{name}`; {USAGE}"));
        }
        let value = match inline {
            Some(value) => value,
            None => args.next().ok_or_else(|| format!("{name} needs a value; {USAGE}"))?,
        };
        match name.as_str() {
            "--port" => parsed.port = value.parse().map_err(|_| format!("`{value}` is not a port number"))?,
            "--port-file" => parsed.port_file = Some(PathBuf::from(value)),
            _ => parsed.static_dir = Some(PathBuf::from(value)),
        }
    }
    Ok(parsed)
}

/// Writes `port` and a newline to `path`: to a file beside it first, then renamed over it, so
/// whoever waits for `path` never reads half a number.
fn write_port_file(path: &Path, port: u16) -> io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    std::fs::write(&partial, format!("{port}\n"))?;
    std::fs::rename(&partial, path)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("demo-api: {message}");
            return ExitCode::from(2);
        }
    };
    let mut options = ServerOptions::new().port(args.port);
    if let Some(dir) = &args.static_dir {
        options = options.serve_static(dir);
    }
    let server = match DemoServer::start_with(options).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("demo-api: cannot serve on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = &args.port_file
        && let Err(e) = write_port_file(path, server.addr().port())
    {
        eprintln!("demo-api: cannot write the port file {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("listening on {}", server.base_url());
    // Serve until the process is interrupted (Ctrl-C ends it by the default signal action).
    std::future::pending::<()>().await;
    drop(server);
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(list: &[&str]) -> Result<Args, String> {
        parse_args(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_the_port() {
        assert_eq!(parse(&[]), Ok(Args::default()));
        assert_eq!(parse(&["--port", "8080"]).map(|a| a.port), Ok(8080));
        assert_eq!(parse(&["--port=3000"]).map(|a| a.port), Ok(3000));
        assert_eq!(parse(&["--port=1", "--port", "2"]).map(|a| a.port), Ok(2));
        assert!(parse(&["--port"]).is_err());
        assert!(parse(&["--port", "x"]).is_err());
        assert!(parse(&["--port", "65536"]).is_err());
        assert!(parse(&["--verbose"]).is_err());
        assert!(parse(&["--portx=1"]).is_err());
    }

    #[test]
    fn parses_the_port_file_and_the_static_dir() {
        let full = parse(&["--static", "site", "--port-file=/tmp/a=b", "--port=0"]);
        assert_eq!(
            full,
            Ok(Args {
                port: 0,
                port_file: Some(PathBuf::from("/tmp/a=b")),
                static_dir: Some(PathBuf::from("site")),
            })
        );
        assert_eq!(
            parse(&["--static=dist", "--port-file", "p"]),
            Ok(Args {
                port: 0,
                port_file: Some(PathBuf::from("p")),
                static_dir: Some(PathBuf::from("dist")),
            })
        );
        let missing = parse(&["--port-file"]).unwrap_err();
        assert!(missing.contains("--port-file needs a value"), "{missing}");
        assert!(parse(&["--static"]).unwrap_err().contains(USAGE));
    }
}
