//! The verdict on a dataset: every rule's run checked against the theorem, and the checks that failed.
//!
//! [`report`] runs each rule, checks it ([`verify_with_options`]), and adds what the user asked for
//! beyond the optimal separator: the bounds of a separator they supply, and a search for adversarial
//! orders. [`Report::failures`] is the one pass/fail policy of the crate: `novikoff verify` prints it and
//! sets its exit code from it, and the experiment's records carry the same [`Failure`]s
//! ([`Verdict::failures`]), so the two cannot disagree on a run.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::adversary::{AdversaryParams, AdversaryReport, search};
use super::bound::{Bound, VALUE_RTOL};
use super::evaluate::bounds_for_separator;
use super::geometry::{Geometry, GeometrySummary};
use super::invariants::Violation;
use super::kinds::Measure;
use super::margin_guarantee::MarginGuarantee;
use super::verify::{Verdict, VerifyOptions, verify_with_options};
use crate::error::Result;
use crate::perceptron::{PerceptronParams, StopReason};

/// What [`report`] checks beyond each rule's run against the optimal separator.
///
/// ```
/// use novikoff::bounds::{AdversaryParams, ReportOptions};
/// let options = ReportOptions {
///     separator: Some((vec![1.0, 0.0], 0.0)),
///     adversary: Some(AdversaryParams::new().restarts(2)),
///     ..Default::default()
/// };
/// assert!(!options.record_steps);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// Keep every update's quantities of the proof (O(updates) memory per rule).
    pub record_steps: bool,
    /// Also evaluate the bounds for this separator `(w, b)`.
    pub separator: Option<(Vec<f64>, f64)>,
    /// Also search for presentation orders that force more mistakes than the cyclic pass.
    pub adversary: Option<AdversaryParams>,
}

/// One rule's run with everything checked on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleReport {
    /// The run against the optimal separator, every form of the theorem and the proof's inequalities.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// The forms evaluated for the separator of [`ReportOptions::separator`].
    #[serde(
        rename = "supplied_separator_bounds",
        skip_serializing_if = "Option::is_none"
    )]
    pub supplied: Option<Vec<Bound>>,
    /// The adversarial search of [`ReportOptions::adversary`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adversary: Option<AdversaryReport>,
}

/// What [`report`] found: the dataset's geometry, once, and one entry per rule.
///
/// ```
/// use novikoff::bounds::{report, Geometry, ReportOptions};
/// use novikoff::{perceptron::{BiasRule, PerceptronParams}, textbook};
/// let data = textbook::example("seed004").unwrap();
/// let rules = [BiasRule::None, BiasRule::Novikoff].map(|r| PerceptronParams::new().bias(r));
/// let report = report(&Geometry::compute(&data)?, &rules, &ReportOptions::default())?;
/// assert_eq!(report.rules.len(), 2);
/// assert!(report.failures().is_empty());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The dataset's radius, margins and separability.
    pub geometry: GeometrySummary,
    /// One entry per rule, in the order asked.
    pub rules: Vec<RuleReport>,
}

/// Who exceeded a bound: the run against the optimal separator's bound, against the bound of the
/// separator the user supplied, or an adversarial order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExceededBy {
    /// The run, against a bound computed from the maximum margin.
    Optimal,
    /// The run, against a bound computed from the separator the user supplied.
    Supplied,
    /// An adversarial presentation order, named.
    Adversary {
        /// The order's name.
        order: String,
    },
}

