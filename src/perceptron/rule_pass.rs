//! The training pass of the variants whose test or step is not the plain perceptron's: the perceptron
//! with margin (`y·a ≤ β`) and Passive–Aggressive (`y·a < 1`, step `τ`).
//!
//! It is the same pass as the SIMD one, one row at a time: each activation is
//! [`Weights::activation_of`], which has the bits of the SIMD pass for the same weights, and each update
//! is `w ← w + (s·y)·x`, `v ← v + (s·y)·c` with each product rounded and then added, as the SIMD pass
//! makes it. With the plain rule (threshold 0, step η) it therefore makes the SIMD pass's updates bit
//! for bit, which the tests check; the variants only change the test and the step.

use std::ops::ControlFlow;

use super::variant::UpdateRule;
use super::weights::Weights;
use crate::dataset::{Dataset, RowView};
use crate::simd::{DENSE_AHEAD, SparseAhead, prefetch_row};

/// What the engine learns at a presentation the pass reports: an update, or a mistake the rule could
/// not update on (Passive–Aggressive on a zero vector, whose step is undefined).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Presented<'a> {
    /// The position in the pass's visiting order.
    pub(crate) offset: usize,
    /// `w·x + b` before any update.
    pub(crate) activation: f64,
    /// The step `s > 0` of the update `w += s·y·x`, or `None` when there was none.
    pub(crate) step: Option<f64>,
    /// The weights after the presentation.
    pub(crate) w: &'a [f64],
    /// The constant coordinate's weight after it.
    pub(crate) v: f64,
    /// The bias after it.
    pub(crate) b: f64,
}

/// Why a rule pass stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PassStop {
    /// The observer asked to stop.
    Observer,
    /// An example's squared length overflowed, so the Passive–Aggressive step is not a number.
    NonFiniteLength,
}

/// One pass over `data` in the order `visit` (empty: row order) under `rule`. Calls `observe` at every
/// update and at every mistake without one, and returns why it stopped early, if it did, with the
/// position it stopped at.
pub(crate) fn rule_pass(
    weights: &mut Weights,
    data: &Dataset,
    visit: &[usize],
    rule: UpdateRule,
    observe: &mut dyn FnMut(&Presented<'_>) -> ControlFlow<()>,
) -> Option<(usize, PassStop)> {
    let labels = data.labels();
    let c = weights.c();
    let passive_aggressive = matches!(rule, UpdateRule::PassiveAggressive { .. });
    // Rows in a shuffled order are asked for ahead of reading them, as the plain pass asks: the
    // hardware prefetchers follow a row, not the jump to the next one. Three shuffled epochs of the
    // margin perceptron and of Passive–Aggressive over 2·10⁴ × 1000 took 37.5 and 39.5 ms instead of
    // 50.6 and 53.5, over the rcv1-shaped set 9.2 and 10.0 instead of 14.9 and 15.1 (session 46, Zen 4).
    // In order, sparse rows' weights alone are asked for, where they may miss the caches.
    let rows = data.row_arrays();
    let sparse_ahead = rows.sparse_ahead();
    let gathers_miss = SparseAhead::gathers_miss_cache(data.n_features());
    let order = (!visit.is_empty()).then_some(visit);
    for offset in 0..data.n_samples() {
        if let Some(ahead) = sparse_ahead {
            ahead.in_pass(
                order,
                offset,
                labels.len(),
                gathers_miss.then_some(&weights.w),
            );
        } else if let Some(&after) = order.and_then(|order| order.get(offset + DENSE_AHEAD))
            && let RowView::Dense(values) = rows.row(after)
        {
            prefetch_row(values);
        }
        let row = if visit.is_empty() {
            offset
        } else {
            visit[offset]
        };
        let x = data.row_view(row);
        let y = labels[row];
        let activation = weights.activation_of(x);
        // Only Passive–Aggressive reads the length, and only when it may update.
        let sq_norm = if passive_aggressive && y * activation < 1.0 {
            x.values().iter().fold(c * c, |acc, v| acc + v * v)
        } else {
            0.0
        };
        if passive_aggressive && !sq_norm.is_finite() {
            return Some((offset, PassStop::NonFiniteLength));
        }
        let step = rule.step(y, activation, sq_norm, weights.eta);
        let mistake = y * activation <= 0.0;
        if step.is_none() && !mistake {
            continue;
        }
        if let Some(s) = step {
            let signed = s * y;
            x.add_to(signed, &mut weights.w);
            weights.v += signed * c;
        }
        let presented = Presented {
            offset,
            activation,
            step,
            w: &weights.w,
            v: weights.v,
            b: weights.bias(),
        };
        if observe(&presented).is_break() {
            return Some((offset, PassStop::Observer));
        }
    }
    None
}
