//! LIBSVM / SVMlight text: `label index:value index:value … # comment`, sparse, 1-based indices.
//!
//! On a regular file the reader makes two streamed passes: the first counts the records and the stored
//! pairs and finds the largest index (the last one of each line, since indices increase); the second
//! parses straight into the final storage, allocated once at its final size: the dense matrix, or the
//! three arrays of compressed sparse rows (see [`Storage`](super::Storage)). Peak memory is that storage
//! plus one block of text. A stream (standard input, a pipe, gzip) is read once: its pairs are kept as
//! sparse rows until the dimension is known, and scattered into a dense matrix only if that is the
//! storage.

use std::io::Write;
use std::path::Path;

use ndarray::{Array1, Array2};

use super::ReadOptions;
use super::labels::LabelMapper;
use super::source::{self, Source};
use super::text::{Text, find_byte, push_f64, shown, tidy, zeros};
use crate::dataset::{CsrMatrix, Dataset, MAX_SPARSE_COLUMNS, SparseIndex};
use crate::error::{Error, Location, Result};

mod dense;
mod sparse;
mod tokens;
mod write;

use dense::{dimension, finish, zero_matrix};
use sparse::{SparseRows, finish_sparse};
use tokens::*;
pub use write::{write_libsvm, write_libsvm_to};

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
    let name = source::display_name(path);
    match source::open(path)? {
        Source::Regular => parse_twice(&Text::File(path), &name, options),
        Source::Stream(mut reader) => read_libsvm_stream(&mut reader, &name, options),
    }
}

/// Read LIBSVM from a stream in one pass (standard input, a pipe, decompressed data); `name` names the
/// source in error messages. The rules are those of [`read_libsvm_from`].
///
/// ```
/// let mut stream: &[u8] = b"+1 2:0.5\n-1 1:3\n";
/// let data = novikoff::io::read_libsvm_stream(&mut stream, "<stdin>".as_ref(), &Default::default())?;
/// assert_eq!(data.x(), ndarray::array![[0.0, 0.5], [3.0, 0.0]]);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_libsvm_stream(
    reader: &mut dyn std::io::Read,
    name: &Path,
    options: &ReadOptions,
) -> Result<Dataset> {
    parse_once(
        &Text::Stream(std::cell::RefCell::new(reader)),
        name,
        options,
    )
}

/// Parse LIBSVM bytes; `path` names the source in error messages.
///
/// * One example per line: a label, then `index:value` pairs separated by spaces or tabs. Indices are
///   1-based and strictly increasing; absent features are 0.
/// * `#` starts a comment that runs to the end of the line; blank and comment-only lines are skipped.
///   An SVMlight `qid:N` pair is accepted and ignored.
/// * The dimension d is `options.n_features` if given (an index beyond it is an error), otherwise the
///   largest index in the file, or `options.min_features` when that is larger.
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
    parse_twice(&Text::Bytes(bytes), path, options)
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

/// Two streamed passes over a source that can be read twice: the number of records and the largest
/// index, then the values straight into the matrix, allocated once at its final size.
fn parse_twice(text: &Text<'_>, path: &Path, options: &ReadOptions) -> Result<Dataset> {
    let file = Location::new(path);
    let mut records = 0usize;
    let mut largest = 0usize;
    // An upper bound on the stored pairs (a `qid:` pair counts too), to allocate sparse rows once.
    let mut pairs = 0usize;
    let bytes = text.for_each_line(path, |_, line| {
        let line = content(line);
        if !is_empty(line) {
            records += 1;
            largest = largest.max(last_index(line));
            pairs += line.iter().filter(|&&b| b == b':').count();
        }
        Ok(())
    })?;
    let largest = largest.max(options.min_features.unwrap_or(0));
    let mut labels = LabelMapper::for_options(options);
    let sparse = records > 0
        && options
            .storage
            .is_sparse_for(records, options.n_features.unwrap_or(largest), pairs);
    let (d, mut target) = if sparse {
        let d = dimension(options, None, largest, bytes, &file)?;
        (
            d,
            Target::Sparse(SparseRows::with_capacity(records, pairs, path)?),
        )
    } else {
        let (d, values) = zero_matrix(options, records, largest, bytes, &file, path)?;
        (d, Target::Dense(values))
    };
    labels.reserve(records, path)?;

    let mut row = 0usize;
    text.for_each_line(path, |number, line| {
        let line = content(line);
        if is_empty(line) {
            return Ok(());
        }
        if row == records {
            return Err(changed(&file));
        }
        parse_line(
            line,
            number,
            path,
            options,
            &mut labels,
            Some(d),
            |index, value| {
                target.put(row * d, index, value);
                Ok(())
            },
        )?;
        target.end_row();
        row += 1;
        Ok(())
    })?;
    if row != records {
        return Err(changed(&file));
    }
    match target {
        Target::Dense(values) => finish(values, labels, (records, d), path),
        Target::Sparse(rows) => finish_sparse(rows, labels, d, path),
    }
}

