//! Asking the caches for sparse rows visited out of order, a few rows before they are read.
//!
//! A compressed sparse row costs three reads, each of which waits for the one before it: where its
//! entries start (`indptr[i]`), its columns and values, then the weights `w[j]` of its columns. In
//! order, the first two are streams the hardware prefetchers follow; in a shuffled order every row
//! starts with misses, and a loop that waits on them keeps one row's misses in flight at a time.
//! Asking for the start [`AHEAD`]`[0]` rows ahead, the entries `[1]` and the weights `[2]` keeps the
//! misses of several rows in flight while the loop computes with the row in hand. The weights are
//! asked for only where they may miss the caches (many columns, [`GATHERS_MISS_COLUMNS`]) and the row
//! is short ([`SHORT_ROW`]): a long row's own gathers keep enough misses in flight, and asking for
//! them again only costs instructions.
//!
//! The training pass ([`super::train_sparse`]), the variants' pass (`perceptron::rule_pass`) and the
//! margin solver's descent (`margin::descent`) ask this way; in order, the training passes ask for the
//! weights alone where they may miss. A prefetch is a hint: nothing it asks for changes a result.
//!
//! Measured (session 46, the shared AMD EPYC of family 25, model 17: Zen 4; `novikoff train --order
//! shuffle --format json`, `train_seconds`, three runs alternating with the session's base build, the
//! same epochs and mistakes): the rcv1-shaped set of the README (20 242 × 47 236, 74 values a row) took
//! 16.5–17.7 ms instead of 24.8–28.5, the news20-shaped set (1.35·10⁶ columns, 450 a row) 207–227
//! instead of 251–264, and 150 000 × 2·10⁶ with 20 values a row 182–222 instead of 325–337; the last
//! in the cyclic order, its weights asked for, 71–91 ms instead of 98–100. The margin perceptron and
//! Passive–Aggressive, shuffled, three epochs: the rcv1-shaped set 9.2–10.0 ms instead of 14.9–15.1,
//! 150 000 × 2·10⁶ 113–114 instead of 173–179.

use super::{SparseIndex, prefetch};

/// How many rows ahead of the one read its start, its entries and its weights are asked for.
pub(crate) const AHEAD: [usize; 3] = [12, 8, 4];

/// Columns from which the weights of sparse data (8 bytes each) outgrow a core's L2 cache (2 MiB).
pub(crate) const GATHERS_MISS_COLUMNS: usize = 1 << 18;

/// The most entries a sparse row may store for [`SparseAhead::weights`] to ask for its weights.
pub(crate) const SHORT_ROW: usize = 32;

/// The cache lines of a row's columns, and of its values, that [`SparseAhead::entries`] asks for: a row
/// of 64 entries whole. The hardware prefetchers did not follow rows of 74 entries (5 lines of columns,
/// 10 of values) from two lines of each: a shuffled epoch over the rcv1-shaped set of the README took
/// 3.5–3.8 ms asking for two lines and 2.6 ms asking for eight, as long as a cyclic one (session 46,
/// AMD Zen 4). The margin solver's descent, which asked for two, solved the rcv1-, news20- and
/// hashed-feature-shaped sets in the same time with eight.
pub(crate) const ENTRY_LINES: usize = 8;

/// Compressed sparse rows, to ask for ahead of reading them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SparseAhead<'a> {
    indptr: &'a [usize],
    indices: &'a [SparseIndex],
    values: &'a [f64],
}

