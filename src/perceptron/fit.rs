//! The batch training loop: epochs over a fixed dataset.
//!
//! An epoch is a sequence of [`scan`](crate::kernel::scan)s: the kernel finds the next row that the
//! current weights get wrong, with `w` fixed, and the loop updates there and scans on from the next row.
//! The scan computes every activation with the same bits as a one-row-at-a-time loop, so the updates,
//! the trace and the stopping rules are exactly those of the textbook loop. Nothing is allocated per row
//! or per update, and the data is never copied: memory beyond the dataset is `O(d)` (plus the visiting
//! order, `O(n)`, for a shuffled or permuted order).

use std::time::Instant;

use ndarray::Array1;

use super::params::{check_permutation, BiasRule, Order};
use super::trace::{TraceSink, UpdateEvent};
use super::weights::Weights;
use super::{Fit, Perceptron, StopReason};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::kernel::Rows;
use crate::rng;

/// The rows scanned with `w` fixed right after an update.
///
/// The scan stops at the first mistake, so a block never costs more than the rows up to that mistake
/// (plus the rest of one 4- or 8-row SIMD group). Blocks start small after an update, while mistakes are
/// frequent, and double after every block without one, so that long clean stretches are scanned in few
/// calls with little per-call setup.
const MIN_BLOCK: usize = 16;
/// The largest block: long enough to make the per-call cost negligible.
const MAX_BLOCK: usize = 4096;

impl Perceptron {
    pub(super) fn run<S: TraceSink>(&self, data: &Dataset, sink: &mut S) -> Result<Fit> {
        let p = &self.params;
        let (n, d) = (data.n_samples(), data.n_features());
        let radius = if matches!(p.bias, BiasRule::Novikoff) {
            data.radius()
        } else {
            0.0
        };
        let c = p.bias.constant(radius);
        let w0 = match &p.initial_w {
            Some(w) if w.len() != d => {
                return Err(Error::Shape {
                    what: "initial weights against features",
                    expected: d,
                    found: w.len(),
                })
            }
            Some(w) => w.to_vec(),
            None => vec![0.0; d],
        };
        if let Order::Permutation(perm) = &p.order {
            check_permutation(perm, n)?;
        }
        let mut weights = Weights::new(w0, p.initial_b, c, p.eta, p.summation);

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

        let x = data.as_flat_slice();
        let mut mistakes: u64 = 0;
        let mut epochs = 0;
        let mut stop_reason = StopReason::EpochCap;
        let mut block = MIN_BLOCK;
        'epochs: for epoch in 1..=p.max_epochs {
            epochs = epoch;
            if let Some(stream) = shuffler.as_mut() {
                rng::shuffle(stream, &mut visit);
            }
            let mistakes_before = mistakes;
            let all_rows = if visit.is_empty() {
                Rows::contiguous(x, labels, d)?
            } else {
                Rows::indexed_prechecked(x, labels, d, &visit)
            };
            // Rows before `next` have been visited in this epoch.
            let mut next = 0;
            while next < n {
                let end = n.min(next + block);
                let rows = all_rows.part(next, end);
                let Some(found) = weights.path.scan(&weights.w, weights.b, &rows, p.summation)?
                else {
                    next = end;
                    block = MAX_BLOCK.min(2 * block);
                    continue;
                };
                block = MIN_BLOCK;
                let position = next + found.offset;
                next = position + 1;
                let i = if visit.is_empty() {
                    position
                } else {
                    visit[position]
                };
                let x = data.row(i);
                let y = labels[i];
                let finite = weights.update(x, y);
                mistakes += 1;
                sink.record(&UpdateEvent {
                    update: mistakes,
                    epoch,
                    row: i,
                    label: y,
                    activation: found.activation,
                    x,
                    w: &weights.w,
                    b: weights.b,
                    bias_constant: weights.c,
                    eta: weights.eta,
                })?;
                if !finite {
                    stop_reason = StopReason::NonFinite;
                    break 'epochs;
                }
                if p.max_updates.is_some_and(|cap| mistakes >= cap) {
                    stop_reason = StopReason::UpdateCap;
                    break 'epochs;
                }
            }
            if mistakes == mistakes_before {
                stop_reason = StopReason::Converged;
                break;
            }
        }
        let train_seconds = started.elapsed().as_secs_f64();
        Ok(Fit {
            w: Array1::from_vec(weights.w),
            b: weights.b,
            mistakes,
            epochs,
            converged: stop_reason == StopReason::Converged,
            stop_reason,
            train_seconds,
            bias_constant: c,
            bias_weight: weights.v,
            summation: p.summation,
        })
    }
}
