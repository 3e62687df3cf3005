//! LIBSVM / SVMlight text: `label index:value index:value … # comment`, sparse, 1-based indices.
//!
//! The reader makes two streamed passes: the first counts the records and finds the largest index (the
//! last one of each line, since indices increase), the second parses straight into the dense matrix,
//! allocated once at its final size. Peak memory is that matrix plus one block of text.

use std::io::Write;
use std::path::Path;

use ndarray::{Array1, Array2};

use super::ReadOptions;
use super::labels::LabelMapper;
use super::text::{Text, find_byte, push_f64, zeros};
use crate::dataset::Dataset;
use crate::error::{Error, Location, Result};

/// Read a LIBSVM file into a dense dataset. See [`read_libsvm_from`] for the rules.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("d.svm");
/// std::fs::write(&path, "+1 1:0.5 3:2\n-1 2:1 # a comment\n").unwrap();
/// let data = novikoff::io::read_libsvm(&path, &Default::default())?;
/// assert_eq!(data.x(), ndarray::array![[0.5, 0.0, 2.0], [0.0, 1.0, 0.0]]);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_libsvm(path: &Path, options: &ReadOptions) -> Result<Dataset> {
    parse(Text::File(path), path, options)
}

/// Parse LIBSVM bytes; `path` names the source in error messages.
///
/// * One example per line: a label, then `index:value` pairs separated by spaces or tabs. Indices are
///   1-based and strictly increasing; absent features are 0.
/// * `#` starts a comment that runs to the end of the line; blank and comment-only lines are skipped.
///   An SVMlight `qid:N` pair is accepted and ignored.
/// * The dimension d is `options.n_features` if given (an index beyond it is an error), otherwise the
///   largest index in the file.
/// * Labels follow the same rules as every format (±1, 0/1, or `--positive`).
/// * Errors name the line and the column: the 1-based byte position of the offending token.
///
/// ```
/// use novikoff::io::{read_libsvm_from, ReadOptions};
/// let err = read_libsvm_from(b"1 1:2 0:3\n", "m.svm".as_ref(), &ReadOptions::default()).unwrap_err();
/// assert_eq!(err.to_string(), "m.svm:1:7: feature index 0: LIBSVM indices start at 1");
/// let data = read_libsvm_from(b"1 2:1\n0 1:1\n", "m.svm".as_ref(), &ReadOptions::default().n_features(4))?;
/// assert_eq!(data.n_features(), 4);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_libsvm_from(bytes: &[u8], path: &Path, options: &ReadOptions) -> Result<Dataset> {
    parse(Text::Bytes(bytes), path, options)
}

/// The part of a line before any `#`, without trailing whitespace.
#[inline]
fn content(line: &[u8]) -> &[u8] {
    let end = find_byte(line, b'#');
    let mut line = &line[..end];
    while let [rest @ .., last] = line {
        if last.is_ascii_whitespace() {
            line = rest;
        } else {
            break;
        }
    }
    line
}

#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A decimal index made of ASCII digits only, `None` if it is not one (or overflows).
#[inline]
fn parse_index(bytes: &[u8]) -> Option<usize> {
    if bytes.is_empty() {
        return None;
    }
    bytes.iter().try_fold(0usize, |acc, &b| {
        if b.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(usize::from(b - b'0'))
        } else {
            None
        }
    })
}

