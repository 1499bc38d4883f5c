//! A response body normalized straight from its bytes by simd-json, on the targets where it
//! has SIMD code (x86_64, aarch64; the CPU's instructions are picked at run time): the same
//! normalization as serde_json's, behind serde's `Deserializer`, with the JSON scanned for
//! structure many bytes at a time.
//!
//! It is a fast path only. A body it does not normalize (not JSON, refused by the schema, not
//! read whole by the schema, nested deeper than [`MAX_INPUT_DEPTH`], larger than [`MAX_BYTES`],
//! or holding a number the two parsers read differently) goes to serde_json, which gives the
//! error, so every error, its message and its position are serde_json's. The two read every
//! other number alike (serde_json with its `float_roundtrip` feature, which restcache turns on;
//! checked once per process, see [`AGREES`]), but for an `f32`, which simd-json rounds through
//! an `f64` and serde_json rounds once, so the two may differ in its last bit. simd-json refuses
//! the integers beyond 64 bits that serde_json reads as floats, so those go to serde_json too.
//!
//! Normalizing has no effect outside its outcome, so running it a second time is safe; a body
//! refused here runs a schema's pk functions and its warnings a second time with serde_json.

use std::cell::RefCell;
use std::sync::LazyLock;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::error::Error;
use crate::json::MAX_INPUT_DEPTH;
use crate::schema::Schema;
use crate::schema::normalize::{Outcome, run};

/// The largest body parsed here. simd-json builds a tape of the whole document (24 bytes per
/// value) and an index of its structural characters (4 bytes each) next to three copies of it:
/// typically 5 to 10 times the body, up to about 20 times for a body of bare numbers, before the
/// schema sees any of it. Above this, serde_json's streaming parse holds far less.
pub(super) const MAX_BYTES: usize = 2 << 20;

/// The largest body whose scratch memory a thread keeps for the next one (a few MiB at most).
const KEPT_BYTES: usize = 1 << 20;

/// A thread's scratch: the copy of the body simd-json parses in place (with the padding it
/// reads past the end, so it need not copy the body again), its buffers, and its tape, emptied.
struct Scratch {
    input: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: simd_json::Tape<'static>,
}

