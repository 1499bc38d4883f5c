//! `cargo run -p demo-api [-- --port N]`: serves the demo API on `127.0.0.1` until interrupted.

use std::process::ExitCode;

/// The port from `--port N` or `--port=N`; `0` (any free port) when absent.
fn port_from_args(mut args: impl Iterator<Item = String>) -> Result<u16, String> {
    let mut port = 0;
    while let Some(arg) = args.next() {
        let value = match arg.strip_prefix("--port") {
            Some("") => args.next().ok_or("--port needs a value")?,
            Some(rest) if rest.starts_with('=') => rest[1..].to_owned(),
            _ => return Err(format!("unknown argument `{arg}`; usage: demo-api [--port N]")),
        };
        port = value.parse().map_err(|_| format!("`{value}` is not a port number"))?;
    }
    Ok(port)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let port = match port_from_args(std::env::args().skip(1)) {
        Ok(port) => port,
        Err(message) => {
            eprintln!("demo-api: {message}");
            return ExitCode::from(2);
        }
    };
    let server = match demo_api::DemoServer::start_on_port(port).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("demo-api: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("listening on {}", server.base_url());
    // Serve until the process is interrupted (Ctrl-C ends it by the default signal action).
    std::future::pending::<()>().await;
    drop(server);
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::port_from_args;

    fn args(list: &[&str]) -> impl Iterator<Item = String> {
        list.iter().map(|s| s.to_string()).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn parses_the_port() {
        assert_eq!(port_from_args(args(&[])), Ok(0));
        assert_eq!(port_from_args(args(&["--port", "8080"])), Ok(8080));
        assert_eq!(port_from_args(args(&["--port=3000"])), Ok(3000));
        assert!(port_from_args(args(&["--port"])).is_err());
        assert!(port_from_args(args(&["--port", "x"])).is_err());
        assert!(port_from_args(args(&["--verbose"])).is_err());
    }
}
