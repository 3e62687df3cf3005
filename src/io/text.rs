//! Line-by-line access to a text source, streamed in fixed-size blocks from a file, a stream or memory,
//! so that a reader never holds the whole input: peak memory stays at the parsed matrix plus one block.

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Location, Result};

/// Bytes read at a time. A line longer than this grows the buffer to fit it, up to [`MAX_LINE`].
const BLOCK: usize = 256 * 1024;

/// The longest line a text reader accepts, in bytes (64 MiB): a CSV row of a million features takes
/// about 20 MB. A longer line is refused with its line number and byte offset, so that an input that
/// never ends a line (`/dev/zero`, a binary file given a text extension) ends in an error after reading
/// at most this much, instead of growing a buffer until memory runs out.
///
/// ```
/// assert_eq!(novikoff::io::MAX_LINE, 64 * 1024 * 1024);
/// let mut line = vec![b'1'; novikoff::io::MAX_LINE + 1];
/// line.extend_from_slice(b",1\n");
/// let err = novikoff::io::read_csv_from(&line, "long.csv".as_ref(), &Default::default()).unwrap_err();
/// assert!(err.to_string().starts_with("long.csv:1: the line starting at byte offset 0 is longer"), "{err}");
/// ```
pub const MAX_LINE: usize = 64 << 20;

