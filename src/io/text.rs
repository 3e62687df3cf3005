//! Line-by-line access to a text source, streamed from a file in fixed-size blocks or taken from memory,
//! so that a reader never holds the whole file: peak memory stays at the parsed matrix plus one block.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// Bytes read from a file at a time. A line longer than this grows the buffer to fit it.
const BLOCK: usize = 256 * 1024;

/// Where the text comes from.
#[derive(Clone, Copy)]
pub(crate) enum Text<'a> {
    /// A file, read in blocks.
    File(&'a Path),
    /// Bytes already in memory.
    Bytes(&'a [u8]),
}

impl Text<'_> {
    /// Call `f(line_number, line)` for every line, numbered from 1, without the `\n` and without a
    /// trailing `\r`. A UTF-8 byte-order mark at the start of the first line is dropped.
    pub(crate) fn for_each_line(
        self,
        path: &Path,
        mut f: impl FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut number = 0usize;
        let mut emit = |line: &[u8], f: &mut dyn FnMut(usize, &[u8]) -> Result<()>| {
            number += 1;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = if number == 1 {
                line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
            } else {
                line
            };
            f(number, line)
        };
        match self {
            Text::Bytes(bytes) => {
                let mut rest = bytes;
                while !rest.is_empty() {
                    let end = find_newline(rest);
                    emit(&rest[..end], &mut f)?;
                    rest = rest.get(end + 1..).unwrap_or(&[]);
                }
                Ok(())
            }
            Text::File(file_path) => {
                let mut file = open(file_path)?;
                let mut buffer = vec![0u8; BLOCK];
                let mut filled = 0;
                loop {
                    if filled == buffer.len() {
                        buffer.resize(buffer.len() * 2, 0);
                    }
                    let read = read_some(&mut file, &mut buffer[filled..], path)?;
                    if read == 0 {
                        if filled > 0 {
                            emit(&buffer[..filled], &mut f)?;
                        }
                        return Ok(());
                    }
                    let scan_from = filled;
                    filled += read;
                    let mut start = 0;
                    let mut cursor = scan_from;
                    loop {
                        let end = cursor + find_newline(&buffer[cursor..filled]);
                        if end == filled {
                            break;
                        }
                        emit(&buffer[start..end], &mut f)?;
                        start = end + 1;
                        cursor = start;
                    }
                    buffer.copy_within(start..filled, 0);
                    filled -= start;
                }
            }
        }
    }

    /// The size in bytes.
    pub(crate) fn byte_len(self, path: &Path) -> Result<u64> {
        match self {
            Text::Bytes(bytes) => Ok(bytes.len() as u64),
            Text::File(file_path) => Ok(std::fs::metadata(file_path)
                .map_err(|e| Error::io(path, e))?
                .len()),
        }
    }

    /// The number of lines, counting a last line without `\n`: an upper bound on the number of records.
    pub(crate) fn count_lines(self, path: &Path) -> Result<usize> {
        let count = count_newlines;
        match self {
            Text::Bytes(bytes) => Ok(count(bytes) + usize::from(!bytes.ends_with(b"\n"))),
            Text::File(file_path) => {
                let mut file = open(file_path)?;
                let mut buffer = vec![0u8; BLOCK];
                let mut lines = 0;
                let mut last = b'\n';
                loop {
                    let read = read_some(&mut file, &mut buffer, path)?;
                    if read == 0 {
                        return Ok(lines + usize::from(last != b'\n'));
                    }
                    lines += count(&buffer[..read]);
                    last = buffer[read - 1];
                }
            }
        }
    }
}

/// Index of the first `\n`, or the length.
#[inline]
fn find_newline(bytes: &[u8]) -> usize {
    find_byte(bytes, b'\n')
}

/// Index of the first `needle`, or the length: eight bytes at a time (the classic "has zero byte" word
/// trick; the lowest flagged byte is always a true match).
#[inline]
pub(crate) fn find_byte(bytes: &[u8], needle: u8) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let pattern = u64::from(needle) * LOW;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        let x = u64::from_le_bytes(word) ^ pattern;
        let found = x.wrapping_sub(LOW) & !x & HIGH;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|&b| b == needle)
        .map_or(bytes.len(), |p| i + p)
}

