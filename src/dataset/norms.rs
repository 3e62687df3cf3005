//! The rows' lengths and the radius `R`: computed here, once per dataset, and nowhere else.
//!
//! Every quantity of the theorem that depends on the rows' lengths (the radius `R = maxᵢ ‖xᵢ‖`, the
//! largest squared length that the proof's second inequality uses, the shortest row, whether the rows
//! have unit length) comes from one pass, [`RowNorms::of`], cached by the [`Dataset`](super::Dataset)
//! that owns the rows. A geometry, a bound or a solver that needs `R` asks the dataset for it, so two
//! separately computed values can never disagree.

use ndarray::ArrayView2;
use rayon::prelude::*;

use super::Features;

/// The lengths of a matrix's rows, summarised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RowNorms {
    /// `R = maxᵢ ‖xᵢ‖`, each length by [`norm`] (no overflow or underflow in the squares).
    pub(crate) radius: f64,
    /// `maxᵢ Σⱼ xᵢⱼ²`, the plain left-to-right sum (the proof's `R²` for the run's arithmetic).
    pub(crate) max_sq_norm: f64,
    /// `minᵢ Σⱼ xᵢⱼ²`, the plain sum.
    pub(crate) min_sq_norm: f64,
    /// `minᵢ ‖xᵢ‖`, by [`norm`].
    pub(crate) min_norm: f64,
}

impl RowNorms {
    /// One pass over the rows of `x`.
    pub(crate) fn of(x: ArrayView2<'_, f64>) -> RowNorms {
        Self::of_values(x.outer_iter().map(|row| match row.to_slice() {
            Some(values) => std::borrow::Cow::Borrowed(values),
            None => std::borrow::Cow::Owned(row.to_vec()),
        }))
    }

    /// The rows' lengths and the largest magnitude of a stored value, `maxᵢⱼ |xᵢⱼ|`, in one pass over
    /// the features, split over the available threads by blocks of rows. The same bits as a
    /// row-by-row pass: every row's sums run left to right, and the blocks' summaries
    /// merge by maxima and minima, which do not depend on the split.
    ///
    /// A row whose non-zero values all lie in the middle range of [`norm`] has the length `√(Σⱼ xᵢⱼ²)`
    /// with the plain sum's bits, so the plain sum is computed once for both; dense rows go four at a
    /// time, their four sums interleaved, since each sum is one chain of dependent additions.
    pub(crate) fn of_features(features: &Features) -> (RowNorms, f64) {
        const BLOCK_ROWS: usize = 1024;
        let merge = |(a, x): (RowNorms, f64), (b, y): (RowNorms, f64)| {
            (
                RowNorms {
                    radius: a.radius.max(b.radius),
                    max_sq_norm: a.max_sq_norm.max(b.max_sq_norm),
                    min_sq_norm: a.min_sq_norm.min(b.min_sq_norm),
                    min_norm: a.min_norm.min(b.min_norm),
                },
                x.max(y),
            )
        };
        match features {
            Features::Dense(x) => {
                let d = x.dim().1;
                let flat = x.as_slice();
                if d == 0 || flat.is_empty() {
                    return (Self::of_values(std::iter::empty::<&[f64]>()), 0.0);
                }
                flat.par_chunks(BLOCK_ROWS * d)
                    .map(|block| {
                        let mut summary = (RowNorms::EMPTY, 0.0);
                        let mut quads = block.chunks_exact(4 * d);
                        for quad in &mut quads {
                            let (r0, rest) = quad.split_at(d);
                            let (r1, rest) = rest.split_at(d);
                            let (r2, r3) = rest.split_at(d);
                            let mut sums = [0.0_f64; 4];
                            for j in 0..d {
                                sums[0] += r0[j] * r0[j];
                                sums[1] += r1[j] * r1[j];
                                sums[2] += r2[j] * r2[j];
                                sums[3] += r3[j] * r3[j];
                            }
                            for (row, sq) in [r0, r1, r2, r3].into_iter().zip(sums) {
                                summary.0.add_row(row, sq, &mut summary.1);
                            }
                        }
                        for row in quads.remainder().chunks_exact(d) {
                            let sq = row.iter().fold(0.0, |acc, v| acc + v * v);
                            summary.0.add_row(row, sq, &mut summary.1);
                        }
                        summary
                    })
                    .reduce(|| (RowNorms::EMPTY, 0.0), merge)
            }
            Features::Sparse(x) => (0..x.rows())
                .into_par_iter()
                .with_min_len(BLOCK_ROWS)
                .map(|i| {
                    let mut summary = (RowNorms::EMPTY, 0.0);
                    let (indptr, _, values) = x.arrays();
                    let row = &values[indptr[i]..indptr[i + 1]];
                    let sq = row.iter().fold(0.0, |acc, v| acc + v * v);
                    summary.0.add_row(row, sq, &mut summary.1);
                    summary
                })
                .reduce(|| (RowNorms::EMPTY, 0.0), merge),
        }
    }

