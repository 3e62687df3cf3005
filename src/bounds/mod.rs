//! The convergence theorem, checked: every form of the mistake bound with its hypotheses, the proof's
//! inequalities at every update, and the tight and adversarial cases.
//!
//! # The forms
//!
//! The five source documents state one theorem in five forms. Each is a [`BoundKind`], evaluated on a
//! dataset and a run as a [`Bound`] that lists its hypotheses, checks each on the data, and carries a value
//! only when all of them hold:
//!
//! | form | source | run | hypotheses checked | mistakes ≤ |
//! |---|---|---|---|---|
//! | Block–Novikoff | seed 004 | no bias | separable through the origin | `(R/γ)²`, γ the margin through the origin |
//! | Haykin | seed 003 | no bias | separable through the origin | `β/α²`, β = max‖x‖², α = min y·w*·x, ‖w*‖ = 1 |
//! | Helmbold | seed 000 | no bias | every ‖x‖ = 1; separable through the origin | `1/δ²`, δ = min y·u·x |
//! | Augmented vectors | seed 000, Simpl. 1 | `b += η·y` (c = 1; any c ≠ 0, R) | `(x, c)` separable through the origin | `(R'/γ')²` on `x' = (x, c)` |
//! | CS 536 | seed 001 | `b += y` (c = 1) | every ‖x‖ = 1; separable; `b² ≤ ‖w‖²` | `4/γ²`, γ the free-bias margin |
//! | Novikoff with bias | seed 002 | `b += η·y·R²` (c = R) | both labels; separable; `|b_opt| ≤ R` | `(2R/γ)²`, γ the free-bias margin |
//! | Novikoff with bias, tight | seed 002's proof | `b += η·y·R²` | `(x, R)` separable through the origin | `2R²/γ̂²`, γ̂ the margin of `(x, R)` |
//!
//! Every form also needs the run to start from `w = 0, b = 0`, and is about the rule it names: the run
//! with bias rule `c` is the perceptron without bias on `(x, c)` (see
//! [`BiasRule`](crate::perceptron::BiasRule)), so a form proved for one `c` says nothing about another.
//!
//! **The tight form of seed 002.** Lemmas 2 and 3 of seed 002 are the two lemmas of Block–Novikoff for the
//! vectors `x̂ = (x, R)`: with `u` the optimal unit separator of the `x̂` through the origin and γ̂ its
//! margin, `k·η·γ̂ ≤ u·ŵ_k ≤ ‖ŵ_k‖ ≤ √k·η·max‖x̂‖`, and `max‖x̂‖² = R² + R² = 2R²`, so
//! `k ≤ 2R²/γ̂² = (√2·R/γ̂)²`. It is valid with no hypothesis on `b_opt`, and never larger than `(2R/γ)²`:
//! the free-bias optimum `(w, b)` gives the `x̂` the separator `(w, b/R)`, of length `√(1 + (b/R)²) ≤ √2`
//! when `|b| ≤ R`, so `γ̂ ≥ γ/√2`.
//!
//! **η.** Seed 002 carries η through its lemmas, and η cancels. The other sources take η = 1; from a zero
//! start, the run with η makes every update η times the update of the run with η = 1 (every rule of the
//! crate scales the bias update by η too: `b += η·y·c²`), so in exact arithmetic the mistakes do not
//! depend on η, and the lemmas with η give the same bound. From a non-zero start this is false, and no form
//! applies. (A rule `w += η·y·x, b += y` with η ≠ 1 would be the perceptron on `(x, 1/√η)`, not CS 536's.)
//!
//! **Rigour.** The margin module returns the maximum margin as a bracket `[lower, upper]`, where `lower` is
//! the margin its separator achieves on the data. A bound computed from `lower` holds for that separator,
//! so it is a rigorous bound; [`Bound::value`] uses it, and [`Bound::value_bracket`] adds the value at
//! `upper`. The unit-norm forms accept `|‖x‖ − 1| ≤` [`UNIT_NORM_TOL`] and use `max(1, R²)` in place of 1;
//! CS 536 uses `max(1, b²)` in place of 1, so that their values stay rigorous inside the tolerance.
//! [`Bound::holds_for`] allows [`VALUE_RTOL`] for the rounding of the value itself.
//!
//! # Checking a run
//!
//! [`verify()`] trains and returns a [`Verdict`]: the run's mistakes and epochs, every form with
//! `applies`, `value`, `reason`, `ratio` and `holds`, the margins, and an [`InvariantReport`]. The proof's
//! inequalities `u·ŵ_k ≥ k·η·γ` and `‖ŵ_k‖² ≤ k·η²·R̂²` are checked after every update by an
//! [`InvariantCheck`], a [`TraceSink`](crate::perceptron::TraceSink) costing O(d) per update (its page
//! states the inequalities and their rounding tolerances). For many runs on one dataset, compute the [`Geometry`] once (four
//! margin problems) and call [`verify_with`] for each.
//!
//! ```
//! use ndarray::array;
//! use novikoff::bounds::{verify_with, BoundKind, Geometry};
//! use novikoff::{perceptron::{BiasRule, PerceptronParams}, Dataset};
//!
//! // Seed 004's worked example: R² = 5, γ = 1, and the perceptron makes 3 mistakes.
//! let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
//! let data = Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])?;
//! let geometry = Geometry::compute(&data)?;
//!
//! let verdict = verify_with(&geometry, &PerceptronParams::new())?;
//! assert_eq!((verdict.fit.mistakes, verdict.holds), (3, Some(true)));
//! assert_eq!(verdict.tightest, Some(BoundKind::BlockNovikoff));
//! assert!((verdict.bound.unwrap() - 5.0).abs() < 1e-6);
//! assert_eq!((verdict.invariants.updates, verdict.invariants.violations), (3, 0));
//!
//! // The same geometry serves the other rules.
//! let with_bias = verify_with(&geometry, &PerceptronParams::new().bias(BiasRule::Novikoff))?;
//! assert_eq!(with_bias.holds, Some(true));
//! # Ok::<(), novikoff::Error>(())
//! ```
//!
//! The theorem holds for every separator, with its own margin: [`bounds_for_separator`] evaluates the
//! forms for a separator `(w, b)` you supply. [`tight_basis`] builds the case where the bound is attained,
//! and [`search`] looks for presentation orders that force more mistakes than the cyclic pass.

