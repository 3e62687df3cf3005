//! Where a data file's bytes come from: a regular file (which a reader may read twice, to size its
//! matrix first), or a stream read exactly once (standard input as `-`, a named pipe, process
//! substitution, a device, or any gzip- or zstd-compressed input, decompressed on the fly).

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use crate::error::{Error, Location, Result};

/// The path that means standard input.
pub(crate) const STDIN: &str = "-";

/// The name standard input has in messages.
pub(crate) const STDIN_NAME: &str = "<stdin>";

/// The first bytes of a gzip member (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The first bytes of a zstd frame (RFC 8878).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// How many bytes the format detection looks at.
const MAGIC_LEN: usize = 4;

/// The bytes of one input.
pub(crate) enum Source {
    /// A regular, uncompressed file: reading it again from its path gives the same bytes (unless it is
    /// replaced meanwhile, which the two-pass readers detect), so readers may size their matrix first.
    Regular,
    /// Bytes that can be read only once, already decompressed if they were compressed.
    Stream(Box<dyn Read>),
}

/// The most memory a stream may fill, in bytes: half the machine's physical memory (Linux), or 16 GiB
/// where that is unknown. A file can be sized before it is read; a stream (`yes 1,1 | novikoff train -`)
/// can grow without end, and on a machine that overcommits memory an allocation can succeed and the
/// process still be killed when it touches the pages. Refusing at half the memory ends such a stream in
/// an error. `NOVIKOFF_STREAM_BUDGET` (bytes) sets another budget, for tests and for machines shared with
/// other jobs.
pub(crate) fn stream_budget() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        crate::budget::from_env("NOVIKOFF_STREAM_BUDGET")
            .unwrap_or_else(crate::budget::half_the_memory)
    })
}

/// The error for a stream that outgrew [`stream_budget`].
pub(crate) fn over_budget(at: Location) -> Error {
    Error::parse(
        at,
        format!(
            "the stream holds more than {} MiB, the budget for data read from a stream (half this \
             machine's memory; set NOVIKOFF_STREAM_BUDGET to change it)",
            stream_budget() >> 20
        ),
    )
}

/// True when `path` is `-`, standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// The name to use for `path` in messages.
pub(crate) fn display_name(path: &Path) -> PathBuf {
    if is_stdin(path) {
        PathBuf::from(STDIN_NAME)
    } else {
        path.to_path_buf()
    }
}

/// Open `path` (or standard input for `-`), decompressing gzip when the first bytes say so, whatever the
/// name: `data.svm.gz`, `<(cat data.svm.gz)` and `- < data.svm.gz` all read the same.
pub(crate) fn open(path: &Path) -> Result<Source> {
    let name = display_name(path);
    let (mut reader, regular): (Box<dyn Read>, bool) = if is_stdin(path) {
        (Box::new(std::io::stdin()), false)
    } else {
        let file = super::text::open(path)?;
        let regular = file.metadata().map_err(|e| Error::io(path, e))?.is_file();
        (Box::new(file), regular)
    };
    let magic = peek(&mut reader, &name)?;
    let rest = Cursor::new(magic.clone()).chain(reader);
    if magic.starts_with(&GZIP_MAGIC) {
        // Multi-member, as `zcat` reads `cat a.gz b.gz`.
        Ok(Source::Stream(Box::new(flate2::read::MultiGzDecoder::new(
            rest,
        ))))
    } else if magic.starts_with(&ZSTD_MAGIC) {
        let decoder = ruzstd::decoding::StreamingDecoder::new(rest).map_err(|e| {
            Error::parse(
                Location::new(&name),
                format!("not a readable zstd stream: {e}"),
            )
        })?;
        Ok(Source::Stream(Box::new(decoder)))
    } else if regular {
        Ok(Source::Regular)
    } else {
        Ok(Source::Stream(Box::new(rest)))
    }
}

/// Up to the first four bytes (fewer only at the end of the input), read without losing them.
fn peek(reader: &mut dyn Read, name: &Path) -> Result<Vec<u8>> {
    let mut magic = Vec::with_capacity(MAGIC_LEN);
    reader
        .take(MAGIC_LEN as u64)
        .read_to_end(&mut magic)
        .map_err(|e| Error::io(name, e))?;
    Ok(magic)
}

/// True when the name ends in `.gz` (case-insensitive): such a file is written gzip-compressed.
pub(crate) fn is_gzip_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// True when the name ends in `.zst` (case-insensitive).
pub(crate) fn is_zstd_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("zst"))
}

/// The extension that names the format, lower-case: the last one, or the one before `.gz` or `.zst`.
pub(crate) fn format_extension(path: &Path) -> String {
    let inner = if is_gzip_name(path) || is_zstd_name(path) {
        Path::new(path.file_stem().unwrap_or_default())
    } else {
        path
    };
    inner
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// All of a stream, in memory: for the formats that need random access (`.npz`) or a known size
/// (`.npy`) when they arrive through a pipe. `magic` must start the stream, so that a stream of another
/// kind (or `/dev/zero`) is refused after a few bytes instead of being read to its end; growth is
/// checked, so an endless stream ends in an error, not an abort.
pub(crate) fn read_stream(
    reader: &mut dyn Read,
    name: &Path,
    magic: &[u8],
    what: &str,
) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut block = vec![0u8; 1 << 16];
    loop {
        let read = match reader.read(&mut block) {
            Ok(0) => return Ok(bytes),
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(name, e)),
        };
        let before = bytes.len();
        if before + read > stream_budget() {
            return Err(over_budget(Location::new(name)));
        }
        bytes.try_reserve(read).map_err(|_| {
            Error::parse(
                Location::new(name),
                format!("cannot hold the stream in memory after {before} bytes"),
            )
        })?;
        bytes.extend_from_slice(&block[..read]);
        let checked = bytes.len().min(magic.len());
        if bytes[..checked] != magic[..checked] {
            return Err(Error::parse(
                Location::new(name),
                format!("not a {what}: the stream does not start with its signature"),
            ));
        }
    }
}
