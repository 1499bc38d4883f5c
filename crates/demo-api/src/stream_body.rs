//! A response body produced piece by piece, for the large and broken misbehaving responses.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use http_body::{Frame, SizeHint};

/// The largest frame a [`Piece::Fill`] yields at once.
const FILL_CHUNK: usize = 64 * 1024;
static FILL: [u8; FILL_CHUNK] = [b'a'; FILL_CHUNK];

/// One part of a [`StreamBody`].
#[derive(Debug, Clone)]
pub(crate) enum Piece {
    /// These bytes.
    Bytes(Bytes),
    /// This many `a` bytes, produced lazily in chunks.
    Fill(u64),
    /// Not ready once (the task is woken at once), so what came before is flushed to the client
    /// before the next piece is produced.
    Yield,
    /// An error: the server aborts the response and closes the connection.
    Fail,
    /// Never ready again (nothing wakes the task): the body never ends.
    Stall,
}

/// A body that yields its pieces in order. With a `length` it reports an exact size, so the
/// response carries `Content-Length: length` (whether or not the pieces add up to it); without one
/// it is sent chunked.
#[derive(Debug)]
pub(crate) struct StreamBody {
    pieces: VecDeque<Piece>,
    length: Option<u64>,
}

impl StreamBody {
    pub(crate) fn new(pieces: impl IntoIterator<Item = Piece>, length: Option<u64>) -> Self {
        StreamBody {
            pieces: pieces.into_iter().collect(),
            length,
        }
    }

    pub(crate) fn into_body(self) -> Body {
        Body::new(self)
    }
}

impl http_body::Body for StreamBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        loop {
            let Some(piece) = this.pieces.front_mut() else {
                return Poll::Ready(None);
            };
            match piece {
                Piece::Bytes(bytes) => {
                    let bytes = std::mem::take(bytes);
                    this.pieces.pop_front();
                    if !bytes.is_empty() {
                        return Poll::Ready(Some(Ok(Frame::data(bytes))));
                    }
                }
                Piece::Fill(0) => {
                    this.pieces.pop_front();
                }
                Piece::Fill(remaining) => {
                    let n = usize::try_from(*remaining).unwrap_or(usize::MAX).min(FILL_CHUNK);
                    *remaining -= n as u64;
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&FILL[..n])))));
                }
                Piece::Yield => {
                    this.pieces.pop_front();
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Piece::Stall => return Poll::Pending,
                Piece::Fail => {
                    this.pieces.pop_front();
                    return Poll::Ready(Some(Err(io::Error::other("response body deliberately cut off"))));
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.pieces.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        match self.length {
            Some(length) => SizeHint::with_exact(length),
            None => SizeHint::default(),
        }
    }
}
