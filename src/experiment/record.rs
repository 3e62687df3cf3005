//! One task's results, as a line of `results.jsonl` and a row of `results.csv`, derived from the run's
//! [`Verdict`] in one place ([`TaskRecord::record_verdict`]).

use serde::{Deserialize, Serialize};

use crate::bounds::{AdversaryReport, Failure, Verdict};
use crate::perceptron::{Fit, StopReason, TestAccuracy};

fn perceptron() -> String {
    "perceptron".into()
}

/// One bound's value in a result row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundRecord {
    /// The bound's stable name, e.g. `block_novikoff`.
    pub name: String,
    /// Its value, when it applies.
    pub value: Option<f64>,
    /// Whether its hypotheses hold for this run.
    pub applies: bool,
    /// Why not, when it does not apply.
    #[serde(default)]
    pub reason: String,
}

/// One task's results: one line of `results.jsonl` and one row of `results.csv`.
///
/// Fields that a failed task could not compute are `None`, and `error` says why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TaskRecord {
    /// The task's stable id.
    pub task_id: String,
    /// Position in the spec's expansion order.
    pub index: usize,
    /// The readable key the id is hashed from.
    pub key: String,
    /// Hash of the spec text, so that results of different specs are never merged.
    pub spec_hash: String,
    /// The dataset instance's key.
    pub dataset: String,
    /// `file` or the generator family.
    pub source: String,
    /// Number of examples.
    pub n: Option<usize>,
    /// Number of features.
    pub d: Option<usize>,
    /// Number of stored feature values: `n·d` for dense data, the non-zeros kept for sparse data.
    pub nnz: Option<usize>,
    /// The bias rule.
    pub rule: String,
    /// The member of the perceptron's family (`perceptron` in results written before variants).
    #[serde(default = "perceptron")]
    pub variant: String,
    /// `cyclic` or `shuffle`.
    pub order: String,
    /// The learning rate.
    pub eta: f64,
    /// The replicate number of a shuffled order.
    pub seed: Option<u64>,
    /// R = max ‖x‖.
    pub radius: Option<f64>,
    /// Whether the data is separable in the sense the rule needs.
    pub separable: Option<bool>,
    /// Which margin `gamma` is (`through_origin`, `free`, ...).
    pub margin_kind: Option<String>,
    /// γ* (best estimate).
    pub gamma: Option<f64>,
    /// Certified lower end of γ*.
    pub gamma_lower: Option<f64>,
    /// Certified upper end of γ*.
    pub gamma_upper: Option<f64>,
    /// Every bound, applicable or not.
    #[serde(default)]
    pub bounds: Vec<BoundRecord>,
    /// The name of the rule's primary bound.
    pub bound_name: Option<String>,
    /// The primary bound's value.
    pub bound: Option<f64>,
    /// Number of mistakes (`y·(w·x + b) ≤ 0`).
    pub mistakes: Option<u64>,
    /// Number of updates (more than the mistakes for the margin perceptron and Passive–Aggressive).
    #[serde(default)]
    pub updates: Option<u64>,
    /// Number of passes including the final clean one.
    pub epochs: Option<usize>,
    /// Whether the run converged.
    pub converged: Option<bool>,
    /// Why the run stopped.
    pub stop_reason: Option<StopReason>,
    /// mistakes / primary bound.
    pub ratio: Option<f64>,
    /// Whether every applicable bound held.
    pub holds: Option<bool>,
    /// Whether the proof's inequalities held at every update.
    pub invariants_ok: Option<bool>,
    /// Every check that failed on the run ([`Verdict::failures`]), the verdict `novikoff verify` gives
    /// on the same run. In `results.jsonl` only, and only when there is one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    /// The most mistakes an adversary's order forced (entries with `adversary = true`; the plain
    /// perceptron's cyclic tasks), and whether a run of the search stopped at its update cap.
    #[serde(default)]
    pub adversary_mistakes: Option<u64>,
    /// Whether the worst adversarial run stopped at the cap (its count is then a lower bound).
    #[serde(default)]
    pub adversary_capped: Option<bool>,
    /// Test accuracy of the last weights, with a `test` file.
    #[serde(default)]
    pub test_last: Option<f64>,
    /// Test accuracy of the averaged weights.
    #[serde(default)]
    pub test_averaged: Option<f64>,
    /// Test accuracy of the vote.
    #[serde(default)]
    pub test_voted: Option<f64>,
    /// Test accuracy of the pocket.
    #[serde(default)]
    pub test_pocket: Option<f64>,
    /// Seconds in the training loop.
    pub train_seconds: Option<f64>,
    /// Seconds in the margin solves for this dataset (shared by its tasks).
    pub solve_seconds: Option<f64>,
    /// Full passes over the data in those solves ([`Geometry::solve_stats`](crate::bounds::Geometry::solve_stats)).
    pub solve_passes: Option<usize>,
    /// The largest working set of those solves, in rows.
    pub working_set: Option<usize>,
    /// The error that stopped the task, if any.
    pub error: Option<String>,
    /// The kernel of a kernel perceptron run (its kind; the parameters follow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// The poly kernel's degree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_degree: Option<u32>,
    /// The poly kernel's constant c₀.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_coef0: Option<f64>,
    /// γ of the poly and rbf kernels, as chosen on the data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_gamma: Option<f64>,
    /// The multi-class method (`ovr` or `kesler`) of a run on the dataset's classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiclass: Option<String>,
    /// The number of classes of a multi-class run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<usize>,
    /// Extra measurements (trace summary, separators of 2-D data) for the plots.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub extra: serde_json::Value,
}

