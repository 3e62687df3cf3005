//! The linear kernel with `w` kept explicitly: the primal perceptron's run, bit for bit, with the dual
//! quantities (the αᵢ, `‖ŵ_k‖²`) counted beside it.

use super::eval::OnData;
use super::fit::KernelFit;
use super::learner::KernelPerceptronParams;
use super::run::{KernelSink, KernelUpdateEvent, Representation, RunOutcome};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::perceptron::{Augmentation, PerceptronParams, TraceSink, UpdateEvent};

/// Turns the primal run's updates into the kernel run's events.
struct Adapter<'s, S: KernelSink> {
    sink: &'s mut S,
    diagonal: Vec<f64>,
    c_sq: f64,
    norm_sq: f64,
}

impl<S: KernelSink> TraceSink for Adapter<'_, S> {
    fn record(&mut self, event: &UpdateEvent<'_>) -> Result<()> {
        let signed = event.step * event.label;
        let self_kernel = self.diagonal[event.row] + self.c_sq;
        self.norm_sq += 2.0 * signed * event.activation + signed * signed * self_kernel;
        self.sink.record(&KernelUpdateEvent {
            update: event.update,
            epoch: event.epoch,
            row: event.row,
            label: event.label,
            activation: event.activation,
            step: event.step,
            self_kernel,
            norm_sq: self.norm_sq,
            b: event.b,
        })
    }
}

pub(super) fn fit<S: KernelSink>(
    p: &KernelPerceptronParams,
    data: &Dataset,
    sink: &mut S,
) -> Result<KernelFit> {
    let primal = PerceptronParams::new()
        .bias(p.bias)
        .eta(p.eta)
        .order(p.order.clone())
        .max_epochs(p.max_epochs)
        .max_updates(p.max_updates)
        .summation(p.summation)
        .check()?;
    let c = Augmentation::of(p.bias, data).constant();
    let mut adapter = Adapter {
        sink,
        diagonal: OnData::new(&p.kernel, data, p.summation).diagonal(),
        c_sq: c * c,
        norm_sq: 0.0,
    };
    let fit = primal.fit_with_trace(data, &mut adapter)?;
    let alpha = fit.history.mistakes_per_row.clone();
    let coef = alpha
        .iter()
        .zip(data.labels())
        .map(|(&a, &y)| a as f64 * p.eta * y)
        .collect();
    Ok(KernelFit::assemble(
        data,
        RunOutcome {
            kernel: p.kernel.clone(),
            eta: p.eta,
            summation: p.summation,
            alpha,
            coef,
            b: fit.b,
            c,
            norm_sq: adapter.norm_sq,
            mistakes: fit.mistakes,
            epochs: fit.epochs,
            stop_reason: fit.stop_reason,
            train_seconds: fit.train_seconds,
            presentations: fit.history.presentations.clone(),
            cache: Default::default(),
            primal_w: Some(fit.w),
            representation: Representation::Explicit,
        },
    ))
}
