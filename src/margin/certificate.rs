//! Certificates of non-separability, and the rigorous evaluation of a convex-hull point that gives the
//! upper end of the margin bracket.

use ndarray::Array1;

use super::Bias;
use super::accurate::{Accumulator, TINY, UNIT_ROUNDOFF, gamma, norm_bounds_of};
use super::column_set::ColumnSet;
use super::points::Points;
use super::scale::Scaled;
use crate::dataset::Dataset;

/// A proof that no separator exists, as weights on the rows that anyone can check.
///
/// * [`Bias::Free`]: the weights of each class sum to 1, so `p = Σ_{yᵢ=+1} αᵢxᵢ` and
///   `q = Σ_{yⱼ=−1} αⱼxⱼ` are points of the two convex hulls, and `residual` bounds `‖p − q‖`. When the
///   hulls meet, no hyperplane can have one class strictly on each side.
/// * [`Bias::ThroughOrigin`]: Gordan's alternative. The weights sum to 1 and `residual` bounds
///   `‖Σ αᵢyᵢxᵢ‖`. If that combination is zero, every `w` has `Σ αᵢ·yᵢ(w·xᵢ) = 0`, so some example has
///   `yᵢ(w·xᵢ) ≤ 0`: no plane through the origin separates.
///
/// The residual is an upper bound, computed in twice working precision with a rounding-error bound.
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{Bias, Certificate};
/// // XOR: the midpoints of both diagonals are (½, ½).
/// let data = novikoff::Dataset::new(
///     array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
///     array![1.0, -1.0, -1.0, 1.0],
/// )?;
/// let certificate = Certificate::new(&data, Bias::Free, array![0.5, 0.5, 0.5, 0.5])?;
/// assert!(certificate.residual < 1e-15);
/// assert!(certificate.verify(&data, 1e-12));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Certificate {
    /// Which separators the certificate excludes.
    pub bias: Bias,
    /// One non-negative weight per row (zero allowed), normalised as described above.
    pub weights: Array1<f64>,
    /// An upper bound on `‖p − q‖` (free bias) or `‖Σ αᵢyᵢxᵢ‖` (through the origin).
    pub residual: f64,
}