    /// No rows.
    const EMPTY: RowNorms = RowNorms {
        radius: 0.0,
        max_sq_norm: 0.0,
        min_sq_norm: f64::INFINITY,
        min_norm: f64::INFINITY,
    };

    /// Take one row, whose plain sum of squares is `sq`, into the summary and `largest`.
    #[inline]
    fn add_row(&mut self, row: &[f64], sq: f64, largest: &mut f64) {
        let (tsml, tbig) = middle_range();
        let (low, high) = magnitude_range(row);
        *largest = largest.max(high);
        let length = if low >= tsml && high <= tbig {
            sq.sqrt()
        } else {
            norm(row.iter().copied())
        };
        self.max_sq_norm = self.max_sq_norm.max(sq);
        self.min_sq_norm = self.min_sq_norm.min(sq);
        self.radius = self.radius.max(length);
        self.min_norm = self.min_norm.min(length);
    }

    fn of_values<V: AsRef<[f64]>>(rows: impl Iterator<Item = V>) -> RowNorms {
        let mut norms = RowNorms::EMPTY;
        for row in rows {
            let row = row.as_ref();
            let sq = row.iter().fold(0.0, |acc, v| acc + v * v);
            norms.max_sq_norm = norms.max_sq_norm.max(sq);
            norms.min_sq_norm = norms.min_sq_norm.min(sq);
            // Scaled, so that rows of 10⁻²⁰⁰s are not zero rows nor rows of 10²⁰⁰s infinite.
            let length = norm(row.iter().copied());
            norms.radius = norms.radius.max(length);
            norms.min_norm = norms.min_norm.min(length);
        }
        norms
    }

    /// True when every row has length 1 to within `tol`. `|√s − 1|` is largest at the shortest or the
    /// longest row, so the two extremes decide for every row.
    pub(crate) fn unit_length(&self, tol: f64) -> bool {
        self.min_sq_norm == f64::INFINITY
            || [self.min_sq_norm, self.max_sq_norm]
                .iter()
                .all(|sq| (sq.sqrt() - 1.0).abs() <= tol)
    }
}

/// The smallest non-zero and the largest magnitude of `values` (`∞` and `0` for none). Minima and
/// maxima do not depend on the order they are taken in, so the values are taken in eight
/// independent lanes: one running minimum and maximum over a whole row was a chain of dependent
/// comparisons, and made the norms' pass several times slower than the sums of squares beside it.
#[inline]
fn magnitude_range(values: &[f64]) -> (f64, f64) {
    const LANES: usize = 8;
    // Comparisons rather than `f64::min`/`max`, whose NaN handling costs a blend a value; both skip a
    // NaN (`NaN > m` is false), so the result is theirs.
    let take = |a: f64, low: &mut f64, high: &mut f64| {
        *high = if a > *high { a } else { *high };
        *low = if a > 0.0 && a < *low { a } else { *low };
    };
    let (mut low, mut high) = ([f64::INFINITY; LANES], [0.0_f64; LANES]);
    let mut chunks = values.chunks_exact(LANES);
    for chunk in &mut chunks {
        for k in 0..LANES {
            take(chunk[k].abs(), &mut low[k], &mut high[k]);
        }
    }
    for (k, &v) in chunks.remainder().iter().enumerate() {
        take(v.abs(), &mut low[k], &mut high[k]);
    }
    (
        low.iter().fold(f64::INFINITY, |m, &v| m.min(v)),
        high.iter().fold(0.0, |m, &v| m.max(v)),
    )
}

/// Blue's middle range `[2⁻⁵¹¹, 2⁴⁸⁶]`: values whose squares [`norm`] sums as they are.
#[inline]
fn middle_range() -> (f64, f64) {
    (
        f64::from_bits(((1023 - 511) as u64) << 52),
        f64::from_bits(((1023 + 486) as u64) << 52),
    )
}

