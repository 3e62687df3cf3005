//! Compressed sparse rows: building a checked [`CsrMatrix`] from raw arrays, and the sparse forms of the
//! transforms. Nothing here forms a dense matrix, except [`to_dense`], which says so and has a limit.

use ndarray::{Array2, ArrayView2};

use crate::error::{Error, Result};

pub use crate::simd::SparseIndex;

/// The sparse storage: compressed sparse rows with [`SparseIndex`] column indices and `usize` row
/// pointers (so the number of stored values is not limited to 2³²). A `sprs` matrix like any other.
///
/// ```
/// use novikoff::dataset::CsrMatrix;
/// // Row 0 = (0, 2, 0), row 1 = (−1, 0, 0).
/// let x = CsrMatrix::new((2, 3), vec![0, 1, 2], vec![1, 0], vec![2.0, -1.0]);
/// assert_eq!(x.nnz(), 2);
/// ```
pub type CsrMatrix = sprs::CsMatI<f64, SparseIndex, usize>;

/// A borrowed [`CsrMatrix`]: what [`Dataset::csr`](super::Dataset::csr) gives, whether the dataset owns
/// its arrays or reads them in place ([`SharedCsr`](super::SharedCsr)).
///
/// ```
/// # use ndarray::array;
/// let data = novikoff::Dataset::new(array![[0.0, 2.0], [-1.0, 0.0]], array![1.0, -1.0])?.to_sparse();
/// let x: novikoff::dataset::CsrView<'_> = data.csr().unwrap();
/// assert_eq!((x.nnz(), x.indices()), (2, &[1, 0][..]));
/// # Ok::<(), novikoff::Error>(())
/// ```
pub type CsrView<'a> = sprs::CsMatViewI<'a, f64, SparseIndex, usize>;

/// The most columns a sparse dataset may have when it is read or built: 2³¹ − 1, scipy's limit for
/// `int32` indices. The 32-bit index leaves room beyond it for the columns the transforms append (the
/// bias's constant, Kesler's blocks, which are checked against [`SparseIndex::MAX`]).
pub const MAX_SPARSE_COLUMNS: usize = i32::MAX as usize;

/// The most memory an algorithm may take to hold a sparse dataset densely (2 GiB), where it needs the
/// dense matrix.
pub const DENSIFY_LIMIT_BYTES: u64 = 2 << 30;

/// What is wrong with raw CSR arrays, located at a row and a stored entry, for the readers to anchor at a
/// file's place.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CsrProblem {
    /// The 0-based row, when the problem is in one.
    pub(crate) row: Option<usize>,
    /// What is wrong, in words (naming the entry).
    pub(crate) message: String,
    /// The column and value of a stored value that is not finite, when that is what is wrong.
    pub(crate) non_finite: Option<(usize, f64)>,
}

/// Check raw CSR arrays (`indptr` of length n + 1 starting at 0 and never decreasing, indices in
/// `0..d` strictly increasing within a row, finite values) and build the matrix.
pub(crate) fn from_raw(
    shape: (usize, usize),
    indptr: Vec<usize>,
    indices: Vec<SparseIndex>,
    data: Vec<f64>,
) -> std::result::Result<CsrMatrix, CsrProblem> {
    check_raw(shape, &indptr, &indices, &data)?;
    CsrMatrix::try_new(shape, indptr, indices, data).map_err(|(_, _, _, e)| CsrProblem {
        row: None,
        message: e.to_string(),
        non_finite: None,
    })
}

/// The checks of [`from_raw`] on borrowed arrays. The arrays are read once by folds without early
/// exits (which vectorise); only arrays that fail are searched again, to name the first problem.
pub(crate) fn check_raw(
    shape: (usize, usize),
    indptr: &[usize],
    indices: &[SparseIndex],
    data: &[f64],
) -> std::result::Result<(), CsrProblem> {
    let (n, d) = shape;
    let whole = |message: String| CsrProblem {
        row: None,
        message,
        non_finite: None,
    };
    if d > MAX_SPARSE_COLUMNS {
        return Err(whole(format!(
            "{d} columns are more than the sparse storage's 32-bit indices address (at most \
             {MAX_SPARSE_COLUMNS})"
        )));
    }
    if indptr.len() != n.saturating_add(1) {
        return Err(whole(format!(
            "indptr has {} entries, and {n} rows need {}",
            indptr.len(),
            n.saturating_add(1)
        )));
    }
    if indices.len() != data.len() {
        return Err(whole(format!(
            "indices has {} entries and data {}: they must have the same length",
            indices.len(),
            data.len()
        )));
    }
    if indptr[0] != 0 {
        return Err(whole(format!("indptr starts at {}, not 0", indptr[0])));
    }
    if indptr[n] != data.len() {
        return Err(whole(format!(
            "indptr ends at {}, but there are {} stored values",
            indptr[n],
            data.len()
        )));
    }
    let monotone = indptr.windows(2).fold(true, |ok, p| ok & (p[0] <= p[1]));
    // With a monotone `indptr` from 0 to nnz every row's range is within the arrays.
    let rows_ok = monotone
        && indptr.windows(2).all(|p| {
            let row = &indices[p[0]..p[1]];
            row.windows(2).fold(true, |ok, j| ok & (j[0] < j[1]))
                && row.last().is_none_or(|&j| (j as usize) < d)
        });
    if rows_ok && data.iter().fold(true, |ok, v| ok & v.is_finite()) {
        return Ok(());
    }
    Err(first_problem(shape, indptr, indices, data))
}

