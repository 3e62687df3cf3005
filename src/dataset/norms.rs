//! The rows' lengths and the radius `R`: computed here, once per dataset, and nowhere else.
//!
//! Every quantity of the theorem that depends on the rows' lengths (the radius `R = maxᵢ ‖xᵢ‖`, the
//! largest squared length that the proof's second inequality uses, the shortest row, whether the rows
//! have unit length) comes from one pass, [`RowNorms::of`], cached by the [`Dataset`](super::Dataset)
//! that owns the rows. A geometry, a bound or a solver that needs `R` asks the dataset for it, so two
//! separately computed values can never disagree.

use ndarray::ArrayView2;

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

    /// One pass over rows of either storage: the unstored zeros of a sparse row add nothing to a sum of
    /// squares, so both storages give the same bits.
    pub(crate) fn of_rows<'a>(rows: impl Iterator<Item = super::RowView<'a>>) -> RowNorms {
        Self::of_values(rows.map(|row| row.values()))
    }

    fn of_values<V: AsRef<[f64]>>(rows: impl Iterator<Item = V>) -> RowNorms {
        let mut norms = RowNorms {
            radius: 0.0,
            max_sq_norm: 0.0,
            min_sq_norm: f64::INFINITY,
            min_norm: f64::INFINITY,
        };
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

/// The Euclidean length of `values`, without overflow or underflow in the squares (Blue's algorithm, as
/// in LAPACK's `dnrm2` since 3.10).
///
/// Entries of moderate size (between `2⁻⁵¹¹` and `2⁴⁸⁶`) are squared and summed left to right as they are,
/// so for ordinary data the result has the bits of `Σ xⱼ²` followed by a square root. Larger and smaller
/// entries are accumulated in their own scaled sums, so a row of 10²⁰⁰s has a finite length and a row of
/// 10⁻²⁰⁰s a positive one. The result is `∞` only when the length itself exceeds `f64::MAX`.
pub(crate) fn norm(values: impl IntoIterator<Item = f64>) -> f64 {
    // Blue's thresholds and scale factors for f64: 2^-511, 2^486, 2^537 and 2^-538.
    let tsml = f64::from_bits(((1023 - 511) as u64) << 52);
    let tbig = f64::from_bits(((1023 + 486) as u64) << 52);
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