/// The Euclidean length of `values`, without overflow or underflow in the squares (Blue's algorithm, as
/// in LAPACK's `dnrm2` since 3.10).
///
/// Entries of moderate size (between `2⁻⁵¹¹` and `2⁴⁸⁶`) are squared and summed left to right as they are,
/// so for ordinary data the result has the bits of `Σ xⱼ²` followed by a square root. Larger and smaller
/// entries are accumulated in their own scaled sums, so a row of 10²⁰⁰s has a finite length and a row of
/// 10⁻²⁰⁰s a positive one. The result is `∞` only when the length itself exceeds `f64::MAX`.
pub(crate) fn norm(values: impl IntoIterator<Item = f64>) -> f64 {
    // Blue's thresholds and scale factors for f64: 2^-511, 2^486, 2^537 and 2^-538.
    let (tsml, tbig) = middle_range();
    let ssml = f64::from_bits(((1023 + 537) as u64) << 52);
    let sbig = f64::from_bits(((1023 - 538) as u64) << 52);
    let (mut small, mut medium, mut big) = (0.0_f64, 0.0_f64, 0.0_f64);
    let mut not_big = true;
    for x in values {
        let a = x.abs();
        if a > tbig {
            big += (a * sbig) * (a * sbig);
            not_big = false;
        } else if a < tsml {
            if not_big {
                small += (a * ssml) * (a * ssml);
            }
        } else {
            medium += a * a;
        }
    }
    if big > 0.0 {
        if medium > 0.0 || medium.is_nan() {
            big += (medium * sbig) * sbig;
        }
        return big.sqrt() / sbig;
    }
    if small > 0.0 {
        if medium > 0.0 || medium.is_nan() {
            let medium = medium.sqrt();
            let small = small.sqrt() / ssml;
            let (low, high) = if small > medium {
                (medium, small)
            } else {
                (small, medium)
            };
            return high * (1.0 + (low / high) * (low / high)).sqrt();
        }
        return small.sqrt() / ssml;
    }
    medium.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn norm_is_blue_and_plain_in_the_middle() {
        let row = [0.1, -2.5, 3.75, 1e-3];
        let plain = row.iter().fold(0.0_f64, |acc, v| acc + v * v).sqrt();
        assert_eq!(norm(row), plain);
        assert!((norm([3e200, 4e200]) / 5e200 - 1.0).abs() < 1e-15);
        assert!((norm([3e-200, 4e-200]) / 5e-200 - 1.0).abs() < 1e-15);
        assert_eq!(norm([1e300, 1e-300]), 1e300);
        assert!(norm([f64::MAX, f64::MAX]).is_infinite());
        assert_eq!(norm([0.0, 0.0]), 0.0);
    }

    #[test]
    fn one_pass_over_the_features_gives_the_rows_bits() {
        let mut values: Vec<f64> = (0..4099 * 3)
            .map(|i| ((i * 7919) % 113) as f64 * 0.37 - 11.0)
            .collect();
        // Rows with zeros, huge and tiny values take Blue's scaled sums.
        values[5] = 0.0;
        values[7] = 3e300;
        values[100] = 1e-300;
        let x = ndarray::Array2::from_shape_vec((4099, 3), values).unwrap();
        let rows = || x.outer_iter().map(|row| row.to_vec());
        let expected = RowNorms::of_values(rows());
        let largest = x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        for features in [
            Features::Dense(crate::dataset::dense::DenseMatrix::Owned(x.clone())),
            Features::csr(crate::dataset::sparse::from_dense(x.view())),
        ] {
            let (norms, found) = RowNorms::of_features(&features);
            assert_eq!(norms, expected);
            assert_eq!(found, largest);
        }
    }

    #[test]
    fn magnitudes_taken_in_lanes_are_the_extremes_of_one_run() {
        let one_run = |values: &[f64]| {
            values
                .iter()
                .fold((f64::INFINITY, 0.0_f64), |(low, high), v| {
                    let a = v.abs();
                    (
                        low.min(if a > 0.0 { a } else { f64::INFINITY }),
                        high.max(a),
                    )
                })
        };
        let specials = [
            0.0,
            -0.0,
            1e-300,
            -3e300,
            f64::MIN_POSITIVE / 8.0,
            f64::NAN,
            -2.5,
        ];
        for len in 0..=27 {
            let base: Vec<f64> = (0..len).map(|i| ((i * 37) % 11) as f64 - 5.0).collect();
            assert_eq!(magnitude_range(&base), one_run(&base), "length {len}");
            for position in 0..len {
                for &special in &specials {
                    let mut values = base.clone();
                    values[position] = special;
                    assert_eq!(
                        magnitude_range(&values),
                        one_run(&values),
                        "length {len}, {special} at {position}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_extremes_decide_unit_length_as_every_row_would() {
        let x = array![[0.6, 0.8], [1.0, 0.0], [0.0, 1.0 + 1e-10]];
        let norms = RowNorms::of(x.view());
        for tol in [1e-12, 1e-10, 1e-9, 0.0] {
            let every_row = x
                .outer_iter()
                .all(|row| (row.iter().fold(0.0, |a, v| a + v * v).sqrt() - 1.0).abs() <= tol);
            assert_eq!(norms.unit_length(tol), every_row, "{tol}");
        }
        assert_eq!(norms.radius, 1.0 + 1e-10);
        assert_eq!(
            RowNorms::of(array![[3e200, 4e200]].view()).max_sq_norm,
            f64::INFINITY
        );
    }
}