/// The fixed leading columns of `results.csv`; one `bound_NAME` column per bound follows, then the rest.
const LEAD: &[&str] = &[
    "task_id",
    "index",
    "dataset",
    "source",
    "n",
    "d",
    "nnz",
    "rule",
    "variant",
    "order",
    "eta",
    "seed",
    "radius",
    "separable",
    "margin_kind",
    "gamma",
    "gamma_lower",
    "gamma_upper",
];
const TAIL: &[&str] = &[
    "bound_name",
    "bound",
    "mistakes",
    "updates",
    "epochs",
    "converged",
    "stop_reason",
    "ratio",
    "holds",
    "invariants_ok",
    "adversary_mistakes",
    "adversary_capped",
    "test_last",
    "test_averaged",
    "test_voted",
    "test_pocket",
    "train_seconds",
    "solve_seconds",
    "solve_passes",
    "working_set",
    "error",
    "key",
    "spec_hash",
    "kernel",
    "kernel_degree",
    "kernel_coef0",
    "kernel_gamma",
    "multiclass",
    "classes",
];

/// The CSV header for a list of bound names.
///
/// ```
/// let header = novikoff::experiment::csv_header(&["block_novikoff".to_string()]);
/// assert!(header.contains(&"bound_block_novikoff".to_string()));
/// assert_eq!(header[0], "task_id");
/// ```
pub fn csv_header(bound_names: &[String]) -> Vec<String> {
    LEAD.iter()
        .map(|s| s.to_string())
        .chain(bound_names.iter().map(|b| format!("bound_{b}")))
        .chain(TAIL.iter().map(|s| s.to_string()))
        .collect()
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(ToString::to_string).unwrap_or_default()
}

/// The CSV cells of a record, matching [`csv_header`].
pub(crate) fn csv_row(r: &TaskRecord, bound_names: &[String]) -> Vec<String> {
    let mut row = vec![
        r.task_id.clone(),
        r.index.to_string(),
        r.dataset.clone(),
        r.source.clone(),
        opt(&r.n),
        opt(&r.d),
        opt(&r.nnz),
        r.rule.clone(),
        r.variant.clone(),
        r.order.clone(),
        r.eta.to_string(),
        opt(&r.seed),
        opt(&r.radius),
        opt(&r.separable),
        opt(&r.margin_kind),
        opt(&r.gamma),
        opt(&r.gamma_lower),
        opt(&r.gamma_upper),
    ];
    for name in bound_names {
        let value = r
            .bounds
            .iter()
            .find(|b| &b.name == name && b.applies)
            .and_then(|b| b.value);
        row.push(opt(&value));
    }
    row.extend([
        opt(&r.bound_name),
        opt(&r.bound),
        opt(&r.mistakes),
        opt(&r.updates),
        opt(&r.epochs),
        opt(&r.converged),
        opt(&r.stop_reason.map(StopReason::name)),
        opt(&r.ratio),
        opt(&r.holds),
        opt(&r.invariants_ok),
        opt(&r.adversary_mistakes),
        opt(&r.adversary_capped),
        opt(&r.test_last),
        opt(&r.test_averaged),
        opt(&r.test_voted),
        opt(&r.test_pocket),
        opt(&r.train_seconds),
        opt(&r.solve_seconds),
        opt(&r.solve_passes),
        opt(&r.working_set),
        opt(&r.error),
        r.key.clone(),
        r.spec_hash.clone(),
        opt(&r.kernel),
        opt(&r.kernel_degree),
        opt(&r.kernel_coef0),
        opt(&r.kernel_gamma),
        opt(&r.multiclass),
        opt(&r.classes),
    ]);
    row
}

