//! SVD helpers: numerical rank, the dimension of the affine hull, the reduction to the row space and the
//! least-squares separator `w = X⁺y`.
//!
//! The functions at the top level use [faer](https://docs.rs/faer), in pure Rust. With the `lapack`
//! feature the same functions are also available through `ndarray-linalg` and the system's LAPACK, in the
//! `lapack` submodule (documented when the feature is on); a test checks that the two agree. The top-level functions always use faer, so
//! that results do not depend on the features a crate was built with.
//!
//! Numerical rank uses the threshold of `numpy.linalg.matrix_rank`: a singular value counts when it exceeds
//! `σ_max · max(n, d) · ε`.

use faer_ext::{IntoFaer, IntoNdarray};
use ndarray::{Array1, Array2, ArrayView2, Axis};

use super::Bias;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// An orthonormal basis of the span of the rows of a matrix, and the rows in that basis.
///
/// ```
/// use ndarray::array;
/// let x = array![[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 1.0]];
/// let space = novikoff::margin::svd::row_space(x.view())?;
/// assert_eq!(space.basis.dim(), (4, 2));
/// // The rows are recovered exactly (to rounding) from their coordinates.
/// let back = space.coordinates.dot(&space.basis.t());
/// assert!((&back - &x).iter().all(|e| e.abs() < 1e-12));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RowSpace {
    /// `d × k` with orthonormal columns, `k = min(n, d)`. No direction is dropped, so that the reduction
    /// is exact: a maximum-margin problem solved in these coordinates is the same problem.
    pub basis: Array2<f64>,
    /// `n × k`: row `i` holds the coordinates of row `i` of the matrix in `basis`.
    pub coordinates: Array2<f64>,
}

/// The thin SVD `x = U·diag(s)·Vᵀ`, as `(U, s, V)` with `U: n × k`, `V: d × k`, `k = min(n, d)`.
fn thin_svd(x: ArrayView2<'_, f64>) -> Result<(Array2<f64>, Array1<f64>, Array2<f64>)> {
    let svd = x
        .into_faer()
        .thin_svd()
        .map_err(|e| Error::Solver(format!("faer SVD failed: {e:?}")))?;
    let u = svd.U().into_ndarray().to_owned();
    let v = svd.V().into_ndarray().to_owned();
    let s: Array1<f64> = svd.S().column_vector().iter().copied().collect();
    Ok((u, s, v))
}

/// The singular values of `x`, largest first.
///
/// ```
/// use ndarray::array;
/// let s = novikoff::margin::svd::singular_values(array![[3.0, 0.0], [0.0, -4.0]].view())?;
/// assert!((s[0] - 4.0).abs() < 1e-12 && (s[1] - 3.0).abs() < 1e-12);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Solver`] if the SVD does not converge.
pub fn singular_values(x: ArrayView2<'_, f64>) -> Result<Vec<f64>> {
    if x.is_empty() {
        return Ok(Vec::new());
    }
    let mut s = x
        .into_faer()
        .singular_values()
        .map_err(|e| Error::Solver(format!("faer SVD failed: {e:?}")))?;
    s.sort_by(|a, b| b.total_cmp(a));
    Ok(s)
}

/// The rank threshold: `σ_max · max(n, d) · ε`.
fn rank_threshold(singular: &[f64], shape: (usize, usize)) -> f64 {
    let largest = singular.first().copied().unwrap_or(0.0);
    largest * shape.0.max(shape.1) as f64 * f64::EPSILON
}

fn rank_from(singular: &[f64], shape: (usize, usize)) -> usize {
    let threshold = rank_threshold(singular, shape);
    singular.iter().filter(|&&s| s > threshold).count()
}

/// The numerical rank of `x`: the number of singular values above `σ_max · max(n, d) · ε`.
///
/// ```
/// use ndarray::array;
/// let x = array![[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]];
/// assert_eq!(novikoff::margin::svd::numerical_rank(x.view())?, 1);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Solver`] if the SVD does not converge.
pub fn numerical_rank(x: ArrayView2<'_, f64>) -> Result<usize> {
    Ok(rank_from(&singular_values(x)?, x.dim()))
}