/// The number of `\n` bytes, in chunks whose byte-sized counters the compiler vectorises.
fn count_newlines(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(128);
    let mut total = 0usize;
    for chunk in &mut chunks {
        let mut in_chunk = 0u8;
        for &b in chunk {
            in_chunk += u8::from(b == b'\n');
        }
        total += usize::from(in_chunk);
    }
    total + chunks.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// Open a file for reading, with the crate's messages for a directory and a missing file.
pub(crate) fn open(path: &Path) -> Result<File> {
    if path.is_dir() {
        return Err(Error::parse(
            crate::Location::new(path),
            "is a directory, not a data file",
        ));
    }
    File::open(path).map_err(|e| Error::io(path, e))
}

fn read_some(file: &mut File, buffer: &mut [u8], path: &Path) -> Result<usize> {
    loop {
        match file.read(buffer) {
            Ok(read) => return Ok(read),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        }
    }
}

/// ASCII whitespace trimmed from both ends, with the number of bytes dropped at the front.
#[inline]
pub(crate) fn trim(bytes: &[u8]) -> (&[u8], usize) {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    (&bytes[start..end], start)
}

/// A zeroed buffer of `len` values, or an error instead of an abort when memory is short.
pub(crate) fn zeros(len: usize, path: &Path) -> Result<Vec<f64>> {
    let mut values = with_capacity(len, path)?;
    values.resize(len, 0.0);
    Ok(values)
}

/// An empty buffer with room for exactly `len` values (no doubling growth later), advised for huge pages
/// before anything is written to it (see [`crate::kernel::advise_huge_pages`]).
pub(crate) fn with_capacity(len: usize, path: &Path) -> Result<Vec<f64>> {
    crate::kernel::reserve_advised(len).map_err(|_| {
        Error::parse(
            crate::Location::new(path),
            format!("cannot allocate memory for {len} values"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: Text<'_>) -> Vec<(usize, Vec<u8>)> {
        let mut out = Vec::new();
        text.for_each_line(Path::new("t"), |n, line| {
            out.push((n, line.to_vec()));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn the_word_search_finds_the_first_match_everywhere() {
        let mut bytes = vec![b'a'; 40];
        assert_eq!(find_byte(&bytes, b'\n'), 40);
        for i in 0..40 {
            bytes[i] = b'\n';
            bytes[(i + 7).min(39)] = b'\n';
            assert_eq!(find_byte(&bytes, b'\n'), i);
            assert_eq!(find_byte(&bytes[..i], b'\n'), i);
            bytes[i] = b'a';
            bytes[(i + 7).min(39)] = b'a';
        }
        // Bytes just above and below the needle, and 0x80, do not match.
        let tricky = [b'\t', b'\x0b', 0x80, 0x8a, 0xff, 0x0a];
        assert_eq!(find_byte(&tricky, b'\n'), 5);
        assert_eq!(count_newlines(&vec![b'\n'; 1000]), 1000);
    }

    #[test]
    fn files_and_bytes_split_the_same_way_across_block_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        // Long lines straddle the 256 KiB blocks; one line is longer than a block.
        let mut text = Vec::new();
        text.extend_from_slice(b"\xEF\xBB\xBFfirst\r\n");
        for i in 0..5000 {
            text.extend_from_slice(format!("{i},{}\n", "x".repeat(i % 97)).as_bytes());
        }
        text.extend_from_slice(&vec![b'y'; 600_000]);
        text.extend_from_slice(b"\n\nlast without newline");
        std::fs::write(&path, &text).unwrap();
        let from_file = lines_of(Text::File(&path));
        let from_bytes = lines_of(Text::Bytes(&text));
        assert_eq!(from_file, from_bytes);
        assert_eq!(from_file[0], (1, b"first".to_vec()));
        assert_eq!(from_file.last().unwrap().1, b"last without newline");
        assert_eq!(from_file.len(), 5004);
        assert_eq!(Text::File(&path).count_lines(Path::new("t")).unwrap(), 5004);
        assert_eq!(
            Text::Bytes(&text).count_lines(Path::new("t")).unwrap(),
            5004
        );
    }
}

/// Append the shortest decimal that reads back to the same `f64` (exponent form for very large or very
/// small magnitudes, so that `1e-300` does not become 300 zeros).
pub(crate) fn push_f64(out: &mut Vec<u8>, value: f64) {
    use std::io::Write;
    let magnitude = value.abs();
    // Writing to a Vec cannot fail.
    let _ = if magnitude != 0.0 && !(1e-5..1e16).contains(&magnitude) {
        write!(out, "{value:e}")
    } else {
        write!(out, "{value}")
    };
}

#[cfg(test)]
mod format_tests {
    #[test]
    fn formatting_round_trips_bit_for_bit() {
        let mut state = 7u64;
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.5,
            1e-300,
            5e-324,
            f64::MAX,
            1e16,
            9.999e15,
            1e-5,
            0.1,
        ];
        for _ in 0..10_000 {
            state = crate::rng::splitmix64(state);
            let v = f64::from_bits(state);
            if v.is_finite() {
                values.push(v);
            }
        }
        for v in values {
            let mut out = Vec::new();
            super::push_f64(&mut out, v);
            let text = std::str::from_utf8(&out).unwrap();
            assert_eq!(
                text.parse::<f64>().unwrap().to_bits(),
                v.to_bits(),
                "{text}"
            );
        }
    }
}
