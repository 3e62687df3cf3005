//! Rows of different lengths packed one after another, each implicitly padded with zeros to a common
//! width: the storage of a sparse working set's coordinates in its span ([`super::span`]), where row `k`
//! has at most `k + 1` coordinates (a lower-triangular factor), so the packed rows take about half of
//! the padded `rows × width` values.

/// The packed rows.
#[derive(Debug, Clone, Default)]
pub(crate) struct PackedRows {
    /// Row `k`'s stored coordinates are `values[starts[k]..starts[k + 1]]`.
    values: Vec<f64>,
    /// One more entry than there are rows; starts at 0.
    starts: Vec<usize>,
}

impl PackedRows {
    /// No rows.
    pub(crate) fn new() -> PackedRows {
        PackedRows {
            values: Vec::new(),
            starts: vec![0],
        }
    }

    /// The number of rows.
    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The stored values, all rows together (what the rows take in memory).
    pub(crate) fn values(&self) -> usize {
        self.values.len()
    }

    /// Row `k`'s stored coordinates (those after them are zero).
    #[inline]
    pub(crate) fn row(&self, k: usize) -> &[f64] {
        &self.values[self.starts[k]..self.starts[k + 1]]
    }

    /// Make room for `rows` more rows of `values` values in all, exactly: the rows grow round by round
    /// to most of a working set's memory, where a doubling vector's spare capacity would be as large
    /// again.
    pub(crate) fn reserve(&mut self, rows: usize, values: usize) {
        self.values.reserve_exact(values);
        self.starts.reserve_exact(rows);
    }

    /// Append a row.
    pub(crate) fn push(&mut self, row: &[f64]) {
        self.values.extend_from_slice(row);
        self.starts.push(self.values.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_as_pushed() {
        let mut packed = PackedRows::new();
        assert_eq!((packed.len(), packed.values()), (0, 0));
        packed.reserve(3, 3);
        packed.push(&[1.0]);
        packed.push(&[]);
        packed.push(&[2.0, 3.0]);
        assert_eq!((packed.len(), packed.values()), (3, 3));
        assert_eq!(packed.row(0), [1.0]);
        assert!(packed.row(1).is_empty());
        assert_eq!(packed.row(2), [2.0, 3.0]);
    }
}