fn parse(text: Text<'_>, path: &Path, options: &ReadOptions) -> Result<Dataset> {
    let file = Location::new(path);
    // Pass 1: the number of records and the largest index. Indices increase, so a line's largest index
    // is its last well-formed pair: scan tokens from the end.
    let mut records = 0usize;
    let mut largest = 0usize;
    text.for_each_line(path, |_, line| {
        let mut line = content(line);
        if line.iter().all(|&b| b.is_ascii_whitespace()) {
            return Ok(());
        }
        records += 1;
        while !line.is_empty() {
            let start = line.iter().rposition(|&b| is_blank(b)).map_or(0, |i| i + 1);
            let last = &line[start..];
            if let Some(colon) = last.iter().position(|&b| b == b':')
                && let Some(index) = parse_index(&last[..colon]).filter(|&i| i > 0)
            {
                largest = largest.max(index);
                break;
            }
            line = &line[..start.saturating_sub(1)];
        }
        Ok(())
    })?;
    if records == 0 {
        return Err(Error::parse(
            file,
            "the file is empty: no data lines (only blank lines or comments, if any)",
        ));
    }
    let d = options.n_features.unwrap_or(largest);
    if options.n_features.is_none() {
        check_expansion(records, d, text.byte_len(path)?, &file)?;
    }
    let len = records
        .checked_mul(d)
        .ok_or_else(|| Error::parse(file.clone(), "the matrix is too large for memory"))?;
    let mut values = zeros(len, path)?;
    let mut labels = LabelMapper::new(options.positive.as_deref());
    labels.reserve(records, path)?;

    // Pass 2: parse into the matrix.
    let mut row = 0usize;
    text.for_each_line(path, |number, line| {
        let line = content(line);
        if line.iter().all(|&b| b.is_ascii_whitespace()) {
            return Ok(());
        }
        if row == records {
            return Err(Error::parse(
                file.clone(),
                "the file changed while it was being read",
            ));
        }
        let at = |column: usize| Location::new(path).line(number).column(column);
        // One UTF-8 check per line; tokens split at ASCII bytes, so their ranges are char boundaries.
        let text = std::str::from_utf8(line).ok();
        let as_str = |range: std::ops::Range<usize>| match text {
            Some(text) => text.get(range),
            None => std::str::from_utf8(&line[range]).ok(),
        };
        let dense = &mut values[row * d..(row + 1) * d];
        let mut previous = 0usize;
        let mut tokens = Tokens { line, position: 0 };
        let Some((label_start, label)) = tokens.next() else {
            return Ok(());
        };
        let label_text = as_str(label_start..label_start + label.len())
            .ok_or_else(|| Error::parse(at(label_start + 1), "the label is not valid UTF-8"))?;
        labels
            .push_text(label_text, number)
            .map_err(|message| Error::parse(at(label_start + 1), message))?;
        while let Some((start, token)) = tokens.next() {
            let Some(colon) = token.iter().position(|&b| b == b':') else {
                return Err(Error::parse(
                    at(start + 1),
                    format!(
                        "`{}` is not an index:value pair",
                        String::from_utf8_lossy(token)
                    ),
                ));
            };
            let (index_text, value_text) = (&token[..colon], &token[colon + 1..]);
            if index_text == b"qid" {
                continue;
            }
            let index = parse_index(index_text).ok_or_else(|| {
                Error::parse(
                    at(start + 1),
                    format!(
                        "feature index `{}` is not a positive integer",
                        String::from_utf8_lossy(index_text)
                    ),
                )
            })?;
            if index == 0 {
                return Err(Error::parse(
                    at(start + 1),
                    "feature index 0: LIBSVM indices start at 1",
                ));
            }
            if index <= previous {
                return Err(Error::parse(
                    at(start + 1),
                    format!("feature index {index} after {previous}: indices must increase"),
                ));
            }
            if index > d {
                return Err(match options.n_features {
                    Some(_) => Error::parse(
                        at(start + 1),
                        format!("feature index {index} exceeds --features {d}"),
                    ),
                    None => later_disorder(&mut tokens, index, &at).unwrap_or_else(|| {
                        Error::parse(file.clone(), "the file changed while it was being read")
                    }),
                });
            }
            previous = index;
            let value_at = || at(start + colon + 2);
            let value_start = start + colon + 1;
            let value_str = as_str(value_start..value_start + value_text.len())
                .ok_or_else(|| Error::parse(value_at(), "the value is not valid UTF-8"))?;
            let value: f64 = value_str.parse().map_err(|_| {
                Error::parse(
                    value_at(),
                    if value_str.is_empty() {
                        format!("feature {index} has no value")
                    } else {
                        format!("`{value_str}` is not a number (feature {index})")
                    },
                )
            })?;
            if !value.is_finite() {
                return Err(Error::parse(
                    value_at(),
                    format!("value `{value_str}` is not finite (feature {index})"),
                ));
            }
            dense[index - 1] = value;
        }
        row += 1;
        Ok(())
    })?;
    if row != records {
        return Err(Error::parse(
            file,
            "the file changed while it was being read",
        ));
    }
    if d == 0 {
        return Err(Error::parse(
            file,
            "no features: every line holds only a label (give --features D for all-zero data)",
        ));
    }
    let y = labels.finish(path, |line| (Location::new(path).line(line), String::new()))?;
    let x = Array2::from_shape_vec((records, d), values)
        .map_err(|e| Error::parse(file.clone(), format!("internal shape error: {e}")))?;
    Dataset::new(x, Array1::from_vec(y)).map_err(|e| e.at_file(&file, |_| 0))
}

