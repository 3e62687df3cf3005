//! `.npz` archives: each entry's header checked against the entry's size before anything is
//! allocated, and the expansion of compressed entries bounded.

use super::*;

/// Deflate expands at most about 1032:1; a zip entry claiming more than this is corrupt.
pub(super) const MAX_EXPANSION: u64 = 1100;

pub(super) fn read_archive<R: Read + Seek>(
    reader: R,
    total: u64,
    path: &Path,
    options: &ReadOptions,
) -> Result<Dataset> {
    let file = Location::new(path);
    let fail = |message: String| Error::parse(file.clone(), message);
    let mut archive = zip::ZipArchive::new(reader)
        .map_err(|e| fail(format!("not a valid .npz (zip) archive: {e}")))?;
    let names: Vec<String> = archive.file_names().map(str::to_string).collect();
    let find = |candidates: &[&str]| {
        candidates
            .iter()
            .find(|c| names.iter().any(|n| n == *c))
            .map(|c| c.to_string())
    };
    let listing = || {
        let mut sorted = names.clone();
        sorted.sort();
        if sorted.is_empty() {
            "it is empty".to_string()
        } else {
            format!("it has: {}", sorted.join(", "))
        }
    };
    let y_name = find(&["y.npy", "y", "Y.npy", "Y"])
        .ok_or_else(|| fail(format!("no array `y` in the archive ({})", listing())))?;
    if super::sparse::is_sparse_archive(&names) {
        return super::sparse::read_sparse_archive(
            &mut archive,
            &names,
            &y_name,
            total,
            path,
            options,
        );
    }
    let x_name = find(&["x.npy", "x", "X.npy", "X"]).ok_or_else(|| {
        fail(format!(
            "no array `x` (dense) nor `data`, `indices` and `indptr` (scipy sparse) in the archive ({})",
            listing()
        ))
    })?;

    // x: n × d.
    let x_array = x_name.trim_end_matches(".npy").to_string();
    let (x, n, d, finite) = {
        let array = x_array.clone();
        let fail_x = |message: String| fail(format!("array `{array}`: {message}"));
        let mut entry = archive
            .by_name(&x_name)
            .map_err(|e| fail_x(format!("cannot open: {e}")))?;
        let available = entry_size(&entry, total, &fail_x)?;
        let header = read_header(&mut entry, available, &fail_x)?;
        let (n, d) = match header.shape.as_slice() {
            &[n, d] => (n, d),
            shape => {
                return Err(fail_x(format!(
                    "shape {shape:?}: x must be 2-D, one example per row"
                )));
            }
        };
        check_size(&header, available, &fail_x)?;
        if n == 0 {
            return Err(fail_x("no examples: the array has 0 rows".into()));
        }
        if d == 0 {
            return Err(fail_x("no features: the array has 0 columns".into()));
        }
        check_features(options, d, &fail_x)?;
        let mut filler = Filler::new(n, d, d, header.fortran, path)?;
        let finite = if is_native_rows(&header) {
            stream_rows(&mut entry, (n, d, d), &mut filler.x, &fail_x, |_, _| Ok(()))?
        } else {
            stream(&mut entry, header.dtype, n * d, &fail_x, |first, block| {
                filler.take(first, block, |_, _| Ok(()))
            })?;
            false
        };
        (filler.x, n, d, finite)
    };

    let y = read_labels(&mut archive, &y_name, (&x_array, n), total, path, options)?;
    let fail_x = |message: String| fail(format!("array `{x_array}`: {message}"));
    finish(x, y, (n, d, finite), &file, &fail_x)
}

/// The labels: the entry `y_name`, one per example (the `n` rows of the array `rows_of`).
pub(super) fn read_labels<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    y_name: &str,
    (rows_of, n): (&str, usize),
    total: u64,
    path: &Path,
    options: &ReadOptions,
) -> Result<Vec<f64>> {
    let file = Location::new(path);
    let fail = |message: String| Error::parse(file.clone(), message);
    let array = y_name.trim_end_matches(".npy").to_string();
    let fail_y = |message: String| fail(format!("array `{array}`: {message}"));
    let mut entry = archive
        .by_name(y_name)
        .map_err(|e| fail_y(format!("cannot open: {e}")))?;
    let available = entry_size(&entry, total, &fail_y)?;
    let header = read_header(&mut entry, available, &fail_y)?;
    let count = match header.shape.as_slice() {
        &[m] | &[m, 1] => m,
        shape => {
            return Err(fail_y(format!(
                "shape {shape:?}: y must be 1-D, one label per example"
            )));
        }
    };
    if count != n {
        return Err(fail(format!(
            "arrays `{rows_of}` and `{array}` disagree: {rows_of} has {n} rows, {array} has {count} labels"
        )));
    }
    check_size(&header, available, &fail_y)?;
    let mut labels = LabelMapper::for_options(options);
    labels.reserve(n, path)?;
    stream(&mut entry, header.dtype, n, &fail_y, |first, block| {
        for (k, &value) in (first..).zip(block) {
            labels
                .push_number(value, k)
                .map_err(|m| fail_y(format!("entry [{k}]: {m}")))?;
        }
        Ok(())
    })?;
    drop(entry);
    labels.finish(path, |row| {
        (Location::new(path), format!(" (first at {array}[{row}])"))
    })
}

/// The entry's uncompressed size, once it is plausible for the archive it sits in.
pub(super) fn entry_size<R: Read>(
    entry: &zip::read::ZipFile<'_, R>,
    total: u64,
    fail: &dyn Fn(String) -> Error,
) -> Result<u64> {
    let (size, compressed) = (entry.size(), entry.compressed_size());
    if compressed > total
        || size
            > compressed
                .saturating_mul(MAX_EXPANSION)
                .saturating_add(4096)
    {
        return Err(fail(format!(
            "corrupt zip entry: it claims {size} bytes from {compressed} compressed bytes in a {total}-byte file"
        )));
    }
    Ok(size)
}