impl TaskRecord {
    /// The columns a checked run determines: the run, its margin, every bound, and its failures.
    pub(crate) fn record_verdict(&mut self, verdict: &Verdict) {
        self.mistakes = Some(verdict.fit.mistakes);
        self.updates = Some(verdict.fit.updates);
        self.epochs = Some(verdict.fit.epochs);
        self.converged = Some(verdict.fit.converged);
        self.stop_reason = Some(verdict.fit.stop_reason);
        self.train_seconds = Some(verdict.fit.train_seconds);
        // A margin the run's vectors achieve proves them separable; without one, the geometry says
        // whether a certificate proves the opposite or the solve could not tell ((x, c) with c ≠ 0 is
        // separable exactly when x is with a bias).
        self.separable = if verdict.gamma.is_some() {
            Some(true)
        } else if verdict.bias_constant == 0.0 {
            verdict.geometry.separable_through_origin
        } else {
            verdict.geometry.separable
        };
        self.margin_kind = Some(if verdict.bias_constant == 0.0 {
            "through_origin".to_string()
        } else {
            format!("augmented_c={}", verdict.bias_constant)
        });
        self.gamma = verdict.gamma;
        self.gamma_lower = verdict.gamma_bracket.map(|b| b[0]);
        self.gamma_upper = verdict.gamma_bracket.map(|b| b[1]);
        self.bounds = verdict
            .bounds
            .iter()
            .map(|checked| BoundRecord {
                name: checked.bound.kind.id().to_string(),
                value: checked.bound.value,
                applies: checked.bound.applies,
                reason: checked.bound.reason.clone().unwrap_or_default(),
            })
            .collect();
        self.bound_name = verdict.tightest.map(|k| k.id().to_string());
        self.bound = verdict.bound;
        self.ratio = verdict.ratio;
        self.holds = verdict.holds;
        self.invariants_ok = verdict.invariants.holds();
        self.failures = verdict.failures();
    }

    /// The columns an unchecked run determines.
    pub(crate) fn record_fit(&mut self, fit: &Fit) {
        self.mistakes = Some(fit.mistakes);
        self.updates = Some(fit.updates);
        self.epochs = Some(fit.epochs);
        self.converged = Some(fit.converged);
        self.stop_reason = Some(fit.stop_reason);
        self.train_seconds = Some(fit.train_seconds);
    }

    /// The columns of an adversarial search.
    pub(crate) fn record_adversary(&mut self, report: &AdversaryReport) {
        let worst = &report.runs[report.best];
        self.adversary_mistakes = Some(worst.mistakes);
        self.adversary_capped = Some(!worst.converged);
    }

    /// The columns of the predictors' accuracy on the test data.
    pub(crate) fn record_test(&mut self, test: &TestAccuracy) {
        self.test_last = Some(test.last);
        self.test_averaged = Some(test.averaged);
        self.test_voted = test.voted;
        self.test_pocket = test.pocket;
    }

    /// Whether the run passed every check: at least one bound applied and no check failed (what
    /// `novikoff verify` reports with exit status 0 for a run with a bound).
    pub fn passed(&self) -> bool {
        self.holds.is_some() && self.holds != Some(false) && self.failures.is_empty()
    }
}
