//! Files written whole: through a temporary sibling and a rename, so that a reader never sees half of
//! one and a failed write leaves the old file as it was.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Location, Result};

/// Write through a temporary sibling file, then rename it over `path`.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    if path.is_dir() {
        return Err(Error::parse(
            Location::new(path),
            "is a directory, not a file to write",
        ));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary: PathBuf = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let relabel = |e: Error| match e {
        Error::Io { source, .. } => Error::io(path, source),
        other => other,
    };
    let result = (|| {
        let file = File::create(&temporary).map_err(|e| Error::io(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        write(&mut out).map_err(relabel)?;
        out.flush().map_err(|e| Error::io(path, e))?;
        drop(out);
        std::fs::rename(&temporary, path).map_err(|e| Error::io(path, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}
