//! Writing CSV and TSV files: a header of feature names and `y`, one row per example.

use super::*;

/// Write a dataset as CSV with the header `x1,…,xd,y`, labels `1`/`-1`, and every value in the shortest
/// form that reads back to the same bits (tab-separated for a `.tsv` path). The file is replaced atomically: a failed write leaves any
/// previous file untouched.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[0.1, -2.0], [1e-300, 3.0]], array![1.0, -1.0])?;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("out.csv");
/// novikoff::io::write_csv(&path, &data)?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "x1,x2,y\n0.1,-2,1\n1e-300,3,-1\n");
/// assert_eq!(novikoff::io::read_csv(&path, &Default::default())?, data);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_csv(path: &Path, data: &Dataset) -> Result<()> {
    let delimiter = delimiter_for(path);
    super::super::write_atomically(path, |out| write_delimited(out, data, delimiter))
}

/// True for `.tsv` and `.tsv.gz`.
pub(super) fn is_tsv(path: &Path) -> bool {
    source::format_extension(path) == "tsv"
}

/// The delimiter [`write_csv`] uses for `path`.
pub(crate) fn delimiter_for(path: &Path) -> u8 {
    if is_tsv(path) { b'\t' } else { b',' }
}

/// Write a dataset as CSV to any writer (see [`write_csv`]).
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[1.5], [2.0]], array![-1.0, 1.0])?;
/// let mut out = Vec::new();
/// novikoff::io::write_csv_to(&mut out, &data)?;
/// assert_eq!(out, b"x1,y\n1.5,-1\n2,1\n");
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_csv_to<W: Write>(out: &mut W, data: &Dataset) -> Result<()> {
    write_delimited(out, data, b',')
}

pub(crate) fn write_delimited<W: Write>(out: &mut W, data: &Dataset, delimiter: u8) -> Result<()> {
    data.check_dense_size("a CSV file")?;
    let d = data.n_features();
    let mut line = Vec::with_capacity(32 * (d + 1));
    for j in 1..=d {
        line.extend_from_slice(format!("x{j}").as_bytes());
        line.push(delimiter);
    }
    line.extend_from_slice(b"y\n");
    let mut dense_row = crate::dataset::DenseRow::default();
    for i in 0..data.n_samples() {
        for &value in dense_row.of(data.row_view(i), d) {
            push_f64(&mut line, value);
            line.push(delimiter);
        }
        line.extend_from_slice(if data.labels()[i] > 0.0 {
            b"1\n"
        } else {
            b"-1\n"
        });
        if line.len() >= 1 << 16 {
            out.write_all(&line).map_err(write_error)?;
            line.clear();
        }
    }
    out.write_all(&line).map_err(write_error)
}

pub(super) fn write_error(e: std::io::Error) -> Error {
    Error::io("<output>", e)
}
