//! The batch training loop: epochs over a fixed dataset, for every variant.
//!
//! An epoch is one training pass. For the plain perceptron and the variants that update like it
//! (averaged, voted, pocket) it is the kernel's [`train`](crate::simd::SimdPath::train): it scans the
//! rows with `w` fixed (in registers where `w` is short) to the next row the weights get wrong, updates
//! there, reports the update to this loop (which records it and applies the stopping rules), and scans
//! on from the next row. The margin perceptron and Passive–Aggressive, whose test or step differs, run
//! the same pass one row at a time ([`super::rule_pass`]); both passes report to the same handler, so
//! the counting, the trace, the stopping rules and the predictors' bookkeeping are one code. Every
//! activation has the bits of a one-row-at-a-time loop, so the updates, the trace and the stopping
//! rules are exactly those of the textbook loop. Nothing is allocated per row, and the data is never
//! copied: memory beyond the dataset is `O(d + n)` (the averaged weights, the per-row mistake counts
//! and the visiting order), plus the vote when it is kept.

use std::ops::ControlFlow;
use std::time::Instant;

use ndarray::Array1;

use super::averaged::Averager;
use super::history::HistoryRecorder;
use super::params::{Order, check_permutation};
use super::pocket::PocketTracker;
use super::rule_pass::{PassStop, rule_pass};
use super::trace::{TraceSink, UpdateEvent};
use super::variant::Variant;
use super::voted::VoteRecorder;
use super::weights::{Weights, activation_underflowed, is_finite_after};
use super::{Augmentation, Fit, Perceptron, StopReason};
use crate::dataset::{Dataset, DenseRow, RowView};
use crate::error::Result;
use crate::rng;
use crate::simd::Update;

/// What a run keeps besides its weights: the sequence's history and the predictors' state.
struct Book {
    history: HistoryRecorder,
    averager: Averager,
    votes: Option<VoteRecorder>,
    pocket: Option<PocketTracker>,
}

impl Book {
    fn new(perceptron: &Perceptron, data: &Dataset, weights: &Weights) -> Self {
        let p = &perceptron.params;
        let c = weights.c();
        let votes = (p.variant == Variant::Voted || p.record_votes)
            .then(|| VoteRecorder::new(data.n_samples(), &weights.w, weights.bias(), c));
        let pocket = (p.variant == Variant::Pocket)
            .then(|| PocketTracker::new(data, &weights.w, weights.v, c, p.summation));
        Self {
            history: HistoryRecorder::new(data.n_samples(), p.variant.is_passive_aggressive()),
            averager: Averager::new(data.n_features()),
            votes,
            pocket,
        }
    }

    /// The update `w += signed·x` on `row` at the 1-based presentation `trial`.
    #[inline]
    fn updated(
        &mut self,
        data: &Dataset,
        trial: u64,
        row: usize,
        signed: f64,
        x: RowView<'_>,
        c: f64,
    ) {
        self.averager.update(trial, signed, x, c);
        if let Some(votes) = self.votes.as_mut() {
            votes.update(trial, row, signed, x);
        }
        if let Some(pocket) = self.pocket.as_mut() {
            pocket.update(data, trial, signed, x);
        }
    }
}

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
        let plain = p.variant.updates_like_perceptron();
        let rule = p.variant.rule();
        let mut book = Book::new(self, data, &weights);

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
        let (mut mistakes, mut updates): (u64, u64) = (0, 0);
        let mut epochs = 0;
        let mut trials: u64 = 0;
        let mut stop_reason = StopReason::EpochCap;
        let mut failure = None;
        let records = sink.records();
        for epoch in 1..=p.max_epochs {
            epochs = epoch;
            if let Some(stream) = shuffler.as_mut() {
                rng::shuffle(stream, &mut visit);
            }
            let (updates_before, mistakes_before) = (updates, mistakes);
            let first_trial = (epoch as u64 - 1) * n as u64;
            // Every presentation a pass reports (an update, or a mistake the rule could not update on)
            // comes here, whichever pass made it.
            let mut handle = |update: &Update<'_>, step: Option<f64>| -> ControlFlow<()> {
                let row = if visit.is_empty() {
                    update.offset
                } else {
                    visit[update.offset]
                };
                let y = labels[row];
                let x = data.row_view(row);
                let margin = y * update.activation;
                book.history
                    .presented(epoch, update.offset, row, margin, step.is_some());
                if margin <= 0.0 {
                    mistakes += 1;
                }
                let Some(step) = step else {
                    return ControlFlow::Continue(());
                };
                updates += 1;
                let trial = first_trial + update.offset as u64 + 1;
                book.updated(data, trial, row, step * y, x, c);
                if records {
                    let recorded = sink.record(&UpdateEvent {
                        update: updates,
                        epoch,
                        row,
                        label: y,
                        activation: update.activation,
                        x: dense_row.of(x, d),
                        w: update.w,
                        b: update.b,
                        bias_constant: c,
                        bias_weight: update.v,
                        eta: p.eta,
                        step,
                    });
                    if let Err(error) = recorded {
                        failure = Some(error);
                        return ControlFlow::Break(());
                    }
                }
                // An activation that overflowed has no trustworthy sign, whichever way the test went.
                if !(update.activation.is_finite() && is_finite_after(update, x)) {
                    stop_reason = StopReason::NonFinite;
                    return ControlFlow::Break(());
                }
                // Likewise an activation that underflowed to zero: the run cannot tell it from a tie.
                if update.activation == 0.0 && activation_underflowed(update, x, y, c, step) {
                    stop_reason = StopReason::Underflow;
                    return ControlFlow::Break(());
                }
                if p.max_updates.is_some_and(|cap| updates >= cap) {
                    stop_reason = StopReason::UpdateCap;
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            };
            let stopped: Option<usize> = if plain {
                weights.train_on(data, &visit, &mut |update| handle(update, Some(p.eta)))?
            } else {
                let stop = rule_pass(&mut weights, data, &visit, rule, &mut |presented| {
                    let update = Update {
                        offset: presented.offset,
                        activation: presented.activation,
                        w: presented.w,
                        v: presented.v,
                        b: presented.b,
                    };
                    handle(&update, presented.step)
                });
                if let Some((_, PassStop::NonFiniteLength)) = stop {
                    stop_reason = StopReason::NonFinite;
                }
                stop.map(|(offset, _)| offset)
            };
            book.history.end_epoch(epoch, &visit);
            if let Some(error) = failure {
                return Err(error);
            }
            if let Some(offset) = stopped {
                trials = first_trial + offset as u64 + 1;
                break;
            }
            trials = first_trial + n as u64;
            if updates == updates_before {
                stop_reason = if mistakes != mistakes_before {
                    StopReason::Stalled
                } else if final_pass_is_finite(data, &weights) {
                    StopReason::Converged
                } else {
                    StopReason::NonFinite
                };
                break;
            }
        }
        let (v, b) = (weights.v, weights.bias());
        let averaged = book.averager.finish(trials, &weights.w, v, c, p.summation);
        let voted = book.votes.map(|votes| votes.finish(trials));
        let pocket = book.pocket.map(|pocket| pocket.finish(data, trials));
        let train_seconds = started.elapsed().as_secs_f64();
        Ok(Fit {
            w: Array1::from_vec(weights.w),
            b,
            mistakes,
            updates,
            epochs,
            converged: stop_reason == StopReason::Converged,
            stop_reason,
            train_seconds,
            bias_constant: c,
            bias_weight: v,
            summation: p.summation,
            variant: p.variant,
            averaged,
            voted,
            pocket,
            history: book.history.finish(),
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
