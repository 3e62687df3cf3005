//! The training pass over compressed sparse rows: the dot product and the update touch the stored
//! entries only, so an epoch costs O(nnz), not O(n·d).
//!
//! Two summation orders, both plain scalar code with every product rounded before it is added (no FMA),
//! so each gives the same bits on every CPU:
//!
//! * [`Summation::Sequential`]: left to right over the row's stored entries in column order, from `+0`.
//!   It is the sequential sum of the dense row with its zero terms left out, which changes no bit (a
//!   sum that starts at `+0` is unchanged by adding `±0`), and it is scikit-learn's sparse loop.
//! * [`Summation::Fast`]: [`SPARSE_LANES`] = 4 accumulators from `+0`; the k-th stored entry of the row
//!   goes to lane `k mod 4`, and the result is `(l₀ + l₂) + (l₁ + l₃)`. One chain of dependent additions
//!   becomes four, which is what bounds a pass over rows of a few dozen entries whose weights sit in
//!   cache; the gathers `w[j]` are the rest of the cost.
//!
//! [`sparse_dot`] is the one implementation of both, used by the training pass and by every other
//! reader of a sparse row, so a prediction recomputes the training pass's activations bit for bit.

use std::ops::ControlFlow;

use super::{Learner, OnUpdate, SparseAhead, Summation, Update};

/// A sparse dataset's column index: 32 bits, as in scipy's CSR matrices (`int32` indices up to 2³¹ − 1
/// columns) and LIBLINEAR's `feature_node`. A stored value then costs 12 bytes (value and index) rather
/// than 16, and a pass over the rows, whose cost is reading them, is that much shorter. Defined with the
/// kernel that reads it; the dataset's storage re-exports it.
pub type SparseIndex = u32;

/// The accumulators of the [`Summation::Fast`] order on sparse rows.
pub const SPARSE_LANES: usize = 4;

/// `Σ w[indices[k]]·values[k]` in the given order (see the module's documentation).
///
/// ```
/// use novikoff::simd::{sparse_dot, Summation};
/// let w = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
/// let (indices, values) = ([0, 2, 3, 5, 6], [1.0, 1.0, 1.0, 1.0, 1.0]);
/// // Sequential: ((((0.5 + 2) + 4) + 16) + 32).
/// assert_eq!(sparse_dot(&w, &indices, &values, Summation::Sequential), 54.5);
/// // Fast: entry k to lane k mod 4, so the lanes hold 0.5 + 32, 2, 4 and 16.
/// let lanes = [0.5 + 32.0, 2.0, 4.0, 16.0];
/// let fast = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
/// assert_eq!(sparse_dot(&w, &indices, &values, Summation::Fast), fast);
/// ```
#[inline]
pub fn sparse_dot(w: &[f64], indices: &[SparseIndex], values: &[f64], summation: Summation) -> f64 {
    debug_assert_eq!(indices.len(), values.len());
    match summation {
        Summation::Sequential => {
            let mut sum = 0.0;
            for (&j, &x) in indices.iter().zip(values) {
                sum += w[j as usize] * x;
            }
            sum
        }
        Summation::Fast => {
            let mut lanes = [0.0f64; SPARSE_LANES];
            let mut chunks_i = indices.chunks_exact(SPARSE_LANES);
            let mut chunks_v = values.chunks_exact(SPARSE_LANES);
            for (ix, vx) in (&mut chunks_i).zip(&mut chunks_v) {
                for l in 0..SPARSE_LANES {
                    lanes[l] += w[ix[l] as usize] * vx[l];
                }
            }
            for (l, (&j, &x)) in chunks_i
                .remainder()
                .iter()
                .zip(chunks_v.remainder())
                .enumerate()
            {
                lanes[l] += w[j as usize] * x;
            }
            (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])
        }
    }
}

/// Compressed sparse rows and their labels, visited in order or through an index (a shuffled order).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SparseRows<'a> {
    /// Row `i`'s entries are `indptr[i]..indptr[i + 1]` (starting at 0).
    pub(crate) indptr: &'a [usize],
    pub(crate) indices: &'a [SparseIndex],
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
    summation: Summation,
    on_update: &mut OnUpdate<'_>,
) -> Option<usize> {
    let w = &mut *learner.w;
    // Rows are asked for a few rows ahead (see `sparse_ahead`).
    let ahead = SparseAhead::new(rows.indptr, rows.indices, rows.values);
    let gathers_miss = SparseAhead::gathers_miss_cache(w.len());
    for offset in 0..rows.len() {
        ahead.in_pass(rows.index, offset, rows.len(), gathers_miss.then_some(&*w));
        let i = rows.index.map_or(offset, |index| index[offset]);
        let (start, end) = (rows.indptr[i], rows.indptr[i + 1]);
        let (indices, values) = (&rows.indices[start..end], &rows.values[start..end]);
        let activation = sparse_dot(w, indices, values, summation) + learner.c * learner.v;
        let y = rows.labels[i];
        if y * activation <= 0.0 {
            let step = learner.eta * y;
            for (&j, &x) in indices.iter().zip(values) {
                w[j as usize] += step * x;
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
