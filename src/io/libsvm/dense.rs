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
    let d = dimension(options, Some(records), largest, bytes, file)?;
    let len = records
        .checked_mul(d)
        .ok_or_else(|| Error::parse(file.clone(), "the matrix is too large for memory"))?;
    Ok((d, zeros(len, path)?))
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

/// The dimension: `--features`, or the largest index if what it makes is plausible for the size of the
/// file. What is held is `dense_rows × d` values for a dense matrix (`Some(records)`), or the model's `d`
/// weights for sparse rows (`None`): far more than the file could describe is almost always a corrupt or
/// mistyped index, and the user can confirm a genuinely huge dimension with `--features`.
pub(super) fn dimension(
    options: &ReadOptions,
    dense_rows: Option<usize>,
    largest: usize,
    file_bytes: u64,
    file: &Location,
) -> Result<usize> {
    const SLACK: u64 = 64 << 20;
    if let Some(d) = options.n_features {
        return Ok(d);
    }
    let held = (dense_rows.unwrap_or(1) as u64)
        .saturating_mul(largest as u64)
        .saturating_mul(8);
    if held > file_bytes.saturating_mul(64).saturating_add(SLACK) {
        let what = match dense_rows {
            Some(records) => format!("makes a dense {records} × {largest} matrix of {held} bytes"),
            None => format!("needs {held} bytes of weights"),
        };
        return Err(Error::parse(
            file.clone(),
            format!(
                "the largest feature index {largest} {what} from a {file_bytes}-byte file; if that \
                 dimension is intended, pass --features {largest}"
            ),
        ));
    }
    Ok(largest)
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
