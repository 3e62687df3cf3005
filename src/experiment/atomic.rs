//! Files replaced whole: a temporary sibling, a flush and a rename, so that a reader never sees half
//! a file and a crash never leaves one.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Write a file through a temporary sibling and a rename, so readers never see half of it. The temporary
/// name is unique to the process and the call: shards started together in one folder each write their
/// own, and a failed write (a full disk) removes its temporary file.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = write_temporary(path, bytes)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// Write `path` with `bytes` unless it exists, atomically: of processes racing to create it, exactly one
/// does and the others see its whole contents. Returns the contents that are now in the file.
pub(crate) fn write_new_atomically(path: &Path, bytes: &[u8]) -> Result<Vec<u8>> {
    if let Ok(existing) = std::fs::read(path) {
        return Ok(existing);
    }
    let tmp = write_temporary(path, bytes)?;
    // A hard link, unlike a rename, fails when the target exists, so a first writer is never replaced.
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(bytes.to_vec()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::read(path).map_err(|e| Error::io(path, e))
        }
        // A file system without hard links: a rename, which is still atomic for readers.
        Err(_) => write_atomically(path, bytes).map(|()| bytes.to_vec()),
    }
}

/// Write `bytes` to a fresh temporary sibling of `path`, synced, and return its name.
fn write_temporary(path: &Path, bytes: &[u8]) -> Result<PathBuf> {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    let written = File::create_new(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(&tmp, e));
    }
    Ok(tmp)
}