/// Where the text comes from.
pub(crate) enum Text<'a> {
    /// A regular file, read in blocks; it can be read twice.
    File(&'a Path),
    /// Bytes already in memory.
    Bytes(&'a [u8]),
    /// A stream (standard input, a pipe, decompressed data): it can be read only once.
    Stream(RefCell<&'a mut dyn Read>),
}

impl Text<'_> {
    /// Call `f(line_number, line)` for every line, numbered from 1, without its line end, and return the
    /// number of bytes read. Lines end with `\n` or `\r\n`, or with a lone `\r` when that is how the
    /// first line ends (classic Mac text). A UTF-8 byte-order mark at the start is dropped. A line
    /// longer than [`MAX_LINE`] is an error.
    pub(crate) fn for_each_line(
        &self,
        path: &Path,
        f: impl FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<u64> {
        match self {
            Text::Bytes(bytes) => Lines::new(path).run(&mut &bytes[..], f),
            Text::File(file_path) => Lines::new(path).run(&mut open(file_path)?, f),
            Text::Stream(reader) => {
                let mut reader = reader.try_borrow_mut().map_err(|_| {
                    Error::parse(Location::new(path), "internal error: a stream read twice")
                })?;
                Lines::new(path).run(&mut **reader, f)
            }
        }
    }

    /// The number of lines (counting a last line without `\n`, an upper bound on the number of records)
    /// and the size in bytes, for the sources that can be read twice; `None` for a stream, and for a file
    /// with a run of more than [`MAX_LINE`] bytes without `\n`.
    pub(crate) fn size_hint(&self, path: &Path) -> Result<Option<(usize, u64)>> {
        let count = |bytes: &[u8]| count_newlines(bytes) + usize::from(!bytes.ends_with(b"\n"));
        match self {
            Text::Bytes(bytes) => Ok(Some((count(bytes), bytes.len() as u64))),
            Text::Stream(_) => Ok(None),
            Text::File(file_path) => {
                let bytes = std::fs::metadata(file_path)
                    .map_err(|e| Error::io(path, e))?
                    .len();
                let mut file = open(file_path)?;
                let mut buffer = vec![0u8; BLOCK];
                let mut lines = 0;
                let mut last = b'\n';
                // Bytes since the last `\n`: a run longer than a line may be stops the count, so that a
                // huge file without line ends (sparse, or a disk image) is not read to its end first.
                // The lines pass then reports it, or reads it as `\r` lines.
                let mut since_newline = 0;
                loop {
                    let read = read_some(&mut file, &mut buffer, path)?;
                    if read == 0 {
                        return Ok(Some((lines + usize::from(last != b'\n'), bytes)));
                    }
                    let block = &buffer[..read];
                    lines += count_newlines(block);
                    last = block[read - 1];
                    since_newline = match block.iter().rposition(|&b| b == b'\n') {
                        Some(i) => read - 1 - i,
                        None => since_newline + read,
                    };
                    if since_newline > MAX_LINE {
                        return Ok(None);
                    }
                }
            }
        }
    }
}

/// The state of one pass over the lines of a source.
struct Lines<'p> {
    path: &'p Path,
    /// Lines emitted so far.
    number: usize,
    /// Bytes of the source before the start of the buffer.
    consumed: u64,
    /// The line end, once the first line has shown it.
    end: Option<u8>,
}

impl<'p> Lines<'p> {
    fn new(path: &'p Path) -> Self {
        Self {
            path,
            number: 0,
            consumed: 0,
            end: None,
        }
    }

    fn run(
        mut self,
        reader: &mut dyn Read,
        mut f: impl FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<u64> {
        let mut buffer = vec![0u8; BLOCK];
        let mut filled = 0;
        loop {
            if filled == buffer.len() {
                self.grow(&mut buffer)?;
            }
            let read = read_some(reader, &mut buffer[filled..], self.path)?;
            let at_end = read == 0;
            let mut cursor = filled;
            filled += read;
            if self.end.is_none() {
                // Nothing was emitted yet and the bytes before `cursor` held no line end, except
                // perhaps a `\r` as their last byte: scan only from there.
                self.end = line_end(&buffer[cursor.saturating_sub(1)..filled], at_end);
                cursor = 0;
                if self.end.is_none() {
                    if filled > MAX_LINE {
                        return Err(self.too_long(0));
                    }
                    continue;
                }
            }
            let end = self.end.unwrap_or(b'\n');
            let mut start = 0;
            loop {
                let stop = cursor + find_byte(&buffer[cursor..filled], end);
                if stop == filled {
                    break;
                }
                self.emit(&buffer[..stop], start, &mut f)?;
                start = stop + 1;
                cursor = start;
            }
            if at_end {
                if start < filled {
                    self.emit(&buffer[..filled], start, &mut f)?;
                }
                return Ok(self.consumed + filled as u64);
            }
            if filled - start > MAX_LINE {
                return Err(self.too_long(start));
            }
            buffer.copy_within(start..filled, 0);
            self.consumed += start as u64;
            filled -= start;
        }
    }

    /// Double the buffer (the line in it is not finished), or fail instead of aborting.
    fn grow(&self, buffer: &mut Vec<u8>) -> Result<()> {
        // A buffer of MAX_LINE + BLOCK bytes always holds a line that is too long, so growth stops there.
        let more = buffer.len().min(MAX_LINE + BLOCK - buffer.len());
        buffer.try_reserve_exact(more).map_err(|_| {
            Error::parse(
                Location::new(self.path).line(self.number + 1),
                format!("cannot allocate {more} more bytes for a long line"),
            )
        })?;
        buffer.resize(buffer.len() + more, 0);
        Ok(())
    }

    #[cold]
    fn too_long(&self, start: usize) -> Error {
        Error::parse(
            Location::new(self.path).line(self.number + 1),
            format!(
                "the line starting at byte offset {} is longer than {} MiB, the limit of a text line: \
                 not a text data file, or a line that never ends",
                self.consumed + start as u64,
                MAX_LINE >> 20
            ),
        )
    }

    /// Pass on the line `filled[start..]`.
    fn emit(
        &mut self,
        filled: &[u8],
        start: usize,
        f: &mut impl FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let line = &filled[start..];
        // A line that arrived whole within one read has not met the check on unfinished lines.
        if line.len() > MAX_LINE {
            return Err(self.too_long(start));
        }
        self.number += 1;
        let line = if self.end == Some(b'\r') {
            // `\r\n` inside a file whose first line ends with a lone `\r`.
            line.strip_prefix(b"\n").unwrap_or(line)
        } else {
            line.strip_suffix(b"\r").unwrap_or(line)
        };
        let line = if self.number == 1 {
            line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
        } else {
            line
        };
        f(self.number, line)
    }
}

/// The line end of a text, from its first one: `\r` for a lone carriage return, `\n` otherwise
/// (including `\r\n`); `None` while the bytes seen so far cannot tell.
fn line_end(bytes: &[u8], at_end: bool) -> Option<u8> {
    match bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
        Some(i) if bytes[i] == b'\r' => match bytes.get(i + 1) {
            Some(b'\n') => Some(b'\n'),
            Some(_) => Some(b'\r'),
            None if at_end => Some(b'\n'),
            None => None,
        },
        Some(_) => Some(b'\n'),
        None if at_end => Some(b'\n'),
        None => None,
    }
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

fn read_some(file: &mut dyn Read, buffer: &mut [u8], path: &Path) -> Result<usize> {
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

/// The most characters of an input value that an error message echoes.
const SHOWN: usize = 60;

/// An input value as an error message shows it: in backticks, control characters, NUL and bytes that
/// are not UTF-8 escaped (`\0`, `\t`, `\x01`, `\xff`), and cut after 60 characters with an ellipsis and
/// the value's full length, so that a 5 MB field does not become a 5 MB message.
pub(crate) fn shown(bytes: &[u8]) -> String {
    match escaped(bytes) {
        (text, false) => format!("`{text}`"),
        (text, true) => format!("`{text}…` ({} bytes)", bytes.len()),
    }
}

/// [`shown`] without the backticks, for lists.
pub(crate) fn shown_bare(bytes: &[u8]) -> String {
    match escaped(bytes) {
        (text, false) => text,
        (text, true) => format!("{text}… ({} bytes)", bytes.len()),
    }
}

/// A message that quotes input values in backticks (such as the label mapper's), with every quoted value
/// as [`shown`] and control characters elsewhere escaped: bounded and printable, whatever the input.
pub(crate) fn tidy(message: String) -> String {
    if message.len() <= SHOWN && !message.chars().any(char::is_control) {
        return message;
    }
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                shown(part.as_bytes())
            } else {
                part.chars().map(escape).collect()
            }
        })
        .collect()
}

