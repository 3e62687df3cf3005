//! The active set of Wolfe's algorithm ("corral"): affinely independent rows with their weights, and an
//! updatable QR factorisation of the differences that define their affine hull.
//!
//! Each group (one simplex through the origin, one per class with a free bias) has a *base* row `b`; every
//! other member `k` contributes the column `eₖ = zₖ − z_b` (`zᵢ = yᵢpᵢ`). The affine minimiser of the set
//! is `v = Σ_g z_{b_g} + E·t` with `t` minimising `‖v‖`, a least-squares problem solved with `E = Q·R`.
//! Adding a member appends a column (Gram–Schmidt with one reorthogonalisation, `O(r·m)`; the violators
//! of one major iteration are projected as a batch, which reads `Q` once for all of them, see `batch`),
//! removing one deletes a column and restores the triangle with Givens rotations (`O(r·m)`: `R` a block
//! of columns at a time; the rotations of `Q` queued and applied on the kernel's SIMD rotation when `Q`
//! is next read, so that a minor cycle's deletions read `Q` once between them), so that one iteration of the
//! polish costs a pass over the data rather than a factorisation. The members are kept affinely
//! independent (Carathéodory's reduction when a start is degenerate), so `R` is always non-singular.
//!
//! `Q` is as large as `|S|` rows of the data: past a share of the data (and of the memory budget) it is
//! dropped, and every product with it goes through `R` and the support's points instead (see
//! `implicit`). A sparse working set's start is then factored straight from its coordinates in the span,
//! where the members' columns form a staircase (see `staircase`), not by passes through the points.
//!
//! Past [`PARALLEL_PASS`] values the threads share the work with the bits of one thread: a batch's
//! columns (`batch`, `implicit`), and the rows of the products with `Q` and the support's points
//! between them (`by_rows`).

use super::accurate::CompensatedVector;
use super::problem::Problem;
use crate::simd::{Aligned, Summation, axpy, dot};

mod batch;
mod by_rows;
mod implicit;
mod parts;
mod qr;
mod refactor;
mod staircase;

pub(crate) use parts::CorralParts;

/// The active set and its factorisation.
pub(crate) struct Corral<'a> {
    problem: &'a Problem<'a>,
    /// Weight of every row (zero for non-members).
    weight: Vec<f64>,
    member: Vec<bool>,
    /// The members, in no particular order.
    rows: Vec<usize>,
    /// The base row of each group.
    base: Vec<Option<usize>>,
    /// The row of each column of `E`, in factorisation order.
    columns: Vec<usize>,
    /// Columns of `Q` (each of length `r`), as they stood before the rotations in `pending`: a
    /// deletion's rotations are queued, and the columns that rotations pushed past the end are dropped,
    /// when `Q` is next read ([`Corral::apply_rotations`]). Empty once `Q` is implicit. Each starts a
    /// cache line ([`Aligned`]): Gram–Schmidt's steps load and store them a whole register at a time.
    q: Vec<Aligned>,
    /// `Q` was dropped: it is `E·R⁻¹`, applied through the points (see `implicit`).
    implicit: bool,
    /// The most values `Q` and `R` may hold while `Q` is explicit.
    explicit_values: usize,
    /// Rotations `(i, c, s)` of columns `i, i+1` of `Q`, in the order they were found.
    pending: Vec<(usize, f64, f64)>,
    /// Columns of `R`: column `j` holds `R[0..=j, j]` and one spare row below, zero in the triangle, which
    /// a deletion's or a rebase's Givens rotations fill while the factor is upper Hessenberg. About
    /// `|S|²/2` values, allocated once per column.
    r: Vec<Vec<f64>>,
    /// The squared length of `R`'s longest column and its position, for
    /// [`Corral::condition_estimate`], kept as `R` changes rather than read from all of it at every
    /// call (a minor cycle's every step asks). Rotations keep each column's length, so only a column
    /// appended, deleted or rebased changes it.
    longest_column: (f64, usize),
    /// Compute points and normals in twice working precision (needed when the margin is a tiny fraction
    /// of the radius; otherwise plain arithmetic is accurate enough and much cheaper).
    accurate: bool,
    /// `Qᵀ·z_B` with `z_B` the sum of the bases' points (the right-hand side of the affine minimiser's
    /// least-squares problem), kept through appends and rotations; recomputed when a base changes.
    qtb: Vec<f64>,
    qtb_valid: bool,
    /// Each row's column in the factorisation (`usize::MAX` for bases and non-members).
    column_of: Vec<usize>,
    /// Columns passed through `R` so far (`implicit`), one per column a pass.
    #[cfg(test)]
    implicit_passes: std::sync::atomic::AtomicUsize,
    /// Affine minimisers refined from the points (the tests' view of what a minor cycle skips).
    #[cfg(test)]
    refinements: usize,
}

