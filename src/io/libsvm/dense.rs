//! LIBSVM into a dense matrix: its size, checked against the file's, and the dataset it becomes.

use super::*;

/// The zeros that `records` rows fill, `records × d` with `d` from [`dimension`]; refused when there is no
/// record or the matrix cannot be held.
pub(super) fn zero_matrix(
    options: &ReadOptions,
    records: usize,
    largest: usize,
    bytes: u64,
    file: &Location,
    path: &Path,
) -> Result<(usize, Vec<f64>)> {
    if records == 0 {
        return Err(no_records(file));
    }
    let d = dimension(options, records, largest, bytes, file)?;
    let len = records
        .checked_mul(d)
        .ok_or_else(|| Error::parse(file.clone(), "the matrix is too large for memory"))?;
    Ok((d, zeros(len, path)?))
}

/// The dimension: `--features`, or the largest index if it is plausible for the size of the input.
fn dimension(
    options: &ReadOptions,
    records: usize,
    largest: usize,
    bytes: u64,
    file: &Location,
) -> Result<usize> {
    match options.n_features {
        Some(d) => Ok(d),
        None => {
            check_expansion(records, largest, bytes, file)?;
            Ok(largest)
        }
    }
}

pub(super) fn finish(
    values: Vec<f64>,
    labels: LabelMapper,
    (records, d): (usize, usize),
    path: &Path,
) -> Result<Dataset> {
    let file = Location::new(path);
    let y = finished_labels(labels, d, path)?;
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

/// The labels of a file with `d` features, refused when there are no features at all.
pub(super) fn finished_labels(labels: LabelMapper, d: usize, path: &Path) -> Result<Vec<f64>> {
    if d == 0 {
        return Err(Error::parse(
            Location::new(path),
            "no features: every line holds only a label (give --features D for all-zero data)",
        ));
    }
    labels.finish(path, |line| (Location::new(path).line(line), String::new()))
}
