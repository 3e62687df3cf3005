//! LIBSVM into compressed sparse rows: the arrays the parser fills, and the dataset they become.

use super::*;

/// Compressed sparse rows as the parser fills them: 0-based column indices (the parser refuses an index
/// beyond [`MAX_SPARSE_COLUMNS`], so each fits a [`SparseIndex`]).
pub(super) struct SparseRows {
    pub(super) indptr: Vec<usize>,
    pub(super) indices: Vec<SparseIndex>,
    pub(super) values: Vec<f64>,
}

impl SparseRows {
    pub(super) fn with_capacity(records: usize, pairs: usize, path: &Path) -> Result<SparseRows> {
        let fail = || {
            Error::parse(
                Location::new(path),
                "the sparse rows are too large for memory",
            )
        };
        let mut indptr = Vec::new();
        let mut indices = Vec::new();
        let mut values = Vec::new();
        indptr.try_reserve_exact(records + 1).map_err(|_| fail())?;
        indices.try_reserve_exact(pairs).map_err(|_| fail())?;
        values.try_reserve_exact(pairs).map_err(|_| fail())?;
        indptr.push(0);
        Ok(SparseRows {
            indptr,
            indices,
            values,
        })
    }

    pub(super) fn try_reserve_one(
        &mut self,
    ) -> std::result::Result<(), std::collections::TryReserveError> {
        self.indices.try_reserve(1)?;
        self.values.try_reserve(1)
    }

    #[inline]
    pub(super) fn push(&mut self, index: usize, value: f64) {
        self.indices.push((index - 1) as SparseIndex);
        self.values.push(value);
    }

    pub(super) fn end_row(&mut self) {
        self.indptr.push(self.values.len());
    }

    pub(super) fn len(&self) -> usize {
        self.indptr.len() - 1
    }

    pub(super) fn bytes(&self) -> usize {
        8 * (self.indptr.len() + self.values.len()) + 4 * self.indices.len()
    }
}

/// The sparse dataset: the indices were checked to increase and to lie below `d` as they were parsed,
/// and every value to be finite.
pub(super) fn finish_sparse(
    rows: SparseRows,
    labels: LabelMapper,
    d: usize,
    path: &Path,
) -> Result<Dataset> {
    let file = Location::new(path);
    if d > MAX_SPARSE_COLUMNS {
        return Err(Error::parse(
            file,
            format!(
                "--features {d} is more than the {MAX_SPARSE_COLUMNS} columns a sparse dataset may have \
                 (32-bit column indices, as scipy's)"
            ),
        ));
    }
    let y = super::dense::finished_labels(labels, d, path)?;
    let n = rows.len();
    let x = CsrMatrix::try_new((n, d), rows.indptr, rows.indices, rows.values)
        .map_err(|(_, _, _, e)| Error::parse(file.clone(), format!("invalid sparse rows: {e}")))?;
    Dataset::with_checked_csr(x, Array1::from_vec(y)).map_err(|e| e.at_file(&file, |_| 0))
}