/// [`Corral::longest_column`] of an empty `R`.
const NO_COLUMN: (f64, usize) = (0.0, usize::MAX);

/// Relative size below which a new column counts as dependent on the others.
const DEPENDENT: f64 = 1e-13;

/// A column is orthogonalised a second time when the first pass left less than this fraction of its
/// length. One pass of modified Gram–Schmidt against orthonormal columns leaves the new column
/// orthogonal to them to within about `u·‖e‖/‖e′‖` (`e` before the pass, `e′` after), so the second
/// pass matters only when the first cancelled most of the column: at 0.1 a column that skips it is
/// orthogonal to about `10·u`. With 0.5 (Kahan's criterion for classical Gram–Schmidt, stricter than
/// the modified form needs) four appends in five paid a second pass on the 2·10⁴ × 1000 problem of
/// `benches/margin_passes`, where the first pass typically keeps 10–50 % of a column in a
/// thousand-dimensional space; that second pass was a fifth of the solve.
const REORTHOGONALISE: f64 = 0.1;

/// Values read by one column's pass (`|S| × r`: the points through `R` in `implicit`'s pass, the columns
/// of `Q` in a batch's projection) from which a batch's columns are shared among the threads: below it
/// a column's pass (a few products a value) is too short to pay for a thread's start.
const PARALLEL_PASS: usize = 1 << 17;

/// How many times the semi-normal equations' error estimate `κ(R)²·u` a minor cycle's unrefined weight
/// must be negative by to decide a step ([`Corral::minor_cycle_target`]). The estimate takes a lower
/// bound of `κ(R)`, hence the room; a row wrongly judged to leave costs a major iteration to come back,
/// never the bracket.
const ROUGH_STEP_MARGIN: f64 = 256.0;

impl<'a> Corral<'a> {
    /// An empty corral.
    pub(crate) fn new(problem: &'a Problem<'a>) -> Self {
        let n = problem.n();
        Corral {
            problem,
            weight: vec![0.0; n],
            member: vec![false; n],
            rows: Vec::new(),
            base: vec![None; problem.groups()],
            columns: Vec::new(),
            q: Vec::new(),
            implicit: false,
            explicit_values: Self::explicit_values_for(problem.data_values()),
            pending: Vec::new(),
            r: Vec::new(),
            longest_column: NO_COLUMN,
            accurate: true,
            qtb: Vec::new(),
            qtb_valid: false,
            column_of: vec![usize::MAX; n],
            #[cfg(test)]
            implicit_passes: std::sync::atomic::AtomicUsize::new(0),
            #[cfg(test)]
            refinements: 0,
        }
    }

    /// Whether the columns span the whole space, so that no row can join before one leaves.
    pub(crate) fn is_full(&self) -> bool {
        self.columns.len() >= self.problem.dim()
    }

    /// The values the factorisation holds with one more column: `R` (`j + 2` in column `j`), and `Q`
    /// (`dim` a column) while it is explicit, for the memory budget of
    /// [`PolishSettings`](super::polish::PolishSettings).
    pub(crate) fn values_with_one_more(&self) -> usize {
        if self.implicit {
            Self::implicit_values_for(self.columns.len() + 1)
        } else {
            Self::values_for(self.problem, self.columns.len() + 1)
        }
    }

    /// The values a factorisation of `columns` columns holds on `problem` with `Q`.
    pub(crate) fn values_for(problem: &Problem, columns: usize) -> usize {
        columns.saturating_mul(problem.dim() + columns.div_ceil(2) + 1)
    }

