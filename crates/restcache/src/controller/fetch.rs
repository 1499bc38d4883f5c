//! `ctrl.fetch(&endpoint, args).body(&b).await` (R-FETCH-1).

use std::any::TypeId;
use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use reqwest::Method;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::Controller;
use crate::error::Error;
use crate::rest::http::Outgoing;
use crate::rest::{BoxFuture, EndpointConfig, RestEndpoint};
use crate::schema::Schema;
use crate::store::WriteOptions;

/// A request about to be sent; `.await` it (it is `IntoFuture`).
///
/// The body is any `Serialize` value; `B`, the endpoint's declared body type, documents what the
/// server expects.
#[must_use = "a fetch does nothing until it is awaited"]
pub struct FetchRequest<S, B> {
    ctrl: Controller,
    cfg: Arc<EndpointConfig>,
    args: Result<Map<String, Value>, Error>,
    body: Option<Result<Value, Error>>,
    types: PhantomData<fn() -> (S, B)>,
}

impl<S: Schema, B> FetchRequest<S, B> {
    pub(crate) fn new<G>(
        ctrl: Controller,
        ep: &RestEndpoint<S, B, G>,
        args: Result<Map<String, Value>, Error>,
    ) -> Self {
        FetchRequest {
            ctrl,
            cfg: Arc::clone(&ep.cfg),
            args,
            body: None,
            types: PhantomData,
        }
    }

    /// Sends `body` as JSON (R-REQ-1). A body on a GET or HEAD is `Error::InvalidArgs`.
    pub fn body(mut self, body: &impl Serialize) -> Self {
        self.body = Some(serde_json::to_value(body).map_err(|e| Error::InvalidArgs {
            reason: format!("the body does not serialize: {e}"),
        }));
        self
    }
}

impl<S: Schema, B> IntoFuture for FetchRequest<S, B> {
    type Output = Result<Arc<S::Output>, Error>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(run::<S>(self.ctrl, self.cfg, self.args, self.body))
    }
}

async fn run<S: Schema>(
    ctrl: Controller,
    cfg: Arc<EndpointConfig>,
    args: Result<Map<String, Value>, Error>,
    body: Option<Result<Value, Error>>,
) -> Result<Arc<S::Output>, Error> {
    let args = args?;
    let body = body.transpose()?;
    let url = cfg.url(&args)?;
    let key = cfg.key(&args)?;
    if body.is_some() && (cfg.method == Method::GET || cfg.method == Method::HEAD) {
        return Err(Error::InvalidArgs {
            reason: format!("a {} request cannot carry a body", cfg.method),
        });
    }
    let started = Instant::now();
    let ignore_body = TypeId::of::<S::Output>() == TypeId::of::<()>();
    let sent = ctrl
        .inner
        .http
        .send(Outgoing {
            cfg: &cfg,
            url: &url,
            body: body.clone(),
            ignore_body,
        })
        .await;

    let write_args = Value::Object(cfg.write_args(&args).unwrap_or(args));
    let mut opts = WriteOptions::new().fetched_at(started).data_expiry(cfg.data_expiry);
    opts.body = body.as_ref();
    opts.policy = cfg.policy.as_deref();
    let mut store = ctrl.inner.store.lock();
    let outcome = sent.and_then(|value| {
        store
            .write::<S>(&key, &write_args, &value, opts)
            .map_err(|e| e.with_url(url.as_str()))
    });
    match outcome {
        Ok(out) => Ok(out),
        Err(e) => {
            store.set_error(&key, started, e.clone(), cfg.error_expiry);
            Err(e)
        }
    }
}
