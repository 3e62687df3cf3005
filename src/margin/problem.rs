//! The maximum-margin problem in well-scaled coordinates.
//!
//! The margin is a Euclidean quantity, so the only changes of coordinates allowed are rigid motions and a
//! common scale. [`Problem`] centres the data (free bias only: a translation moves `b`, not the margin),
//! divides by the radius about that centre so that every point lies in the unit ball, and, when there are
//! more features than examples, rotates onto the span of the rows ([`super::svd::row_space`]), where the
//! optimal `w` lies. Nothing is truncated: the reduced coordinates keep every direction of the rows, so the
//! problem is the same one, and the final bracket is in any case evaluated on the original data.

use ndarray::{Array1, Array2, Axis};

use super::Bias;
use super::svd;
use crate::dataset::Dataset;

/// The transformed points, their labels, and the map back to the original coordinates.
#[derive(Debug, Clone)]
pub(crate) struct Problem {
    /// `n × r`, row-major: `(xᵢ − centre)·basis / scale`.
    pub points: Array2<f64>,
    /// ±1.
    pub labels: Vec<f64>,
    pub bias: Bias,
    /// `d × r` orthonormal columns, when the problem was reduced to the row space.
    pub basis: Option<Array2<f64>>,
}

impl Problem {
    /// Centre (free bias), reduce (when `d > n`) and scale the data.
    pub(crate) fn new(data: &Dataset, bias: Bias) -> Problem {
        let x = data.x();
        let (n, d) = x.dim();
        let mut points = match bias {
            Bias::Free => {
                let centre = x.mean_axis(Axis(0)).unwrap_or_else(|| Array1::zeros(d));
                &x - &centre
            }
            Bias::ThroughOrigin => x.to_owned(),
        };
        let mut basis = None;
        if d > n {
            // Should the SVD fail, the unreduced problem is the same problem, only slower.
            if let Ok(space) = svd::row_space(points.view()) {
                points = space.coordinates;
                basis = Some(space.basis);
            }
        }
        // The radius of the points the solver sees (centred, or in row-space coordinates), by the
        // dataset's own row-length pass.
        let scale = if matches!(bias, Bias::ThroughOrigin) && basis.is_none() {
            data.radius()
        } else {
            crate::dataset::RowNorms::of(points.view()).radius
        };
        if scale > 0.0 {
            points.mapv_inplace(|v| v / scale);
        }
        let points = points.as_standard_layout().into_owned();
        Problem {
            points,
            labels: data.labels().to_vec(),
            bias,
            basis,
        }
    }

    /// Number of rows.
    pub(crate) fn n(&self) -> usize {
        self.points.nrows()
    }

    /// Dimension of the (possibly reduced) coordinates.
    pub(crate) fn dim(&self) -> usize {
        self.points.ncols()
    }

    /// Row `i` of the transformed points.
    #[inline]
    pub(crate) fn row(&self, i: usize) -> &[f64] {
        let r = self.dim();
        // Invariant: `new` stores the points with `as_standard_layout().into_owned()`.
        &self.points.as_slice().expect("standard layout")[i * r..(i + 1) * r]
    }

    /// The group of row `i` in the dual: through the origin one simplex over all rows; with a free bias one
    /// simplex per class.
    #[inline]
    pub(crate) fn group(&self, i: usize) -> usize {
        match self.bias {
            Bias::ThroughOrigin => 0,
            Bias::Free => usize::from(self.labels[i] < 0.0),
        }
    }

    /// Number of dual groups.
    pub(crate) fn groups(&self) -> usize {
        match self.bias {
            Bias::ThroughOrigin => 1,
            Bias::Free => 2,
        }
    }

    /// A direction in these coordinates, as a direction in the original feature space (not normalised).
    /// Centring and scaling do not change directions; the rotation is undone with the basis.
    pub(crate) fn direction_to_data(&self, w: &[f64]) -> Array1<f64> {
        match &self.basis {
            Some(basis) => basis.dot(&ndarray::ArrayView1::from(w)),
            None => Array1::from(w.to_vec()),
        }
    }
}
