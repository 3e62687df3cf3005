//! Delimited text: one example per line, an optional header row, the label in one column.
//!
//! The reader is a byte-level scanner: it streams the file in blocks, splits fields itself and parses
//! numbers with the standard library's correctly rounded `f64` parser, so a value written by
//! [`write_csv`] reads back with the same bits. The matrix is allocated once, at its final size, from a
//! first pass that counts the lines: no intermediate strings, no doubling growth.

use std::io::Write;
use std::path::Path;

use ndarray::{Array1, Array2};

use super::labels::LabelMapper;
use super::source::{self, Source};
use super::text::{Text, find_byte, push_f64, shown, shown_bare, tidy, trim, with_capacity};
use super::{LabelColumn, ReadOptions};
use crate::dataset::Dataset;
use crate::error::{Error, Location, Result};

mod label_column;
mod write;

use label_column::*;
use write::*;
pub(crate) use write::{delimiter_for, write_delimited};
pub use write::{write_csv, write_csv_to};

/// Read a CSV file. See [`read_csv_from`] for the rules. A `.tsv` file is tab-delimited unless
/// `options.delimiter` says otherwise.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("d.csv");
/// std::fs::write(&path, "a,b,label\n1,2,0\n3,4,1\n").unwrap();
/// let data = novikoff::io::read_csv(&path, &Default::default())?;
/// assert_eq!(data.y().to_vec(), vec![-1.0, 1.0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_csv(path: &Path, options: &ReadOptions) -> Result<Dataset> {
    let mut options = options.clone();
    if options.delimiter.is_none() && is_tsv(path) {
        options.delimiter = Some(b'\t');
    }
    let name = source::display_name(path);
    match source::open(path)? {
        Source::Regular => parse(&Text::File(path), &name, &options),
        Source::Stream(mut reader) => read_csv_stream(&mut reader, &name, &options),
    }
}

/// Read CSV from a stream in one pass (standard input, a pipe, decompressed data); `name` names the
/// source in error messages. The rules are those of [`read_csv_from`]; the matrix grows as rows arrive.
///
/// ```
/// let mut stream: &[u8] = b"a,y\n0.5,1\n-2,0\n";
/// let data = novikoff::io::read_csv_stream(&mut stream, "<stdin>".as_ref(), &Default::default())?;
/// assert_eq!(data.x().column(0).to_vec(), vec![0.5, -2.0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_csv_stream(
    reader: &mut dyn std::io::Read,
    name: &Path,
    options: &ReadOptions,
) -> Result<Dataset> {
    parse(
        &Text::Stream(std::cell::RefCell::new(reader)),
        name,
        options,
    )
}

/// Parse CSV bytes; `path` names the source in error messages.
///
/// * The first line is a header unless `options.header` is false. Blank lines are skipped, a UTF-8
///   byte-order mark is ignored, `\r\n` line ends are accepted.
/// * Fields are separated by `options.delimiter` (`,` by default) and may be quoted (`"a,b"`, with `""`
///   for a quote); a quoted field cannot span lines.
/// * The label column is the last one unless named; every other column is a feature and must hold a
///   finite number. Spaces around a number are ignored.
/// * Every row must have as many fields as the header (or the first row).
/// * Errors name the line and the column (the 1-based field number).
///
/// ```
/// use novikoff::io::{read_csv_from, ReadOptions};
/// let err = read_csv_from(b"a,y\n1,1\n2\n", "mem.csv".as_ref(), &ReadOptions::default()).unwrap_err();
/// assert_eq!(err.to_string(), "mem.csv:3: ragged row: 1 field where the header has 2");
/// let data = read_csv_from(b"1;0\n2;1\n", "mem.csv".as_ref(), &ReadOptions::default().header(false).delimiter(b';'))?;
/// assert_eq!(data.x().column(0).to_vec(), vec![1.0, 2.0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_csv_from(bytes: &[u8], path: &Path, options: &ReadOptions) -> Result<Dataset> {
    parse(&Text::Bytes(bytes), path, options)
}

fn parse(text: &Text<'_>, path: &Path, options: &ReadOptions) -> Result<Dataset> {
    if let Some(delimiter) = options.delimiter
        && (!delimiter.is_ascii() || matches!(delimiter, b'"' | b'\n' | b'\r'))
    {
        return Err(Error::parameter(
            "delimiter",
            format!(
                "{:?} cannot separate fields: use an ASCII character other than a quote or a line end",
                char::from(delimiter)
            ),
        ));
    }
    let size = text.size_hint(path)?;
    let mut reader = CsvReader {
        path,
        options,
        delimiter: options.delimiter.unwrap_or(b','),
        size,
        width: 0,
        label_index: 0,
        header_names: Vec::new(),
        values: Vec::new(),
        labels: LabelMapper::for_options(options),
        rows: 0,
    };
    text.for_each_line(path, |number, line| reader.line(number, line))?;
    reader.finish()
}

/// The rows a stream's matrix has room for before it first grows.
const STREAM_ROWS: usize = 1024;

