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
    points: Vec<f64>,
    /// `r`, the length of a point.
    dim: usize,
    /// ±1.
    pub labels: Vec<f64>,
    pub bias: Bias,
    /// `d × r` orthonormal columns, when the problem was reduced to the row space.
    pub basis: Option<Array2<f64>>,
    /// The coordinates are in a basis that is never formed ([`Problem::in_span`]).
    implicit_basis: bool,
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
        let dim = points.ncols();
        let points = points
            .as_standard_layout()
            .into_owned()
            .into_raw_vec_and_offset()
            .0;
        Problem {
            points,
            dim,
            labels: data.labels().to_vec(),
            bias,
            basis,
            implicit_basis: false,
        }
    }

    /// The points of [`super::span::Span`]: coordinates in an orthonormal basis of the rows' span that
    /// is never formed, so a direction comes back through the rows' dual weights
    /// ([`Problem::in_implicit_basis`]), not through [`Problem::direction_to_data`].
    pub(crate) fn in_span(points: Vec<f64>, dim: usize, labels: Vec<f64>, bias: Bias) -> Problem {
        debug_assert_eq!(points.len(), labels.len() * dim);
        Problem {
            points,
            dim,
            labels,
            bias,
            basis: None,
            implicit_basis: true,
        }
    }

    /// An empty problem in `dim` coordinates, to be filled by [`Problem::push`]: the store of a working
    /// set that grows from round to round, with coordinates fixed once for the whole solve, so that a
    /// point keeps its position (and the active set its factorisation) when others join.
    pub(crate) fn growing(bias: Bias, dim: usize) -> Problem {
        Problem {
            points: Vec::new(),
            dim,
            labels: Vec::new(),
            bias,
            basis: None,
            implicit_basis: false,
        }
    }

    /// Append a point (already in the problem's coordinates) with its label.
    pub(crate) fn push(&mut self, point: impl IntoIterator<Item = f64>, label: f64) {
        let before = self.points.len();
        self.points.extend(point);
        debug_assert_eq!(self.points.len(), before + self.dim);
        self.labels.push(label);
    }

    /// Number of rows.
    pub(crate) fn n(&self) -> usize {
        self.labels.len()
    }

    /// Dimension of the (possibly reduced) coordinates.
    pub(crate) fn dim(&self) -> usize {
        self.dim
    }

    /// Row `i` of the transformed points.
    #[inline]
    pub(crate) fn row(&self, i: usize) -> &[f64] {
        let r = self.dim;
        &self.points[i * r..(i + 1) * r]
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

    /// Whether the coordinates are in a basis that is never formed ([`Problem::in_span`]): a direction
    /// then comes back as the rows' combination with the solve's dual weights.
    pub(crate) fn in_implicit_basis(&self) -> bool {
        self.implicit_basis
    }

    /// A direction in these coordinates, as a direction in the original `d`-dimensional feature space (not
    /// normalised). Centring and scaling do not change directions; the rotation is undone with the basis.
    pub(crate) fn direction_to_data(&self, w: &[f64], d: usize) -> Array1<f64> {
        debug_assert!(
            !self.implicit_basis,
            "a direction in an implicit basis has no map back"
        );
        let unrotated = match &self.basis {
            Some(basis) => basis.dot(&ndarray::ArrayView1::from(w)),
            None => Array1::from(w.to_vec()),
        };
        debug_assert_eq!(unrotated.len(), d);
        unrotated
    }
}

/// `n` rows of `dim` scattered coordinates in `[−½, ½]` (a splitmix64 step per entry, so no structure
/// for the rows to share), for the unit tests of the solver's parts.
#[cfg(test)]
pub(crate) fn scattered_rows(n: usize, dim: usize) -> Vec<Vec<f64>> {
    let value = |i: usize, j: usize| {
        let mut z = ((i * 1000 + j) as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / u64::MAX as f64 - 0.5
    };
    (0..n)
        .map(|i| (0..dim).map(|j| value(i, j)).collect())
        .collect()
}

/// The bits of every value of a set of columns, for comparing two factorisations exactly.
#[cfg(test)]
pub(crate) fn bits(columns: &[Vec<f64>]) -> Vec<Vec<u64>> {
    columns
        .iter()
        .map(|c| c.iter().map(|x| x.to_bits()).collect())
        .collect()
}