/// A check that failed. Its `Display` is the sentence `novikoff verify` prints.
///
/// A cap (`max_epochs`, `max_updates`) that stops a run before its bound is reached is not a failure:
/// the theorem bounds the mistakes, and a run cut short has not exceeded them. (A run stopped by the
/// epoch cap E without converging made at least E mistakes, so an E above the bound shows up as an
/// exceeded bound.) An overflow is different: nobody chose it, and the run can no longer converge.
///
/// ```
/// use novikoff::bounds::{ExceededBy, Failure};
/// let failure = Failure::BoundExceeded {
///     rule: "none".into(), by: ExceededBy::Optimal, bound: "Block–Novikoff".into(),
///     formula: "(R/γ)²".into(), value: Some(5.0), mistakes: 6, measure: None, observed: None,
/// };
/// assert_eq!(failure.to_string(), "rule none: Block–Novikoff (R/γ)² fails: 6 mistakes exceed the bound 5");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "failure", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Failure {
    /// More mistakes than an applicable form of the theorem allows.
    BoundExceeded {
        /// The bias rule's name.
        rule: String,
        /// Which run, against which separator's bound.
        by: ExceededBy,
        /// The form's name.
        bound: String,
        /// The form's formula.
        formula: String,
        /// The bound's value.
        value: Option<f64>,
        /// The run's mistakes.
        mistakes: u64,
        /// The quantity the form bounds, when it is not the mistakes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        measure: Option<Measure>,
        /// Its value on the run, when it is not the mistakes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        observed: Option<f64>,
    },
    /// An inequality of the proof failed beyond its rounding tolerance.
    InvariantViolated {
        /// The bias rule's name.
        rule: String,
        /// The adversarial order of the run, if it was one.
        order: Option<String>,
        /// The first violation.
        violation: Violation,
        /// The number of violations in the run.
        violations: u64,
    },
    /// The perceptron with margin converged to weights with less margin than it guarantees.
    MarginGuaranteeMissed {
        /// The bias rule's name.
        rule: String,
        /// The guaranteed margin.
        promised: f64,
        /// The margin of the final weights.
        achieved: f64,
    },
    /// The weights overflowed while a form of the theorem promised convergence.
    Overflow {
        /// The bias rule's name.
        rule: String,
        /// The update at which the weights became non-finite.
        update: u64,
        /// The form that promised convergence.
        bound: String,
        /// Its value.
        value: f64,
    },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let short = crate::display::short_number;
        match self {
            Failure::BoundExceeded {
                rule,
                by: ExceededBy::Adversary { order },
                value,
                mistakes,
                ..
            } => write!(
                f,
                "rule {rule} (order {order}): {mistakes} mistakes exceed the bound {}",
                value.map(short).unwrap_or_default()
            ),
            Failure::BoundExceeded {
                rule,
                by,
                bound,
                formula,
                value,
                mistakes,
                measure,
                observed,
            } => write!(
                f,
                "rule {rule}: {bound}{} {formula} fails: {} exceed the bound {}",
                if *by == ExceededBy::Supplied {
                    " (your separator)"
                } else {
                    ""
                },
                match (measure, observed) {
                    (Some(measure), Some(observed)) =>
                        format!("{} {}", short(*observed), measure.name().replace('_', " ")),
                    _ => format!("{mistakes} mistakes"),
                },
                value.map(short).unwrap_or_default()
            ),
            Failure::MarginGuaranteeMissed {
                rule,
                promised,
                achieved,
            } => write!(
                f,
                "rule {rule}: the perceptron with margin converged to weights of margin {} below the \
                 {} it guarantees",
                short(*achieved),
                short(*promised)
            ),
            Failure::InvariantViolated {
                rule,
                order,
                violation,
                violations,
            } => write!(
                f,
                "rule {rule}{}: the proof's inequality {} fails at update {}: {} against {} \
                 (tolerance {:.3e}); {violations} violation{} in all",
                order
                    .as_ref()
                    .map(|o| format!(" (order {o})"))
                    .unwrap_or_default(),
                violation.inequality.statement(),
                violation.update,
                violation.lhs,
                violation.rhs,
                violation.tolerance,
                if *violations == 1 { "" } else { "s" }
            ),
            Failure::Overflow {
                rule,
                update,
                bound,
                value,
            } => write!(
                f,
                "rule {rule}: the weights overflowed to a non-finite value at update {update}, so the \
                 run cannot converge, although {bound} promises convergence after at most {} mistakes",
                short(*value)
            ),
        }
    }
}

impl Verdict {
    /// The applicable forms of the theorem that the run exceeded.
    fn bound_failures(&self) -> impl Iterator<Item = Failure> + '_ {
        self.bounds
            .iter()
            .filter(|checked| checked.holds == Some(false))
            .map(|checked| {
                let mut failure = exceeded(
                    &self.rule,
                    &checked.bound,
                    ExceededBy::Optimal,
                    self.fit.mistakes,
                );
                if let Failure::BoundExceeded {
                    measure, observed, ..
                } = &mut failure
                    && checked.bound.measure != Measure::Mistakes
                {
                    *measure = Some(checked.bound.measure);
                    *observed = checked.observed;
                }
                failure
            })
    }

    /// The proof's inequalities and the overflow check on the run.
    fn run_failures(&self) -> impl Iterator<Item = Failure> + '_ {
        let violated =
            self.invariants
                .first_violation
                .map(|violation| Failure::InvariantViolated {
                    rule: self.rule.clone(),
                    order: None,
                    violation,
                    violations: self.invariants.violations,
                });
        // Only the forms that need separable data promise convergence; those for any data bound the
        // mistakes of whatever sequence was presented, converged or not.
        let promise = self
            .bounds
            .iter()
            .filter(|b| !b.bound.kind.needs_run())
            .filter_map(|b| Some((b.bound.name, b.bound.value?)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let overflow = match (self.fit.stop_reason, promise) {
            (StopReason::NonFinite, Some((bound, value))) => Some(Failure::Overflow {
                rule: self.rule.clone(),
                update: self.fit.mistakes,
                bound: bound.to_string(),
                value,
            }),
            _ => None,
        };
        let guarantee = self.margin_guarantee.as_ref().and_then(|g| match g {
            MarginGuarantee {
                promised: Some(promised),
                achieved: Some(achieved),
                holds: Some(false),
                ..
            } => Some(Failure::MarginGuaranteeMissed {
                rule: self.rule.clone(),
                promised: *promised,
                achieved: *achieved,
            }),
            _ => None,
        });
        violated.into_iter().chain(overflow).chain(guarantee)
    }

    /// Every failed check of this run: an applicable bound exceeded, an inequality of the proof
    /// violated, or an overflow while a bound promised convergence. Empty when the run passed.
    ///
    /// ```
    /// use novikoff::{bounds::verify, perceptron::PerceptronParams, textbook};
    /// let data = textbook::example("seed004").unwrap();
    /// assert!(verify(&data, &PerceptronParams::new())?.failures().is_empty());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn failures(&self) -> Vec<Failure> {
        self.bound_failures().chain(self.run_failures()).collect()
    }
}