/// Where the second pass puts the pairs: the dense matrix, allocated and zeroed at its final size, or
/// the sparse rows, allocated for the pairs the first pass counted.
enum Target {
    Dense(Vec<f64>),
    Sparse(SparseRows),
}

impl Target {
    /// Put feature `index` (1-based) of the row that starts at `row_start` in the dense matrix.
    #[inline]
    fn put(&mut self, row_start: usize, index: usize, value: f64) {
        match self {
            Target::Dense(values) => values[row_start + index - 1] = value,
            Target::Sparse(rows) => rows.push(index, value),
        }
    }

    fn end_row(&mut self) {
        if let Target::Sparse(rows) = self {
            rows.end_row();
        }
    }
}

/// One pass over a stream: the pairs are kept sparse until the dimension is known, then scattered into
/// the dense matrix. Peak memory is the pairs (16 bytes each) plus that matrix.
fn parse_once(text: &Text<'_>, path: &Path, options: &ReadOptions) -> Result<Dataset> {
    let file = Location::new(path);
    let mut rows = SparseRows::with_capacity(0, 0, path)?;
    let mut largest = 0usize;
    let mut labels = LabelMapper::for_options(options);
    let no_memory = |number: usize| {
        Error::parse(
            Location::new(path).line(number),
            "cannot allocate memory for more of the stream",
        )
    };
    let bytes = text.for_each_line(path, |number, line| {
        let line = content(line);
        if is_empty(line) {
            return Ok(());
        }
        if rows.bytes() > source::stream_budget() {
            return Err(source::over_budget(Location::new(path).line(number)));
        }
        rows.indptr.try_reserve(1).map_err(|_| no_memory(number))?;
        parse_line(
            line,
            number,
            path,
            options,
            &mut labels,
            options.n_features,
            |index, value| {
                rows.try_reserve_one().map_err(|_| no_memory(number))?;
                rows.push(index, value);
                largest = largest.max(index);
                Ok(())
            },
        )?;
        rows.end_row();
        Ok(())
    })?;
    let records = rows.len();
    let largest = largest.max(options.min_features.unwrap_or(0));
    if records > 0
        && options.storage.is_sparse_for(
            records,
            options.n_features.unwrap_or(largest),
            rows.indices.len(),
        )
    {
        let d = dimension(options, None, largest, bytes, &file)?;
        return finish_sparse(rows, labels, d, path);
    }
    let (d, mut values) = zero_matrix(options, records, largest, bytes, &file, path)?;
    for row in 0..records {
        let (start, end) = (rows.indptr[row], rows.indptr[row + 1]);
        for (&j, &value) in rows.indices[start..end]
            .iter()
            .zip(&rows.values[start..end])
        {
            values[row * d + j as usize] = value;
        }
    }
    drop(rows);
    finish(values, labels, (records, d), path)
}

fn is_empty(line: &[u8]) -> bool {
    line.iter().all(|&b| b.is_ascii_whitespace())
}

/// A line's largest index: indices increase, so it is the last well-formed pair. The first token is
/// the label, never a pair, even when it holds a colon (`3:` would otherwise make the dimension 3
/// where the parse proper finds no pair). Malformed lines are reported by the parse proper.
fn last_index(line: &[u8]) -> usize {
    let start = line
        .iter()
        .position(|&b| !is_blank(b))
        .unwrap_or(line.len());
    let mut line = &line[start..];
    while let Some(blank) = line.iter().rposition(|&b| is_blank(b)) {
        let last = &line[blank + 1..];
        if let Some(colon) = last.iter().position(|&b| b == b':')
            && let Some(index) = parse_index(&last[..colon]).filter(|&i| i > 0)
        {
            return index;
        }
        line = &line[..blank];
    }
    0
}