impl Certificate {
    /// Build a certificate from non-negative weights (any positive scale per class; they are normalised),
    /// computing its residual.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{Bias, Certificate};
    /// // CS 536's 1-D set: −1 and +1 are negative, 0 positive; 0 is the midpoint of the negatives.
    /// let data = novikoff::Dataset::new(array![[-1.0], [0.0], [1.0]], array![-1.0, 1.0, -1.0])?;
    /// let certificate = Certificate::new(&data, Bias::Free, array![1.0, 2.0, 1.0])?;
    /// assert_eq!(certificate.weights.to_vec(), vec![0.5, 1.0, 0.5]);
    /// assert!(certificate.residual < 1e-15); // a rounding-error bound on ‖p − q‖ = 0
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::Shape`] for the wrong number of weights, [`crate::Error::Parameter`] for a negative
    /// or non-finite weight or a class without weight, [`crate::Error::Range`] for data no power-of-two
    /// scaling brings into range.
    pub fn new(data: &Dataset, bias: Bias, weights: Array1<f64>) -> crate::Result<Certificate> {
        if weights.len() != data.n_samples() {
            return Err(crate::Error::Shape {
                what: "certificate weights against rows",
                expected: data.n_samples(),
                found: weights.len(),
            });
        }
        if let Some(w) = weights.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
            return Err(crate::Error::parameter(
                "weights",
                format!("{w} is not a finite non-negative weight"),
            ));
        }
        let scaled = Scaled::new(data)?;
        let point = HullPoint::evaluate(
            scaled.working_points(),
            bias,
            weights.as_slice().unwrap_or(&[]),
        )
        .ok_or_else(|| {
            crate::Error::parameter(
                "weights",
                "every group (each class with a free bias) needs positive weight",
            )
        })?;
        Ok(Certificate {
            bias,
            weights: point.weights,
            residual: scaled.back_upper(point.gap_upper),
        })
    }

    /// Check the certificate against the data: one weight per row, every weight finite and non-negative,
    /// each group summing to 1 (within 10⁻⁹), and the residual `ε`, recomputed from the data, either
    /// exactly zero or both
    /// * at most `tol`, and
    /// * at most `tol/R` times `M = Σᵢ wᵢ‖xᵢ‖`, the mean length of the rows it mixes (summed over the
    ///   classes with a free bias), `R` the data's radius.
    ///
    /// A good `tol` is a small multiple of the radius, such as `1e-9 · R`: the certificate then says
    /// that the rows, each moved by at most 10⁻⁹ of its own length (`‖xᵢ‖·ε/M`), cannot be separated,
    /// which is what [`max_margin`](super::max_margin()) certifies. The second condition refuses a mix
    /// of rows far shorter than the rest (rows of 10⁻¹⁵⁰ beside rows of 10¹⁵⁰): its residual is tiny
    /// against `R` whatever the rows' directions, so it would pass the first alone even where a
    /// separator exists. An infinite or NaN `tol` proves nothing, so it fails; so do data no
    /// power-of-two scaling brings into range. The residual is recomputed on the data scaled exactly
    /// into range, so it cannot underflow to 0.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{Bias, Certificate};
    /// // One row of length 5e-170 is not a mix that reaches the origin, however small it is.
    /// let data = novikoff::Dataset::new(array![[3e-170, 4e-170]], array![1.0])?;
    /// let lone = Certificate { bias: Bias::ThroughOrigin, weights: array![1.0], residual: 0.0 };
    /// assert!(!lone.verify(&data, 1e-9 * data.radius()));
    /// assert!(!lone.verify(&data, f64::INFINITY));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{Bias, Certificate};
    /// let data = novikoff::Dataset::new(array![[1.0], [-1.0]], array![1.0, 1.0])?;
    /// // Through the origin: ½·(+1) + ½·(−1) = 0, so no w > 0 and no w < 0 classifies both as +1.
    /// let certificate = Certificate::new(&data, Bias::ThroughOrigin, array![1.0, 1.0])?;
    /// assert!(certificate.verify(&data, 1e-12));
    /// // The same weights do not prove that a free bias fails (one class is absent).
    /// let forged = Certificate { bias: Bias::Free, ..certificate };
    /// assert!(!forged.verify(&data, 1e-12));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{Bias, Certificate};
    /// // w = (1, 0) separates all three through the origin; the two short rows mix to (1e-100, 0),
    /// // far below 1e-9·R, but no shorter than the rows they mix, so they prove nothing.
    /// let data = novikoff::Dataset::new(
    ///     array![[1e-100, 1e-100], [1e-100, -1e-100], [1e100, 5e99]],
    ///     array![1.0, 1.0, 1.0],
    /// )?;
    /// let forged = Certificate::new(&data, Bias::ThroughOrigin, array![1.0, 1.0, 0.0])?;
    /// assert!(forged.residual < 1e-9 * data.radius());
    /// assert!(!forged.verify(&data, 1e-9 * data.radius()));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn verify(&self, data: &Dataset, tol: f64) -> bool {
        self.verify_points(Points::from(data), tol)
    }

    /// [`Certificate::verify`] on the points (augmented or not) a solve was about.
    pub(crate) fn verify_points(&self, data: Points<'_>, tol: f64) -> bool {
        if self.weights.len() != data.n_samples()
            || !self.weights.iter().all(|w| w.is_finite() && *w >= 0.0)
        {
            return false;
        }
        let groups = match self.bias {
            Bias::Free => 2,
            Bias::ThroughOrigin => 1,
        };
        let mut sums = vec![0.0; groups];
        for (w, &y) in self.weights.iter().zip(data.labels()) {
            sums[group(self.bias, y)] += w;
        }
        if sums.iter().any(|s| (s - 1.0).abs() > 1e-9) {
            return false;
        }
        if !(tol.is_finite() && tol >= 0.0) {
            return false;
        }
        let Ok(scaled) = Scaled::points(data) else {
            return false;
        };
        let Some(point) = HullPoint::evaluate(
            scaled.working_points(),
            self.bias,
            self.weights.as_slice().unwrap_or(&[]),
        ) else {
            return false;
        };
        // `M / R` is taken on the scaled points, where neither can overflow; it is a ratio, the same at
        // every scale. Exactly zero proves non-separability at any scale.
        let residual = scaled.back_upper(point.gap_upper);
        let mixed_over_radius = point.mixed_length / scaled.working_points().radius();
        point.gap_upper == 0.0 || (residual <= tol && residual <= tol * mixed_over_radius)
    }

    /// The rows with positive weight, heaviest first: the examples that make the data non-separable.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::{Bias, Certificate};
    /// let data = novikoff::Dataset::new(array![[-1.0], [0.0], [1.0]], array![-1.0, 1.0, -1.0])?;
    /// let certificate = Certificate::new(&data, Bias::Free, array![1.0, 2.0, 1.0])?;
    /// assert_eq!(certificate.rows_by_weight(), vec![1, 0, 2]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn rows_by_weight(&self) -> Vec<usize> {
        let mut rows: Vec<usize> = (0..self.weights.len())
            .filter(|&i| self.weights[i] > 0.0)
            .collect();
        rows.sort_by(|&a, &b| self.weights[b].total_cmp(&self.weights[a]).then(a.cmp(&b)));
        rows
    }
}

/// The columns of sparse data a hull point's accumulators cover at a time (with two groups, 64 bytes
/// a column).
const HULL_BLOCK: usize = 4096;

pub(crate) fn group(bias: Bias, label: f64) -> usize {
    match bias {
        Bias::ThroughOrigin => 0,
        Bias::Free => usize::from(label < 0.0),
    }
}

/// A point of the dual hull from non-negative weights, with a rigorous upper bound on its length.
#[derive(Debug, Clone)]
pub(crate) struct HullPoint {
    /// The weights normalised per group (each group sums to 1).
    pub weights: Array1<f64>,
    /// `‖exact point‖ ≤ gap_upper`.
    pub gap_upper: f64,
    /// A lower bound on the mean length of the rows the point mixes, `M = Σᵢ wᵢ‖xᵢ‖` with the weights
    /// normalised per group (summed over the groups). Moving each row `xᵢ` by `‖xᵢ‖·ε/M` against the
    /// point (`ε` its length) makes it exactly zero, so `ε/M` is a relative change of the rows after
    /// which no separator exists.
    pub mixed_length: f64,
}

impl HullPoint {
    /// Evaluate the hull point of weights `raw` (clamped at zero). `None` when a group has no weight.
    ///
    /// Each group's sum `Pⱼ = Σ cᵢxᵢⱼ` and its total `C = Σ cᵢ` are accumulated in twice working precision
    /// and then divided, so the point `P/C` is an exact convex combination up to the bounded rounding
    /// errors, which are carried into the bound on its length.
    pub(crate) fn evaluate(data: Points<'_>, bias: Bias, raw: &[f64]) -> Option<HullPoint> {
        let weighted: Vec<(usize, f64)> = raw
            .iter()
            .enumerate()
            .filter(|&(_, &c)| counts(c))
            .map(|(i, &c)| (i, c))
            .collect();
        let (gap_upper, totals) = Self::bound(data, bias, &weighted)?;
        let mixed_length = mixed_length_lower(data, bias, &weighted, &totals);
        let weights = raw
            .iter()
            .zip(data.labels())
            .map(|(&c, &y)| {
                if counts(c) {
                    c / totals[group(bias, y)].0
                } else {
                    0.0
                }
            })
            .collect();
        Some(HullPoint {
            weights,
            gap_upper,
            mixed_length,
        })
    }

    /// Whether the point proves, to `tolerance`, that no separator exists: it is exactly zero, or its
    /// length is at most `threshold` ([`super::acceptance::certificate_threshold`]) and at most
    /// `tolerance` times the mean length of the rows it mixes. The second condition is what makes it a
    /// proof about the rows it mixes and not only about their size: the rows, each changed by at most
    /// `tolerance` of its own length, are exactly not separable. A few rows far shorter than the rest (rows of 10⁻¹⁵⁰
    /// among rows of 10¹⁵⁰) have a combination far below any threshold in `R` or in the features'
    /// scales, whether or not they can be separated, and were once "certified" not separable when
    /// they could be.
    pub(crate) fn certifies(&self, threshold: f64, tolerance: f64) -> bool {
        self.gap_upper == 0.0
            || (self.gap_upper <= threshold && self.gap_upper <= tolerance * self.mixed_length)
    }

    /// The upper end of the margin bracket of the hull point of `weights` on rows (any order, a row
    /// listed twice taking its last weight): [`HullPoint::evaluate`]'s bound, the same bits, without
    /// the weights of every row (on 10⁶ × 10, two vectors of 10⁶ weights for 11 support rows, each
    /// round: a quarter of the time of the solve's passes, and 6 MB of its peak).
    pub(crate) fn margin_upper_of(
        data: Points<'_>,
        bias: Bias,
        weights: &[(usize, f64)],
    ) -> Option<f64> {
        let mut weighted: Vec<(usize, f64)> = Vec::with_capacity(weights.len());
        let mut sorted = weights.to_vec();
        // Stable: of a row's weights the last one stays last.
        sorted.sort_by_key(|&(i, _)| i);
        for (i, c) in sorted {
            match weighted.last_mut() {
                Some(last) if last.0 == i => last.1 = c,
                _ => weighted.push((i, c)),
            }
        }
        weighted.retain(|&(_, c)| counts(c));
        Self::bound(data, bias, &weighted).map(|(gap_upper, _)| margin_upper(gap_upper, bias))
    }

    /// The bound on the length of the hull point of `weighted` (rows in increasing order, weights
    /// counted), and each group's total weight with its error.
    fn bound(
        data: Points<'_>,
        bias: Bias,
        weighted: &[(usize, f64)],
    ) -> Option<(f64, Vec<(f64, f64)>)> {
        let groups = match bias {
            Bias::Free => 2,
            Bias::ThroughOrigin => 1,
        };
        let mut totals = vec![Accumulator::default(); groups];
        for &(i, c) in weighted {
            totals[group(bias, data.labels()[i])].add(c);
        }
        if totals.iter().any(|t| t.value() <= 0.0) {
            return None;
        }
        let totals: Vec<(f64, f64)> = totals.iter().map(Accumulator::result).collect();
        // Only the columns the weighted rows store can be non-zero: on sparse data with many columns
        // (text, hashed features) the point lives in those, and a column no weighted row stores is
        // exactly zero and adds nothing to the length (nor to its bound).
        let columns = if data.is_sparse() {
            ColumnSet::used(data, weighted.iter().map(|&(i, _)| i))
        } else {
            ColumnSet::all(data.n_features())
        };
        // The point's entries with their error bounds, a block of columns at a time, so that the
        // accumulators never take more than a block's worth of memory (a point of millions of columns
        // held whole, with two compensated sums an entry, would take several times the data).
        let block_entries = |block: &[usize], sink: &mut dyn FnMut(f64, f64)| {
            let range = block[0]..block[block.len() - 1] + 1;
            let contiguous = range.len() == block.len();
            let mut sums = vec![vec![Accumulator::default(); block.len()]; groups];
            for &(i, c) in weighted {
                let y = data.labels()[i];
                let g = group(bias, y);
                // Through the origin the points are yᵢxᵢ; with a free bias each group keeps its sign
                // and the two group means are subtracted at the end.
                let sign = if groups == 1 { y } else { 1.0 };
                // An exact zero adds nothing and rounds nothing; counted, it would only lift the
                // column's bound off zero by the accumulator's underflow floor, and then rows that
                // all lie at the origin would never prove that they do.
                let entries = data
                    .row(i)
                    .entries_in(range.clone())
                    .filter(|&(_, x)| x != 0.0);
                if contiguous {
                    for (j, x) in entries {
                        sums[g][j - range.start].add_product(c, sign * x);
                    }
                } else {
                    // Both in column order, so a forward search finds each entry's slot.
                    let mut slot = 0;
                    for (j, x) in entries {
                        slot += block[slot..].partition_point(|&k| k < j);
                        sums[g][slot].add_product(c, sign * x);
                    }
                }
            }
            let u = UNIT_ROUNDOFF;
            // Mean of group g in the block's k-th column, with a bound on its error.
            let mean = |g: usize, k: usize| -> (f64, f64) {
                if sums[g][k].is_empty() {
                    return (0.0, 0.0);
                }
                let (p, ep) = sums[g][k].result();
                let (c, ec) = totals[g];
                let value = p / c;
                let err = (ep + p.abs() * ec / c) / (c - ec) + 2.0 * u * value.abs();
                (value, err * (1.0 + 8.0 * u))
            };
            for k in 0..block.len() {
                let (mut value, mut err) = mean(0, k);
                if groups == 2 {
                    let (q, eq) = mean(1, k);
                    let diff = value - q;
                    err += eq + 2.0 * u * diff.abs();
                    value = diff;
                }
                sink(value, err);
            }
        };
        // Dense data take one block, whatever their columns: its accumulators are a few rows' worth,
        // nothing beside the data. One block is computed once for both of the norm's sweeps (the
        // scale, then the sums); more are computed again in the second.
        let block = if data.is_sparse() {
            HULL_BLOCK
        } else {
            columns.len.max(1)
        };
        let single = (columns.len <= block && columns.len > 0).then(|| {
            let mut entries = Vec::with_capacity(columns.len);
            columns.for_each_block(block, |block| {
                block_entries(block, &mut |v, e| entries.push((v, e)));
            });
            entries
        });
        let (_, gap_upper) = norm_bounds_of(columns.len, |sink| match &single {
            Some(entries) => entries.iter().for_each(|&(v, e)| sink(v, e)),
            None => columns.for_each_block(block, |block| block_entries(block, sink)),
        });
        Some((gap_upper, totals))
    }
}

/// A lower bound on `Σᵢ wᵢ‖xᵢ‖` over the `weighted` rows, each group's weights divided by its total
/// (`totals`, with their error bounds): every term is non-negative, so each group's plain sum is within
/// `γₖ` of the exact one, and a product that underflows loses at most a few units of [`TINY`].
fn mixed_length_lower(
    data: Points<'_>,
    bias: Bias,
    weighted: &[(usize, f64)],
    totals: &[(f64, f64)],
) -> f64 {
    let mut sums = vec![0.0; totals.len()];
    for &(i, c) in weighted {
        let row = data.row(i);
        let (length, _) = norm_bounds_of(row.nnz() + 1, |sink| {
            row.entries().for_each(|(_, x)| sink(x, 0.0));
        });
        sums[group(bias, data.labels()[i])] += c * length;
    }
    let terms = weighted.len();
    let slack = 1.0 - gamma(terms + 4);
    let floor = 4.0 * TINY * terms as f64;
    let lower: f64 = sums
        .iter()
        .zip(totals)
        .map(|(&sum, &(total, error))| (sum * slack - floor).max(0.0) / (total + error) * slack)
        .sum();
    lower * slack
}

/// Weights are clamped at zero; a non-finite one counts as none.
pub(super) fn counts(c: f64) -> bool {
    c > 0.0 && c.is_finite()
}

/// The upper end of the margin bracket from a hull point's length bound: `½‖p − q‖` with a free bias,
/// `‖v‖` through the origin.
fn margin_upper(gap_upper: f64, bias: Bias) -> f64 {
    match bias {
        Bias::Free => gap_upper * 0.5,
        Bias::ThroughOrigin => gap_upper,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// A margin's upper end from a few weighted rows, listed in any order and some twice, is the one
    /// of the weights on every row, bit for bit, and it is refused where a group has no weight.
    #[test]
    fn the_upper_end_from_a_few_rows_is_that_of_the_weights_on_every_row() {
        let x = Array2::from_shape_fn((9, 4), |(i, j)| ((i * 5 + j * 3) % 7) as f64 * 0.3 - 0.9);
        let labels = ndarray::Array1::from_shape_fn(9, |i| if i % 2 == 0 { 1.0 } else { -1.0 });
        let dense = Dataset::new(x, labels).unwrap();
        let sparse = dense.to_sparse();
        // Row 4 twice (its last weight counts), a negative and a NaN weight (none).
        let pairs = [
            (7, 0.3),
            (4, 9.0),
            (2, 0.1 + 0.2),
            (5, -1.0),
            (1, 0.7),
            (4, 0.45),
            (8, f64::NAN),
        ];
        let mut raw = vec![0.0; 9];
        for &(i, c) in &pairs {
            raw[i] = c;
        }
        for data in [&dense, &sparse] {
            for points in [Points::from(data), Points::augmented(data, 0.5)] {
                for bias in [Bias::Free, Bias::ThroughOrigin] {
                    let full = HullPoint::evaluate(points, bias, &raw).unwrap();
                    let few = HullPoint::margin_upper_of(points, bias, &pairs).unwrap();
                    assert_eq!(few.to_bits(), margin_upper(full.gap_upper, bias).to_bits());
                }
                // No weight on a negative row: no hull point with a free bias.
                let positives = [(0, 1.0), (2, 0.5)];
                assert!(HullPoint::margin_upper_of(points, Bias::Free, &positives).is_none());
                assert!(
                    HullPoint::margin_upper_of(points, Bias::ThroughOrigin, &positives).is_some()
                );
            }
        }
    }

    /// A hull point is summed a block of columns at a time, over the columns its weighted rows store
    /// when the data are sparse. With every column used it is the dense storage's bound bit for bit,
    /// across blocks; with a third of the columns unused it still bounds the exact length, and no
    /// less tightly than over all the columns.
    #[test]
    fn a_hull_point_is_bounded_block_by_block() {
        let (n, d) = (6, 2 * HULL_BLOCK + 3);
        // Row i stores the columns j with (i + j) divisible by 3, so rows 0, 1 and 2 cover them all.
        let x = Array2::from_shape_fn((n, d), |(i, j)| {
            if (i + j) % 3 == 0 {
                ((i * 7 + j * 13) % 17 + 1) as f64 / 17.0
            } else {
                0.0
            }
        });
        let labels = ndarray::array![1.0, -1.0, 1.0, -1.0, 1.0, -1.0];
        let dense = Dataset::new(x.clone(), labels).unwrap();
        let sparse = dense.to_sparse();
        let evaluate = |data: &Dataset, bias, raw: &[f64]| {
            HullPoint::evaluate(Points::from(data), bias, raw).unwrap()
        };
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let raw = [0.5, 1.0, 0.25, 2.0, 0.0, 1.0];
            let (a, b) = (evaluate(&dense, bias, &raw), evaluate(&sparse, bias, &raw));
            assert_eq!(a.gap_upper.to_bits(), b.gap_upper.to_bits(), "{bias:?}");
            assert_eq!(a.weights, b.weights);

            // Rows 0 and 1 alone leave the columns j ≡ 1 (mod 3) empty.
            let raw = [0.5, 1.0, 0.0, 0.0, 0.0, 0.0];
            let (a, b) = (evaluate(&dense, bias, &raw), evaluate(&sparse, bias, &raw));
            // One row a class with a free bias, both rows' y·x through the origin.
            let (c0, c1) = match bias {
                Bias::Free => (1.0, 1.0),
                Bias::ThroughOrigin => (0.5 / 1.5, 1.0 / 1.5),
            };
            let exact = (0..d)
                .map(|j| c0 * x[[0, j]] - c1 * x[[1, j]])
                .map(|v| v * v)
                .sum::<f64>()
                .sqrt();
            assert!(b.gap_upper <= a.gap_upper, "{bias:?}");
            assert!(
                exact <= b.gap_upper && b.gap_upper <= exact * (1.0 + 1e-11),
                "{bias:?}: {exact} against {}",
                b.gap_upper
            );
        }
    }
}
