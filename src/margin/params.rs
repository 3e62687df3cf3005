//! The solver's parameters, validated.

use super::Bias;

use crate::error::{Error, Result};

/// The default of [`MaxMarginParams::working_set_memory`]: 128 MiB.
pub const DEFAULT_WORKING_SET_MEMORY: usize = 128 << 20;

/// The least [`MaxMarginParams::working_set_memory`] accepted.
const MIN_WORKING_SET_MEMORY: usize = 1 << 10;

/// Unvalidated parameters of [`max_margin`](super::max_margin()).
///
/// The solver always drives the bracket as tight as `f64` allows: on well-conditioned data the relative
/// width is typically 10⁻¹³ to 10⁻¹¹; on data whose margin is 10⁻⁸ of the radius, about 10⁻⁷. The
/// tolerance only decides whether the result is reported as [`MarginResult::Separable`](super::MarginResult::Separable) or as
/// [`MarginResult::Inaccurate`](super::MarginResult::Inaccurate).
///
/// | parameter | default | meaning |
/// |---|---|---|
/// | `bias` | (required) | [`Bias::Free`] or [`Bias::ThroughOrigin`] |
/// | `tolerance` | `1e-6` | the largest relative bracket width `(upper − lower)/upper` reported as [`MarginResult::Separable`](super::MarginResult::Separable) |
/// | `certificate_tolerance` | `1e-9` | the largest accepted certificate residual, relative to the smaller of `R` and the smallest feature scale, and to the mean length of the rows it mixes |
/// | `max_rounds` | `100` | rounds (an exact solve on the working set, then one pass over the data) |
/// | `max_polish_iterations` | `10 000` | active-set iterations of each exact solve on the working set |
/// | `time_limit` | none | seconds after which no new round starts |
/// | `working_set_memory` | 128 MiB | bytes the exact solve's factorisation (and a sparse working set's points) may take; a sparse working set solved by the first-order method (where its exact solve would outweigh the data, see the module docs of `margin`) takes none of it |
///
/// Reaching a limit returns [`MarginResult::Inaccurate`](super::MarginResult::Inaccurate) with the last
/// round's rigorous bracket and the reason.
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{Bias, MaxMarginParams};
/// let data = novikoff::Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
/// let solver = MaxMarginParams::new(Bias::Free).tolerance(1e-6).check()?;
/// assert!(solver.solve(&data)?.is_separable());
/// assert!(MaxMarginParams::new(Bias::Free).tolerance(0.0).check().is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MaxMarginParams {
    pub(super) bias: Bias,
    pub(super) tolerance: f64,
    pub(super) certificate_tolerance: f64,
    pub(super) max_rounds: usize,
    pub(super) max_polish_iterations: usize,
    pub(super) time_limit: Option<f64>,
    pub(super) working_set_memory: usize,
}

impl MaxMarginParams {
    /// Defaults for the given bias.
    ///
    /// ```
    /// let params = novikoff::margin::MaxMarginParams::new(novikoff::margin::Bias::Free);
    /// assert_eq!(params.clone().check().unwrap().tolerance(), 1e-6);
    /// ```
    pub fn new(bias: Bias) -> Self {
        Self {
            bias,
            tolerance: 1e-6,
            certificate_tolerance: 1e-9,
            max_rounds: 100,
            max_polish_iterations: 10_000,
            time_limit: None,
            working_set_memory: DEFAULT_WORKING_SET_MEMORY,
        }
    }

    /// The largest accepted relative bracket width, in `(0, 1)`.
    ///
    /// ```
    /// let p = novikoff::margin::MaxMarginParams::new(novikoff::margin::Bias::Free).tolerance(1e-6);
    /// assert_eq!(p.clone().check().unwrap().tolerance(), 1e-6);
    /// ```
    #[must_use]
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The largest accepted certificate residual, in `(0, 1)`: relative to the smaller of the radius and
    /// the smallest scale `maxᵢ|xᵢⱼ|` of a non-zero feature, and relative to the mean length of the rows
    /// the certificate mixes (so that those rows, each changed by at most this fraction of its length,
    /// are exactly not separable).
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert!(MaxMarginParams::new(Bias::Free).certificate_tolerance(2.0).check().is_err());
    /// ```
    #[must_use]
    pub fn certificate_tolerance(mut self, tolerance: f64) -> Self {
        self.certificate_tolerance = tolerance;
        self
    }

    /// Rounds: each solves the working set exactly and then makes one pass over the data.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert!(MaxMarginParams::new(Bias::Free).max_rounds(0).check().is_err());
    /// ```
    #[must_use]
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Iterations of the exact active-set polish.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert!(MaxMarginParams::new(Bias::Free).max_polish_iterations(10).check().is_ok());
    /// ```
    #[must_use]
    pub fn max_polish_iterations(mut self, iterations: usize) -> Self {
        self.max_polish_iterations = iterations;
        self
    }

    /// Seconds after which the solve stops, finite and positive: no new round starts, and the solve of
    /// a round's working set stops at its next look at the clock. The answer is then `Inaccurate`,
    /// bracketed by the last round's answer; stopped in the first round, by the first-order solve's
    /// weights where that solve runs (sparse working sets that would outweigh the data), and by
    /// `(−∞, ∞)` otherwise.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert!(MaxMarginParams::new(Bias::Free).time_limit(0.5).check().is_ok());
    /// assert!(MaxMarginParams::new(Bias::Free).time_limit(-1.0).check().is_err());
    /// ```
    #[must_use]
    pub fn time_limit(mut self, seconds: f64) -> Self {
        self.time_limit = Some(seconds);
        self
    }

