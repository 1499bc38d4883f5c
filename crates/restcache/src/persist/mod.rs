//! Keeping the cache across restarts (R-PERS): the [`Persister`] trait a Controller saves its
//! changes through, and two backends, a log file natively (`FilePersister`, built for native
//! targets only) and the browser's `localStorage` in WebAssembly (`LocalStoragePersister`, built
//! for wasm32 only).
//!
//! A Controller built with [`ControllerBuilder::persist`](crate::controller::ControllerBuilder::persist)
//! restores what its persister holds (hydrated with the schemas given, expiry included: fresh
//! data is served with no request, stale data refetches), compacts it to that state, then saves
//! the rows and keys each change touched, one entity at a time.

#[cfg(not(target_arch = "wasm32"))]
mod file;
#[cfg(target_arch = "wasm32")]
mod local_storage;

#[cfg(not(target_arch = "wasm32"))]
pub use self::file::FilePersister;
#[cfg(target_arch = "wasm32")]
pub use self::local_storage::LocalStoragePersister;

use crate::error::Error;
use crate::store::Change;

/// Where a Controller keeps its cache between runs (R-PERS-2).
///
/// A persister is given [`Change`]s in the order the cache made them, and gives them back, in
/// that order, when the app starts again; a later change of a [`slot`](Change::slot) replaces
/// an earlier one, and a [`Change::is_clear`] one replaces every slot before it. It may keep a
/// log of changes or one entry per slot.
///
/// ```
/// use restcache::Error;
/// use restcache::persist::Persister;
/// use restcache::store::Change;
///
/// /// Keeps the changes in memory: a persister for tests.
/// #[derive(Default)]
/// struct InMemory(Vec<Change>);
///
/// impl Persister for InMemory {
///     fn restore(&mut self) -> Result<Vec<Change>, Error> {
///         Ok(self.0.clone())
///     }
///     fn save(&mut self, changes: &[Change]) -> Result<(), Error> {
///         self.0.extend_from_slice(changes);
///         Ok(())
///     }
///     fn compact(&mut self, state: &[Change]) -> Result<(), Error> {
///         self.0 = state.to_vec();
///         Ok(())
///     }
/// }
/// ```
pub trait Persister: Send + 'static {
    /// What was saved, in the order it was saved: the changes
    /// [`Snapshot::from_changes`](crate::store::Snapshot::from_changes) replays. A change cut
    /// short by a crash is left out.
    ///
    /// ```
    /// use restcache::persist::{FilePersister, Persister};
    ///
    /// let path = std::env::temp_dir().join(format!("restcache-doc-restore-{}.log", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// let mut log = FilePersister::new(&path);
    /// assert!(log.restore()?.is_empty(), "a new log");
    /// let changes = restcache::Store::new().snapshot().changes();
    /// log.save(&changes)?;
    /// drop(log); // the log's one writer lets go of it
    /// assert_eq!(FilePersister::new(&path).restore()?, changes); // what the next run finds
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), restcache::Error>(())
    /// ```
    fn restore(&mut self) -> Result<Vec<Change>, Error>;

    /// Saves `changes`, after what was saved before.
    ///
    /// ```
    /// use restcache::persist::{FilePersister, Persister};
    ///
    /// let path = std::env::temp_dir().join(format!("restcache-doc-save-{}.log", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// let clear = restcache::Store::new().snapshot().changes(); // one change: everything cleared
    /// let mut log = FilePersister::new(&path);
    /// log.save(&clear)?;
    /// log.save(&clear)?;
    /// assert_eq!(log.restore()?, [clear.clone(), clear].concat());
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), restcache::Error>(())
    /// ```
    fn save(&mut self, changes: &[Change]) -> Result<(), Error>;

    /// Replaces everything saved with `state`, the whole cache as changes: after a restore,
    /// and whenever [`should_compact`](Self::should_compact) says so.
    ///
    /// ```
    /// use restcache::persist::{FilePersister, Persister};
    ///
    /// let path = std::env::temp_dir().join(format!("restcache-doc-compact-{}.log", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// let state = restcache::Store::new().snapshot().changes();
    /// let mut log = FilePersister::new(&path);
    /// log.save(&state)?;
    /// log.save(&state)?;
    /// log.compact(&state)?;
    /// drop(log);
    /// assert_eq!(FilePersister::new(&path).restore()?, state);
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), restcache::Error>(())
    /// ```
    fn compact(&mut self, state: &[Change]) -> Result<(), Error>;

    /// Whether what is saved has grown enough over the state it stands for to compact it.
    /// Default: never (a persister with one entry per slot does not grow). The example shows
    /// `FilePersister`'s own rule: more than 10,000 changes appended, and more than twice as
    /// many as the state it stands for.
    ///
    /// ```
    /// use restcache::persist::{FilePersister, Persister};
    ///
    /// let path = std::env::temp_dir().join(format!("restcache-doc-should-compact-{}.log", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// let state = restcache::Store::new().snapshot().changes();
    /// let mut log = FilePersister::new(&path);
    /// log.compact(&state)?;
    /// assert!(!log.should_compact());
    /// log.save(&vec![state[0].clone(); 10_001])?; // far more than the state it stands for
    /// assert!(log.should_compact());
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), restcache::Error>(())
    /// ```
    fn should_compact(&self) -> bool {
        false
    }
}

/// An I/O failure as `Error::Persist`.
fn failed(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Persist {
        reason: format!("{what}: {e}"),
    }
}
