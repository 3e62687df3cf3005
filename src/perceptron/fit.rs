//! The batch training loop: epochs over a fixed dataset.

use std::time::Instant;

use ndarray::Array1;

use super::params::{check_permutation, BiasRule, Order};
use super::trace::{TraceSink, UpdateEvent};
use super::weights::{is_mistake, Weights};
use super::{Fit, Perceptron, StopReason};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::rng;

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

        let mut mistakes: u64 = 0;
        let mut epochs = 0;
        let mut stop_reason = StopReason::EpochCap;
        'epochs: for epoch in 1..=p.max_epochs {
            epochs = epoch;
            if let Some(stream) = shuffler.as_mut() {
                rng::shuffle(stream, &mut visit);
            }
            let mistakes_before = mistakes;
            let mut step = |i: usize, weights: &mut Weights| -> Result<Option<StopReason>> {
                let x = data.row(i);
                let y = labels[i];
                let activation = weights.activation(x);
                if !is_mistake(y, activation) {
                    return Ok(None);
                }
                let finite = weights.update(x, y);
                mistakes += 1;
                sink.record(&UpdateEvent {
                    update: mistakes,
                    epoch,
                    row: i,
                    label: y,
                    activation,
                    x,
                    w: &weights.w,
                    b: weights.b,
                    bias_constant: weights.c,
                    eta: weights.eta,
                })?;
                if !finite {
                    return Ok(Some(StopReason::NonFinite));
                }
                if p.max_updates.is_some_and(|cap| mistakes >= cap) {
                    return Ok(Some(StopReason::UpdateCap));
                }
                Ok(None)
            };
            if visit.is_empty() {
                for i in 0..n {
                    if let Some(reason) = step(i, &mut weights)? {
                        stop_reason = reason;
                        break 'epochs;
                    }
                }
            } else {
                for &i in &visit {
                    if let Some(reason) = step(i, &mut weights)? {
                        stop_reason = reason;
                        break 'epochs;
                    }
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
