//! The `[measure]` table of a spec: which measurements every task takes, and the limits of the
//! maximum-margin solves they need.

use serde::{Deserialize, Serialize};

use crate::margin::{Bias, MaxMarginParams};

/// Which measurements every task takes.
///
/// ```
/// assert!(novikoff::experiment::Measure::default().bounds);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    /// Solve for the maximum margin (needed by `bounds`).
    #[serde(default = "yes")]
    pub margin: bool,
    /// Evaluate every mistake bound and check it.
    #[serde(default = "yes")]
    pub bounds: bool,
    /// Check the proof's inequalities at every update.
    #[serde(default = "yes")]
    pub invariants: bool,
    /// Record a thinned trace of cos(u, w_k) and ‖w_k‖ for the plots.
    #[serde(default)]
    pub trace_summary: bool,
    /// Mebibytes the working set of each maximum-margin solve may take (as `margin
    /// --working-set-mb`); `None` keeps the solver's default of 128.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_set_mb: Option<u64>,
}

fn yes() -> bool {
    true
}

impl Default for Measure {
    fn default() -> Self {
        Self {
            margin: true,
            bounds: true,
            invariants: true,
            trace_summary: false,
            working_set_mb: None,
        }
    }
}

impl Measure {
    /// The maximum-margin solver's limits these measurements ask for (`bias` is each problem's own; see
    /// [`Geometry::compute_with`](crate::bounds::Geometry::compute_with)), checked when the spec is.
    ///
    /// ```
    /// use novikoff::{experiment::Measure, margin::{Bias, MaxMarginParams}};
    /// assert_eq!(Measure::default().solver(Bias::Free), MaxMarginParams::new(Bias::Free));
    /// let measure = Measure { working_set_mb: Some(512), ..Measure::default() };
    /// assert_eq!(
    ///     measure.solver(Bias::Free),
    ///     MaxMarginParams::new(Bias::Free).working_set_memory(512 << 20)
    /// );
    /// ```
    pub fn solver(&self, bias: Bias) -> MaxMarginParams {
        MaxMarginParams::new(bias).working_set_mebibytes(self.working_set_mb)
    }
}
