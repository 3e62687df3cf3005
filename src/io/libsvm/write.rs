//! Writing LIBSVM files: `label index:value ...` with the zero entries left out.

use super::*;

/// Write a dataset in LIBSVM format: `+1`/`-1`, then the non-zero features as `index:value` with
/// 1-based indices, every value in the shortest form that reads back to the same bits. `-0.0` is written
/// (it is not `+0.0` bit for bit). If no example uses the last feature, the first line carries an explicit
/// `d:0` so that the dimension survives a round trip. The file is replaced atomically.
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[0.0, 2.5, 0.0], [1.0, 0.0, 0.0]], array![1.0, -1.0])?;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("out.svm");
/// novikoff::io::write_libsvm(&path, &data)?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "+1 2:2.5 3:0\n-1 1:1\n");
/// assert_eq!(novikoff::io::read_libsvm(&path, &Default::default())?, data);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_libsvm(path: &Path, data: &Dataset) -> Result<()> {
    super::super::write_atomically(path, |out| write_libsvm_to(out, data))
}

/// Write a dataset in LIBSVM format to any writer (see [`write_libsvm`]).
///
/// ```
/// use ndarray::array;
/// let data = novikoff::Dataset::new(array![[1.0, -0.5]], array![1.0])?;
/// let mut out = Vec::new();
/// novikoff::io::write_libsvm_to(&mut out, &data)?;
/// assert_eq!(out, b"+1 1:1 2:-0.5\n");
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn write_libsvm_to<W: Write>(out: &mut W, data: &Dataset) -> Result<()> {
    let d = data.n_features();
    let n = data.n_samples();
    // A sparse row's stored entries in column order, a dense row's every value: the same loop.
    let last_used = (0..n).any(|i| {
        data.row_view(i)
            .entries()
            .any(|(j, v)| j == d - 1 && v.to_bits() != 0)
    });
    let mut line = Vec::with_capacity(1 << 16);
    for i in 0..n {
        line.extend_from_slice(if data.labels()[i] > 0.0 { b"+1" } else { b"-1" });
        let row = data.row_view(i);
        for (j, value) in row.entries() {
            let keep_for_dimension = i == 0 && j == d - 1 && !last_used;
            if value.to_bits() != 0 || keep_for_dimension {
                line.extend_from_slice(format!(" {}:", j + 1).as_bytes());
                push_f64(&mut line, value);
            }
        }
        // A sparse first row that does not store the last column still carries the dimension.
        if i == 0 && !last_used && row.entries().last().is_none_or(|(j, _)| j != d - 1) {
            line.extend_from_slice(format!(" {d}:0").as_bytes());
        }
        line.push(b'\n');
        if line.len() >= 1 << 16 {
            out.write_all(&line).map_err(|e| Error::io("<output>", e))?;
            line.clear();
        }
    }
    out.write_all(&line).map_err(|e| Error::io("<output>", e))
}
