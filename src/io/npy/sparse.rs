//! scipy's sparse `.npz`: what `scipy.sparse.save_npz` writes for a CSR (or CSC) matrix, the arrays
//! `data`, `indices`, `indptr`, `shape` and `format`, with the labels as one more array `y` in the same
//! archive. `scipy.sparse.load_npz` ignores the extra array, so one file serves both:
//!
//! ```python
//! np.savez(path, data=X.data, indices=X.indices, indptr=X.indptr, shape=X.shape, format=b"csr", y=y)
//! X = scipy.sparse.load_npz(path); y = np.load(path)["y"]
//! ```
//!
//! Every array is checked before it is used: its header against the entry's size, its indices as
//! integers in range, `indptr` as non-decreasing from 0 to the number of values, the indices of a row as
//! strictly increasing, the values as finite. An error names the array, and the row and the stored entry
//! where it applies. Nothing dense is formed unless the storage asks for it.

use super::*;
use crate::dataset::sparse::{CsrProblem, from_raw};
use crate::dataset::{CsrView, MAX_SPARSE_COLUMNS, SparseIndex};

/// True for an archive holding a scipy sparse matrix.
pub(super) fn is_sparse_archive(names: &[String]) -> bool {
    ["data", "indices", "indptr"]
        .iter()
        .all(|array| entry_name(names, array).is_some())
}

fn entry_name(names: &[String], array: &str) -> Option<String> {
    [format!("{array}.npy"), array.to_string()]
        .into_iter()
        .find(|candidate| names.iter().any(|n| n == candidate))
}

pub(super) fn read_sparse_archive<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    names: &[String],
    y_name: &str,
    total: u64,
    path: &Path,
    options: &ReadOptions,
) -> Result<Dataset> {
    let file = Location::new(path);
    let fail = |message: String| Error::parse(file.clone(), message);
    let format = match entry_name(names, "format") {
        Some(name) => read_format(archive, &name, total, &fail)?,
        None => "csr".to_string(),
    };
    if format != "csr" && format != "csc" {
        return Err(fail(format!(
            "array `format`: the matrix is stored as `{format}`; novikoff reads csr and csc (convert with X.tocsr())"
        )));
    }
    let shape_name = entry_name(names, "shape")
        .ok_or_else(|| fail("no array `shape` in the scipy sparse archive".into()))?;
    let shape: Vec<usize> = read_indices(archive, &shape_name, total, u64::MAX >> 11, &fail)?;
    let (n, d) = match shape.as_slice() {
        &[n, d] => (n, d),
        other => {
            return Err(fail(format!(
                "array `shape`: {other:?} is not the shape of a matrix (two numbers)"
            )));
        }
    };
    if n == 0 {
        return Err(fail("array `shape`: no examples (0 rows)".into()));
    }
    if d == 0 {
        return Err(fail("array `shape`: no features (0 columns)".into()));
    }
    check_features(options, d, &fail)?;
    // CSC is CSR of the transpose: checked as such, then turned around.
    let (outer, inner) = if format == "csr" { (n, d) } else { (d, n) };
    if inner > MAX_SPARSE_COLUMNS {
        let unit = if format == "csr" { "columns" } else { "rows" };
        return Err(fail(format!(
            "array `shape`: {inner} {unit} are more than a {format} matrix's 32-bit indices address \
             here (at most {MAX_SPARSE_COLUMNS}, as scipy's int32)"
        )));
    }
    let name = |array: &str| entry_name(names, array).expect("checked by is_sparse_archive");
    let data = read_values(archive, &name("data"), total, &fail)?;
    // Read straight into 32-bit indices: no wider copy exists even for a moment.
    let indices: Vec<SparseIndex> = read_indices(
        archive,
        &name("indices"),
        total,
        MAX_SPARSE_COLUMNS as u64,
        &fail,
    )?;
    let indptr: Vec<usize> = read_indices(archive, &name("indptr"), total, u64::MAX >> 11, &fail)?;
    let matrix = from_raw((outer, inner), indptr, indices, data).map_err(|problem| {
        let CsrProblem { row, message, .. } = problem;
        let unit = if format == "csr" { "row" } else { "column" };
        fail(match row {
            Some(r) => format!("{format} matrix, {unit} {r}: {message}"),
            None => format!("{format} matrix: {message}"),
        })
    })?;
    let x = if format == "csr" {
        matrix
    } else {
        matrix.transpose_into().to_csr()
    };
    let y = read_labels(archive, y_name, ("shape", n), total, path, options)?;
    let data =
        Dataset::with_checked_csr(x, Array1::from_vec(y)).map_err(|e| e.at_file(&file, |_| 0))?;
    if options.storage.is_sparse_for(n, d, data.nnz()) {
        Ok(data)
    } else {
        Ok(data
            .densified("a dense dataset read from a sparse .npz")?
            .into_owned())
    }
}