/// A dense matrix far larger than the sparse file is almost always a corrupt or mistyped index; the user
/// can confirm a genuinely huge dimension with `--features`.
fn check_expansion(records: usize, d: usize, file_bytes: u64, file: &Location) -> Result<()> {
    const SLACK: u64 = 64 << 20;
    let dense = (records as u64).saturating_mul(d as u64).saturating_mul(8);
    if dense > file_bytes.saturating_mul(64).saturating_add(SLACK) {
        return Err(Error::parse(
            file.clone(),
            format!(
                "the largest feature index {d} makes a dense {records} × {d} matrix of {dense} bytes from a \
                 {file_bytes}-byte file; if that dimension is intended, pass --features {d}"
            ),
        ));
    }
    Ok(())
}

/// An index beyond the first pass's maximum means that a later token on the same line is malformed or
/// smaller: report that token, which is the real problem.
#[cold]
fn later_disorder(
    tokens: &mut Tokens<'_>,
    mut previous: usize,
    at: &dyn Fn(usize) -> Location,
) -> Option<Error> {
    for (start, token) in tokens.by_ref() {
        let Some(colon) = token.iter().position(|&b| b == b':') else {
            return Some(Error::parse(
                at(start + 1),
                format!(
                    "`{}` is not an index:value pair",
                    String::from_utf8_lossy(token)
                ),
            ));
        };
        if &token[..colon] == b"qid" {
            continue;
        }
        let Some(index) = parse_index(&token[..colon]) else {
            return Some(Error::parse(
                at(start + 1),
                format!(
                    "feature index `{}` is not a positive integer",
                    String::from_utf8_lossy(&token[..colon])
                ),
            ));
        };
        if index == 0 {
            return Some(Error::parse(
                at(start + 1),
                "feature index 0: LIBSVM indices start at 1",
            ));
        }
        if index <= previous {
            return Some(Error::parse(
                at(start + 1),
                format!("feature index {index} after {previous}: indices must increase"),
            ));
        }
        previous = index;
    }
    None
}

/// Whitespace-separated tokens with their byte offsets.
struct Tokens<'l> {
    line: &'l [u8],
    position: usize,
}

impl<'l> Iterator for Tokens<'l> {
    type Item = (usize, &'l [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let line = self.line;
        let mut start = self.position;
        while start < line.len() && line[start].is_ascii_whitespace() {
            start += 1;
        }
        if start == line.len() {
            self.position = start;
            return None;
        }
        let mut end = start;
        while end < line.len() && !line[end].is_ascii_whitespace() {
            end += 1;
        }
        self.position = end;
        Some((start, &line[start..end]))
    }
}

/// Write a dataset in LIBSVM format: `+1`/`-1`, then the non-zero features as `index:value` with
/// 1-based indices, every value in the shortest form that reads back to the same bits. `-0.0` is written
/// (it is not `+0.0` bit for bit). If no example uses the last feature, the first line carries an explicit
/// `d:0` so that the dimension survives a round trip. The file is replaced atomically.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[0.0, 2.5, 0.0], [1.0, 0.0, 0.0]], array![1.0, -1.0])?;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("out.svm");
/// novikoff::io::write_libsvm(&path, &data)?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "+1 2:2.5 3:0\n-1 1:1\n");
/// assert_eq!(novikoff::io::read_libsvm(&path, &Default::default())?, data);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_libsvm(path: &Path, data: &Dataset) -> Result<()> {
    super::write_atomically(path, |out| write_libsvm_to(out, data))
}

/// Write a dataset in LIBSVM format to any writer (see [`write_libsvm`]).
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[1.0, -0.5]], array![1.0])?;
/// let mut out = Vec::new();
/// novikoff::io::write_libsvm_to(&mut out, &data)?;
/// assert_eq!(out, b"+1 1:1 2:-0.5\n");
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_libsvm_to<W: Write>(out: &mut W, data: &Dataset) -> Result<()> {
    let d = data.n_features();
    let n = data.n_samples();
    let last_used = (0..n).any(|i| data.row(i)[d - 1].to_bits() != 0);
    let mut line = Vec::with_capacity(1 << 16);
    for i in 0..n {
        line.extend_from_slice(if data.labels()[i] > 0.0 { b"+1" } else { b"-1" });
        for (j, &value) in data.row(i).iter().enumerate() {
            let keep_for_dimension = i == 0 && j == d - 1 && !last_used;
            if value.to_bits() != 0 || keep_for_dimension {
                line.extend_from_slice(format!(" {}:", j + 1).as_bytes());
                push_f64(&mut line, value);
            }
        }
        line.push(b'\n');
        if line.len() >= 1 << 16 {
            out.write_all(&line).map_err(|e| Error::io("<output>", e))?;
            line.clear();
        }
    }
    out.write_all(&line).map_err(|e| Error::io("<output>", e))
}