mod adversary;
mod any_u;
mod any_u_forms;
mod bound;
mod comparator;
mod evaluate;
pub(crate) mod feature_space;
mod geometry;
mod hypotheses;
mod invariant_report;
mod invariants;
mod json;
mod kinds;
mod margin_guarantee;
mod margin_solve;
mod report;
mod separation;
mod summary;
mod verify;

pub use adversary::{
    Adversary, AdversaryParams, AdversaryReport, AdversaryRun, Strategy, search, tight_basis,
};
pub use bound::{Bound, Hypothesis, SeparatorSource, VALUE_RTOL};
pub use comparator::Comparator;
pub use evaluate::{bounds, bounds_for_separator};
#[doc(hidden)]
pub use geometry::{CertificateSummary, MarginSummary, MarginsSummary};
pub use geometry::{Geometry, GeometrySummary, UNIT_NORM_TOL};
pub use invariants::{
    Inequality, InvariantCheck, InvariantReport, InvariantStatus, InvariantStep, Violation,
};
pub use json::ReportJson;
pub use kinds::{BoundKind, Measure, RuleFamily};
pub use margin_guarantee::MarginGuarantee;
pub use margin_solve::{CERTIFICATE_RTOL, MarginSolve};
pub use report::{ExceededBy, Failure, Report, ReportOptions, RuleReport, report};
pub use verify::{CheckedBound, Verdict, VerifyOptions, verify, verify_with, verify_with_options};