/// The entry's header, checked against its size, with the number of elements its 1-D shape holds.
fn open_array<'a, R: Read + Seek>(
    archive: &'a mut zip::ZipArchive<R>,
    name: &str,
    total: u64,
    fail: &dyn Fn(String) -> Error,
) -> Result<(zip::read::ZipFile<'a, R>, NpyHeader, usize)> {
    let mut entry = archive
        .by_name(name)
        .map_err(|e| fail(format!("cannot open: {e}")))?;
    let available = entry_size(&entry, total, fail)?;
    let header = read_header(&mut entry, available, fail)?;
    let count = match header.shape.as_slice() {
        &[m] => m,
        shape => return Err(fail(format!("shape {shape:?}: expected a 1-D array"))),
    };
    check_size(&header, available, fail)?;
    Ok((entry, header, count))
}

fn read_values<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    name: &str,
    total: u64,
    fail: &dyn Fn(String) -> Error,
) -> Result<Vec<f64>> {
    let array = name.trim_end_matches(".npy");
    let fail = |message: String| fail(format!("array `{array}`: {message}"));
    let (mut entry, header, count) = open_array(archive, name, total, &fail)?;
    let mut values = with_capacity(count, Path::new(array))?;
    stream(&mut entry, header.dtype, count, &fail, |_, block| {
        values.extend_from_slice(block);
        Ok(())
    })?;
    Ok(values)
}

/// An integer array (indices, `indptr`, `shape`): every element a whole number in `0..=limit`, which
/// must fit `T`.
fn read_indices<R: Read + Seek, T: TryFrom<u64>>(
    archive: &mut zip::ZipArchive<R>,
    name: &str,
    total: u64,
    limit: u64,
    fail: &dyn Fn(String) -> Error,
) -> Result<Vec<T>> {
    let array = name.trim_end_matches(".npy");
    let fail = |message: String| fail(format!("array `{array}`: {message}"));
    let (mut entry, header, count) = open_array(archive, name, total, &fail)?;
    if header.dtype.kind == Kind::Float || header.dtype.kind == Kind::Bool {
        return Err(fail(
            "expected integers (scipy writes int32 or int64)".into(),
        ));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(count)
        .map_err(|_| fail("the array is too large for memory".into()))?;
    stream(&mut entry, header.dtype, count, &fail, |first, block| {
        for (k, &v) in (first..).zip(block) {
            // Integer dtypes decode exactly (int64 beyond 2⁵³ is refused by the decoder).
            let index = (v >= 0.0 && v <= limit as f64)
                .then(|| T::try_from(v as u64).ok())
                .flatten()
                .ok_or_else(|| fail(format!("entry [{k}]: {v} is not a valid index")))?;
            out.push(index);
        }
        Ok(())
    })?;
    Ok(out)
}

/// The `format` entry: a byte string (`|S3`) or a unicode string (`<U3`) holding `csr`, `csc`, ….
fn read_format<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    name: &str,
    total: u64,
    fail: &dyn Fn(String) -> Error,
) -> Result<String> {
    let fail = |message: String| fail(format!("array `format`: {message}"));
    let mut entry = archive
        .by_name(name)
        .map_err(|e| fail(format!("cannot open: {e}")))?;
    let size = entry_size(&entry, total, &fail)?;
    if size > 4096 {
        return Err(fail(format!("{size} bytes is too long for a format name")));
    }
    let mut bytes = Vec::new();
    entry
        .read_to_end(&mut bytes)
        .map_err(|e| fail(format!("cannot read: {e}")))?;
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(fail("not a .npy array".into()));
    }
    let (length, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        _ if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Err(fail("truncated header".into())),
    };
    let payload = bytes
        .get(start + length..)
        .ok_or_else(|| fail("truncated header".into()))?;
    // UTF-32 or bytes: the ASCII letters of the name, whatever the padding.
    Ok(payload
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(|&b| char::from(b))
        .collect())
}