struct CsvReader<'a> {
    path: &'a Path,
    options: &'a ReadOptions,
    delimiter: u8,
    /// Lines in the file (an upper bound on the rows, used to allocate once) and its size in bytes (a
    /// row of w fields takes at least 2w − 1 bytes, which bounds the rows too); `None` for a stream,
    /// whose matrix grows as rows arrive.
    size: Option<(usize, u64)>,
    /// Fields per row; 0 until the first non-blank line.
    width: usize,
    label_index: usize,
    header_names: Vec<String>,
    values: Vec<f64>,
    labels: LabelMapper,
    rows: usize,
}

/// One field: a range of the line, or the unescaped text of a quoted field.
enum Field {
    Raw(std::ops::Range<usize>),
    Quoted(Vec<u8>),
}

impl Field {
    fn bytes<'a>(&'a self, line: &'a [u8]) -> &'a [u8] {
        match self {
            Field::Raw(range) => &line[range.clone()],
            Field::Quoted(v) => v,
        }
    }
}

impl CsvReader<'_> {
    fn at(&self, line: usize) -> Location {
        Location::new(self.path).line(line)
    }

    /// The next field starting at `start`, and where the following one starts (`None` at the end).
    #[inline]
    fn field(
        &self,
        line: &[u8],
        start: usize,
        number: usize,
        column: usize,
    ) -> Result<(Field, Option<usize>)> {
        let rest = &line[start..];
        if rest.first() == Some(&b'"') {
            return self.quoted(line, start, number, column);
        }
        let end = start + find_byte(rest, self.delimiter);
        if end == line.len() {
            Ok((Field::Raw(start..end), None))
        } else {
            Ok((Field::Raw(start..end), Some(end + 1)))
        }
    }

    #[cold]
    fn quoted(
        &self,
        line: &[u8],
        start: usize,
        number: usize,
        column: usize,
    ) -> Result<(Field, Option<usize>)> {
        let mut text = Vec::new();
        let mut i = start + 1;
        loop {
            match line.get(i) {
                None => {
                    return Err(Error::parse(
                        self.at(number).column(column),
                        "a quoted field is not closed on its line (fields spanning lines are not supported)",
                    ));
                }
                Some(b'"') if line.get(i + 1) == Some(&b'"') => {
                    text.push(b'"');
                    i += 2;
                }
                Some(b'"') => {
                    i += 1;
                    break;
                }
                Some(&b) => {
                    text.push(b);
                    i += 1;
                }
            }
        }
        let (after, _) = trim(&line[i..]);
        let next = match line[i..].iter().position(|&b| b == self.delimiter) {
            Some(offset) if trim(&line[i..i + offset]).0.is_empty() => Some(i + offset + 1),
            None if after.is_empty() => None,
            _ => {
                return Err(Error::parse(
                    self.at(number).column(column),
                    "text after the closing quote of a quoted field",
                ));
            }
        };
        Ok((Field::Quoted(text), next))
    }

    fn line(&mut self, number: usize, line: &[u8]) -> Result<()> {
        if line.first().is_none_or(u8::is_ascii_whitespace)
            && line.iter().all(u8::is_ascii_whitespace)
        {
            return Ok(());
        }
        if self.width == 0 {
            self.first_line(number, line)?;
            if self.options.header {
                return Ok(());
            }
        }
        self.row(number, line)
    }

    fn first_line(&mut self, number: usize, line: &[u8]) -> Result<()> {
        let mut cells = Vec::new();
        let mut start = Some(0);
        while let Some(at) = start {
            let (field, next) = self.field(line, at, number, cells.len() + 1)?;
            cells.push(field.bytes(line).to_vec());
            start = next;
        }
        let fields = cells.len();
        if self.options.header {
            self.header_names = cells
                .iter()
                .enumerate()
                .map(|(j, cell)| {
                    std::str::from_utf8(cell)
                        .map(|s| s.trim().to_string())
                        .map_err(|_| {
                            Error::parse(
                                self.at(number).column(j + 1),
                                "the header is not valid UTF-8",
                            )
                        })
                })
                .collect::<Result<_>>()?;
        }
        self.label_index = resolve_label_column(
            &self.options.label,
            &self.header_names,
            fields,
            &self.at(number),
        )?;
        if fields < 2 {
            return Err(Error::parse(
                self.at(number),
                "only one column: a dataset needs at least one feature column and a label column",
            ));
        }
        if let Some(d) = self.options.n_features
            && d != fields - 1
        {
            return Err(Error::parse(
                self.at(number),
                format!(
                    "the file has {} feature columns but --features says {d}",
                    fields - 1
                ),
            ));
        }
        self.width = fields;
        let rows = match self.size {
            Some((line_bound, byte_len)) => {
                let rows_by_size =
                    usize::try_from(byte_len / (2 * fields as u64 - 1) + 1).unwrap_or(usize::MAX);
                line_bound.saturating_sub(number - 1).min(rows_by_size)
            }
            // A first guess for a stream; `row` grows it.
            None => STREAM_ROWS,
        };
        let len = rows.checked_mul(fields - 1).ok_or_else(|| {
            Error::parse(Location::new(self.path), "the file is too large for memory")
        })?;
        self.values = with_capacity(len, self.path)?;
        self.labels.reserve(rows, self.path)
    }

    #[inline]
    fn row(&mut self, number: usize, line: &[u8]) -> Result<()> {
        let width = self.width;
        // One UTF-8 check for the whole line; only an invalid line is checked field by field, to name
        // the column.
        let text = std::str::from_utf8(line).ok();
        // Checked growth: a stream (or a file that grew since it was sized) ends in an error, never an
        // abort, when memory runs out. A no-op when the matrix was sized.
        // Only growth is checked: a sized matrix (a regular file) already holds its room.
        if self.values.capacity() < self.values.len() + width
            && (self.values.len() + width) * std::mem::size_of::<f64>() > source::stream_budget()
        {
            return Err(source::over_budget(self.at(number)));
        }
        self.values
            .try_reserve(width - 1)
            .map_err(|_| self.no_memory(number))?;
        let mut start = Some(0);
        let mut j = 0;
        while let Some(at) = start {
            if j == width {
                return Err(self.ragged(number, line));
            }
            let (field, next) = self.field(line, at, number, j + 1)?;
            start = next;
            let cell = match (&field, text) {
                // The range ends at ASCII delimiters, hence on character boundaries.
                (Field::Raw(range), Some(text)) => text.get(range.clone()),
                _ => std::str::from_utf8(field.bytes(line)).ok(),
            }
            .ok_or_else(|| self.not_utf8(number, j))?;
            if j == self.label_index {
                self.labels.push_text(cell, number).map_err(|message| {
                    Error::parse(self.at(number).column(j + 1), tidy(message))
                })?;
            } else {
                let value = self.number(cell, number, j)?;
                self.values.push(value);
            }
            j += 1;
        }
        if j != width {
            return Err(self.ragged(number, line));
        }
        self.rows += 1;
        Ok(())
    }

    #[inline]
    fn number(&self, cell: &str, number: usize, j: usize) -> Result<f64> {
        let text = cell.trim_ascii();
        match text.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(value),
            Ok(_) => Err(Error::parse(
                self.at(number).column(j + 1),
                format!(
                    "value {} is not finite{}",
                    shown(text.as_bytes()),
                    self.column_name(j)
                ),
            )),
            Err(_) if text.is_empty() => Err(Error::parse(
                self.at(number).column(j + 1),
                format!(
                    "empty field where a number is expected{}",
                    self.column_name(j)
                ),
            )),
            Err(_) => Err(Error::parse(
                self.at(number).column(j + 1),
                format!(
                    "{} is not a number{}",
                    shown(text.as_bytes()),
                    self.column_name(j)
                ),
            )),
        }
    }

    #[cold]
    fn no_memory(&self, number: usize) -> Error {
        Error::parse(
            self.at(number),
            format!("cannot allocate memory for more than {} rows", self.rows),
        )
    }

    #[cold]
    fn not_utf8(&self, number: usize, j: usize) -> Error {
        Error::parse(
            self.at(number).column(j + 1),
            "the field is not valid UTF-8",
        )
    }

    #[cold]
    fn ragged(&self, number: usize, line: &[u8]) -> Error {
        let mut count = 0;
        let mut start = Some(0);
        while let Some(at) = start {
            match self.field(line, at, number, count + 1) {
                Ok((_, next)) => start = next,
                Err(e) => return e,
            }
            count += 1;
        }
        Error::parse(
            self.at(number),
            format!(
                "ragged row: {count} field{} where the {} has {}",
                if count == 1 { "" } else { "s" },
                if self.options.header {
                    "header"
                } else {
                    "first row"
                },
                self.width
            ),
        )
    }

    fn column_name(&self, j: usize) -> String {
        self.header_names
            .get(j)
            .map(|name| format!(" (column {})", shown(name.as_bytes())))
            .unwrap_or_default()
    }

    fn finish(self) -> Result<Dataset> {
        let file = Location::new(self.path);
        if self.width == 0 {
            return Err(Error::parse(
                file,
                "the file is empty: no header and no data",
            ));
        }
        if self.rows == 0 {
            return Err(Error::parse(
                file,
                "no data rows: the file holds only a header",
            ));
        }
        let path = self.path;
        let y = self
            .labels
            .finish(path, |line| (Location::new(path).line(line), String::new()))?;
        let mut values = self.values;
        if values.capacity() - values.len() > values.len() / 8 {
            values.shrink_to_fit();
        }
        let x = Array2::from_shape_vec((self.rows, self.width - 1), values)
            .map_err(|e| Error::parse(file.clone(), format!("internal shape error: {e}")))?;
        Dataset::new(x, Array1::from_vec(y)).map_err(|e| e.at_file(&file, |_| 0))
    }
}
