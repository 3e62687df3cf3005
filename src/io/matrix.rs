//! Reading a plain matrix (a user's Gram matrix): NumPy `.npy`, or delimited text without labels.

use std::path::Path;

use ndarray::Array2;
use ndarray_npy::ReadNpyExt;

use crate::error::{Error, Location, Result};

/// Read an `n × m` matrix of `f64`: a 2-D `.npy` array, or text (`.csv`, `.tsv`, `.txt`) with one row a
/// line, values separated by commas, tabs or spaces, no header and no label. Every value must be a
/// finite number; errors name the file, the line and the column.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("gram.csv");
/// std::fs::write(&path, "1, 0.5\n0.5, 2\n").unwrap();
/// assert_eq!(novikoff::io::read_matrix(&path)?, ndarray::array![[1.0, 0.5], [0.5, 2.0]]);
/// std::fs::write(&path, "1, 0.5\n0.5, nan\n").unwrap();
/// let err = novikoff::io::read_matrix(&path).unwrap_err();
/// assert!(err.to_string().ends_with("gram.csv:2:2: `nan` is not a finite number"), "{err}");
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] when the file cannot be read, [`Error::Parse`] for anything else.
pub fn read_matrix(path: impl AsRef<Path>) -> Result<Array2<f64>> {
    let path = path.as_ref();
    let at = || Location::new(path);
    if super::source::format_extension(path) == "npy" {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let matrix = Array2::<f64>::read_npy(std::io::BufReader::new(file))
            .map_err(|e| Error::parse(at(), format!("not a 2-D float64 .npy array: {e}")))?;
        if let Some(((i, j), v)) = matrix.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(Error::parse(
                at(),
                format!("entry ({i}, {j}) is {v}, not a finite number"),
            ));
        }
        return Ok(matrix);
    }
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut values = Vec::new();
    let mut columns: Option<usize> = None;
    let mut rows = 0;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line
            .split([',', '\t', ' '])
            .filter(|f| !f.is_empty())
            .collect();
        for (column, field) in fields.iter().enumerate() {
            let value: f64 = field
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    Error::parse(
                        at().line(number + 1).column(column + 1),
                        format!("`{field}` is not a finite number"),
                    )
                })?;
            values.push(value);
        }
        match columns {
            None => columns = Some(fields.len()),
            Some(m) if m != fields.len() => {
                return Err(Error::parse(
                    at().line(number + 1),
                    format!("{} values, but the first row has {m}", fields.len()),
                ));
            }
            _ => {}
        }
        rows += 1;
    }
    let columns = columns.ok_or_else(|| Error::parse(at(), "the file holds no matrix"))?;
    Array2::from_shape_vec((rows, columns), values)
        .map_err(|e| Error::parse(at(), format!("internal shape error: {e}")))
}
