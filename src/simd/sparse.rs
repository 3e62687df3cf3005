//! The training pass over compressed sparse rows: the dot product and the update touch the stored
//! entries only, so an epoch costs O(nnz), not O(n·d).
//!
//! There is one summation order: left to right over a row's stored entries in column order, from `+0`.
//! It is the [`Summation::Sequential`](super::Summation::Sequential) sum of the dense row with its zero
//! terms left out, which changes no bit (a sum that starts at `+0` is unchanged by adding `±0`). It is
//! plain scalar code, so it gives the same bits on every CPU. The gathers `w[j]` are the cost; rows of a
//! few hundred entries leave nothing for SIMD lanes to win.

use std::ops::ControlFlow;

use super::{Learner, OnUpdate, Update};

/// Compressed sparse rows and their labels, visited in order or through an index (a shuffled order).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SparseRows<'a> {
    /// Row `i`'s entries are `indptr[i]..indptr[i + 1]` (starting at 0).
    pub(crate) indptr: &'a [usize],
    pub(crate) indices: &'a [usize],
    pub(crate) values: &'a [f64],
    pub(crate) labels: &'a [f64],
    /// The visiting order; `None` for `0..n`.
    pub(crate) index: Option<&'a [usize]>,
}

impl SparseRows<'_> {
    fn len(&self) -> usize {
        self.index.map_or(self.labels.len(), <[usize]>::len)
    }
}

/// One pass of the perceptron over `rows`: at every row where `y·(w·x + b) ≤ 0`, `w ← w + η·y·x` over
/// the stored entries and `v ← v + η·y·c`, then `on_update`. Returns the position at which
/// `on_update` stopped the pass, if it did. The same loop and reports as the dense
/// [`train`](super::train).
pub(crate) fn train_sparse(
    learner: &mut Learner<'_>,
    rows: &SparseRows<'_>,
    on_update: &mut OnUpdate<'_>,
) -> Option<usize> {
    let w = &mut *learner.w;
    for offset in 0..rows.len() {
        let i = rows.index.map_or(offset, |index| index[offset]);
        let (start, end) = (rows.indptr[i], rows.indptr[i + 1]);
        let (indices, values) = (&rows.indices[start..end], &rows.values[start..end]);
        let mut sum = 0.0;
        for (&j, &x) in indices.iter().zip(values) {
            sum += w[j] * x;
        }
        let activation = sum + learner.c * learner.v;
        let y = rows.labels[i];
        if y * activation <= 0.0 {
            let step = learner.eta * y;
            for (&j, &x) in indices.iter().zip(values) {
                w[j] += step * x;
            }
            learner.v += step * learner.c;
            let update = Update {
                offset,
                activation,
                w,
                v: learner.v,
                b: learner.c * learner.v,
            };
            if let ControlFlow::Break(()) = on_update(&update) {
                return Some(offset);
            }
        }
    }
    None
}
