//! Prefetch hints for reads that walk many rows.
//!
//! A read of a long list finds its entities in consecutive rows (see
//! [`DenormalizeCtx::slot`](crate::denormalize::DenormalizeCtx)), but each row's pk, record and
//! strings are separate heap blocks: past a few thousand rows, nearly every one is a cache miss,
//! waited for one after the other. Asking for the rows a read is about to reach, while it builds
//! the current one, lets those loads overlap with its work.

use serde_json::Value;

/// Tables and lists shorter than this are not prefetched: a read of them soon finds them in the
/// caches, where the hints would only cost instructions (about 3% of a read of 1,000 todos).
pub(crate) const MIN_ROWS: usize = 4_096;

/// Asks the CPU to start loading the cache line holding `p`, without waiting for it.
///
/// A hint only: nothing is read that the program can observe, and no address faults. A no-op
/// on targets other than x86_64.
#[inline(always)]
pub(crate) fn line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetch` neither reads memory the program observes nor faults, whatever the
    // address (the CPU drops a hint it cannot serve); its one target feature, SSE, is part of
    // every x86_64 target.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The heap bytes of a string value (nothing for an empty one, which owns no block).
#[inline(always)]
pub(crate) fn string(value: &Value) {
    if let Value::String(s) = value
        && !s.is_empty()
    {
        line(s.as_ptr());
    }
}