    /// The bytes the working set's points and the exact solve's factorisation may take together: dense
    /// rows are read where the dataset holds them (copied only while they are at most an eighth of the
    /// data, outside this budget), sparse rows take their coordinates in their span, packed (row `k` of
    /// the working set at most `k + 1` of them, about `8·|W|·rank/2` bytes in all), and the
    /// factorisation of `|S|` active rows about `8·|S|·(dim + |S|/2)` with its orthogonal factor `Q`,
    /// or `8·|S|²/2` without it. A solve keeps `Q` while the factorisation fits this budget and a
    /// quarter of the values the dataset stores (or 1 MiB, whichever is more), then drops it and goes
    /// on with the triangle alone, reading the support's points where `Q` was read: slower (1.15 × on
    /// a 3000 × 2500 set with 1652 support rows, 1.4 × on the README's 9000 × 7000 one, in session 19;
    /// as fast as with `Q` on the README's rcv1- and news20-shaped files), but what keeps a solve with
    /// thousands of support rows near the data's own size. The rest of a solve's
    /// memory is `O(n + d)`, so the budget bounds what a solve adds to the dataset, and a large dense
    /// set cannot run out of memory because its support is large. Past the budget the solve ends as
    /// [`MarginResult::Inaccurate`](super::MarginResult::Inaccurate) with its rigorous bracket and a
    /// reason that names this parameter. At least 1 KiB.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert!(MaxMarginParams::new(Bias::Free).working_set_memory(512 << 20).check().is_ok());
    /// assert!(MaxMarginParams::new(Bias::Free).working_set_memory(0).check().is_err());
    /// ```
    #[must_use]
    pub fn working_set_memory(mut self, bytes: usize) -> Self {
        self.working_set_memory = bytes;
        self
    }

    /// [`MaxMarginParams::working_set_memory`] in mebibytes (2²⁰ bytes), how `margin --working-set-mb`
    /// and a spec's `[measure] working_set_mb` give it; `None` (an option not given) keeps the budget
    /// as it is. A budget beyond the address space is refused by [`MaxMarginParams::check`], as is 0.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// let params = MaxMarginParams::new(Bias::Free);
    /// assert_eq!(params.clone().working_set_mebibytes(2), params.clone().working_set_memory(2 << 20));
    /// assert_eq!(params.clone().working_set_mebibytes(None), params);
    /// assert!(params.working_set_mebibytes(u64::MAX).check().is_err());
    /// ```
    #[must_use]
    pub fn working_set_mebibytes(self, mebibytes: impl Into<Option<u64>>) -> Self {
        match mebibytes.into() {
            Some(mebibytes) => {
                let bytes = mebibytes.saturating_mul(1 << 20);
                self.working_set_memory(usize::try_from(bytes).unwrap_or(usize::MAX))
            }
            None => self,
        }
    }

    /// The bias.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// assert_eq!(MaxMarginParams::new(Bias::ThroughOrigin).bias(), Bias::ThroughOrigin);
    /// ```
    pub fn bias(&self) -> Bias {
        self.bias
    }

    /// The same limits for another bias: what a caller that solves several problems with one set of
    /// limits (the geometry's four) uses.
    #[must_use]
    pub(crate) fn with_bias(mut self, bias: Bias) -> Self {
        self.bias = bias;
        self
    }

    /// Validate the parameters.
    ///
    /// ```
    /// use novikoff::margin::{Bias, MaxMarginParams};
    /// let err = MaxMarginParams::new(Bias::Free).tolerance(f64::NAN).check().unwrap_err();
    /// assert!(err.to_string().contains("tolerance"));
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for a tolerance outside `(0, 1)`, a zero iteration limit or a time limit that
    /// is not a positive number of seconds, or a working-set memory below 1 KiB or beyond the address
    /// space.
    pub fn check(self) -> Result<MaxMargin> {
        let in_unit = |t: f64| t > 0.0 && t < 1.0;
        if !in_unit(self.tolerance) {
            return Err(Error::parameter(
                "tolerance",
                format!("{} is not in (0, 1)", self.tolerance),
            ));
        }
        if !in_unit(self.certificate_tolerance) {
            return Err(Error::parameter(
                "certificate_tolerance",
                format!("{} is not in (0, 1)", self.certificate_tolerance),
            ));
        }
        if self.max_rounds == 0 {
            return Err(Error::parameter("max_rounds", "must be at least 1"));
        }
        if self.max_polish_iterations == 0 {
            return Err(Error::parameter(
                "max_polish_iterations",
                "must be at least 1",
            ));
        }
        if let Some(seconds) = self.time_limit
            && !(seconds.is_finite() && seconds > 0.0)
        {
            return Err(Error::parameter(
                "time_limit",
                format!("{seconds} is not a finite positive number of seconds"),
            ));
        }
        if self.working_set_memory < MIN_WORKING_SET_MEMORY {
            return Err(Error::parameter(
                "working_set_memory",
                format!(
                    "{} bytes is less than the {MIN_WORKING_SET_MEMORY} bytes a working set needs",
                    self.working_set_memory
                ),
            ));
        }
        if self.working_set_memory > isize::MAX as usize {
            return Err(Error::parameter(
                "working_set_memory",
                format!(
                    "{} bytes is more than the address space holds",
                    self.working_set_memory
                ),
            ));
        }
        Ok(MaxMargin { params: self })
    }
}

/// A validated maximum-margin solver; see [`MaxMarginParams`].
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{Bias, MaxMarginParams};
/// let solver = MaxMarginParams::new(Bias::ThroughOrigin).check()?;
/// let data = novikoff::Dataset::new(array![[1.0, 1.0], [2.0, -1.0]], array![1.0, 1.0])?;
/// let result = solver.solve(&data)?;
/// assert!(result.is_separable());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MaxMargin {
    pub(super) params: MaxMarginParams,
}