impl<'a> SparseAhead<'a> {
    /// The rows of `indptr`, `indices` and `values` (row `i`'s entries are `indptr[i]..indptr[i + 1]`).
    pub(crate) fn new(
        indptr: &'a [usize],
        indices: &'a [SparseIndex],
        values: &'a [f64],
    ) -> SparseAhead<'a> {
        SparseAhead {
            indptr,
            indices,
            values,
        }
    }

    /// Whether gathers from weights over `columns` columns may miss the core's caches.
    pub(crate) fn gathers_miss_cache(columns: usize) -> bool {
        columns >= GATHERS_MISS_COLUMNS
    }

    /// Ask for where row `i`'s entries start.
    #[inline]
    fn start(self, i: usize) {
        prefetch(self.indptr.as_ptr().wrapping_add(i));
    }

    /// Row `i`'s stored columns and values.
    #[inline]
    fn row(self, i: usize) -> (&'a [SparseIndex], &'a [f64]) {
        let (start, end) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[start..end], &self.values[start..end])
    }

    /// Ask for the first [`ENTRY_LINES`] lines of row `i`'s columns and of its values (the hardware
    /// prefetchers follow a longer row's stream from there).
    #[inline]
    fn entries(self, i: usize) {
        let (indices, values) = self.row(i);
        let per_line = 64 / size_of::<SparseIndex>();
        for k in (0..indices.len().min(ENTRY_LINES * per_line)).step_by(per_line) {
            prefetch(indices.as_ptr().wrapping_add(k));
        }
        for k in (0..values.len().min(ENTRY_LINES * 8)).step_by(8) {
            prefetch(values.as_ptr().wrapping_add(k));
        }
    }

    /// Ask for the weights `w` of row `i`'s columns, when the row is short.
    #[inline]
    pub(crate) fn weights(self, i: usize, w: &[f64]) {
        let (indices, _) = self.row(i);
        if indices.len() <= SHORT_ROW {
            for &j in indices {
                prefetch(w.as_ptr().wrapping_add(j as usize));
            }
        }
    }

    /// For the row at position `k` of a training pass over `n` rows in the order `order` (`None`: row
    /// order): shuffled, [`SparseAhead::after`]; in order, whose entries the hardware prefetchers
    /// follow, only the weights (with `w`, where its gathers may miss).
    #[inline]
    pub(crate) fn in_pass(self, order: Option<&[usize]>, k: usize, n: usize, w: Option<&[f64]>) {
        match order {
            Some(order) => self.after(order, k, w),
            None => {
                if let Some(w) = w
                    && k + AHEAD[2] < n
                {
                    self.weights(k + AHEAD[2], w);
                }
            }
        }
    }

    /// For the row at position `k` of `order`: ask for the start, the entries and (with `w`, where its
    /// gathers may miss) the weights of the rows [`AHEAD`] positions after it.
    #[inline]
    pub(crate) fn after(self, order: &[usize], k: usize, w: Option<&[f64]>) {
        if let Some(&i) = order.get(k + AHEAD[0]) {
            self.start(i);
        }
        if let Some(&i) = order.get(k + AHEAD[1]) {
            self.entries(i);
        }
        if let Some(w) = w
            && let Some(&i) = order.get(k + AHEAD[2])
        {
            self.weights(i, w);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::perceptron::{Order, PerceptronParams, Variant};
    use crate::simd::Summation;

    #[test]
    fn passes_that_ask_for_rows_and_weights_ahead_make_the_updates_of_passes_that_do_not() {
        // The same rows on 64 columns and spread over 2¹⁸ and more (their weights asked for ahead too),
        // some empty and some past `SHORT_ROW`: the plain pass and the rule pass, in order and shuffled.
        let (narrow, wide) = crate::margin::narrow_and_wide(3000);
        let spread = wide.n_features() / narrow.n_features();
        assert!(super::SparseAhead::gathers_miss_cache(wide.n_features()));
        assert!(!super::SparseAhead::gathers_miss_cache(narrow.n_features()));
        let variants = [
            Variant::Perceptron,
            Variant::Margin { beta: 0.3 },
            Variant::PassiveAggressive,
        ];
        let mut updates = 0;
        for variant in variants {
            for order in [Order::Cyclic, Order::Shuffle { seed: 5 }] {
                for summation in [Summation::Fast, Summation::Sequential] {
                    let params = PerceptronParams::new()
                        .variant(variant)
                        .order(order.clone())
                        .summation(summation)
                        .max_epochs(4)
                        .check()
                        .unwrap();
                    let (a, b) = (params.fit(&narrow).unwrap(), params.fit(&wide).unwrap());
                    assert_eq!((a.updates, a.epochs), (b.updates, b.epochs), "{variant:?}");
                    assert_eq!(a.b.to_bits(), b.b.to_bits(), "{variant:?}");
                    for (j, w) in b.w.iter().enumerate() {
                        let expected = if j % spread == 0 {
                            a.w[j / spread]
                        } else {
                            0.0
                        };
                        assert_eq!(w.to_bits(), expected.to_bits(), "{variant:?}, column {j}");
                    }
                    updates += a.updates;
                }
            }
        }
        assert!(
            updates > 100,
            "the passes made updates to compare: {updates}"
        );
    }
}