/// The first [`SHOWN`] characters, escaped, and whether there were more.
fn escaped(bytes: &[u8]) -> (String, bool) {
    let mut out = String::new();
    let mut count = 0;
    for chunk in bytes.utf8_chunks() {
        let pieces = chunk
            .valid()
            .chars()
            .map(escape)
            .chain(chunk.invalid().iter().map(|b| format!("\\x{b:02x}")));
        for piece in pieces {
            if count == SHOWN {
                return (out, true);
            }
            out.push_str(&piece);
            count += 1;
        }
    }
    (out, false)
}

fn escape(c: char) -> String {
    match c {
        '\0' => "\\0".into(),
        '\t' => "\\t".into(),
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        c if c.is_control() => format!("\\x{:02x}", u32::from(c)),
        c => c.into(),
    }
}

/// A zeroed buffer of `len` values, or an error instead of an abort when memory is short.
pub(crate) fn zeros(len: usize, path: &Path) -> Result<Vec<f64>> {
    let mut values = with_capacity(len, path)?;
    values.resize(len, 0.0);
    Ok(values)
}

/// An empty buffer with room for exactly `len` values (no doubling growth later), advised for huge pages
/// before anything is written to it (see [`crate::simd::advise_huge_pages`]).
pub(crate) fn with_capacity(len: usize, path: &Path) -> Result<Vec<f64>> {
    crate::simd::reserve_advised(len).map_err(|_| {
        Error::parse(
            crate::Location::new(path),
            format!("cannot allocate memory for {len} values"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &Text<'_>) -> Vec<(usize, Vec<u8>)> {
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
    fn carriage_returns_alone_end_lines_when_the_first_line_ends_so() {
        let expected = vec![
            (1, b"a,y".to_vec()),
            (2, b"1,1".to_vec()),
            (3, b"2,0".to_vec()),
        ];
        assert_eq!(lines_of(&Text::Bytes(b"a,y\r1,1\r2,0\r")), expected);
        assert_eq!(lines_of(&Text::Bytes(b"a,y\r1,1\r\n2,0")), expected);
        assert_eq!(lines_of(&Text::Bytes(b"a,y\r\n1,1\n2,0\r\n")), expected);
        // A lone `\r` later in a `\n` file stays inside its line, for the parser to report.
        assert_eq!(lines_of(&Text::Bytes(b"a\nb\rc\n"))[1].1, b"b\rc");
        // Across a block boundary, while the first line end is still unknown.
        let mut long = vec![b'x'; BLOCK - 1];
        long.extend_from_slice(b"\r\ry\r");
        let lines = lines_of(&Text::Bytes(&long));
        assert_eq!(lines.len(), 3);
        assert_eq!((lines[1].1.len(), &lines[2].1[..]), (0, &b"y"[..]));
    }

    #[test]
    fn a_line_longer_than_the_limit_is_refused_with_its_byte_offset() {
        let mut bytes = b"first\nsecond\n".to_vec();
        bytes.resize(bytes.len() + MAX_LINE + 1, 0);
        let result = Text::Bytes(&bytes).for_each_line(Path::new("z.svm"), |_, _| Ok(()));
        let message = result.unwrap_err().to_string();
        assert!(
            message
                .starts_with("z.svm:3: the line starting at byte offset 13 is longer than 64 MiB"),
            "{message}"
        );
        // Also when the line end follows in the same read.
        let mut bytes = vec![b'1'; MAX_LINE + 1];
        bytes.extend_from_slice(b"\nnext\n");
        let result = Text::Bytes(&bytes).for_each_line(Path::new("z.csv"), |_, _| Ok(()));
        let message = result.unwrap_err().to_string();
        assert!(
            message.starts_with("z.csv:1: the line starting at byte offset 0 is longer"),
            "{message}"
        );
        // A line of exactly the limit is fine, with or without a line end.
        let mut bytes = vec![b'x'; MAX_LINE];
        let mut longest = 0;
        let mut measure = |_: usize, line: &[u8]| {
            longest = longest.max(line.len());
            Ok(())
        };
        Text::Bytes(&bytes)
            .for_each_line(Path::new("t"), &mut measure)
            .unwrap();
        bytes.push(b'\n');
        Text::Bytes(&bytes)
            .for_each_line(Path::new("t"), &mut measure)
            .unwrap();
        assert_eq!(longest, MAX_LINE);
    }

    #[test]
    fn values_are_shown_escaped_and_cut() {
        assert_eq!(shown(b"1.5"), "`1.5`");
        assert_eq!(shown(b"a\0b\x01\t\xff\x7f"), "`a\\0b\\x01\\t\\xff\\x7f`");
        let huge = vec![b'9'; 5 << 20];
        let text = shown(&huge);
        assert_eq!(text, format!("`{}…` (5242880 bytes)", "9".repeat(SHOWN)));
        assert_eq!(
            shown(&"é".repeat(SHOWN).into_bytes()),
            format!("`{}`", "é".repeat(SHOWN))
        );
        assert_eq!(shown_bare(b"x\ny"), "x\\ny");
        let label = "\0".repeat(1000);
        let message = tidy(format!("a third class `{label}` (after 1 and -1)"));
        assert_eq!(
            message,
            format!(
                "a third class `{}…` (1000 bytes) (after 1 and -1)",
                "\\0".repeat(SHOWN)
            )
        );
        assert_eq!(tidy("label `x` is odd".into()), "label `x` is odd");
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
        let from_file = lines_of(&Text::File(&path));
        let from_bytes = lines_of(&Text::Bytes(&text));
        let mut stream: &[u8] = &text;
        let from_stream = lines_of(&Text::Stream(RefCell::new(&mut stream)));
        assert_eq!(from_file, from_stream);
        assert_eq!(from_file, from_bytes);
        assert_eq!(from_file[0], (1, b"first".to_vec()));
        assert_eq!(from_file.last().unwrap().1, b"last without newline");
        assert_eq!(from_file.len(), 5004);
        let size = Some((5004, text.len() as u64));
        assert_eq!(Text::File(&path).size_hint(Path::new("t")).unwrap(), size);
        assert_eq!(Text::Bytes(&text).size_hint(Path::new("t")).unwrap(), size);
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
