//! Serving a directory under `/app/`, so a browser page can be served from the API's origin:
//! content types, index files, and no way out of the directory.

use std::path::{Path, PathBuf};

use demo_api::client::{self, Response};
use demo_api::{DemoServer, ServerOptions};

type TestResult = std::io::Result<()>;

/// What the file outside the served directory holds; no answer may contain it.
const SECRET: &str = "secret outside the served directory";

const WASM: &[u8] = b"\0asm\x01\0\0\0";
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

/// A fresh directory `NAME/www` holding a small app, with a secret file in `NAME/` beside it.
fn app_dir(name: &str) -> std::io::Result<PathBuf> {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if base.exists() {
        std::fs::remove_dir_all(&base)?;
    }
    let www = base.join("www");
    std::fs::create_dir_all(www.join("pkg"))?;
    std::fs::create_dir_all(www.join("docs"))?;
    std::fs::write(base.join("secret.txt"), SECRET)?;
    std::fs::write(
        www.join("index.html"),
        "<!doctype html><script type=module src=pkg/app.js></script>",
    )?;
    std::fs::write(www.join("pkg/app.js"), "import init from './app_bg.js';")?;
    std::fs::write(www.join("pkg/app_bg.wasm"), WASM)?;
    std::fs::write(www.join("style.css"), "body { margin: 0 }")?;
    std::fs::write(www.join("logo.png"), PNG)?;
    std::fs::write(www.join("data.json"), r#"{"ok":true}"#)?;
    std::fs::write(www.join("docs/index.html"), "<p>docs</p>")?;
    std::fs::write(www.join("a b.txt"), "spaced")?;
    Ok(www)
}

async fn serving(name: &str) -> std::io::Result<(DemoServer, PathBuf)> {
    let www = app_dir(name)?;
    let server = DemoServer::start_with(ServerOptions::new().serve_static(&www)).await?;
    Ok((server, www))
}

fn assert_file(response: &Response, content_type: &str, body: &[u8], target: &str) {
    assert_eq!(response.status, 200, "{target}: {}", response.text());
    assert_eq!(response.header("content-type"), Some(content_type), "{target}");
    assert_eq!(response.body, body, "{target}");
}

#[tokio::test]
async fn serves_the_files_of_the_directory_under_app_with_their_content_types() -> TestResult {
    let (server, www) = serving("static-types").await?;
    let index = std::fs::read(www.join("index.html"))?;
    let html = "text/html; charset=utf-8";
    let cases: [(&str, &str, &[u8]); 10] = [
        ("/app/", html, &index),
        ("/app/index.html", html, &index),
        ("/app/?v=2", html, &index),
        ("/app/pkg/app.js", "text/javascript", b"import init from './app_bg.js';"),
        ("/app/pkg/app_bg.wasm", "application/wasm", WASM),
        ("/app/style.css", "text/css", b"body { margin: 0 }"),
        ("/app/logo.png", "image/png", PNG),
        ("/app/data.json", "application/json", br#"{"ok":true}"#),
        ("/app/docs/", html, b"<p>docs</p>"),
        ("/app/a%20b.txt", "text/plain; charset=utf-8", b"spaced"),
    ];
    for (target, content_type, body) in cases {
        assert_file(&client::get(server.addr(), target).await?, content_type, body, target);
    }
    let head = client::request(server.addr(), "HEAD", "/app/pkg/app_bg.wasm", &[], None).await?;
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-length"), Some(WASM.len().to_string().as_str()));

    let bare = client::get(server.addr(), "/app").await?;
    assert_eq!((bare.status, bare.header("location")), (308, Some("/app/")));

    let post = client::request(server.addr(), "POST", "/app/index.html", &[], Some(b"{}")).await?;
    assert_eq!(post.status, 405);
    assert_eq!(post.json().unwrap()["status"], 405);
    assert!(server.requests().is_empty(), "files are not recorded");
    assert_eq!(
        client::get(server.addr(), "/todos/1").await?.status,
        200,
        "the API is still there"
    );
    Ok(())
}

#[tokio::test]
async fn a_path_that_would_leave_the_directory_or_names_no_file_is_a_404() -> TestResult {
    let (server, www) = serving("static-escape").await?;
    #[cfg(unix)]
    std::os::unix::fs::symlink(www.join("../secret.txt"), www.join("link.txt"))?;
    let targets = [
        "/app/../secret.txt",
        "/app/pkg/../../secret.txt",
        "/app/%2e%2e/secret.txt",
        "/app/%2E%2E/secret.txt",
        "/app/%2e%2e%2fsecret.txt",
        "/app/pkg/..%2f..%2fsecret.txt",
        "/app/..%5csecret.txt",
        "/app/%252e%252e/secret.txt",
        "/app/.%2e/secret.txt",
        "/app//etc/passwd",
        "/app/%2fetc%2fpasswd",
        "/app/pkg//app.js",
        "/app/./index.html",
        "/app/pkg/%00app.js",
        "/app/%ff.js",
        "/app/link.txt",
        "/app/pkg",
        "/app/missing.js",
        "/app/index.html/",
    ];
    for target in targets {
        let response = client::get(server.addr(), target).await?;
        assert_eq!(response.status, 404, "{target}: {}", response.text());
        assert_eq!(response.header("content-type"), Some("application/json"), "{target}");
        assert!(!response.text().contains(SECRET), "{target}");
    }
    Ok(())
}

#[tokio::test]
async fn start_with_refuses_a_static_directory_that_is_not_one() -> TestResult {
    let www = app_dir("static-refused")?;
    let missing = DemoServer::start_with(ServerOptions::new().serve_static(www.join("nope"))).await;
    assert_eq!(missing.unwrap_err().kind(), std::io::ErrorKind::NotFound);
    let file = DemoServer::start_with(ServerOptions::new().serve_static(www.join("index.html"))).await;
    let error = file.unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("index.html"), "{error}");
    Ok(())
}

#[tokio::test]
async fn without_a_static_directory_app_is_an_ordinary_unknown_route() -> TestResult {
    let server = DemoServer::start().await?;
    assert_eq!(client::get(server.addr(), "/app/").await?.status, 404);
    assert_eq!(server.requests().len(), 1);
    Ok(())
}
