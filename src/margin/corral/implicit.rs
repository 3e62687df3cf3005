//! The factorisation without `Q`: `R` alone, with `Q = E·R⁻¹` applied through the points.
//!
//! `Q` holds `|S| × r` values, as many as `|S|` rows of the data: with thousands of support rows in
//! thousands of dimensions (the 9000 × 7000 set of the README, 4789 of them) it is half the data again,
//! while `R` is `|S|²/2`. So the corral keeps `Q` only while `Q` and `R` take at most a fraction of the
//! data ([`EXPLICIT_FRACTION`], and never past the solve's memory budget), then drops it and works with
//! `R` alone: the data's rows are there already, read in place, and `E = Q·R` gives every product with `Q`
//! from the columns `eₖ = zₖ − z_b`, at the price of reading the support's points where `Q` was read.
//!
//! - `Qᵀ·v = R⁻ᵀ·(Eᵀ·v)` and `Q·y = E·(R⁻¹·y)`: a pass over the support's points and two triangular
//!   solves, instead of a pass over `Q`.
//! - A new column is projected by classical Gram–Schmidt through these products (the "corrected
//!   semi-normal equations" of Björck, *Numerical Methods for Least Squares Problems*, §6.6): one pass
//!   leaves it orthogonal to the others to about `κ(R)²·u·‖e‖/‖e′‖` (`e′` the residual), a second pass
//!   to the explicit `Q`'s accuracy whenever `κ(R)²·u < 1`, and a third gains nothing more. The second
//!   pass is taken only where the first may have fallen short ([`Corral::needs_second_pass`], judged
//!   with a lower bound of `κ(R)`):
//!   always taking it cost 1.6 × on the 3000 × 2500 set of `docs/max-margin-history.md`, for the same
//!   bracket. The batch of the polish's violators is projected together, each point of the support
//!   read once a pass for all of them (as `batch` reads `Q` once), and the columns that join from the
//!   same batch are swept by modified Gram–Schmidt against the batch's own new unit columns, which it
//!   holds until it is through; batches may grow twice as large as with `Q` ([`Corral::pricing_cap`]).
//! - A deletion rotates `R` (and `Qᵀ·z_B`) only, which is cheaper than with `Q`.
//! - The affine minimiser's weights from `R⁻ᵀ·Eᵀ·z_B` alone are the semi-normal equations' solution,
//!   accurate to `κ(R)²·u`: they are refined with residuals computed from the points (as the
//!   twice-working-precision mode does) when that may pass what plain arithmetic allows, and the plain
//!   normal is projected twice.
//!
//! What is rigorous does not change: the bracket is evaluated on the data from the separator and the
//! hull point whatever their accuracy. A `Q` applied through `R` is less accurate on ill-conditioned
//! supports, which can cost iterations, never a false answer.

use rayon::prelude::*;

use super::super::accurate::{UNIT_ROUNDOFF, dot2};
use super::*;

/// `Q` is kept while `Q` and `R` take at most this fraction (`1/EXPLICIT_FRACTION`) of the values the
/// dataset stores (a dense one's rows, which the points are read from; a sparse one's stored values,
/// from which a working set's span coordinates are computed), so that the factorisation adds at most
/// that share to the data (#14 asks for a peak of at most 1.5 × the data).
pub(super) const EXPLICIT_FRACTION: usize = 4;

/// Up to this many values (1 MiB) `Q` is kept whatever the data's size: a small dataset's
/// factorisation is small in bytes whatever its share of the data, and the explicit `Q` is the faster
/// and the more accurate.
pub(super) const EXPLICIT_FLOOR: usize = 1 << 17;

/// The relative error the affine minimiser's weights may have from the semi-normal equations alone
/// (the plain arithmetic's own allowance, `polish::PLAIN_ENOUGH`); past it they are refined.
const SEMI_NORMAL_ENOUGH: f64 = 1e-10;

/// How far from orthogonal to the others (relative to its length) a column appended without `Q` may
/// be after one pass. The explicit `Q`'s one modified Gram–Schmidt pass is held to about `10·u`;
/// through `R` the bound carries `κ(R)²`, and holding it to `10·u` would take the second pass on every
/// column of a support whose `R` is conditioned worse than about 3 (most, on random data), doubling the
/// appends' cost. At 10⁻¹³ (the scale of `DEPENDENT`) text data's triangles (`κ(R)` ≥ 172 on the
/// rcv1-shaped file of the README) still took it on every column; at 10⁻¹¹ they skip it up to
/// `κ(R)` ≈ 300: 7.7 → 4.8 s there, 8.6 → 6.4 s on the news20-shaped file, with the same brackets
/// (their lower ends moved by 10⁻¹⁴ relative; one run each). The bracket is rigorous whatever the
/// orthogonality: this decides how closely the working set's optimum is found, against the polish's
/// own tolerance of 10⁻¹⁰.
const IMPLICIT_ORTHOGONALITY: f64 = 1e-11;

