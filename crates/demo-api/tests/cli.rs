//! The `demo-api` binary, as a script starts it for the browser tests.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use demo_api::client;

type TestResult = std::io::Result<()>;

/// The running binary; dropping it kills it and reaps it.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> std::io::Result<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn demo_api() -> Command {
    Command::new(env!("CARGO_BIN_EXE_demo-api"))
}

#[tokio::test]
async fn port_0_and_a_port_file_tell_a_script_where_the_server_with_its_page_listens() -> TestResult {
    let base = scratch("cli-port-file")?;
    let www = base.join("www");
    std::fs::create_dir(&www)?;
    std::fs::write(www.join("index.html"), "<!doctype html><title>tests</title>")?;
    let port_file = base.join("port");

    let mut child = demo_api()
        .arg("--port")
        .arg("0")
        .arg(format!("--port-file={}", port_file.display()))
        .arg("--static")
        .arg(&www)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let stdout = child.stdout.take().expect("piped");
    let _running = Running(child);
    // The server prints this line once it listens, after writing the port file.
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("{line:?}"));

    let written = std::fs::read_to_string(&port_file)?;
    let port: u16 = written.trim().parse().unwrap_or_else(|_| panic!("{written:?}"));
    assert_ne!(port, 0);
    assert_eq!(url, format!("http://127.0.0.1:{port}"));
    let mut left = std::fs::read_dir(&base)?
        .map(|entry| entry.map(|e| e.file_name()))
        .collect::<std::io::Result<Vec<_>>>()?;
    left.sort();
    assert_eq!(left, ["port", "www"], "no partial file is left behind");

    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let page = client::get(addr, "/app/").await?;
    assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(page.text(), "<!doctype html><title>tests</title>");
    assert_eq!(client::get(addr, "/todos/1").await?.json().unwrap()["id"], 1);
    Ok(())
}

#[test]
fn bad_arguments_exit_with_2_and_the_usage() -> TestResult {
    for args in [
        &["--verbose"][..],
        &["--static"],
        &["--port-file"],
        &["--port", "99999"],
    ] {
        let output = demo_api().args(args).stdin(Stdio::null()).output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("demo-api: "), "{args:?}: {stderr}");
    }
    let usage = demo_api().arg("--verbose").output()?;
    assert!(
        String::from_utf8_lossy(&usage.stderr).contains("usage: demo-api [--port N] [--port-file PATH] [--static DIR]")
    );
    Ok(())
}

#[test]
fn a_static_dir_that_is_not_a_directory_exits_with_1_naming_it() -> TestResult {
    let base = scratch("cli-bad-static")?;
    let missing = base.join("missing");
    let output = demo_api().arg("--static").arg(&missing).output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&*missing.to_string_lossy()), "{stderr}");
    assert!(output.stdout.is_empty(), "it never listened");
    Ok(())
}