fn centred(x: ArrayView2<'_, f64>) -> Array2<f64> {
    match x.mean_axis(Axis(0)) {
        Some(mean) => &x - &mean,
        None => x.to_owned(),
    }
}

/// The dimension of the affine hull of the rows: the rank of the rows after subtracting their mean.
/// Three points on a line have affine dimension 1; `n` points in general position have `min(n − 1, d)`.
///
/// ```
/// use ndarray::array;
/// let on_a_line = array![[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]];
/// assert_eq!(novikoff::margin::svd::affine_hull_dimension(on_a_line.view())?, 1);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Solver`] if the SVD does not converge.
pub fn affine_hull_dimension(x: ArrayView2<'_, f64>) -> Result<usize> {
    let c = centred(x);
    // The threshold is relative to the size of the points, not of their spread, so that a cloud that is
    // tiny compared with its distance from the origin is not mistaken for a point.
    let s = singular_values(c.view())?;
    let scale = x
        .outer_iter()
        .map(|r| r.dot(&r).sqrt())
        .fold(0.0, f64::max)
        .max(s.first().copied().unwrap_or(0.0));
    let threshold = scale * x.nrows().max(x.ncols()) as f64 * f64::EPSILON;
    Ok(s.iter().filter(|&&v| v > threshold).count())
}

/// An orthonormal basis of the row space of `x` and the coordinates of the rows in it. Every one of the
/// `min(n, d)` directions is kept, so no information is lost; when `d > n` the coordinates have fewer
/// columns than `x`. This is the reduction the maximum-margin solver uses for wide data: the optimal `w` is
/// a combination of the rows.
///
/// ```
/// use ndarray::array;
/// let space = novikoff::margin::svd::row_space(array![[0.0, 0.0, 2.0]].view())?;
/// assert!((space.basis[[2, 0]].abs() - 1.0).abs() < 1e-15);
/// assert!((space.coordinates[[0, 0]].abs() - 2.0).abs() < 1e-15);
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Solver`] if the SVD does not converge.
pub fn row_space(x: ArrayView2<'_, f64>) -> Result<RowSpace> {
    let (u, s, v) = thin_svd(x)?;
    Ok(RowSpace {
        basis: v,
        coordinates: u * &s,
    })
}

/// `A⁺·rhs` from a thin SVD, dropping singular values at or below the rank threshold.
fn pseudo_solve(
    (u, s, v): &(Array2<f64>, Array1<f64>, Array2<f64>),
    shape: (usize, usize),
    rhs: &Array1<f64>,
) -> Array1<f64> {
    let threshold = rank_threshold(s.as_slice().unwrap_or(&[]), shape);
    let mut coefficients = u.t().dot(rhs);
    for (c, &sigma) in coefficients.iter_mut().zip(s.iter()) {
        *c = if sigma > threshold { *c / sigma } else { 0.0 };
    }
    v.dot(&coefficients)
}

fn least_squares_system(data: &Dataset, bias: Bias) -> Result<Array2<f64>> {
    let dense = data.densified("the least-squares separator")?;
    Ok(match bias {
        Bias::Free => dense.augment(1.0).into_parts().0,
        Bias::ThroughOrigin => dense.x().to_owned(),
    })
}

fn split_bias(solution: Array1<f64>, bias: Bias) -> (Array1<f64>, f64) {
    match bias {
        Bias::Free => {
            let d = solution.len() - 1;
            let b = solution[d];
            (solution.slice_move(ndarray::s![..d]), b)
        }
        Bias::ThroughOrigin => (solution, 0.0),
    }
}

/// The least-squares separator: the minimum-norm `(w, b)` minimising `‖Xw + b − y‖` (with
/// [`Bias::ThroughOrigin`], `b = 0` and `w = X⁺y`). It is the classic warm start and a quick hint of
/// separability: if it classifies every point correctly, the data are separable.
///
/// ```
/// use ndarray::array;
/// use novikoff::margin::{svd, Bias};
/// let data = novikoff::Dataset::new(array![[2.0], [4.0]], array![-1.0, 1.0])?;
/// let (w, b) = svd::least_squares_separator(&data, Bias::Free)?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (b + 3.0).abs() < 1e-12); // the line through both points
/// # Ok::<(), novikoff::Error>(())
/// ```
///
/// # Errors
/// [`Error::Solver`] if the SVD does not converge.
pub fn least_squares_separator(data: &Dataset, bias: Bias) -> Result<(Array1<f64>, f64)> {
    let a = least_squares_system(data, bias)?;
    let factors = thin_svd(a.view())?;
    let solution = pseudo_solve(&factors, a.dim(), &data.y().to_owned());
    Ok(split_bias(solution, bias))
}