/// Columns of a batch that pass through `R` together: the support's points and `R` are read once a
/// block, and the block's columns (and their coefficients) stay in the core's caches meanwhile. With
/// the whole batch at once (up to 64 columns) each point met every column from beyond L2, and each
/// column read `R` on its own.
pub(super) const PASS_BLOCK: usize = 16;

impl Corral<'_> {
    /// The most values `Q` and `R` may take while `Q` is explicit, for points from a dataset that
    /// stores `data_values` values ([`Problem::data_values`]).
    pub(super) fn explicit_values_for(data_values: Option<usize>) -> usize {
        data_values.map_or(usize::MAX, |values| {
            (values / EXPLICIT_FRACTION).max(EXPLICIT_FLOOR)
        })
    }

    /// The values `R` alone holds with `columns` columns.
    pub(crate) fn implicit_values_for(columns: usize) -> usize {
        columns.saturating_mul(columns.div_ceil(2) + 1)
    }

    /// The most rows a major iteration of the polish may add, for `pricing` with `Q`: twice as many
    /// without it, since each pass over the support's points serves the whole batch (the 9000 × 7000
    /// set of the README 169 → 150 s in one run each, the 3000 × 2500 one of
    /// `docs/max-margin-history.md` 4.7 → 4.2 s in two; four times as many gave back the gain on the
    /// latter).
    pub(crate) fn pricing_cap(&self, pricing: usize) -> usize {
        let pricing = pricing.max(1);
        if self.implicit {
            pricing.saturating_mul(2)
        } else {
            pricing
        }
    }

    /// Drop `Q` and go on with `R` alone.
    pub(super) fn drop_q(&mut self) {
        self.apply_rotations();
        self.q = Vec::new();
        self.pending = Vec::new();
        self.implicit = true;
    }

    /// `Qᵀ·v`, each product in the Fast order, or in twice working precision when `precise`; past
    /// [`PARALLEL_PASS`] values shared among the threads, each product whole on one (its bits alone).
    pub(super) fn qt_times(&self, v: &[f64], precise: bool) -> Vec<f64> {
        if !self.implicit {
            let product = |q: &Aligned| {
                if precise {
                    dot2(q, v).0
                } else {
                    dot(q, v, Summation::Fast)
                }
            };
            return if by_rows::on_threads(self.q.len() * v.len()) {
                let share = self.q.len().div_ceil(rayon::current_num_threads());
                self.q.par_iter().with_min_len(share).map(product).collect()
            } else {
                self.q.iter().map(product).collect()
            };
        }
        self.forward_substitute(&self.et_times(v, precise))
    }

    /// `Eᵀ·v` from the points themselves (not from the rounded differences): `yₖ·pₖ·v − y_b·p_b·v`
    /// for each column, each base's product once, in the Fast order or in twice working precision;
    /// past [`PARALLEL_PASS`] values the columns are shared among the threads (each its bits alone).
    pub(super) fn et_times(&self, v: &[f64], precise: bool) -> Vec<f64> {
        let score = |i: usize, buffer: &mut Vec<f64>| {
            let label = self.problem.labels[i];
            if precise {
                let point = self.problem.stored(i, buffer);
                label * dot2(&v[..point.len()], point).0
            } else {
                label * self.problem.dot_fast(i, v, buffer)
            }
        };
        let mut buffer = Vec::new();
        // A group without a base has no columns (a column is a difference from its base), so its
        // score is never read.
        let base_scores: Vec<f64> = self
            .base
            .iter()
            .map(|b| b.map_or(0.0, |b| score(b, &mut buffer)))
            .collect();
        let column_score =
            |c: usize, buffer: &mut Vec<f64>| score(c, buffer) - base_scores[self.problem.group(c)];
        if by_rows::on_threads(self.columns.len() * self.problem.dim()) {
            let share = self.columns.len().div_ceil(rayon::current_num_threads());
            self.columns
                .par_iter()
                .with_min_len(share)
                .map_init(Vec::new, |buffer, &c| column_score(c, buffer))
                .collect()
        } else {
            self.columns
                .iter()
                .map(|&c| column_score(c, &mut buffer))
                .collect()
        }
    }

    /// Feed `sink` the terms of `Q·y`, `(coefficient, vector)`: the columns of `Q` with `y`, or, when
    /// `Q` is implicit, `E·R⁻¹·y` as the support's points (each read once) with their coefficients.
    /// A vector may be shorter than the others: its leading coordinates ([`Problem::stored`]), the
    /// rest zero.
    pub(super) fn q_times_each(&self, y: &[f64], mut sink: impl FnMut(f64, &[f64])) {
        if !self.implicit {
            for (q, &yk) in self.q.iter().zip(y) {
                sink(yk, q);
            }
            return;
        }
        let x = self.back_substitute(y);
        self.points_times_each(std::slice::from_ref(&x), |_, coefficient, point| {
            sink(coefficient, point)
        });
    }

    /// `w ← w − Q·y`: by the columns of `Q`, shared among the threads by rows past [`PARALLEL_PASS`]
    /// values ([`by_rows::subtract_combination`]), or, when `Q` is implicit, term by term through the
    /// support's points ([`Corral::q_times_each`]).
    pub(super) fn subtract_q_times(&self, y: &[f64], w: &mut [f64]) {
        if self.implicit {
            self.q_times_each(y, |yk, q| axpy(-yk, q, &mut w[..q.len()]));
        } else {
            let threads = by_rows::on_threads(self.q.len() * w.len());
            by_rows::subtract_combination(&self.q, y, w, threads);
        }
    }

    /// `w − Q·y` compensated, each component summed as one [`CompensatedVector`] would: `w` as a term,
    /// then each product, fed column by column (reading each contiguously, vectorised), shared among
    /// the threads by rows as [`Corral::subtract_q_times`] is.
    pub(super) fn subtract_q_times_compensated(&self, y: &[f64], w: &[f64]) -> Vec<f64> {
        if self.implicit {
            let mut acc = CompensatedVector::zeros(w.len());
            acc.add(w);
            self.q_times_each(y, |yk, q| acc.add_scaled(-yk, q));
            acc.values()
        } else {
            let threads = by_rows::on_threads(self.q.len() * w.len());
            by_rows::subtract_combination_compensated(&self.q, y, w, threads)
        }
    }

    /// `E·xₛ` for each `xₛ` of `steps`, fed to `sink(s, coefficient, point)` point by point: `E·x =
    /// Σₖ xₖ·yₖ·pₖ − Σ_g (Σ_{k∈g} xₖ)·y_b·p_b`, each point formed once for all the steps.
    fn points_times_each(&self, steps: &[Vec<f64>], mut sink: impl FnMut(usize, f64, &[f64])) {
        let groups = self.problem.groups();
        let mut totals = vec![vec![0.0; groups]; steps.len()];
        let mut buffer = Vec::new();
        for (k, &c) in self.columns.iter().enumerate() {
            let (label, group) = (self.problem.labels[c], self.problem.group(c));
            let point = self.problem.stored(c, &mut buffer);
            for (s, (x, total)) in steps.iter().zip(&mut totals).enumerate() {
                sink(s, x[k] * label, point);
                total[group] += x[k];
            }
        }
        for (g, base) in self.base.iter().enumerate() {
            if let Some(b) = *base {
                let label = self.problem.labels[b];
                let point = self.problem.stored(b, &mut buffer);
                for (s, total) in totals.iter().enumerate() {
                    if total[g] != 0.0 {
                        sink(s, -total[g] * label, point);
                    }
                }
            }
        }
    }

    /// A lower bound of `κ(R)`: its longest column over its least diagonal entry (`O(|S|)`: the longest
    /// column is kept as `R` changes, see [`Corral::measure_columns`]). A lower bound can miss an
    /// ill-conditioned `R`, so what depends on it decides how much work the accuracy takes, never the
    /// bracket, which is rigorous whatever the factorisation's accuracy.
    pub(super) fn condition_estimate(&self) -> f64 {
        let longest = self.longest_column.0.sqrt();
        let least = (0..self.r.len())
            .map(|j| self.r[j][j].abs())
            .fold(f64::INFINITY, f64::min);
        if self.r.is_empty() {
            1.0
        } else {
            longest / least
        }
    }

    /// Measure every column of `R` for [`Corral::condition_estimate`], after `R` changed as a whole.
    pub(super) fn measure_columns(&mut self) {
        self.longest_column = NO_COLUMN;
        for j in 0..self.r.len() {
            self.measure_column(j);
        }
    }

    /// Measure column `j` of `R`, the longest if it is longer than the longest so far.
    fn measure_column(&mut self, j: usize) {
        let column = &self.r[j];
        let length2 = dot(column, column, Summation::Fast);
        if length2 > self.longest_column.0 {
            self.longest_column = (length2, j);
        }
    }

    /// Measure the column just appended to `R`.
    pub(super) fn measure_appended(&mut self) {
        if let Some(j) = self.r.len().checked_sub(1) {
            self.measure_column(j);
        }
    }

    /// Column `position` of `R` was deleted: the columns after it moved one place left, each of the
    /// same length, so only the loss of the longest one needs all of them measured again.
    pub(super) fn forget_column(&mut self, position: usize) {
        let (_, longest) = self.longest_column;
        if position == longest {
            self.measure_columns();
        } else if position < longest && longest != usize::MAX {
            self.longest_column.1 -= 1;
        }
    }

    /// The semi-normal equations' relative error, `κ(R)²·u`, when `R` may be conditioned badly enough
    /// that it passes [`SEMI_NORMAL_ENOUGH`] (infinite when the estimate is NaN: an empty or zero
    /// triangle); `None` when it stays below.
    pub(super) fn semi_normal_error(&self) -> Option<f64> {
        let condition = self.condition_estimate();
        let error = condition * condition * UNIT_ROUNDOFF;
        if error.is_nan() {
            Some(f64::INFINITY)
        } else {
            (error > SEMI_NORMAL_ENOUGH).then_some(error)
        }
    }

    /// Whether a column of length `size` that one pass through `R` (conditioned about `condition`) left
    /// at length `rest` needs a second: when the pass cancelled most of it, as with `Q`
    /// (`REORTHOGONALISE`), or when its loss of orthogonality, about `κ(R)²·u·size/rest`, may pass
    /// [`IMPLICIT_ORTHOGONALITY`].
    ///
    /// The second pass is the correction step of the corrected semi-normal equations: it removes a
    /// component of about `κ(R)²·u` of the column, so its own errors are `κ(R)·u` of it, and a third
    /// pass would gain nothing more. A corrected column is therefore not judged by this again
    /// (`append_projected`), though the bound still exceeds the tolerance when `κ(R)²·u` does. Taking a
    /// third pass on every column of the rcv1-shaped file of the README (`κ(R)` ≈ 400) had been a
    /// quarter of its solve.
    pub(super) fn needs_second_pass(&self, size: f64, rest: f64, condition: f64) -> bool {
        rest <= REORTHOGONALISE * size
            || condition.is_nan()
            || condition * condition * UNIT_ROUNDOFF * size > IMPLICIT_ORTHOGONALITY * rest
    }

    /// Solve `Rᵀ·y = c` for the leading `c.len()` columns (`R` by columns: each step one contiguous
    /// product).
    pub(super) fn forward_substitute(&self, c: &[f64]) -> Vec<f64> {
        self.forward_substitute_each(&[c.to_vec()])
            .pop()
            .unwrap_or_default()
    }

    /// Solve `Rᵀ·y = c` for each `c` of `cs`, all of one length, each column of `R` read once for a
    /// block of them rather than once for each (with a thousand columns or more, `R` lives beyond the
    /// core's caches); each solution has the bits it has alone.
    pub(super) fn forward_substitute_each(&self, cs: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let mut ys: Vec<Vec<f64>> = cs.iter().map(|c| Vec::with_capacity(c.len())).collect();
        for (ys, cs) in ys.chunks_mut(PASS_BLOCK).zip(cs.chunks(PASS_BLOCK)) {
            let m = cs.first().map_or(0, Vec::len);
            debug_assert!(cs.iter().all(|c| c.len() == m));
            for j in 0..m {
                let (column, diagonal) = (&self.r[j][..j], self.r[j][j]);
                for (y, c) in ys.iter_mut().zip(cs) {
                    let value = c[j] - dot(column, y, Summation::Fast);
                    y.push(value / diagonal);
                }
            }
        }
        ys
    }

    /// One classical Gram–Schmidt pass of the `columns` over `E` through `R`: `y = R⁻ᵀ·Eᵀ·b` added to
    /// each column's coefficients and `b ← b − E·R⁻¹·y`, each point of the support formed once a pass
    /// for a block of [`PASS_BLOCK`] columns, and `R` read once for the block. Each column meets the
    /// operations it would meet alone, so the bits do not depend on the batch.
    pub(super) fn implicit_pass<E: AsRef<[f64]> + AsMut<[f64]> + Send>(
        &self,
        columns: &mut [E],
        coefficients: &mut [Vec<f64>],
    ) {
        #[cfg(test)]
        self.implicit_passes
            .fetch_add(columns.len(), std::sync::atomic::Ordering::Relaxed);
        let threads = rayon::current_num_threads();
        let work = self.columns.len().saturating_mul(self.problem.dim());
        if threads > 1 && columns.len() > 1 && work >= PARALLEL_PASS {
            // The threads share the columns, each block reading `R` and the points for itself.
            let block = PASS_BLOCK.min(columns.len().div_ceil(threads));
            columns
                .par_chunks_mut(block)
                .zip(coefficients.par_chunks_mut(block))
                .for_each(|(columns, coefficients)| {
                    self.implicit_pass_block(columns, coefficients);
                });
            return;
        }
        for (columns, coefficients) in columns
            .chunks_mut(PASS_BLOCK)
            .zip(coefficients.chunks_mut(PASS_BLOCK))
        {
            self.implicit_pass_block(columns, coefficients);
        }
    }

    /// [`Corral::implicit_pass`] on at most [`PASS_BLOCK`] columns.
    fn implicit_pass_block<E: AsRef<[f64]> + AsMut<[f64]>>(
        &self,
        columns: &mut [E],
        coefficients: &mut [Vec<f64>],
    ) {
        let m = self.columns.len();
        if m == 0 || columns.is_empty() {
            return;
        }
        // Eᵀ·b from the points' products: `yₖ·pₖ·b − y_b·p_b·b`.
        let mut buffer = Vec::new();
        let scores = |i: usize, buffer: &mut Vec<f64>| -> Vec<f64> {
            let label = self.problem.labels[i];
            let point = self.problem.stored(i, buffer);
            columns
                .iter()
                .map(|b| label * dot(point, &b.as_ref()[..point.len()], Summation::Fast))
                .collect()
        };
        let base_scores: Vec<Option<Vec<f64>>> = self
            .base
            .iter()
            .map(|b| b.map(|b| scores(b, &mut buffer)))
            .collect();
        let mut products = vec![vec![0.0; m]; columns.len()];
        for (k, &c) in self.columns.iter().enumerate() {
            let own = scores(c, &mut buffer);
            let base = base_scores[self.problem.group(c)]
                .as_ref()
                .expect("every group with columns has a base");
            for ((p, s), t) in products.iter_mut().zip(&own).zip(base) {
                p[k] = s - t;
            }
        }
        let ys = self.forward_substitute_each(&products);
        for (coefficients, y) in coefficients.iter_mut().zip(&ys) {
            for (c, &yk) in coefficients.iter_mut().zip(y) {
                *c += yk;
            }
        }
        let steps = self.back_substitute_each(ys);
        self.points_times_each(&steps, |s, coefficient, point| {
            axpy(-coefficient, point, &mut columns[s].as_mut()[..point.len()]);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::margin::Bias;
    use crate::margin::problem::bits;

    /// `n` scattered points in `dim` coordinates with a free bias (two groups), alternating labels.
    fn problem(n: usize, dim: usize) -> Problem<'static> {
        let mut problem = Problem::growing(Bias::Free, dim);
        for (i, row) in crate::margin::problem::scattered_rows(n, dim)
            .into_iter()
            .enumerate()
        {
            problem.push(row, if i % 2 == 0 { 1.0 } else { -1.0 });
        }
        problem
    }

    fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn the_implicit_q_is_the_explicit_one() {
        // The same rows join two corrals, one of which drops `Q` halfway: `Qᵀ·v`, `Q·y`, the normal, the
        // affine minimiser and the columns that join afterwards agree with the explicit ones to rounding.
        let problem = problem(40, 24);
        let start = [(0, 0.5), (1, 0.5), (2, 0.25), (3, 0.25)];
        let (mut explicit, mut implicit) = (Corral::new(&problem), Corral::new(&problem));
        for corral in [&mut explicit, &mut implicit] {
            corral.reset(&start);
            let added = corral.add_batch(&(4..14).collect::<Vec<_>>(), 10, usize::MAX);
            assert_eq!(added.rows.len(), 10);
        }
        implicit.drop_q();
        assert!(implicit.implicit && implicit.q.is_empty());
        for corral in [&mut explicit, &mut implicit] {
            // Across a batch: the later rows are swept against the earlier ones' new columns.
            let added = corral.add_batch(&(14..26).collect::<Vec<_>>(), 12, usize::MAX);
            assert_eq!(added.rows.len(), 12);
            corral.remove(7);
            corral.remove(0);
        }
        explicit.apply_rotations();
        assert_eq!(explicit.columns, implicit.columns);
        for (a, b) in explicit.r.iter().zip(&implicit.r) {
            assert!(largest_difference(a, b) < 1e-12, "R: {a:?} against {b:?}");
        }
        let v: Vec<f64> = (0..24).map(|j| (j as f64 * 0.7).sin()).collect();
        for precise in [false, true] {
            let (a, b) = (
                explicit.qt_times(&v, precise),
                implicit.qt_times(&v, precise),
            );
            assert!(
                largest_difference(&a, &b) < 1e-12,
                "Qᵀv: {a:?} against {b:?}"
            );
        }
        let y: Vec<f64> = (0..explicit.columns.len())
            .map(|k| 1.0 / (k + 1) as f64)
            .collect();
        let mut sums = [vec![0.0; 24], vec![0.0; 24]];
        for (corral, sum) in [&explicit, &implicit].into_iter().zip(&mut sums) {
            corral.q_times_each(&y, |c, column| axpy(c, column, &mut sum[..column.len()]));
        }
        assert!(largest_difference(&sums[0], &sums[1]) < 1e-12, "Qy");
        for accurate in [false, true] {
            explicit.set_accurate(accurate);
            implicit.set_accurate(accurate);
            let (a, b) = (explicit.normal(&v), implicit.normal(&v));
            assert!(
                largest_difference(&a, &b) < 1e-12,
                "normal: {a:?} against {b:?}"
            );
            let (a, b) = (explicit.affine_minimiser(), implicit.affine_minimiser());
            let a: Vec<f64> = a.iter().map(|&(_, t)| t).collect();
            let b: Vec<f64> = b.iter().map(|&(_, t)| t).collect();
            assert!(
                largest_difference(&a, &b) < 1e-10,
                "minimiser: {a:?} against {b:?}"
            );
        }
        // A row that left joins both again, as the same column.
        assert!(explicit.add(0) && implicit.add(0));
        let (a, b) = (explicit.r.last().unwrap(), implicit.r.last().unwrap());
        assert!(largest_difference(a, b) < 1e-12, "the new column of R");
    }

    #[test]
    fn the_longest_column_is_kept_as_r_changes() {
        // Appends, deletions (of the longest column itself, of others, of a base, which rebases its
        // group), a refactorisation and a resumption: the longest column kept is the one a fresh
        // measurement of `R` finds, to rounding (rotations keep lengths only to rounding).
        let problem = problem(60, 40);
        let check = |corral: &Corral, what: &str| {
            let lengths: Vec<f64> = corral
                .r
                .iter()
                .map(|column| dot(column, column, Summation::Fast))
                .collect();
            let longest = lengths.iter().copied().fold(0.0, f64::max);
            let (kept, at) = corral.longest_column;
            assert!(
                (kept - longest).abs() <= 1e-12 * longest,
                "{what}: kept {kept}, measured {longest}"
            );
            if !lengths.is_empty() {
                assert!(
                    (lengths[at] - longest).abs() <= 1e-12 * longest,
                    "{what}: column {at} is not the longest"
                );
            }
        };
        let mut corral = Corral::new(&problem);
        check(&corral, "empty");
        corral.reset(&[(0, 0.5), (1, 0.5), (2, 0.25), (3, 0.25)]);
        check(&corral, "reset");
        let added = corral.add_batch(&(4..30).collect::<Vec<_>>(), 26, usize::MAX);
        assert_eq!(added.rows.len(), 26);
        check(&corral, "appended");
        let longest_row = corral.columns[corral.longest_column.1];
        corral.remove(longest_row);
        check(&corral, "the longest column deleted");
        let first = corral.columns[0];
        corral.remove(first);
        check(&corral, "the first column deleted");
        let base = corral.base.iter().flatten().copied().next().unwrap();
        corral.remove(base);
        check(&corral, "a base removed");
        corral.drop_q();
        let added = corral.add_batch(&(30..40).collect::<Vec<_>>(), 10, usize::MAX);
        assert_eq!(added.rows.len(), 10);
        check(&corral, "appended without Q");
        corral.refactor();
        check(&corral, "refactored");
        let resumed = Corral::resume(&problem, corral.into_parts());
        check(&resumed, "resumed");
    }

    #[test]
    fn a_pass_gives_each_column_the_bits_it_gets_alone() {
        // More columns than a block: the blocks share the reads of the points and of `R`, never a
        // rounding.
        let problem = problem(60, 40);
        let mut corral = Corral::new(&problem);
        corral.reset(&[(0, 0.5), (1, 0.5), (2, 0.25), (3, 0.25)]);
        corral.drop_q();
        let added = corral.add_batch(&(4..30).collect::<Vec<_>>(), 26, usize::MAX);
        assert_eq!(added.rows.len(), 26);
        let columns: Vec<Vec<f64>> = crate::margin::problem::scattered_rows(2 * PASS_BLOCK + 5, 40);
        // The triangular solves for many right-hand sides are each one's own.
        let m = corral.columns.len();
        let sides: Vec<Vec<f64>> = columns.iter().map(|c| c[..m].to_vec()).collect();
        let (forward, back) = (
            corral.forward_substitute_each(&sides),
            corral.back_substitute_each(sides.clone()),
        );
        for (k, side) in sides.iter().enumerate() {
            assert_eq!(
                bits(&forward[k..=k]),
                bits(&[corral.forward_substitute(side)])
            );
            assert_eq!(bits(&back[k..=k]), bits(&[corral.back_substitute(side)]));
        }
        let coefficients = vec![vec![0.0; corral.columns.len()]; columns.len()];
        let (mut together, mut together_coefficients) = (columns.clone(), coefficients.clone());
        corral.implicit_pass(&mut together, &mut together_coefficients);
        for (k, (mut column, mut coefficient)) in columns.into_iter().zip(coefficients).enumerate()
        {
            corral.implicit_pass(
                std::slice::from_mut(&mut column),
                std::slice::from_mut(&mut coefficient),
            );
            assert_eq!(bits(&[column]), bits(&together[k..=k]), "column {k}");
            assert_eq!(
                bits(&[coefficient]),
                bits(&together_coefficients[k..=k]),
                "coefficients {k}"
            );
        }
    }

    #[test]
    fn a_pass_on_threads_gives_each_column_the_bits_of_one_thread() {
        // Past `PARALLEL_PASS` the threads share a batch's columns: each keeps its bits.
        let (n, dim) = (400, 380);
        let problem = problem(n, dim);
        let mut corral = Corral::new(&problem);
        corral.drop_q();
        let start: Vec<(usize, f64)> = (0..n - 40).map(|i| (i, 1.0)).collect();
        corral.reset(&start);
        assert!(corral.columns.len() * dim >= PARALLEL_PASS);
        let columns: Vec<Vec<f64>> = crate::margin::problem::scattered_rows(PASS_BLOCK + 7, dim);
        let pass = |threads: usize| {
            let (mut columns, mut coefficients) = (
                columns.clone(),
                vec![vec![0.0; corral.columns.len()]; columns.len()],
            );
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| corral.implicit_pass(&mut columns, &mut coefficients));
            (bits(&columns), bits(&coefficients))
        };
        assert_eq!(pass(2), pass(1));
    }

    #[test]
    fn an_ill_conditioned_column_is_corrected_once_not_again() {
        // Points near a 4-dimensional subspace of 60 dimensions, 10⁻³ off it: once the first batch
        // has joined, `κ(R)` is in the thousands, and one pass through `R` leaves `κ²·u` above
        // `IMPLICIT_ORTHOGONALITY` on every column of the next. Each of them is corrected once (two
        // passes), not a third time after the sweep over its batch's own new columns, and `R` is
        // still the explicit `Q`'s to rounding.
        let (n, dim) = (60, 60);
        let basis = crate::margin::problem::scattered_rows(4, dim);
        let noise = crate::margin::problem::scattered_rows(n, dim);
        let mut problem = Problem::growing(Bias::Free, dim);
        for (i, noise) in noise.iter().enumerate() {
            let row: Vec<f64> = (0..dim)
                .map(|j| {
                    let near: f64 = (0..4)
                        .map(|b| basis[b][j] * ((i * 7 + b * 3) % 5) as f64)
                        .sum();
                    near + 1e-3 * noise[j]
                })
                .collect();
            problem.push(row, if i % 2 == 0 { 1.0 } else { -1.0 });
        }
        let start = [(0, 0.5), (1, 0.5), (2, 0.25), (3, 0.25)];
        let (mut explicit, mut implicit) = (Corral::new(&problem), Corral::new(&problem));
        for corral in [&mut explicit, &mut implicit] {
            corral.reset(&start);
        }
        implicit.drop_q();
        let (first, second): (Vec<usize>, Vec<usize>) = ((4..30).collect(), (30..50).collect());
        for corral in [&mut explicit, &mut implicit] {
            assert_eq!(
                corral.add_batch(&first, first.len(), usize::MAX).rows,
                first
            );
        }
        let condition = implicit.condition_estimate();
        assert!(
            condition * condition * UNIT_ROUNDOFF > IMPLICIT_ORTHOGONALITY,
            "κ(R) ≥ {condition} is too small to need the correction"
        );
        let before = implicit
            .implicit_passes
            .load(std::sync::atomic::Ordering::Relaxed);
        for corral in [&mut explicit, &mut implicit] {
            assert_eq!(
                corral.add_batch(&second, second.len(), usize::MAX).rows,
                second
            );
        }
        let passes = implicit
            .implicit_passes
            .load(std::sync::atomic::Ordering::Relaxed)
            - before;
        assert_eq!(
            passes,
            2 * second.len(),
            "passes for {} columns",
            second.len()
        );
        let scale = explicit
            .r
            .iter()
            .flatten()
            .fold(0.0f64, |m, x| m.max(x.abs()));
        for (a, b) in explicit.r.iter().zip(&implicit.r) {
            assert!(
                largest_difference(a, b) < 1e-12 * scale,
                "R: {a:?} against {b:?}"
            );
        }
    }

    #[test]
    fn a_minor_cycle_steps_on_unrefined_weights_only_where_a_row_clearly_leaves() {
        // Positive rows 0, 2, 4 on the plane x₀ = 1, row 4 within 10⁻⁴ of the line through 0 and 2, so
        // that `κ(R)` is about 10⁴ and `κ(R)²·u` passes what the semi-normal equations may have.
        let mut problem = Problem::growing(Bias::Free, 3);
        let rows: [([f64; 3], f64); 6] = [
            ([1.0, 0.31, 0.07], 1.0),
            ([-1.0, 0.52, 0.05], -1.0),
            ([1.0, 1.37, 0.19], 1.0),
            ([-1.0, 0.61, -0.03], -1.0),
            ([1.0, 0.84, 0.13 + 1.3e-4], 1.0),
            // Level with the sliver's centroid.
            ([-1.0, 0.84, 0.13 + 1.3e-4 / 3.0], -1.0),
        ];
        for (row, label) in rows {
            problem.push(row, label);
        }
        let target = |corral: &mut Corral, rough: bool| -> Vec<f64> {
            let weights = if rough {
                corral.minor_cycle_target()
            } else {
                corral.affine_minimiser()
            };
            weights.iter().map(|&(_, t)| t).collect()
        };
        for (start, leaves) in [
            // The sliver's plane is nearest to row 1 far outside the sliver: row 4's weight is about
            // −300, far beyond the error.
            (vec![(0, 0.3), (2, 0.3), (4, 0.4), (1, 1.0)], true),
            // Level with the sliver's centroid, every weight is about a third: the cycle settles,
            // on refined weights.
            (vec![(0, 0.3), (2, 0.3), (4, 0.4), (5, 1.0)], false),
        ] {
            let mut corral = Corral::new(&problem);
            corral.reset(&start);
            corral.drop_q();
            corral.set_accurate(false);
            let error = corral.semi_normal_error().expect("R is ill-conditioned");
            assert!(error.is_finite() && error < 1e-6, "κ²u = {error:e}");
            let refined = target(&mut corral, false);
            let refinements = corral.refinements;
            let step = target(&mut corral, true);
            let margin =
                ROUGH_STEP_MARGIN * error * refined.iter().fold(0.0f64, |m, t| m.max(t.abs()));
            assert_eq!(refined.iter().any(|&t| t < -margin), leaves, "{refined:?}");
            if leaves {
                // Unrefined, without a pass through the points, but within the refined weights'
                // error, with the same rows negative beyond it and none inside it.
                assert_eq!(corral.refinements, refinements);
                assert!(
                    largest_difference(&step, &refined) <= margin,
                    "{step:?} {refined:?}"
                );
                for (&s, &r) in step.iter().zip(&refined) {
                    assert_eq!(s < -margin, r < -margin);
                    assert!(s >= 0.0 || s < -margin, "{s} inside the error but not zero");
                }
            } else {
                assert_eq!(corral.refinements, refinements + 1);
                assert_eq!(bits(&[step]), bits(&[refined]));
            }
        }
    }

    #[test]
    fn q_is_dropped_when_it_would_pass_its_share_of_the_data() {
        assert_eq!(Corral::explicit_values_for(None), usize::MAX);
        assert_eq!(Corral::explicit_values_for(Some(1000)), EXPLICIT_FLOOR);
        assert_eq!(
            Corral::explicit_values_for(Some(64 << 20)),
            (64 << 20) / EXPLICIT_FRACTION
        );
        // A corral limited to a few columns' worth of Q goes on with R alone, and adds every row a
        // corral with Q adds.
        let problem = problem(40, 24);
        let start = [(0, 0.5), (1, 0.5)];
        let (mut explicit, mut limited) = (Corral::new(&problem), Corral::new(&problem));
        limited.explicit_values = Corral::values_for(&problem, 5);
        for corral in [&mut explicit, &mut limited] {
            corral.reset(&start);
            corral.add_batch(&(2..30).collect::<Vec<_>>(), 20, usize::MAX);
        }
        assert!(!explicit.implicit && limited.implicit);
        assert!(limited.q.is_empty());
        assert_eq!(explicit.columns, limited.columns);
        // The budget still binds R: with room for R of 8 columns and no more, the ninth is refused.
        let mut tight = Corral::new(&problem);
        tight.explicit_values = 0;
        tight.reset(&start);
        let added = tight.add_batch(
            &(2..30).collect::<Vec<_>>(),
            20,
            Corral::implicit_values_for(8),
        );
        assert!(tight.implicit);
        assert_eq!(tight.columns.len(), 8);
        assert!(added.over_budget);
    }
}
