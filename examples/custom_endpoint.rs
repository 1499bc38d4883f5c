//! A custom endpoint: request hooks that authenticate every request of a resource (the seed's
//! `getRequestInit` override, as an `EndpointHooks` type).
//!
//! `cargo run --example custom_endpoint` starts the embedded demo API on 127.0.0.1. Its `GET /me`
//! answers 401 unless the request carries `Authorization: Bearer demo-token`, and `GET /whoami`
//! echoes the `Authorization` header it received. The example shows:
//!
//! 1. `GET /me` without the hooks is refused; with them it returns the signed-in user;
//! 2. the credentials mode `Credentials::SameOrigin`: the token goes to the Controller's own
//!    origin (its `base_url`), but not to another origin. For that a second demo API is
//!    started on another port of 127.0.0.1, and the same hooks call its `/whoami`.

use std::io::Write;

use restcache::Error;
use restcache::prelude::*;
use restcache::rest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use restcache::rest::{BoxFuture, Credentials, EndpointHooks, EndpointOptions, RequestInit};
use serde_json::Value;

/// The hooks every member of [`UserResource`] uses.
#[derive(Default)]
struct Authenticated;

impl EndpointHooks for Authenticated {
    /// Runs first, on every request: credentials go to our own origin only.
    fn request_init(&self, init: &mut RequestInit) {
        init.credentials = Credentials::SameOrigin;
    }

    /// Then the headers; this may await, for example to refresh a token.
    fn headers(&self, mut headers: HeaderMap) -> BoxFuture<'_, Result<HeaderMap, Error>> {
        Box::pin(async move {
            headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer demo-token"));
            Ok(headers)
        })
    }
}

/// A user of the demo API.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct User {
    #[entity(pk)]
    id: String,
    name: String,
    email: String,
}

resource! {
    /// The users, every request authenticated by [`Authenticated`].
    #[resource(path = "/users/:id", schema = User, endpoint = Authenticated)]
    struct UserResource {
        /// `GET /me`: the signed-in user.
        #[member(path = "/me")]
        me,
        /// `GET /whoami`: what the server received.
        #[member(path = "/whoami", schema = Value)]
        whoami,
    }
}

/// The `authorization` a `/whoami` answer reports: the header, or `null`.
fn authorization(seen: &Value) -> String {
    seen["authorization"].to_string()
}

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder().base_url(base_url).build()?;

    // The same route, declared without hooks.
    let plain_me = RestEndpoint::<User>::builder("/me").build()?;
    match ctrl.fetch(&plain_me, ()).await {
        Ok(user) => writeln!(
            out,
            "\n1. GET /me without the hooks: unexpectedly accepted as {}",
            user.id
        )?,
        Err(e) => writeln!(out, "\n1. GET /me without the hooks is refused: {e}")?,
    }
    let me = ctrl.fetch(&UserResource::me(), ()).await?;
    writeln!(
        out,
        "   GET /me with the hooks (Authorization: Bearer demo-token): {} <{}>, user {}",
        me.name, me.email, me.id
    )?;

    let seen = ctrl.fetch(&UserResource::whoami(), ()).await?;
    writeln!(
        out,
        "\n2. GET /whoami on our own origin {base_url}: the server received authorization: {}",
        authorization(&seen)
    )?;

    // Another origin: the same member with an absolute URL prefix, on a second server.
    let other = demo_api::DemoServer::start().await?;
    let elsewhere = UserResource::whoami().extend(EndpointOptions {
        url_prefix: Some(other.base_url()),
        ..Default::default()
    })?;
    let seen = ctrl.fetch(&elsewhere, ()).await?;
    writeln!(
        out,
        "   GET /whoami on another origin {}: the server received authorization: {}",
        other.base_url(),
        authorization(&seen)
    )?;
    writeln!(
        out,
        "   Credentials::SameOrigin kept the token at home (Credentials::Include would send it too)."
    )?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
