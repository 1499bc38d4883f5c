//! Prefetch hints for reads that walk many rows.
//!
//! A read of a long list finds its entities in consecutive rows (see
//! [`DenormalizeCtx::slot`](crate::denormalize::DenormalizeCtx::slot)), but each row's pk, record
//! and strings are separate heap blocks: past a few thousand rows, nearly every one is a cache
//! miss, waited for one after the other. Asking for the rows a read is about to reach, while it
//! builds the current one, lets those loads overlap with its work.

use serde_json::Value;

/// Tables and lists shorter than this are not prefetched: a read of them soon finds them in the
/// caches, where the hints would only cost instructions (about 3% of a read of 1,000 todos).
pub(crate) const MIN_ROWS: usize = 4_096;

/// How many rows ahead of a read of a table it asks for a row's pk and record
/// ([`Table::prefetch_after`](crate::tables::Table::prefetch_after)). Tried: 3, 6 and 10, with
/// [`STRINGS_AHEAD`] at 1, 2 and 4; 6 and 2 were the best at 100,000 and 1,000,000 todos.
pub(crate) const ROWS_AHEAD: usize = 6;

/// How many rows ahead of a read of a table it asks for a record's strings.
pub(crate) const STRINGS_AHEAD: usize = 2;

/// How many items ahead a read of a list asks for an item's pk ([`item_after`]).
const ITEMS_AHEAD: usize = 6;

/// Asks the CPU to start loading the cache line holding `p`, without waiting for it.
///
/// A hint only: nothing is read that the program can observe, and no address faults. A no-op
/// on targets other than x86_64 with SSE.
#[inline(always)]
pub(crate) fn line<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    // SAFETY: `_mm_prefetch` needs SSE, which the `cfg` above guarantees; and it neither reads
    // memory the program observes nor faults, whatever the address (the CPU drops a hint it
    // cannot serve).
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = p;
}

/// While item `i` of a stored list is read: asks for the pk of the item [`ITEMS_AHEAD`] on,
/// whose lookup will compare its bytes, when the list has [`MIN_ROWS`] items or more.
#[inline(always)]
pub(crate) fn item_after(items: &[Value], i: usize) {
    if items.len() >= MIN_ROWS
        && let Some(ahead) = items.get(i + ITEMS_AHEAD)
    {
        string(ahead);
    }
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