/// The same helpers through `ndarray-linalg` and the system LAPACK (feature `lapack`).
///
/// ```
/// # #[cfg(feature = "lapack")] {
/// use ndarray::array;
/// let x = array![[1.0, 2.0], [2.0, 4.0]];
/// assert_eq!(novikoff::margin::svd::lapack::numerical_rank(x.view())?, 1);
/// # }
/// # Ok::<(), novikoff::Error>(())
/// ```
#[cfg(feature = "lapack")]
pub mod lapack {
    use ndarray::{Array1, Array2, ArrayView2};
    use ndarray_linalg::{JobSvd, SVDDC};

    use super::{RowSpace, centred, least_squares_system, pseudo_solve, rank_from, split_bias};
    use crate::dataset::Dataset;
    use crate::error::{Error, Result};
    use crate::margin::Bias;

    fn lapack_error(e: impl std::fmt::Debug) -> Error {
        Error::Solver(format!("LAPACK SVD failed: {e:?}"))
    }

    fn thin_svd(x: ArrayView2<'_, f64>) -> Result<(Array2<f64>, Array1<f64>, Array2<f64>)> {
        let (u, s, vt) = x.to_owned().svddc(JobSvd::Some).map_err(lapack_error)?;
        let u = u.ok_or_else(|| lapack_error("no U"))?;
        let vt = vt.ok_or_else(|| lapack_error("no Vᵀ"))?;
        Ok((u, s, vt.t().to_owned()))
    }

    /// [`super::singular_values`] through LAPACK.
    ///
    /// ```
    /// use ndarray::array;
    /// let s = novikoff::margin::svd::lapack::singular_values(array![[0.0, 2.0]].view())?;
    /// assert!((s[0] - 2.0).abs() < 1e-15);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Solver`] if LAPACK fails.
    pub fn singular_values(x: ArrayView2<'_, f64>) -> Result<Vec<f64>> {
        if x.is_empty() {
            return Ok(Vec::new());
        }
        let (_, s, _) = x.to_owned().svddc(JobSvd::None).map_err(lapack_error)?;
        let mut s = s.to_vec();
        s.sort_by(|a, b| b.total_cmp(a));
        Ok(s)
    }

    /// [`super::numerical_rank`] through LAPACK.
    ///
    /// ```
    /// use ndarray::array;
    /// assert_eq!(novikoff::margin::svd::lapack::numerical_rank(array![[1.0, 1.0]].view())?, 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Solver`] if LAPACK fails.
    pub fn numerical_rank(x: ArrayView2<'_, f64>) -> Result<usize> {
        Ok(rank_from(&singular_values(x)?, x.dim()))
    }

    /// [`super::affine_hull_dimension`] through LAPACK.
    ///
    /// ```
    /// use ndarray::array;
    /// let x = array![[0.0, 1.0], [1.0, 2.0]];
    /// assert_eq!(novikoff::margin::svd::lapack::affine_hull_dimension(x.view())?, 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Solver`] if LAPACK fails.
    pub fn affine_hull_dimension(x: ArrayView2<'_, f64>) -> Result<usize> {
        let s = singular_values(centred(x).view())?;
        let scale = x
            .outer_iter()
            .map(|r| r.dot(&r).sqrt())
            .fold(0.0, f64::max)
            .max(s.first().copied().unwrap_or(0.0));
        let threshold = scale * x.nrows().max(x.ncols()) as f64 * f64::EPSILON;
        Ok(s.iter().filter(|&&v| v > threshold).count())
    }