/// The first problem of arrays that [`check_raw`] found wrong, row by row and entry by entry.
#[cold]
fn first_problem(
    (n, d): (usize, usize),
    indptr: &[usize],
    indices: &[SparseIndex],
    data: &[f64],
) -> CsrProblem {
    for i in 0..n {
        let (start, end) = (indptr[i], indptr[i + 1]);
        let at = |message: String| CsrProblem {
            row: Some(i),
            message,
            non_finite: None,
        };
        if end < start {
            return at(format!(
                "indptr decreases from {start} to {end} (it must not decrease)"
            ));
        }
        if end > data.len() {
            return at(format!(
                "indptr reaches {end}, beyond the {} stored values (it must not decrease)",
                data.len()
            ));
        }
        let mut previous = None;
        for k in start..end {
            let (j, value) = (indices[k] as usize, data[k]);
            if j >= d {
                return at(format!(
                    "stored entry {k}: column index {j} is beyond the {d} columns"
                ));
            }
            if previous.is_some_and(|p| j <= p) {
                return at(format!(
                    "stored entry {k}: column index {j} follows {} (indices must increase within a row)",
                    previous.unwrap_or(0)
                ));
            }
            if !value.is_finite() {
                return CsrProblem {
                    non_finite: Some((j, value)),
                    ..at(format!(
                        "stored entry {k}, column {j}: value {value} is not finite"
                    ))
                };
            }
            previous = Some(j);
        }
    }
    // Not reached: the search checks what the folds check.
    CsrProblem {
        row: None,
        message: "the arrays do not form a CSR matrix".to_string(),
        non_finite: None,
    }
}

/// An error unless a matrix made by a transform (`what`) with `d` columns fits the 32-bit index.
pub(crate) fn check_lifted_columns(what: &'static str, d: u64) -> Result<()> {
    let limit = u64::from(SparseIndex::MAX);
    if d > limit {
        return Err(Error::TooManyColumns { what, d, limit });
    }
    Ok(())
}

/// `(x, c)`: one more column, stored only when `c ≠ 0`.
pub(crate) fn append_column(x: CsrView<'_>, c: f64) -> CsrMatrix {
    let (n, d) = (x.rows(), x.cols());
    // Every way a sparse matrix is made caps it at MAX_SPARSE_COLUMNS; each augmentation adds one, and
    // 2³¹ of them would be needed to exhaust the index.
    let new_column =
        SparseIndex::try_from(d).expect("a sparse matrix is far below 2³² − 1 columns");
    let extra = usize::from(c != 0.0);
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::with_capacity(x.nnz() + n * extra);
    let mut data = Vec::with_capacity(x.nnz() + n * extra);
    indptr.push(0);
    for i in 0..n {
        let range = x.indptr().outer_inds_sz(i);
        indices.extend_from_slice(&x.indices()[range.clone()]);
        data.extend_from_slice(&x.data()[range]);
        if c != 0.0 {
            indices.push(new_column);
            data.push(c);
        }
        indptr.push(data.len());
    }
    CsrMatrix::new((n, d + 1), indptr, indices, data)
}

/// The rows at `indices`, in that order.
pub(crate) fn select_rows(x: CsrView<'_>, rows: &[usize]) -> CsrMatrix {
    let mut indptr = Vec::with_capacity(rows.len() + 1);
    let mut indices = Vec::new();
    let mut data = Vec::new();
    indptr.push(0);
    for &i in rows {
        let range = x.indptr().outer_inds_sz(i);
        indices.extend_from_slice(&x.indices()[range.clone()]);
        data.extend_from_slice(&x.data()[range]);
        indptr.push(data.len());
    }
    CsrMatrix::new((rows.len(), x.cols()), indptr, indices, data)
}

