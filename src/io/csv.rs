//! Delimited text: one example per line, a header row, the label in one column.

use std::path::Path;

use ndarray::{Array1, Array2};

use super::labels::LabelMapper;
use super::{read_bytes, LabelColumn, ReadOptions};
use crate::dataset::Dataset;
use crate::error::{Error, Location, Result};

/// Read a CSV file. See [`read_csv_from`] for the rules.
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
    let bytes = read_bytes(path)?;
    let mut options = options.clone();
    if options.delimiter.is_none()
        && path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("tsv"))
    {
        options.delimiter = Some(b'\t');
    }
    read_csv_from(&bytes, path, &options)
}

/// Parse CSV bytes; `path` names the source in error messages.
///
/// * The first line is a header unless `options.header` is false. Blank lines are skipped.
/// * The label column is the last one unless named; every other column is a feature and must hold a
///   finite number.
/// * Every row must have as many fields as the header.
///
/// ```
/// use novikoff::io::{read_csv_from, ReadOptions};
/// let err = read_csv_from(b"a,y\n1,1\n2\n", "mem.csv".as_ref(), &ReadOptions::default()).unwrap_err();
/// assert_eq!(err.to_string(), "mem.csv:3: ragged row: 1 field where the header has 2");
/// ```
pub fn read_csv_from(bytes: &[u8], path: &Path, options: &ReadOptions) -> Result<Dataset> {
    let file = Location::new(path);
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(options.delimiter.unwrap_or(b','))
        .from_reader(bytes);
    let mut record = ::csv::ByteRecord::new();
    let mut width: Option<usize> = None;
    let mut label_index = 0;
    let mut values: Vec<f64> = Vec::new();
    let mut labels = LabelMapper::new(options.positive.as_deref());
    let mut lines: Vec<usize> = Vec::new();
    let mut header_names: Vec<String> = Vec::new();

    loop {
        let more = reader.read_byte_record(&mut record).map_err(|e| {
            let line = e.position().map_or(0, |p| p.line() as usize);
            Error::parse(file.clone().line(line), format!("malformed CSV: {e}"))
        })?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line() as usize);
        let at = file.clone().line(line);
        if record.len() == 1 && record[0].iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let expected = if let Some(expected) = width {
            expected
        } else {
            let fields = record.len();
            if options.header {
                header_names = record
                    .iter()
                    .enumerate()
                    .map(|(j, cell)| {
                        std::str::from_utf8(cell)
                            .map(|s| s.trim().to_string())
                            .map_err(|_| {
                                Error::parse(
                                    at.clone().column(j + 1),
                                    "the header is not valid UTF-8",
                                )
                            })
                    })
                    .collect::<Result<_>>()?;
            }
            label_index = resolve_label_column(&options.label, &header_names, fields, &at)?;
            if fields < 2 {
                return Err(Error::parse(
                    at,
                    "only one column: a dataset needs at least one feature column and a label column",
                ));
            }
            width = Some(fields);
            if options.header {
                values.reserve(bytes.len() / 4);
                continue;
            }
            fields
        };
        if record.len() != expected {
            return Err(Error::parse(
                at,
                format!(
                    "ragged row: {} field{} where the {} has {expected}",
                    record.len(),
                    if record.len() == 1 { "" } else { "s" },
                    if options.header {
                        "header"
                    } else {
                        "first row"
                    }
                ),
            ));
        }
        for (j, cell) in record.iter().enumerate() {
            let cell_at = || at.clone().column(j + 1);
            let text = std::str::from_utf8(cell)
                .map_err(|_| Error::parse(cell_at(), "the field is not valid UTF-8"))?;
            if j == label_index {
                labels.push(text, &cell_at())?;
                continue;
            }
            let value: f64 = text.trim().parse().map_err(|_| {
                Error::parse(
                    cell_at(),
                    format!(
                        "`{}` is not a number{}",
                        text.trim(),
                        column_name(&header_names, j)
                    ),
                )
            })?;
            if !value.is_finite() {
                return Err(Error::parse(
                    cell_at(),
                    format!(
                        "value `{}` is not finite{}",
                        text.trim(),
                        column_name(&header_names, j)
                    ),
                ));
            }
            values.push(value);
        }
        lines.push(line);
    }

    let Some(width) = width else {
        return Err(Error::parse(
            file,
            "the file is empty: no header and no data",
        ));
    };
    if lines.is_empty() {
        return Err(Error::parse(
            file,
            "no data rows: the file holds only a header",
        ));
    }
    let y = labels.finish(&file)?;
    let n = lines.len();
    let x = Array2::from_shape_vec((n, width - 1), values)
        .map_err(|e| Error::parse(file.clone(), format!("internal shape error: {e}")))?;
    Dataset::new(x, Array1::from_vec(y)).map_err(|e| e.at_file(&file, |row| lines[row]))
}

fn column_name(header: &[String], j: usize) -> String {
    header
        .get(j)
        .map(|name| format!(" (column `{name}`)"))
        .unwrap_or_default()
}

fn resolve_label_column(
    label: &LabelColumn,
    header: &[String],
    fields: usize,
    at: &Location,
) -> Result<usize> {
    match label {
        LabelColumn::Last => Ok(fields.saturating_sub(1)),
        LabelColumn::Name(name) => header.iter().position(|h| h == name).ok_or_else(|| {
            Error::parse(
                at.clone(),
                if header.is_empty() {
                    format!("no column named `{name}`: the file has no header, give a 1-based column number")
                } else {
                    format!("no column named `{name}`; the header has: {}", header.join(", "))
                },
            )
        }),
        LabelColumn::Index(k) => {
            // A header cell literally named "3" wins over the third column.
            if let Some(j) = header.iter().position(|h| *h == (k + 1).to_string()) {
                return Ok(j);
            }
            if *k < fields {
                return Ok(*k);
            }
            Err(Error::parse(
                at.clone(),
                format!("label column {} is out of range: the file has {fields} columns", k + 1),
            ))
        }
    }
}