    /// Hold the factorisation to `factor_values` values: `Q` is dropped before it would pass them
    /// (or its share of the data), and `R` alone must stay within them.
    pub(crate) fn limit_values(&mut self, factor_values: usize) {
        self.explicit_values = self.explicit_values.min(factor_values);
    }

    /// Choose between twice working precision and plain arithmetic for points and normals.
    pub(crate) fn set_accurate(&mut self, accurate: bool) {
        self.accurate = accurate;
    }

    pub(crate) fn rows(&self) -> &[usize] {
        &self.rows
    }

    pub(crate) fn weight(&self, row: usize) -> f64 {
        self.weight[row]
    }

    pub(crate) fn is_member(&self, row: usize) -> bool {
        self.member[row]
    }

    /// The column of a non-base member.
    fn column_of(&self, row: usize) -> Aligned {
        // Invariant: a group's base is set before any other member joins it (`refactor`, `add`) and is
        // replaced when it leaves (`rebase`), so a non-base member always finds one.
        let base = self.base[self.problem.group(row)].expect("every group with members has a base");
        // `zₖ − z_b` with `zᵢ = yᵢ·pᵢ`.
        let (mut row_buffer, mut base_buffer) = (Vec::new(), Vec::new());
        let (y, y_base) = (self.problem.labels[row], self.problem.labels[base]);
        let point = self.problem.point(row, &mut row_buffer);
        let base_point = self.problem.point(base, &mut base_buffer);
        Aligned::collect(
            point.len().min(base_point.len()),
            point
                .iter()
                .zip(base_point)
                .map(|(&p, &q)| y * p - y_base * q),
        )
    }

    /// Start from rows and non-negative weights: normalise per group, choose the heaviest row of each
    /// group as its base and factor, dropping rows by Carathéodory's reduction until the members are
    /// affinely independent (this moves weights but not the point `v`). A working set in its span
    /// without `Q` takes each group's first member as its base instead and is factored by Householder's
    /// reflections on its coordinates (`staircase`), unless a member depends on the others.
    pub(crate) fn reset(&mut self, start: &[(usize, f64)]) {
        for &i in &self.rows {
            self.weight[i] = 0.0;
            self.member[i] = false;
        }
        self.rows.clear();
        for &(i, c) in start {
            if c > 0.0 && c.is_finite() && !self.member[i] {
                self.member[i] = true;
                self.weight[i] = c;
                self.rows.push(i);
            }
        }
        self.normalise();
        let columns = self.rows.len().saturating_sub(self.problem.groups());
        if Self::values_for(self.problem, columns.min(self.problem.dim())) > self.explicit_values {
            self.drop_q();
        }
        if !self.factor_staircase() {
            self.refactor();
        }
    }

    /// Rescale the weights of each group to sum to 1.
    pub(crate) fn normalise(&mut self) {
        let mut totals = vec![0.0; self.problem.groups()];
        for &i in &self.rows {
            totals[self.problem.group(i)] += self.weight[i];
        }
        for &i in &self.rows {
            let t = totals[self.problem.group(i)];
            if t > 0.0 {
                self.weight[i] /= t;
            }
        }
    }

    fn remove_member(&mut self, row: usize) {
        self.member[row] = false;
        self.weight[row] = 0.0;
        self.rows.retain(|&i| i != row);
    }

    /// Add a row with weight zero. Returns false (and leaves the corral unchanged) when its column depends
    /// on the members'.
    pub(crate) fn add(&mut self, row: usize) -> bool {
        if self.member[row] {
            return false;
        }
        let g = self.problem.group(row);
        if self.base[g].is_none() {
            self.base[g] = Some(row);
            self.qtb_valid = false;
        } else if self.append(row).is_err() {
            return false;
        }
        self.member[row] = true;
        self.weight[row] = 0.0;
        self.rows.push(row);
        true
    }

    /// Remove a member; a base is replaced by refactoring.
    pub(crate) fn remove(&mut self, row: usize) {
        if !self.member[row] {
            return;
        }
        self.remove_member(row);
        if let Some(g) = self.base.iter().position(|&b| b == Some(row)) {
            self.rebase(g);
        } else if let Some(position) = self.columns.iter().position(|&c| c == row) {
            self.delete_column(position);
        }
    }