/// The dense matrix of a sparse one, refused beyond [`DENSIFY_LIMIT_BYTES`] with what needed it.
pub(crate) fn to_dense(x: CsrView<'_>, what: &'static str) -> Result<Array2<f64>> {
    let (n, d) = (x.rows(), x.cols());
    let bytes = (n as u64).saturating_mul(d as u64).saturating_mul(8);
    if bytes > DENSIFY_LIMIT_BYTES {
        return Err(Error::TooLargeToDensify {
            what,
            n,
            d,
            bytes,
            limit: DENSIFY_LIMIT_BYTES,
        });
    }
    let mut values = crate::simd::advised_buffer(n * d);
    values.resize(n * d, 0.0);
    for i in 0..n {
        let range = x.indptr().outer_inds_sz(i);
        for (&j, &v) in x.indices()[range.clone()].iter().zip(&x.data()[range]) {
            values[i * d + j as usize] = v;
        }
    }
    Ok(Array2::from_shape_vec((n, d), values).expect("n·d values for an n × d matrix"))
}

/// The CSR form of a dense matrix: its non-zero values (a stored `-0.0` is dropped like `+0.0`). A dense
/// matrix has far fewer than [`MAX_SPARSE_COLUMNS`] columns: its rows alone would take 16 GiB.
pub(crate) fn from_dense(x: ArrayView2<'_, f64>) -> CsrMatrix {
    let (n, d) = x.dim();
    assert!(d <= MAX_SPARSE_COLUMNS, "{d} dense columns");
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::new();
    let mut data = Vec::new();
    indptr.push(0);
    for row in x.rows() {
        for (j, &v) in row.iter().enumerate() {
            if v != 0.0 {
                indices.push(j as SparseIndex);
                data.push(v);
            }
        }
        indptr.push(data.len());
    }
    CsrMatrix::new((n, d), indptr, indices, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_arrays_are_checked_entry_by_entry() {
        let ok = from_raw((2, 3), vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0]).unwrap();
        assert_eq!(ok.nnz(), 3);
        let bad = |indptr: Vec<usize>, indices: Vec<SparseIndex>, data: Vec<f64>| {
            from_raw((2, 3), indptr, indices, data).unwrap_err()
        };
        let e = bad(vec![0, 2, 1], vec![0, 1], vec![1.0, 1.0]);
        assert!(e.message.contains("indptr"), "{e:?}");
        let e = bad(vec![0, 4, 2], vec![0, 1], vec![1.0, 1.0]);
        assert_eq!(e.row, Some(0));
        assert!(e.message.contains("beyond the 2 stored values"), "{e:?}");
        let e = bad(vec![0, 1, 2], vec![0, 3], vec![1.0, 1.0]);
        assert_eq!(e.row, Some(1));
        assert!(e.message.contains("column index 3"), "{e:?}");
        let e = bad(vec![0, 2, 2], vec![1, 1], vec![1.0, 1.0]);
        assert!(e.message.contains("follows"), "{e:?}");
        let e = bad(vec![0, 2, 2], vec![2, 1], vec![1.0, 1.0]);
        assert!(e.message.contains("follows"), "{e:?}");
        let e = bad(vec![0, 1, 1], vec![0], vec![f64::NAN]);
        assert!(e.message.contains("not finite"), "{e:?}");
        let e = bad(vec![0, 1], vec![0], vec![1.0]);
        assert!(
            e.message.contains("3 entries") || e.message.contains("need 3"),
            "{e:?}"
        );
        let e = bad(vec![0, 1, 2], vec![0], vec![1.0, 2.0]);
        assert!(e.message.contains("same length"), "{e:?}");
    }

    #[test]
    fn dense_and_sparse_round_trip() {
        let x = ndarray::array![[0.0, 1.5, 0.0], [0.0, 0.0, 0.0], [-2.0, 0.0, 4.0]];
        let csr = from_dense(x.view());
        assert_eq!(csr.nnz(), 3);
        assert_eq!(to_dense(csr.view(), "test").unwrap(), x);
        let augmented = to_dense(append_column(csr.view(), 2.0).view(), "test").unwrap();
        assert_eq!(augmented.column(3).to_vec(), vec![2.0; 3]);
        assert_eq!(append_column(csr.view(), 0.0).nnz(), 3);
        let picked = to_dense(select_rows(csr.view(), &[2, 0]).view(), "test").unwrap();
        assert_eq!(picked.row(0).to_vec(), vec![-2.0, 0.0, 4.0]);
    }
}
