//! The dual run: the activations of every example kept up to date, one Gram row per update.

use std::time::Instant;

use super::cache::GramCache;
use super::fit::KernelFit;
use super::learner::KernelPerceptronParams;
use super::run::{KernelSink, KernelUpdateEvent, Representation, RunOutcome, radius_from};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::perceptron::{Order, Presentations, StopReason};
use crate::rng;

pub(super) fn fit<S: KernelSink>(
    p: &KernelPerceptronParams,
    data: &Dataset,
    sink: &mut S,
) -> Result<KernelFit> {
    let n = data.n_samples();
    let mut cache = GramCache::new(&p.kernel, data, p.summation, p.cache_bytes)?;
    let c = p
        .bias
        .constant(radius_from(&p.kernel, data, cache.diagonal()));
    let c_sq = c * c;
    let labels = data.labels();
    let started = Instant::now();

    // Σⱼ coefⱼ·K(xⱼ, xᵢ) for every i: the activations without the bias.
    let mut scores = vec![0.0; n];
    let mut coef = vec![0.0; n];
    let mut alpha = vec![0u64; n];
    let mut b = 0.0;
    let mut norm_sq = 0.0;
    let mut visit: Vec<usize> = match &p.order {
        Order::Cyclic => (0..n).collect(),
        Order::Shuffle { .. } => (0..n).collect(),
        Order::Permutation(perm) => perm.clone(),
    };
    let mut shuffler = match p.order {
        Order::Shuffle { seed } => Some(rng::from_seed(seed)),
        _ => None,
    };
    let mut mistakes = 0u64;
    let mut epochs = 0;
    let mut stop_reason = StopReason::EpochCap;
    let mut last_update: Option<(usize, usize)> = None;
    let mut last_epoch_rows = Vec::new();
    'epochs: for epoch in 1..=p.max_epochs {
        epochs = epoch;
        if let Some(stream) = shuffler.as_mut() {
            rng::shuffle(stream, &mut visit);
        }
        let before = mistakes;
        for (offset, &i) in visit.iter().enumerate() {
            let y = labels[i];
            let activation = scores[i] + b;
            if y * activation > 0.0 {
                continue;
            }
            let step = p.eta * y;
            let self_kernel = cache.diagonal()[i] + c_sq;
            let row = cache.row(i);
            for (s, &k) in scores.iter_mut().zip(row) {
                *s += step * k;
            }
            b += step * c_sq;
            coef[i] += step;
            alpha[i] += 1;
            mistakes += 1;
            norm_sq += 2.0 * step * activation + step * step * self_kernel;
            last_update = Some((epoch, offset));
            sink.record(&KernelUpdateEvent {
                update: mistakes,
                epoch,
                row: i,
                label: y,
                activation,
                step: p.eta,
                self_kernel,
                norm_sq,
                b,
            })?;
            if !(activation.is_finite() && b.is_finite() && norm_sq.is_finite()) {
                stop_reason = StopReason::NonFinite;
                last_epoch_rows = visit[..=offset].to_vec();
                break 'epochs;
            }
            if p.max_updates.is_some_and(|cap| mistakes >= cap) {
                stop_reason = StopReason::UpdateCap;
                last_epoch_rows = visit[..=offset].to_vec();
                break 'epochs;
            }
        }
        if let Some((e, offset)) = last_update
            && e == epoch
        {
            last_epoch_rows = visit[..=offset].to_vec();
        }
        if mistakes == before {
            stop_reason = if scores.iter().all(|s| s.is_finite()) {
                StopReason::Converged
            } else {
                StopReason::NonFinite
            };
            break;
        }
    }
    let presentations = match last_update {
        Some((epoch, _)) => Presentations {
            complete_epochs: epoch as u64 - 1,
            last_epoch: last_epoch_rows,
        },
        None => Presentations::default(),
    };
    let train_seconds = started.elapsed().as_secs_f64();
    Ok(KernelFit::assemble(
        data,
        RunOutcome {
            kernel: p.kernel.clone(),
            eta: p.eta,
            summation: p.summation,
            alpha,
            coef,
            b,
            c,
            norm_sq,
            mistakes,
            epochs,
            stop_reason,
            train_seconds,
            presentations,
            cache: cache.stats(),
            primal_w: None,
            representation: Representation::Dual,
        },
    ))
}