fn exceeded(rule: &str, bound: &Bound, by: ExceededBy, mistakes: u64) -> Failure {
    Failure::BoundExceeded {
        rule: rule.to_string(),
        by,
        bound: bound.name.to_string(),
        formula: bound.formula.to_string(),
        value: bound.value,
        mistakes,
        measure: None,
        observed: None,
    }
}

impl RuleReport {
    /// Every failed check of this rule: its run's ([`Verdict::failures`]), the supplied separator's
    /// bounds, and the adversarial orders' runs.
    pub fn failures(&self) -> Vec<Failure> {
        let v = &self.verdict;
        let mut failures: Vec<Failure> = v.bound_failures().collect();
        for bound in self.supplied.iter().flatten() {
            if bound.holds_for(v.fit.mistakes) == Some(false) {
                failures.push(exceeded(
                    &v.rule,
                    bound,
                    ExceededBy::Supplied,
                    v.fit.mistakes,
                ));
            }
        }
        failures.extend(v.run_failures());
        if let Some(adversary) = &self.adversary {
            for run in &adversary.runs {
                let order = run.strategy.name().to_string();
                if let Some(bound) = adversary.bound
                    && run.mistakes as f64 > bound * (1.0 + VALUE_RTOL)
                {
                    failures.push(Failure::BoundExceeded {
                        rule: v.rule.clone(),
                        by: ExceededBy::Adversary {
                            order: order.clone(),
                        },
                        bound: adversary
                            .bound_kind
                            .map(|kind| kind.id().to_string())
                            .unwrap_or_default(),
                        formula: String::new(),
                        value: Some(bound),
                        mistakes: run.mistakes,
                        measure: None,
                        observed: None,
                    });
                }
                if let Some(violation) = run.invariants.first_violation {
                    failures.push(Failure::InvariantViolated {
                        rule: v.rule.clone(),
                        order: Some(order),
                        violation,
                        violations: run.invariants.violations,
                    });
                }
            }
        }
        failures
    }
}

impl Report {
    /// Every failed check of every rule, in rule order; empty when the theorem survived every run.
    ///
    /// ```
    /// use novikoff::bounds::{report, Geometry, ReportOptions};
    /// use novikoff::{perceptron::PerceptronParams, textbook};
    /// let data = textbook::example("seed004").unwrap();
    /// // The separator (0, 1) misclassifies the data: its bounds do not apply, so nothing fails.
    /// let options = ReportOptions { separator: Some((vec![0.0, 1.0], 0.0)), ..Default::default() };
    /// let report = report(&Geometry::compute(&data)?, &[PerceptronParams::new()], &options)?;
    /// assert!(report.failures().is_empty());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn failures(&self) -> Vec<Failure> {
        self.rules.iter().flat_map(RuleReport::failures).collect()
    }
}

/// Train with each of `rules` on `data`, check every run against every form of the theorem and the
/// proof's inequalities, and add the checks of `options`. `geometry` is `data`'s, computed once.
///
/// ```
/// use novikoff::bounds::{report, AdversaryParams, Geometry, ReportOptions};
/// use novikoff::{perceptron::PerceptronParams, textbook};
/// let data = textbook::example("seed004").unwrap();
/// let options = ReportOptions { adversary: Some(AdversaryParams::new().restarts(2)), ..Default::default() };
/// let report = report(&Geometry::compute(&data)?, &[PerceptronParams::new()], &options)?;
/// let adversary = report.rules[0].adversary.as_ref().unwrap();
/// assert!(adversary.best_ratio.unwrap() <= 1.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn report(
    geometry: &Geometry<'_>,
    rules: &[PerceptronParams],
    options: &ReportOptions,
) -> Result<Report> {
    let verify_options = VerifyOptions {
        invariants: true,
        record_steps: options.record_steps,
    };
    let data = geometry.data();
    // Every parameter is checked before the first run.
    let adversary = options
        .adversary
        .clone()
        .map(AdversaryParams::check)
        .transpose()?;
    let perceptrons = rules
        .iter()
        .map(|params| params.clone().check())
        .collect::<Result<Vec<_>>>()?;
    let mut reports = Vec::with_capacity(rules.len());
    for (params, perceptron) in rules.iter().zip(&perceptrons) {
        let verdict = verify_with_options(geometry, params, &verify_options)?;
        let supplied = match &options.separator {
            Some((w, b)) => Some(bounds_for_separator(
                data,
                params,
                ndarray::ArrayView1::from(w.as_slice()),
                *b,
            )?),
            None => None,
        };
        let adversary = match &adversary {
            Some(adversary) => Some(search(geometry, perceptron, adversary)?),
            None => None,
        };
        reports.push(RuleReport {
            verdict,
            supplied,
            adversary,
        });
    }
    Ok(Report {
        geometry: geometry.summary(),
        rules: reports,
    })
}
