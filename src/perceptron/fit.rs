//! The batch training loop: epochs over a fixed dataset.
//!
//! An epoch is one call of the kernel's [`train`](crate::simd::SimdPath::train): it scans the rows
//! with `w` fixed (in registers where `w` is short) to the next row the weights get wrong, updates there,
//! reports the update to this loop (which records it and applies the stopping rules), and scans on from
//! the next row. Every activation has the bits of a one-row-at-a-time loop, so the updates, the trace and
//! the stopping rules are exactly those of the textbook loop. Nothing is allocated per row or per update,
//! and the data is never copied: memory beyond the dataset is `O(d)` (plus the visiting order, `O(n)`,
//! for a shuffled or permuted order).

use std::ops::ControlFlow;
use std::time::Instant;

use ndarray::Array1;

use super::params::{Order, check_permutation};
use super::trace::{TraceSink, UpdateEvent};
use super::weights::{Weights, activation_underflowed, is_finite_after};
use super::{Augmentation, Fit, Perceptron, StopReason};
use crate::dataset::{Dataset, DenseRow};
use crate::error::Result;
use crate::rng;

impl Perceptron {
    pub(super) fn run<S: TraceSink>(&self, data: &Dataset, sink: &mut S) -> Result<Fit> {
        let p = &self.params;
        let n = data.n_samples();
        if let Order::Permutation(perm) = &p.order {
            check_permutation(perm, n)?;
        }
        let augmentation = Augmentation::of(p.bias, data);
        let mut weights = Weights::start(p, data.n_features(), augmentation)?;
        let c = augmentation.constant();

        let started = Instant::now();
        let labels = data.labels();
        let mut visit: Vec<usize> = match &p.order {
            Order::Cyclic => Vec::new(),
            Order::Shuffle { .. } => (0..n).collect(),
            Order::Permutation(perm) => perm.clone(),
        };
        let mut shuffler = match p.order {
            Order::Shuffle { seed } => Some(rng::from_seed(seed)),
            _ => None,
        };

        // A sparse row is spread into a dense one only for a trace event, which reads a row as a slice
        // (O(d) per update, like the invariant checks that record them).
        let mut dense_row = DenseRow::default();
        let d = data.n_features();
        let mut mistakes: u64 = 0;
        let mut epochs = 0;
        let mut stop_reason = StopReason::EpochCap;
        let mut failure = None;
        let records = sink.records();
        for epoch in 1..=p.max_epochs {
            epochs = epoch;
            if let Some(stream) = shuffler.as_mut() {
                rng::shuffle(stream, &mut visit);
            }
            let mistakes_before = mistakes;
            let stopped = weights.train_on(data, &visit, &mut |update| {
                mistakes += 1;
                let row = if visit.is_empty() {
                    update.offset
                } else {
                    visit[update.offset]
                };
                if records {
                    let recorded = sink.record(&UpdateEvent {
                        update: mistakes,
                        epoch,
                        row,
                        label: labels[row],
                        activation: update.activation,
                        x: dense_row.of(data.row_view(row), d),
                        w: update.w,
                        b: update.b,
                        bias_constant: c,
                        bias_weight: update.v,
                        eta: p.eta,
                    });
                    if let Err(error) = recorded {
                        failure = Some(error);
                        return ControlFlow::Break(());
                    }
                }
                // An activation that overflowed has no trustworthy sign, whichever way the test went.
                if !(update.activation.is_finite() && is_finite_after(update, data.row_view(row))) {
                    stop_reason = StopReason::NonFinite;
                    return ControlFlow::Break(());
                }
                // Likewise an activation that underflowed to zero: the run cannot tell it from a tie.
                if update.activation == 0.0
                    && activation_underflowed(update, data.row_view(row), labels[row], c, p.eta)
                {
                    stop_reason = StopReason::Underflow;
                    return ControlFlow::Break(());
                }
                if p.max_updates.is_some_and(|cap| mistakes >= cap) {
                    stop_reason = StopReason::UpdateCap;
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            })?;
            if let Some(error) = failure {
                return Err(error);
            }
            if stopped.is_some() {
                break;
            }
            if mistakes == mistakes_before {
                stop_reason = if final_pass_is_finite(data, &weights) {
                    StopReason::Converged
                } else {
                    StopReason::NonFinite
                };
                break;
            }
        }
        let (v, b) = (weights.v, weights.bias());
        let train_seconds = started.elapsed().as_secs_f64();
        Ok(Fit {
            w: Array1::from_vec(weights.w),
            b,
            mistakes,
            epochs,
            converged: stop_reason == StopReason::Converged,
            stop_reason,
            train_seconds,
            bias_constant: c,
            bias_weight: v,
            summation: p.summation,
        })
    }
}

/// True when no activation of the last pass can have overflowed, so that a pass without mistakes proves
/// convergence.
///
/// The mistake test `y·a ≤ 0` is false for a NaN activation, and an activation that overflowed to `±∞`
/// has no trustworthy sign, so a pass over data of about 10¹⁵⁴ could count rows as correct that are not.
/// The hot loop stays as it is: the weights are fixed during a pass without mistakes, and every partial
/// sum of `w·x + b` is at most `Σ|wⱼ|·max|xᵢⱼ| + |b|`, so one bound checked at the end of the run clears
/// it. Only when that bound comes near `f64::MAX` are the activations recomputed (with the same bits as
/// the pass) and checked one by one.
fn final_pass_is_finite(data: &Dataset, weights: &Weights) -> bool {
    let largest_x = data.largest_value();
    let w_sum = weights.w.iter().fold(0.0_f64, |s, v| s + v.abs());
    // A generous rounding allowance for the bound itself and for the pass's own rounding.
    let bound = (w_sum * largest_x + weights.bias().abs()) * 2.0;
    if bound.is_finite() {
        return true;
    }
    (0..data.n_samples()).all(|i| weights.activation_of(data.row_view(i)).is_finite())
}