    /// `Σ wᵢ·zᵢ` over the members for the given weights (indexed by row), in twice working precision.
    pub(crate) fn combine(&self, weight: impl Fn(usize) -> f64) -> Vec<f64> {
        let r = self.problem.dim();
        if !self.accurate {
            return self.combine_plain(weight);
        }
        // Over each point's stored coordinates only: adding a multiple of zero changes no sum.
        let mut acc = CompensatedVector::zeros(r);
        let mut buffer = Vec::new();
        for &i in &self.rows {
            let point = self.problem.stored(i, &mut buffer);
            acc.add_scaled(weight(i) * self.problem.labels[i], point);
        }
        acc.values()
    }

    /// `Σ wᵢ·zᵢ` over the members in plain arithmetic; past [`PARALLEL_PASS`] values the threads share
    /// the coordinates ([`by_rows::add_points`]), with the same bits.
    fn combine_plain(&self, weight: impl Fn(usize) -> f64) -> Vec<f64> {
        let dim = self.problem.dim();
        let mut v = vec![0.0; dim];
        let coefficients: Vec<f64> = self
            .rows
            .iter()
            .map(|&i| weight(i) * self.problem.labels[i])
            .collect();
        let threads = by_rows::on_threads(self.rows.len() * dim);
        by_rows::add_points(self.problem, &self.rows, &coefficients, &mut v, threads);
        v
    }

    /// The current point `v = Σ wᵢzᵢ`.
    pub(crate) fn point(&self) -> Vec<f64> {
        self.combine(|i| self.weight[i])
    }

    /// The affine minimiser's weights, always refined where they would be (the tests' reference for
    /// [`Corral::minor_cycle_target`]).
    #[cfg(test)]
    pub(crate) fn affine_minimiser(&mut self) -> Vec<(usize, f64)> {
        self.affine_weights(false)
    }

    /// The weights a minor cycle moves towards: the affine minimiser's (any sign; summing to 1 per
    /// group), as `(row, weight)` over the members, `t = −R⁻¹·Qᵀ·z_B` from the kept right-hand side, a
    /// triangular solve rather than a pass over the members. In twice-working-precision mode, and
    /// without `Q` when `R` is ill-conditioned, they are refined with residuals computed from the
    /// points, two passes through the support's points each.
    ///
    /// Without `Q`, the unrefined weights serve when one of them is negative beyond their error
    /// (`ROUGH_STEP_MARGIN·κ(R)²·u` of the largest), with those inside it taken as zero. Such weights
    /// only choose the row that leaves first and how far to move towards them, a step that keeps the
    /// weights a convex combination whatever their accuracy, and the cycle settles on refined weights
    /// only. On the rcv1-shaped set with flipped labels of the README, minor cycles that dropped
    /// hundreds of rows one at a time had spent most of the solve refining.
    pub(crate) fn minor_cycle_target(&mut self) -> Vec<(usize, f64)> {
        self.affine_weights(true)
    }

