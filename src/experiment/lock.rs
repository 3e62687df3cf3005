//! One writer per results file: an exclusive lock on a lock file in the output folder, held for the whole
//! run including the final rewrite.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::shard::Shard;
use crate::error::{Error, Location, Result};

/// The exclusive right to write one run's results (one shard's, when sharded) in an output folder.
///
/// The lock is `flock(LOCK_EX | LOCK_NB)` on `results.lock` (`results.shard-I-of-N.lock` for a shard),
/// through [`File::try_lock`]; it works across machines on shared file systems that support it (NFS
/// with lock support, Lustre and GPFS with `flock` enabled). Shards share a folder but never a lock.
/// The lock ends when the value is dropped or the process dies; the empty lock file stays (removing it
/// would let a third process lock a new file while a second still waits on the old one).
///
/// ```
/// use novikoff::experiment::OutputLock;
/// let dir = tempfile::tempdir().unwrap();
/// let lock = OutputLock::acquire(dir.path(), None)?;
/// assert!(OutputLock::acquire(dir.path(), None).is_err(), "a second writer is refused");
/// drop(lock);
/// assert!(OutputLock::acquire(dir.path(), None).is_ok());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug)]
pub struct OutputLock {
    /// Open for as long as the lock is held: closing it releases the lock.
    _file: File,
    path: PathBuf,
    dir: PathBuf,
    shard: Option<Shard>,
}

impl OutputLock {
    /// Create `dir` if needed and lock it for one run (or one shard). Refuses, naming the folder, when
    /// another run holds the lock.
    ///
    /// ```
    /// use novikoff::experiment::OutputLock;
    /// let dir = tempfile::tempdir().unwrap();
    /// let a = OutputLock::acquire(dir.path(), Some("0/2".parse()?))?;
    /// let b = OutputLock::acquire(dir.path(), Some("1/2".parse()?))?; // another shard: its own lock
    /// # drop((a, b));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn acquire(dir: &Path, shard: Option<Shard>) -> Result<OutputLock> {
        create_output_folder(dir)?;
        let suffix = shard.map(|s| s.suffix()).unwrap_or_default();
        let path = dir.join(format!("results{suffix}.lock"));
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(held_elsewhere(dir, &path, &mut file)),
            Err(TryLockError::Error(e)) => {
                return Err(Error::io(
                    &path,
                    std::io::Error::new(
                        e.kind(),
                        format!(
                            "cannot lock the output folder ({e}); this file system does not support locks, so concurrent writers could not be detected: use a local or lock-capable folder"
                        ),
                    ),
                ));
            }
        }
        // Who holds the lock, for the message a refused writer prints; not needed for correctness.
        let holder = format!("pid {} on {}\n", std::process::id(), host_name());
        let _ = file
            .set_len(0)
            .and_then(|()| file.write_all(holder.as_bytes()));
        Ok(OutputLock {
            _file: file,
            path,
            dir: dir.to_path_buf(),
            shard,
        })
    }

    /// The locked folder.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let lock = novikoff::experiment::OutputLock::acquire(dir.path(), None)?;
    /// assert_eq!(lock.dir(), dir.path());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The shard the lock is for.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let lock = novikoff::experiment::OutputLock::acquire(dir.path(), None)?;
    /// assert!(lock.shard().is_none());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn shard(&self) -> Option<Shard> {
        self.shard
    }

    /// The lock file.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let lock = novikoff::experiment::OutputLock::acquire(dir.path(), None)?;
    /// assert!(lock.path().ends_with("results.lock"));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn held_elsewhere(dir: &Path, path: &Path, file: &mut File) -> Error {
    let mut holder = String::new();
    let _ = file
        .rewind()
        .and_then(|()| file.read_to_string(&mut holder).map(drop));
    let holder = holder.trim();
    let holder = if holder.is_empty() {
        String::new()
    } else {
        format!(" ({holder})")
    };
    Error::Spec {
        at: Location::new(dir),
        message: format!(
            "another run{holder} holds the lock {} and is writing these results; wait for it to end, or choose another output folder",
            path.display()
        ),
    }
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this host".into())
}

/// Create an output folder, or check that an existing one is a folder. A path that names a file (or has
/// a file among its parents) is a usage error, not an I/O failure.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// novikoff::experiment::create_output_folder(&dir.path().join("new/nested"))?;
/// let file = dir.path().join("f");
/// std::fs::write(&file, "")?;
/// let err = novikoff::experiment::create_output_folder(&file).unwrap_err();
/// assert_eq!(err.exit_code(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn create_output_folder(dir: &Path) -> Result<()> {
    let not_a_folder = || Error::Spec {
        at: Location::new(dir),
        message: "not a folder: an output path must name a folder (it is created if missing)"
            .into(),
    };
    if dir.exists() && !dir.is_dir() {
        return Err(not_a_folder());
    }
    std::fs::create_dir_all(dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::NotADirectory => not_a_folder(),
        _ => Error::io(dir, e),
    })
}