fn no_records(file: &Location) -> Error {
    Error::parse(
        file.clone(),
        "the file is empty: no data lines (only blank lines or comments, if any)",
    )
}

fn changed(file: &Location) -> Error {
    Error::parse(file.clone(), "the file changed while it was being read")
}

/// Parse one data line (comments stripped, not blank): push its label and call `put(index, value)` for
/// each pair. An index above `limit` is an error.
fn parse_line(
    line: &[u8],
    number: usize,
    path: &Path,
    options: &ReadOptions,
    labels: &mut LabelMapper,
    limit: Option<usize>,
    mut put: impl FnMut(usize, f64) -> Result<()>,
) -> Result<()> {
    let at = |column: usize| Location::new(path).line(number).column(column);
    // One UTF-8 check per line; tokens split at ASCII bytes, so their ranges are char boundaries.
    let text = std::str::from_utf8(line).ok();
    let as_str = |range: std::ops::Range<usize>| match text {
        Some(text) => text.get(range),
        None => std::str::from_utf8(&line[range]).ok(),
    };
    let mut previous = 0usize;
    let mut tokens = Tokens { line, position: 0 };
    let Some((label_start, label)) = tokens.next() else {
        return Ok(());
    };
    let label_text = as_str(label_start..label_start + label.len())
        .ok_or_else(|| Error::parse(at(label_start + 1), "the label is not valid UTF-8"))?;
    labels
        .push_text(label_text, number)
        .map_err(|message| Error::parse(at(label_start + 1), tidy(message)))?;
    while let Some((start, token)) = tokens.next() {
        let Some((index, colon)) = token_index(token, start, previous, &at)? else {
            continue;
        };
        let value_text = &token[colon + 1..];
        if let Some(d) = limit
            && index > d
        {
            return Err(match options.n_features {
                Some(_) => Error::parse(
                    at(start + 1),
                    format!("feature index {index} exceeds --features {d}"),
                ),
                // The first pass's maximum is exceeded only when a later token on the line is
                // malformed or smaller (or the file changed).
                None => later_disorder(&mut tokens, index, &at)
                    .unwrap_or_else(|| changed(&Location::new(path))),
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
                    format!("{} is not a number (feature {index})", shown(value_text))
                },
            )
        })?;
        if !value.is_finite() {
            return Err(Error::parse(
                value_at(),
                format!(
                    "value {} is not finite (feature {index})",
                    shown(value_text)
                ),
            ));
        }
        put(index, value)?;
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
        match token_index(token, start, previous, at) {
            Err(error) => return Some(error),
            Ok(Some((index, _))) => previous = index,
            Ok(None) => {}
        }
    }
    None
}

/// The feature index of an `index:value` token and the position of its colon, or `None` for a `qid:`
/// token; an error at the token's place when it is not a pair, its index is not a positive integer, is
/// 0, or does not increase past `previous`.
fn token_index(
    token: &[u8],
    start: usize,
    previous: usize,
    at: &dyn Fn(usize) -> Location,
) -> Result<Option<(usize, usize)>> {
    let Some(colon) = token.iter().position(|&b| b == b':') else {
        return Err(Error::parse(
            at(start + 1),
            format!("{} is not an index:value pair", shown(token)),
        ));
    };
    let index_text = &token[..colon];
    if index_text == b"qid" {
        return Ok(None);
    }
    let Some(index) = parse_index(index_text) else {
        return Err(Error::parse(
            at(start + 1),
            format!(
                "feature index {} is not a positive integer",
                shown(index_text)
            ),
        ));
    };
    if index == 0 {
        return Err(Error::parse(
            at(start + 1),
            "feature index 0: LIBSVM indices start at 1",
        ));
    }
    if index > MAX_SPARSE_COLUMNS {
        return Err(Error::parse(
            at(start + 1),
            format!(
                "feature index {index} is beyond the {MAX_SPARSE_COLUMNS} columns a dataset may have \
                 (32-bit column indices, as scipy's)"
            ),
        ));
    }
    if index <= previous {
        return Err(Error::parse(
            at(start + 1),
            format!("feature index {index} after {previous}: indices must increase"),
        ));
    }
    Ok(Some((index, colon)))
}
