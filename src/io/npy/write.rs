//! Writing `.npy` and `.npz` files: a version-1.0 header, the matrix with its labels as the last
//! column, and the archive of `x.npy` and `y.npy`.

use super::*;

/// Write the `.npy` header for a little-endian float64 C-order array of `shape` (format version 1.0,
/// padded to 64 bytes as NumPy does).
pub(super) fn write_header<W: Write>(out: &mut W, shape: &[usize]) -> std::io::Result<()> {
    write_header_of(out, "<f8", shape)
}

/// Write a version-1.0 `.npy` header for a C-order array of `shape` with the dtype `descr`.
pub(super) fn write_header_of<W: Write>(
    out: &mut W,
    descr: &str,
    shape: &[usize],
) -> std::io::Result<()> {
    let shape_text = match shape {
        [] => "()".to_string(),
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    let unpadded = 10 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let header_length = u16::try_from(total - 10)
        .map_err(|_| std::io::Error::other("the .npy header is too long"))?;
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&header_length.to_le_bytes())?;
    out.write_all(dict.as_bytes())?;
    out.write_all(&vec![b' '; total - unpadded])?;
    out.write_all(b"\n")
}

/// Write a dataset as a `.npy` file: one little-endian float64 array of shape (n, d + 1), the labels
/// (±1) in the last column, as NumPy's `np.save(path, np.column_stack([x, y]))` would. The file is
/// replaced atomically.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[0.5], [-0.0]], array![1.0, -1.0])?;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("d.npy");
/// novikoff::io::write_npy(&path, &data)?;
/// let back = novikoff::io::read_npy(&path, &Default::default())?;
/// assert_eq!(back.x()[[1, 0]].to_bits(), (-0.0f64).to_bits());
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_npy(path: &Path, data: &Dataset) -> Result<()> {
    super::super::write_atomically(path, |out| write_npy_to(out, data))
}

/// Write a dataset in `.npy` format to any writer (see [`write_npy`]).
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[1.0, 2.0]], array![1.0])?;
/// let mut out = Vec::new();
/// novikoff::io::write_npy_to(&mut out, &data)?;
/// assert_eq!(out.len(), 128 + 3 * 8); // a 128-byte header, then 3 float64
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_npy_to<W: Write>(out: &mut W, data: &Dataset) -> Result<()> {
    data.check_dense_size("a .npy file")?;
    let (n, d) = (data.n_samples(), data.n_features());
    let io = |e: std::io::Error| Error::io("<output>", e);
    write_header(out, &[n, d + 1]).map_err(io)?;
    let mut block = Vec::with_capacity(BLOCK + 8 * (d + 1));
    let mut dense_row = crate::dataset::DenseRow::default();
    for i in 0..n {
        for value in dense_row.of(data.row_view(i), d) {
            block.extend_from_slice(&value.to_le_bytes());
        }
        block.extend_from_slice(&data.labels()[i].to_le_bytes());
        if block.len() >= BLOCK {
            out.write_all(&block).map_err(io)?;
            block.clear();
        }
    }
    out.write_all(&block).map_err(io)
}

/// Write a dataset as a `.npz` archive (uncompressed, like `np.savez`) with the arrays `x` (n × d,
/// float64) and `y` (n labels ±1, float64). A sparse dataset is written as scipy's sparse `.npz`
/// (`data`, `indices`, `indptr`, `shape`, `format` = `csr`, which `scipy.sparse.load_npz` reads) with
/// `y` beside them. The file is replaced atomically.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[1.0, 2.0], [3.0, 4.0]], array![1.0, -1.0])?;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("d.npz");
/// novikoff::io::write_npz(&path, &data)?;
/// assert_eq!(novikoff::io::open(&path, &Default::default())?, data);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_npz(path: &Path, data: &Dataset) -> Result<()> {
    super::super::write_atomically(path, |out| {
        if let Some(x) = data.csr() {
            return super::sparse::write_sparse_npz(&mut *out, x, data.labels());
        }
        let fail = |e: ndarray_npy::WriteNpzError| Error::io("<output>", std::io::Error::other(e));
        let mut npz = ndarray_npy::NpzWriter::new(&mut *out);
        npz.add_array("x", &data.x()).map_err(fail)?;
        npz.add_array("y", &data.y()).map_err(fail)?;
        npz.finish().map_err(fail)?;
        Ok(())
    })
}