    /// [`Corral::minor_cycle_target`], taking the unrefined weights for a step only when `rough_steps`.
    fn affine_weights(&mut self, rough_steps: bool) -> Vec<(usize, f64)> {
        if !self.qtb_valid {
            self.refresh_qtb();
        }
        if self.accurate {
            self.apply_rotations();
        }
        let groups = self.problem.groups();
        // The weight of a row for coefficients t: its coefficient, or for a base the rest of its group.
        let base_weights = |t: &[f64]| -> Vec<f64> {
            let mut rest = vec![1.0; groups];
            for (&c, &tc) in self.columns.iter().zip(t) {
                rest[self.problem.group(c)] -= tc;
            }
            rest
        };
        let value = |t: &[f64], rest: &[f64], row: usize| -> f64 {
            match self.column_of[row] {
                usize::MAX => rest[self.problem.group(row)],
                k => t[k],
            }
        };
        let by_row = |t: &[f64]| -> Vec<(usize, f64)> {
            let rest = base_weights(t);
            self.rows.iter().map(|&i| (i, value(t, &rest, i))).collect()
        };
        let mut t = self.back_substitute(&self.qtb);
        t.iter_mut().for_each(|x| *x = -*x);
        // Without `Q`, `t` solves the semi-normal equations, accurate to `κ(R)²·u` only: refined too
        // when that could pass what plain arithmetic allows.
        let semi_normal_error = if self.implicit && !self.accurate {
            self.semi_normal_error()
        } else {
            None
        };
        if rough_steps && let Some(error) = semi_normal_error.filter(|e| e.is_finite()) {
            let mut rough = by_row(&t);
            let largest = rough.iter().map(|&(_, a)| a.abs()).fold(0.0, f64::max);
            let margin = ROUGH_STEP_MARGIN * error * largest;
            if rough.iter().any(|&(_, a)| a < -margin) {
                for (_, a) in &mut rough {
                    if *a < 0.0 && *a >= -margin {
                        *a = 0.0;
                    }
                }
                return rough;
            }
        }
        if self.accurate || semi_normal_error.is_some() {
            #[cfg(test)]
            {
                self.refinements += 1;
            }
            for _ in 0..2 {
                let rest = base_weights(&t);
                let v = self.combine(|i| value(&t, &rest, i));
                // The least-squares correction: δ = R⁻¹·Qᵀ·v, t ← t − δ.
                let c = self.qt_times(&v, false);
                let delta = self.back_substitute(&c);
                let mut changed = 0.0f64;
                for (tc, d) in t.iter_mut().zip(&delta) {
                    *tc -= d;
                    changed = changed.max(d.abs());
                }
                if changed <= 4.0 * f64::EPSILON {
                    break;
                }
            }
        }
        by_row(&t)
    }

    /// The unit normal `v − Q·Qᵀ·v`, normalised: the direction of the separator. The dual point `v = Σ cᵢzᵢ`
    /// is exact for its weights, but weights carry rounding errors of order `u`, which move `v` by about
    /// `u·R`: when the margin is 10⁻⁸ of the radius that turns its direction by 10⁻⁸, far too much. The
    /// error lies (almost) in the span of the corral's differences, so projecting it out leaves a normal
    /// accurate to the conditioning of the support itself. Projected twice, in twice working precision.
    pub(crate) fn normal(&mut self, v: &[f64]) -> Vec<f64> {
        self.apply_rotations();
        if !self.accurate {
            // Aligned as `Q`'s columns are: the projection reads and writes `w` a cache line at a time.
            let mut w = Aligned::from(v);
            // Well-scaled margins: one plain projection is plenty (two without `Q`, whose products
            // through `R` are less accurate).
            for _ in 0..if self.implicit { 2 } else { 1 } {
                let c = self.qt_times(&w, false);
                self.subtract_q_times(&c, &mut w);
            }
            let norm = dot(&w, &w, Summation::Fast).sqrt();
            if norm > 0.0 && norm.is_finite() {
                w.iter_mut().for_each(|x| *x /= norm);
            }
            return w.to_vec();
        }
        let mut w = v.to_vec();
        for _ in 0..2 {
            let c = self.qt_times(&w, true);
            w = self.subtract_q_times_compensated(&c, &w);
        }
        // Refine: the normal must satisfy w·(zₖ − z_base) = 0 for every column. The residuals are
        // computed from the points themselves (not from the rounded differences), in twice working
        // precision, and removed with the least-squares correction Q·R⁻ᵀ·ρ.
        for _ in 0..2 {
            if self.columns.is_empty() {
                break;
            }
            let residual = self.et_times(&w, true);
            let m = residual.len();
            let mut y = vec![0.0; m];
            for j in 0..m {
                let mut value = residual[j];
                for (i, &yi) in y.iter().enumerate().take(j) {
                    value -= self.r[j][i] * yi;
                }
                y[j] = value / self.r[j][j];
            }
            // `w + (−y)·q` is `w − y·q`, bit for bit (rounding is symmetric).
            self.subtract_q_times(&y, &mut w);
        }
        let norm = super::accurate::dot2(&w, &w).0.sqrt();
        if norm > 0.0 && norm.is_finite() {
            w.iter_mut().for_each(|x| *x /= norm);
        }
        w
    }

    /// Set the weights (of members) directly.
    pub(crate) fn set_weight(&mut self, row: usize, weight: f64) {
        debug_assert!(self.member[row]);
        self.weight[row] = weight;
    }
}