/// Write a sparse dataset as scipy's sparse `.npz` (uncompressed, like `save_npz(..., compressed=False)`):
/// `data` (float64), `indices` and `indptr` (int32 when the columns and the stored values fit, as scipy
/// chooses, else int64), `shape` (int64), `format` (`b"csr"`) and the labels `y` (float64).
pub(super) fn write_sparse_npz<W: Write + Seek>(out: W, x: CsrView<'_>, y: &[f64]) -> Result<()> {
    let io = |e: std::io::Error| Error::io("<output>", e);
    let zip_error = |e: zip::result::ZipError| Error::io("<output>", std::io::Error::other(e));
    let mut zip = zip::ZipWriter::new(out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    let indptr = x.indptr();
    let indptr = indptr.to_proper();
    let dims = [x.rows(), x.cols()];
    let start = |zip: &mut zip::ZipWriter<W>, name: &str, descr: &str, shape: &[usize]| {
        zip.start_file(name, options).map_err(zip_error)?;
        super::write::write_header_of(zip, descr, shape).map_err(io)
    };
    // Written a block at a time: the archive never holds a second copy of the matrix.
    let mut block = Vec::with_capacity(BLOCK);
    let mut put = |zip: &mut zip::ZipWriter<W>, bytes: &[u8], last: bool| -> Result<()> {
        block.extend_from_slice(bytes);
        if block.len() >= BLOCK || last {
            zip.write_all(&block).map_err(io)?;
            block.clear();
        }
        Ok(())
    };
    start(&mut zip, "data.npy", "<f8", &[x.nnz()])?;
    for (k, v) in x.data().iter().enumerate() {
        put(&mut zip, &v.to_le_bytes(), k + 1 == x.nnz())?;
    }
    // scipy stores indices and indptr as int32 whenever the matrix allows it, and so do we.
    let fits_int32 = x.cols() <= i32::MAX as usize && x.nnz() <= i32::MAX as usize;
    let index_type = if fits_int32 { "<i4" } else { "<i8" };
    let arrays: [(&str, &str, Box<dyn ExactSizeIterator<Item = usize> + '_>); 3] = [
        (
            "indices.npy",
            index_type,
            Box::new(x.indices().iter().map(|&j| j as usize)),
        ),
        ("indptr.npy", index_type, Box::new(indptr.iter().copied())),
        ("shape.npy", "<i8", Box::new(dims.iter().copied())),
    ];
    for (name, descr, values) in arrays {
        let count = values.len();
        let narrow = descr == "<i4";
        start(&mut zip, name, descr, &[count])?;
        for (k, i) in values.enumerate() {
            let last = k + 1 == count;
            if narrow {
                put(&mut zip, &(i as i32).to_le_bytes(), last)?;
            } else {
                put(&mut zip, &(i as i64).to_le_bytes(), last)?;
            }
        }
    }
    start(&mut zip, "format.npy", "|S3", &[])?;
    zip.write_all(b"csr").map_err(io)?;
    start(&mut zip, "y.npy", "<f8", &[y.len()])?;
    for (k, v) in y.iter().enumerate() {
        put(&mut zip, &v.to_le_bytes(), k + 1 == y.len())?;
    }
    zip.finish().map_err(zip_error)?;
    Ok(())
}
