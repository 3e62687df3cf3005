//! The columns of a kernel run and of a multi-class run, from their verdicts.

use super::record::{BoundRecord, TaskRecord};
use crate::bounds::CheckedBound;
use crate::kernel::{Kernel, KernelFit, KernelVerdict};
use crate::multiclass::{ConfusionMatrix, MulticlassFit, MulticlassVerdict, OneVsRest};
use crate::perceptron::StopReason;

fn bound_records(bounds: &[CheckedBound]) -> Vec<BoundRecord> {
    bounds
        .iter()
        .map(|checked| BoundRecord {
            name: checked.bound.kind.id().to_string(),
            value: checked.bound.value,
            applies: checked.bound.applies,
            reason: checked.bound.reason.clone().unwrap_or_default(),
        })
        .collect()
}

impl TaskRecord {
    /// The kernel's columns.
    pub(crate) fn record_kernel(&mut self, kernel: &Kernel) {
        self.kernel = Some(kernel.name().to_string());
        self.kernel_degree = kernel.degree();
        self.kernel_coef0 = kernel.coef0();
        self.kernel_gamma = kernel.gamma();
    }

    fn record_run(
        &mut self,
        mistakes: u64,
        epochs: usize,
        converged: bool,
        stop_reason: StopReason,
        seconds: f64,
    ) {
        self.mistakes = Some(mistakes);
        self.updates = Some(mistakes);
        self.epochs = Some(epochs);
        self.converged = Some(converged);
        self.stop_reason = Some(stop_reason);
        self.train_seconds = Some(seconds);
    }

    /// A kernel run checked in its feature space: the radius is `R_K`, the margins `γ_K`.
    pub(crate) fn record_kernel_verdict(&mut self, verdict: &KernelVerdict) {
        self.record_kernel(&verdict.fit.kernel);
        self.record_run(
            verdict.mistakes,
            verdict.epochs,
            verdict.converged,
            verdict.stop_reason,
            verdict.train_seconds,
        );
        self.radius = Some(verdict.radius);
        self.separable = verdict.separable;
        self.margin_kind = Some(if verdict.bias_constant == 0.0 {
            "feature_space_through_origin".to_string()
        } else {
            format!("feature_space_augmented_c={}", verdict.bias_constant)
        });
        self.gamma = verdict.gamma;
        self.gamma_lower = verdict.gamma_bracket.map(|b| b[0]);
        self.gamma_upper = verdict.gamma_bracket.map(|b| b[1]);
        self.bounds = bound_records(&verdict.bounds);
        self.bound_name = verdict.tightest.map(|k| k.id().to_string());
        self.bound = verdict.bound;
        self.ratio = verdict.ratio;
        self.holds = verdict.holds;
        self.invariants_ok = verdict.invariants.holds();
        self.failures = verdict.failures();
    }

    /// A kernel run, not checked.
    pub(crate) fn record_kernel_fit(&mut self, fit: &KernelFit) {
        self.record_kernel(&fit.kernel);
        self.record_run(
            fit.mistakes,
            fit.epochs,
            fit.converged,
            fit.stop_reason,
            fit.train_seconds,
        );
    }

    /// A multi-class perceptron run checked on Kesler's lifted vectors.
    pub(crate) fn record_multiclass_verdict(&mut self, verdict: &MulticlassVerdict) {
        self.record_run(
            verdict.mistakes,
            verdict.epochs,
            verdict.converged,
            verdict.stop_reason,
            verdict.train_seconds,
        );
        self.radius = Some(verdict.radius_lifted);
        // An inaccurate solve of the lifted vectors leaves it open.
        self.separable = match verdict.margin_status {
            _ if verdict.gamma.is_some() => Some(true),
            "not_separable" => Some(false),
            _ => None,
        };
        self.margin_kind = Some(format!("kesler_lifted_c={}", verdict.bias_constant));
        self.gamma = verdict.gamma;
        self.gamma_lower = verdict.gamma_bracket.map(|b| b[0]);
        self.gamma_upper = verdict.gamma_bracket.map(|b| b[1]);
        self.bounds = verdict
            .bounds
            .iter()
            .map(|b| BoundRecord {
                name: b.id.to_string(),
                value: b.value,
                applies: b.applies,
                reason: b.reason.clone().unwrap_or_default(),
            })
            .collect();
        let tightest = verdict
            .bounds
            .iter()
            .filter(|b| b.value.is_some())
            .min_by(|a, b| a.value.partial_cmp(&b.value).expect("finite bounds"));
        self.bound_name = tightest.map(|b| b.id.to_string());
        self.bound = verdict.bound;
        self.ratio = verdict.ratio;
        self.holds = verdict.holds;
        self.invariants_ok = verdict.invariants.holds();
        self.failures = verdict.failures();
    }

    /// A multi-class perceptron run, not checked.
    pub(crate) fn record_multiclass_fit(&mut self, fit: &MulticlassFit) {
        self.record_run(
            fit.mistakes,
            fit.epochs,
            fit.converged,
            fit.stop_reason,
            fit.train_seconds,
        );
    }

    /// One-vs-rest: the mistakes summed over the classes, every class's failures, and the bounds held
    /// when every class's held.
    pub(crate) fn record_one_vs_rest(&mut self, ovr: &OneVsRest) {
        let converged = ovr.classes.iter().all(|c| c.verdict.converged());
        self.mistakes = Some(ovr.mistakes);
        self.updates = Some(ovr.mistakes);
        self.converged = Some(converged);
        self.stop_reason = Some(if converged {
            StopReason::Converged
        } else {
            StopReason::EpochCap
        });
        self.holds = ovr.holds;
        self.failures = ovr.failures();
        self.invariants_ok = self.holds.map(|_| {
            !self
                .failures
                .iter()
                .any(|f| matches!(f, crate::bounds::Failure::InvariantViolated { .. }))
        });
    }

    /// Test accuracy of a multi-class predictor (in the `test_last` column).
    pub(crate) fn record_confusion_test(&mut self, confusion: &ConfusionMatrix) {
        self.test_last = Some(confusion.accuracy());
    }
}
