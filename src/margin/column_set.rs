//! Sets of columns, a bit each: the columns a hull point's entries can be non-zero in.

use super::points::Points;

/// A set of columns, a bit each: the columns a hull point's entries can be non-zero in.
pub(super) struct ColumnSet {
    bits: Vec<u64>,
    /// How many columns are in the set.
    pub(super) len: usize,
}

impl ColumnSet {
    /// Every column of `d`.
    pub(super) fn all(d: usize) -> ColumnSet {
        let mut bits = vec![u64::MAX; d.div_ceil(64)];
        if let Some(last) = bits.last_mut().filter(|_| !d.is_multiple_of(64)) {
            *last = (1 << (d % 64)) - 1;
        }
        ColumnSet { bits, len: d }
    }

    /// The columns that the rows `weighted` store.
    pub(super) fn used(data: Points<'_>, weighted: impl Iterator<Item = usize>) -> ColumnSet {
        let mut bits = vec![0u64; data.n_features().div_ceil(64)];
        for i in weighted {
            for (j, _) in data.row(i).entries() {
                bits[j / 64] |= 1 << (j % 64);
            }
        }
        let len = bits.iter().map(|word| word.count_ones() as usize).sum();
        ColumnSet { bits, len }
    }

    /// The columns in increasing order, `block` at a time. Listed a block at a time, never whole: a
    /// list of every column a text set's support stores is a value a column, held at the moment a
    /// sparse solve peaks (its bracket).
    pub(super) fn for_each_block(&self, block: usize, mut f: impl FnMut(&[usize])) {
        let mut listed = Vec::with_capacity(block.min(self.len));
        for (word, &bits) in self.bits.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                listed.push(word * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
                if listed.len() == block {
                    f(&listed);
                    listed.clear();
                }
            }
        }
        if !listed.is_empty() {
            f(&listed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;
    use ndarray::{Array2, array};

    fn listed(set: &ColumnSet, block: usize) -> Vec<Vec<usize>> {
        let mut blocks = Vec::new();
        set.for_each_block(block, |columns| blocks.push(columns.to_vec()));
        blocks
    }

    #[test]
    fn every_column_is_listed_once_in_order_a_block_at_a_time() {
        for d in [1, 63, 64, 65, 130] {
            let all = ColumnSet::all(d);
            assert_eq!(all.len, d);
            let blocks = listed(&all, 64);
            assert_eq!(blocks.concat(), (0..d).collect::<Vec<_>>(), "d = {d}");
            assert!(blocks.iter().all(|b| !b.is_empty() && b.len() <= 64));
            assert_eq!(blocks.len(), d.div_ceil(64));
        }
        assert!(listed(&ColumnSet::all(0), 4).is_empty());
    }

    #[test]
    fn the_columns_used_are_those_the_rows_store() {
        let mut x = Array2::zeros((3, 200));
        x[[0, 3]] = 1.0;
        x[[0, 130]] = -2.0;
        x[[1, 64]] = 0.5;
        x[[2, 199]] = 4.0;
        let data = Dataset::new(x, array![1.0, -1.0, 1.0]).unwrap().to_sparse();
        let used = ColumnSet::used(Points::from(&data), [0, 1].into_iter());
        assert_eq!(used.len, 3);
        assert_eq!(listed(&used, 2), vec![vec![3, 64], vec![130]]);
    }
}
