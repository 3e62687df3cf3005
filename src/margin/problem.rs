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
    /// The data's column of each coordinate, when the problem keeps only the columns its rows use.
    pub columns: Option<Vec<usize>>,
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
            columns: None,
        }
    }

    /// The problem of the rows `rows` alone, centred (free bias) and scaled like [`Problem::new`], in the
    /// columns those rows use. Dropping a column that is zero on every chosen row is an isometry of their
    /// points, so the subset's geometry is unchanged; a dense dataset keeps all its columns. Nothing is
    /// rotated unless the subset is sparse (below): the subset is the working set of [`super::rounds`],
    /// small beside the data.
    ///
    /// `None` when the copy would hold more than `max_values` values.
    pub(crate) fn of_rows(
        data: &Dataset,
        rows: &[usize],
        bias: Bias,
        max_values: usize,
    ) -> Option<Problem> {
        let d = data.n_features();
        let columns: Option<Vec<usize>> = data.is_sparse().then(|| {
            let mut used: Vec<usize> = rows
                .iter()
                .flat_map(|&i| data.row_view(i).entries().map(|(j, _)| j))
                .collect();
            used.sort_unstable();
            used.dedup();
            used
        });
        let r = columns.as_ref().map_or(d, Vec::len);
        if rows.len().saturating_mul(r) > max_values {
            return None;
        }
        let mut points = Array2::zeros((rows.len(), r));
        for (k, &i) in rows.iter().enumerate() {
            let mut target = points.row_mut(k);
            match &columns {
                None => {
                    for (j, v) in data.row_view(i).entries() {
                        target[j] = v;
                    }
                }
                Some(columns) => {
                    for (j, v) in data.row_view(i).entries() {
                        // Invariant: `columns` holds every column of the chosen rows.
                        let c = columns.binary_search(&j).expect("a column of the subset");
                        target[c] = v;
                    }
                }
            }
        }
        if bias == Bias::Free {
            let centre = points
                .mean_axis(Axis(0))
                .unwrap_or_else(|| Array1::zeros(r));
            points -= &centre;
        }
        // A sparse subset usually spans far fewer dimensions than the columns it uses: rotate onto the
        // span of its rows (an isometry, as in `new`), so that the exact solve works in at most |W|
        // dimensions. Should the SVD fail, the unreduced problem is the same problem, only slower.
        let mut basis = None;
        if columns.is_some()
            && r > rows.len()
            && let Ok(space) = svd::row_space(points.view())
        {
            points = space.coordinates;
            basis = Some(space.basis);
        }
        let scale = crate::dataset::RowNorms::of(points.view()).radius;
        if scale > 0.0 {
            points.mapv_inplace(|v| v / scale);
        }
        let dim = points.ncols();
        let points = points
            .as_standard_layout()
            .into_owned()
            .into_raw_vec_and_offset()
            .0;
        Some(Problem {
            points,
            dim,
            labels: rows.iter().map(|&i| data.labels()[i]).collect(),
            bias,
            basis,
            columns,
        })
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
            columns: None,
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

    /// A direction in these coordinates, as a direction in the original `d`-dimensional feature space (not
    /// normalised). Centring and scaling do not change directions; the rotation is undone with the basis,
    /// and dropped columns come back as zeros.
    pub(crate) fn direction_to_data(&self, w: &[f64], d: usize) -> Array1<f64> {
        let unrotated = match &self.basis {
            Some(basis) => basis.dot(&ndarray::ArrayView1::from(w)),
            None => Array1::from(w.to_vec()),
        };
        match &self.columns {
            Some(columns) => {
                let mut lifted = Array1::zeros(d);
                for (&j, &v) in columns.iter().zip(&unrotated) {
                    lifted[j] = v;
                }
                lifted
            }
            None => unrotated,
        }
    }
}