thread_local! {
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

/// Normalizes `bytes` with `S` as a call with `args`; `None` if simd-json did not (the caller
/// then normalizes them with serde_json).
pub(super) fn normalize<S: Schema>(bytes: &[u8], args: &Value) -> Option<Outcome<S::Stored>> {
    if bytes.len() > MAX_BYTES || !*AGREES || has_negative_zero(bytes) {
        return None;
    }
    // Taken out while it is used, so a parse inside this one gets scratch of its own.
    let mut scratch = SCRATCH.with(|s| s.borrow_mut().take()).unwrap_or_else(|| Scratch {
        input: Vec::new(),
        // serde_json refuses a value at depth MAX_INPUT_DEPTH; simd-json's limit is one deeper.
        buffers: simd_json::Buffers::with_max_depth(bytes.len(), MAX_INPUT_DEPTH - 1),
        tape: simd_json::Tape(Vec::new()),
    });
    let Scratch { input, buffers, tape } = &mut scratch;
    input.clear();
    input.extend_from_slice(bytes);
    input.resize(bytes.len() + simd_json::INPUT_PADDING, 0);
    let mut filled = std::mem::replace(tape, simd_json::Tape(Vec::new())).reset();
    let outcome = match simd_json::fill_tape_padded(input, bytes.len(), buffers, &mut filled) {
        Ok(()) => {
            let mut de = simd_json::Deserializer::from_tape(filled);
            let normalize = || {
                let result = S::normalize(&mut de)?;
                // The body must be read whole, as serde_json's `end` checks: a value the schema
                // left unread is one more on the tape.
                match IgnoredAny::deserialize(&mut de) {
                    Ok(_) => Err(<simd_json::Error as serde::de::Error>::custom("trailing input")),
                    Err(_) => Ok(result),
                }
            };
            // The error is dropped: serde_json's is the one given.
            let outcome = run(args.clone(), None, normalize, |_, _, _| Error::Aborted).ok();
            *tape = de.into_tape().reset();
            outcome
        }
        Err(_) => {
            *tape = filled.reset();
            None
        }
    };
    if bytes.len() <= KEPT_BYTES {
        SCRATCH.with(|s| *s.borrow_mut() = Some(scratch));
    }
    outcome
}

/// Whether simd-json reads numbers as serde_json does in this build. A crate anywhere in the
/// build can turn on a feature that changes one parser and not the other (serde_json's
/// `arbitrary_precision`, simd-json's `approx-number-parsing`), so this is checked once, on
/// numbers that tell them apart; if they differ, every body goes to serde_json.
static AGREES: LazyLock<bool> = LazyLock::new(|| {
    const PROBE: &str =
        "[1.10, -996269.0126230741, 2.4703282292062328e-324, 1e300, 18446744073709551615, -9223372036854775808]";
    let by_serde_json = serde_json::from_str::<Value>(PROBE).map(|v| v.to_string());
    let by_simd_json = simd_json::serde::from_slice::<Value>(&mut PROBE.as_bytes().to_vec()).map(|v| v.to_string());
    matches!((by_serde_json, by_simd_json), (Ok(a), Ok(b)) if a == b)
});

/// Whether `bytes` may hold the number `-0`, which serde_json reads as the float `-0.0` and
/// simd-json as the integer `0`: a `-0` where a value starts (at the start, or after `[`, `:` or
/// `,` and whitespace) that no fraction, exponent or digit follows. Conservative: such a `-0`
/// inside a string counts too, but one in a date or an id (`2024-01-05`) does not.
fn has_negative_zero(bytes: &[u8]) -> bool {
    let starts_value = |at: usize| {
        let before = bytes[..at]
            .iter()
            .rev()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        matches!(before, None | Some(b'[' | b':' | b','))
    };
    let ends_number = |at: usize| !matches!(bytes.get(at + 2), Some(b'.' | b'e' | b'E' | b'0'..=b'9'));
    memchr::memmem::find_iter(bytes, b"-0").any(|at| ends_number(at) && starts_value(at))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{AGREES, has_negative_zero};
    use crate::Store;
    use crate::schema::{DenormalizeCtx, Schema, Unresolved};

    /// A hand-written schema that returns without reading its value.
    struct Unread;

    impl Schema for Unread {
        type Output = ();
        type Stored = ();

        fn normalize<'de, D: serde::Deserializer<'de>>(_: D) -> Result<(), D::Error> {
            Ok(())
        }

        fn denormalize<'s>(_: &'s (), _: &mut DenormalizeCtx<'s>) -> Result<(), Unresolved> {
            Ok(())
        }
    }

    /// R-NORM-2: a body is read whole whichever parser reads it. A schema that leaves its value
    /// unread is refused as serde_json refuses it (the rest of the body is trailing input), on
    /// the fast path too, and nothing is written; a schema that reads its value is written.
    #[test]
    fn r_norm_2_a_schema_that_leaves_its_value_unread_is_refused_by_either_parser() {
        let mut store = Store::new();
        for body in [&br#"{"id": 1}"#[..], b"[1, 2]", b"7", b"\"text\""] {
            let err = store
                .set_response_bytes::<Unread>("GET /unread", &(), body)
                .unwrap_err();
            assert!(
                err.to_string().contains("trailing"),
                "{}: {err}",
                String::from_utf8_lossy(body)
            );
            assert!(store.get_response::<()>("GET /unread", &()).unwrap().data.is_none());
        }
        // On the fast path itself: every kind of body a schema reads whole stays on it, and the
        // same body left unread leaves it.
        let args = json!({});
        for body in [
            &b"[]"[..],
            b"{}",
            b"null",
            b"true",
            b"7",
            b"\"t\"",
            br#"[{"id": 1}, [2]]"#,
        ] {
            let text = String::from_utf8_lossy(body);
            assert!(super::normalize::<Value>(body, &args).is_some(), "{text}");
            assert!(super::normalize::<()>(body, &args).is_some(), "{text}");
            assert!(super::normalize::<Unread>(body, &args).is_none(), "{text}");
        }
        store
            .set_response_bytes::<()>("GET /read", &(), br#"{"id": 1}"#)
            .unwrap();
        store
            .set_response_bytes::<Value>("GET /value", &(), br#"{"id": 1}"#)
            .unwrap();
        let read = store.get_response::<Value>("GET /value", &()).unwrap().data.unwrap();
        assert_eq!(*read, json!({"id": 1}));
    }

    /// R-NORM-2: in this build simd-json reads numbers as serde_json does, so bodies take the
    /// fast path (a feature turned on elsewhere in a build would send them all to serde_json).
    #[test]
    fn r_norm_2_simd_json_reads_numbers_as_serde_json_in_this_build() {
        assert!(*AGREES);
    }

    /// R-NORM-2: a body goes to serde_json for `-0` only where `-0` is a number; dates and ids
    /// with `-0` inside their strings keep the fast path.
    #[test]
    fn r_norm_2_only_the_number_minus_zero_sends_a_body_to_serde_json() {
        for body in [
            &b"-0"[..],
            b"[1,-0]",
            b"[ -0 ]",
            b"{\"a\":-0}",
            b"{\"a\": \n-0,\"b\":1}",
        ] {
            assert!(has_negative_zero(body), "{}", String::from_utf8_lossy(body));
        }
        for body in [
            &br#"{"day": "2024-01-05", "id": "123e4567-0d9b-12d3-a456-426614174000"}"#[..],
            br#"[-0.5, -0e1, -0E1, -1, 10]"#,
            br#"{"range": "1-0", "v": "x-0"}"#,
        ] {
            assert!(!has_negative_zero(body), "{}", String::from_utf8_lossy(body));
        }
    }
}