    /// [`super::row_space`] through LAPACK.
    ///
    /// ```
    /// use ndarray::array;
    /// let space = novikoff::margin::svd::lapack::row_space(array![[0.0, 3.0]].view())?;
    /// assert!((space.coordinates[[0, 0]].abs() - 3.0).abs() < 1e-15);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Solver`] if LAPACK fails.
    pub fn row_space(x: ArrayView2<'_, f64>) -> Result<RowSpace> {
        let (u, s, v) = thin_svd(x)?;
        Ok(RowSpace {
            basis: v,
            coordinates: u * &s,
        })
    }

    /// [`super::least_squares_separator`] through LAPACK.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::margin::Bias;
    /// let data = novikoff::Dataset::new(array![[2.0], [4.0]], array![-1.0, 1.0])?;
    /// let (w, b) = novikoff::margin::svd::lapack::least_squares_separator(&data, Bias::Free)?;
    /// assert!((w[0] - 1.0).abs() < 1e-12 && (b + 3.0).abs() < 1e-12);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Solver`] if LAPACK fails.
    pub fn least_squares_separator(data: &Dataset, bias: Bias) -> Result<(Array1<f64>, f64)> {
        let a = least_squares_system(data, bias)?;
        let factors = thin_svd(a.view())?;
        let solution = pseudo_solve(&factors, a.dim(), &data.y().to_owned());
        Ok(split_bias(solution, bias))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn rank_of_a_wide_matrix() {
        let x = array![
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [1.0, 1.0, 0.0, 2.0]
        ];
        assert_eq!(numerical_rank(x.view()).unwrap(), 2);
        assert_eq!(affine_hull_dimension(x.view()).unwrap(), 2);
    }

    #[test]
    fn a_tiny_cloud_far_away_is_one_point() {
        let x = array![[1e8, 1e8], [1e8, 1e8 + 1e-9]];
        assert_eq!(affine_hull_dimension(x.view()).unwrap(), 0);
        let x = array![[1e8, 1e8], [1e8, 1e8 + 1.0]];
        assert_eq!(affine_hull_dimension(x.view()).unwrap(), 1);
    }

    #[cfg(feature = "lapack")]
    #[test]
    fn lapack_agrees_with_faer() {
        use crate::rng;
        let mut rng = rng::from_seed(11);
        for &(n, d) in &[(5usize, 3usize), (4, 9), (30, 30), (12, 40)] {
            let x = Array2::from_shape_fn((n, d), |_| rng::unit_f64(&mut rng) * 4.0 - 2.0);
            let y: Array1<f64> = (0..n)
                .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
                .collect();
            let data = Dataset::new(x.clone(), y).unwrap();
            let a = singular_values(x.view()).unwrap();
            let b = lapack::singular_values(x.view()).unwrap();
            for (s, t) in a.iter().zip(&b) {
                assert!((s - t).abs() <= 1e-12 * a[0], "{s} vs {t}");
            }
            assert_eq!(
                numerical_rank(x.view()).unwrap(),
                lapack::numerical_rank(x.view()).unwrap()
            );
            assert_eq!(
                affine_hull_dimension(x.view()).unwrap(),
                lapack::affine_hull_dimension(x.view()).unwrap()
            );
            // Bases differ by a rotation; the projector onto the row space does not.
            let p = row_space(x.view()).unwrap().basis;
            let q = lapack::row_space(x.view()).unwrap().basis;
            let diff = p.dot(&p.t()) - q.dot(&q.t());
            assert!(diff.iter().all(|e| e.abs() < 1e-10));
            for bias in [Bias::Free, Bias::ThroughOrigin] {
                let (w1, b1) = least_squares_separator(&data, bias).unwrap();
                let (w2, b2) = lapack::least_squares_separator(&data, bias).unwrap();
                assert!((&w1 - &w2).iter().all(|e| e.abs() < 1e-9), "{w1} {w2}");
                assert!((b1 - b2).abs() < 1e-9);
            }
        }
    }
}
