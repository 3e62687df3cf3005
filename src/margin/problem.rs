//! The maximum-margin problem in well-scaled coordinates.
//!
//! The margin is a Euclidean quantity, so the only changes of coordinates allowed are rigid motions and a
//! common scale. [`Problem`] centres the data (free bias only: a translation moves `b`, not the margin),
//! divides by the radius about that centre so that every point lies in the unit ball, and, when there are
//! more features than examples, rotates onto the span of the rows ([`super::svd::row_space`]), where the
//! optimal `w` lies. Nothing is truncated: the reduced coordinates keep every direction of the rows, so the
//! problem is the same one, and the final bracket is in any case evaluated on the original data.

use std::sync::Arc;

use ndarray::{Array1, Array2, Axis};

use super::Bias;
use super::packed::PackedRows;
use super::points::Points;
use super::svd;
use crate::dataset::{Dataset, RowView};

/// The transformed points, their labels, and the map back to the original coordinates.
#[derive(Debug, Clone)]
pub(crate) struct Problem<'a> {
    /// `(xᵢ − centre)·basis / scale`, copied or read from the data.
    points: Storage<'a>,
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

/// Where a problem's points are held.
#[derive(Debug, Clone)]
enum Storage<'a> {
    /// `n × r`, row-major.
    Copied(Vec<f64>),
    /// Rows of dense data, translated and scaled each time they are read, or from a compact copy while
    /// that is small ([`Problem::in_place`]).
    InPlace(InPlace<'a>),
    /// Rows of `r` coordinates or fewer, zeros after them, shared with their owner
    /// ([`Problem::in_span`]), and the values the sparse dataset they come from stores.
    Packed {
        rows: Arc<PackedRows>,
        data_values: usize,
    },
}

/// A working set's rows read where the data hold them: point `k` is `(x_{rows[k]} − centre)·factor`.
#[derive(Debug, Clone)]
struct InPlace<'a> {
    data: Points<'a>,
    /// The data row of each point.
    rows: Vec<usize>,
    /// The translation, one entry a coordinate (zeros for none: `x − 0.0` is `x`, bit for bit, so
    /// one expression serves both).
    centre: Vec<f64>,
    /// A power of two, so that scaling rounds nothing.
    factor: f64,
    /// The points, row-major, while they take at most `copy_limit` values; dropped for good past it.
    copy: Option<Vec<f64>>,
    copy_limit: usize,
}

impl InPlace<'_> {
    /// Dense values from coordinate `from` on, translated and scaled, appended to `buffer`.
    fn extend_translated(&self, values: &[f64], from: usize, buffer: &mut Vec<f64>) {
        let factor = self.factor;
        buffer.extend(
            values
                .iter()
                .zip(&self.centre[from..])
                .map(|(&x, &c)| (x - c) * factor),
        );
    }

    /// The point of data row `i` appended to `buffer`.
    fn point_into(&self, i: usize, buffer: &mut Vec<f64>) {
        let (centre, factor) = (&self.centre, self.factor);
        let point = self.data.row(i);
        let start = buffer.len();
        match point.row() {
            RowView::Dense(values) => self.extend_translated(values, 0, buffer),
            RowView::Sparse { .. } => {
                // Sparse data in few columns (`store`): the zeros first, then the stored entries, each
                // the expression a dense row's value meets (`0 − c` for a zero).
                let columns = self.data.n_features() - usize::from(point.constant().is_some());
                buffer.extend(centre[..columns].iter().map(|&c| (0.0 - c) * factor));
                for (j, x) in point.row().entries() {
                    buffer[start + j] = (x - centre[j]) * factor;
                }
            }
        }
        if let Some(c) = point.constant() {
            buffer.push((c - centre[buffer.len() - start]) * factor);
        }
    }
}

impl Problem<'static> {
    /// Centre (free bias), reduce (when `d > n`) and scale the data.
    pub(crate) fn new(data: &Dataset, bias: Bias) -> Problem<'static> {
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
            points: Storage::Copied(points),
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
    pub(crate) fn in_span(
        points: Arc<PackedRows>,
        dim: usize,
        labels: Vec<f64>,
        bias: Bias,
        data_values: usize,
    ) -> Problem<'static> {
        debug_assert_eq!(points.len(), labels.len());
        Problem {
            points: Storage::Packed {
                rows: points,
                data_values,
            },
            dim,
            labels,
            bias,
            basis: None,
            implicit_basis: true,
        }
    }

    /// An empty problem in `dim` coordinates, to be filled by [`Problem::push`].
    #[cfg(test)]
    pub(crate) fn growing(bias: Bias, dim: usize) -> Problem<'static> {
        Problem {
            points: Storage::Copied(Vec::new()),
            dim,
            labels: Vec::new(),
            bias,
            basis: None,
            implicit_basis: false,
        }
    }

    /// Append a point (already in the problem's coordinates) with its label.
    #[cfg(test)]
    pub(crate) fn push(&mut self, point: impl IntoIterator<Item = f64>, label: f64) {
        let Storage::Copied(points) = &mut self.points else {
            unreachable!("a growing problem holds copies")
        };
        let before = points.len();
        points.extend(point);
        debug_assert_eq!(points.len(), before + self.dim);
        self.labels.push(label);
    }
}

impl<'a> Problem<'a> {
    /// An empty problem whose points are rows of dense `data`, added by [`Problem::push_rows`]: the
    /// store of a working set that grows from round to round, in coordinates fixed once for the whole
    /// solve (`(x − centre)·factor`; no translation when `centre` is empty, and `factor` a power of
    /// two), so that a point keeps its position (and the active set its factorisation) when others
    /// join. While the points take at most `copy_limit` values they are also copied, compactly (a small
    /// working set then stays in cache, and is read by the plain kernels); past it the copy is dropped
    /// and a point is computed from its row when it is read, by the same expression the copy held, so
    /// the solves see the same values bit for bit either way.
    pub(crate) fn in_place(
        data: Points<'a>,
        bias: Bias,
        centre: Vec<f64>,
        factor: f64,
        copy_limit: usize,
    ) -> Problem<'a> {
        debug_assert!(centre.is_empty() || centre.len() == data.n_features());
        let centre = if centre.is_empty() {
            vec![0.0; data.n_features()]
        } else {
            centre
        };
        Problem {
            points: Storage::InPlace(InPlace {
                data,
                rows: Vec::new(),
                centre,
                factor,
                copy: Some(Vec::new()),
                copy_limit,
            }),
            dim: data.n_features(),
            labels: Vec::new(),
            bias,
            basis: None,
            implicit_basis: false,
        }
    }

    /// Append data rows of an in-place problem as its next points (the copy is dropped, before it
    /// grows, when they would take it past its limit).
    pub(crate) fn push_rows(&mut self, rows: &[usize]) {
        let Storage::InPlace(in_place) = &mut self.points else {
            debug_assert!(false, "only an in-place problem takes data rows");
            return;
        };
        let labels = in_place.data.labels();
        self.labels.extend(rows.iter().map(|&i| labels[i]));
        in_place.rows.extend_from_slice(rows);
        let mut copy = in_place.copy.take();
        if let Some(points) = copy.as_mut()
            && points.len() + rows.len() * self.dim <= in_place.copy_limit
        {
            for &i in rows {
                in_place.point_into(i, points);
            }
            in_place.copy = copy;
        }
    }

    /// Number of rows.
    pub(crate) fn n(&self) -> usize {
        self.labels.len()
    }

    /// Dimension of the (possibly reduced) coordinates.
    pub(crate) fn dim(&self) -> usize {
        self.dim
    }

    /// The values of the problem's points that the memory budget counts (shared with the exact solve's
    /// factorisation): a copied problem's points; none for points read in place, whose compact copy
    /// has its own limit ([`Problem::in_place`]).
    pub(crate) fn copied_values(&self) -> usize {
        match &self.points {
            Storage::Copied(points) => points.len(),
            Storage::Packed { rows, .. } => rows.values(),
            // Bounded by its own limit, a fraction of the data, not by the budget.
            Storage::InPlace(_) => 0,
        }
    }

    /// The values of the dataset an in-place problem reads its points from, or a span's sparse data
    /// store (`None` for a copied problem): the scale the exact solve's factorisation is held to
    /// ([`super::corral`]).
    pub(crate) fn data_values(&self) -> Option<usize> {
        match &self.points {
            Storage::Copied(_) => None,
            Storage::Packed { data_values, .. } => Some(*data_values),
            Storage::InPlace(in_place) => Some(
                in_place
                    .data
                    .n_samples()
                    .saturating_mul(in_place.data.n_features()),
            ),
        }
    }

    /// Point `i`: the copy's row, or, when the points are read in place, the point computed into
    /// `buffer` (whose contents are replaced).
    #[inline]
    pub(crate) fn point<'s>(&'s self, i: usize, buffer: &'s mut Vec<f64>) -> &'s [f64] {
        match &self.points {
            Storage::Copied(points)
            | Storage::InPlace(InPlace {
                copy: Some(points), ..
            }) => {
                let r = self.dim;
                &points[i * r..(i + 1) * r]
            }
            Storage::InPlace(in_place) => {
                buffer.clear();
                in_place.point_into(in_place.rows[i], buffer);
                buffer
            }
            Storage::Packed { rows, .. } => {
                buffer.clear();
                buffer.extend_from_slice(rows.row(i));
                buffer.resize(self.dim, 0.0);
                buffer
            }
        }
    }

    /// The points one after the other, `dim` values each, when they are held so (a copy): a run of
    /// consecutive points is then one block of rows for the kernels that read many rows at once.
    pub(crate) fn contiguous(&self) -> Option<&[f64]> {
        match &self.points {
            Storage::Copied(points)
            | Storage::InPlace(InPlace {
                copy: Some(points), ..
            }) => Some(points),
            _ => None,
        }
    }

    /// Point `i`'s leading coordinates, those after which all are zero: a packed row as it is stored
    /// (no copy, half the point on average), any other point whole, as [`Problem::point`] gives it.
    /// A product with it, or a sum of multiples of it into the leading coordinates of a vector, is
    /// one with the whole point.
    #[inline]
    pub(crate) fn stored<'s>(&'s self, i: usize, buffer: &'s mut Vec<f64>) -> &'s [f64] {
        match &self.points {
            Storage::Packed { rows, .. } => rows.row(i),
            _ => self.point(i, buffer),
        }
    }

    /// Point `i`'s dense data row, when it is read in place with nothing appended (no copy, no
    /// constant): its coordinates are the row's values translated and scaled as they are read.
    #[inline]
    fn dense_in_place(&self, i: usize) -> Option<(&InPlace<'a>, &[f64])> {
        if let Storage::InPlace(in_place) = &self.points
            && in_place.copy.is_none()
            && in_place.data.constant().is_none()
            && let RowView::Dense(values) = in_place.data.row(in_place.rows[i]).row()
        {
            return Some((in_place, values));
        }
        None
    }

    /// Coordinates `range` of [`Problem::stored`]'s point `i` (those past its stored ones are zero and
    /// left out), the same values: a dense row read in place forms the range alone.
    #[inline]
    pub(crate) fn stored_part<'s>(
        &'s self,
        i: usize,
        range: std::ops::Range<usize>,
        buffer: &'s mut Vec<f64>,
    ) -> &'s [f64] {
        if let Some((in_place, values)) = self.dense_in_place(i) {
            let end = range.end.min(values.len());
            let within = range.start.min(end)..end;
            buffer.clear();
            in_place.extend_translated(&values[within.clone()], within.start, buffer);
            return buffer;
        }
        let point = self.stored(i, buffer);
        &point[range.start.min(point.len())..range.end.min(point.len())]
    }

    /// `part ← part + alpha·(coordinates range of point i)`, the bits of [`crate::simd::axpy`] with
    /// [`Problem::stored_part`]: a dense row read in place is translated and scaled inside the axpy
    /// ([`crate::simd::axpy_affine`]), not formed in `buffer` first and read again. `part` is as long
    /// as `range`; coordinates past the point's stored ones (zero) are left alone.
    #[inline]
    pub(crate) fn add_part_to(
        &self,
        i: usize,
        alpha: f64,
        range: std::ops::Range<usize>,
        part: &mut [f64],
        buffer: &mut Vec<f64>,
    ) {
        if let Some((in_place, values)) = self.dense_in_place(i) {
            let end = range.end.min(values.len());
            let within = range.start.min(end)..end;
            crate::simd::axpy_affine(
                alpha,
                &values[within.clone()],
                &in_place.centre[within.clone()],
                in_place.factor,
                &mut part[..within.len()],
            );
            return;
        }
        let point = self.stored_part(i, range, buffer);
        crate::simd::axpy(alpha, point, &mut part[..point.len()]);
    }

    /// `w · pᵢ` in the [`Summation::Fast`](crate::simd::Summation::Fast) order, the bits of
    /// `dot_fast(w, point(i))`: a dense row read in place is translated and scaled inside the product
    /// ([`crate::simd::dot_fast_affine`]), so the point is neither formed nor stored; otherwise through
    /// [`Problem::point`] and `buffer`. Packed rows are the exception: the product runs over their
    /// stored coordinates only (half the row on average), which is the same value up to the order of
    /// the sum, not its bits.
    #[inline]
    pub(crate) fn dot_fast(&self, i: usize, w: &[f64], buffer: &mut Vec<f64>) -> f64 {
        if let Storage::Packed { rows, .. } = &self.points {
            let row = rows.row(i);
            return crate::simd::dot_fast(&w[..row.len()], row);
        }
        if let Some((in_place, values)) = self.dense_in_place(i) {
            debug_assert_eq!(w.len(), values.len());
            return crate::simd::dot_fast_affine(w, values, &in_place.centre, in_place.factor);
        }
        crate::simd::dot_fast(w, self.point(i, buffer))
    }

    /// [`Problem::dot_fast`] of four points, with the bits of four calls: four dense rows read in place
    /// are priced in one pass that reads `w` and the centre once ([`crate::simd::dot_fast_affine4`]).
    #[inline]
    pub(crate) fn dot_fast4(&self, rows: [usize; 4], w: &[f64], buffer: &mut Vec<f64>) -> [f64; 4] {
        if let [
            Some((in_place, a)),
            Some((_, b)),
            Some((_, c)),
            Some((_, d)),
        ] = rows.map(|i| self.dense_in_place(i))
        {
            debug_assert!([a, b, c, d].iter().all(|x| x.len() == w.len()));
            return crate::simd::dot_fast_affine4(
                w,
                [a, b, c, d],
                &in_place.centre,
                in_place.factor,
            );
        }
        rows.map(|i| self.dot_fast(i, w, buffer))
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
pub(crate) fn bits<C: AsRef<[f64]>>(columns: &[C]) -> Vec<Vec<u64>> {
    columns
        .iter()
        .map(|c| c.as_ref().iter().map(|x| x.to_bits()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// A point read in place is the value a copy of the translated, scaled row holds, bit for bit:
    /// centred or not, augmented by a constant, and from sparse storage; and its product with a
    /// direction, priced without forming it, is the product with the formed point.
    #[test]
    fn a_point_read_in_place_is_the_copy_bit_for_bit() {
        let x = array![[0.3, -1.7, 0.0], [2.5, 0.0, 1e-3], [-0.1, 0.9, 4.0]];
        let data = Dataset::new(x.clone(), array![1.0, -1.0, 1.0]).unwrap();
        let sparse = data.to_sparse();
        let centre = [0.9, -0.25, 1.5, 0.75];
        let factor = 0.125;
        for (points, centre) in [
            (Points::from(&data), &centre[..3]),
            (Points::from(&data), &[][..]),
            (Points::augmented(&data, 2.0), &centre[..]),
            (Points::augmented(&data, 2.0), &[][..]),
            (Points::from(&sparse), &centre[..3]),
            (Points::augmented(&sparse, 2.0), &centre[..]),
        ] {
            // Read in place (no copy allowed), copied throughout, and copied until the second batch
            // passes the copy's limit.
            let dim = points.n_features();
            for copy_limit in [0, usize::MAX, 2 * dim] {
                let mut problem =
                    Problem::in_place(points, Bias::Free, centre.to_vec(), factor, copy_limit);
                problem.push_rows(&[2]);
                assert_eq!(is_copied(&problem), copy_limit > 0);
                problem.push_rows(&[0, 1]);
                assert_eq!(is_copied(&problem), copy_limit == usize::MAX);
                assert_eq!((problem.n(), problem.copied_values()), (3, 0));
                check_points(&problem, &x, &data, points, centre, factor);
            }
        }
    }

    fn is_copied(problem: &Problem<'_>) -> bool {
        matches!(
            &problem.points,
            Storage::InPlace(InPlace { copy: Some(_), .. })
        )
    }

    /// The points of rows 2, 0, 1 of `x`, translated and scaled, bit for bit.
    fn check_points(
        problem: &Problem<'_>,
        x: &Array2<f64>,
        data: &Dataset,
        points: Points<'_>,
        centre: &[f64],
        factor: f64,
    ) {
        let mut buffer = Vec::new();
        for (k, i) in [2, 0, 1].into_iter().enumerate() {
            let mut row = x.row(i).to_vec();
            row.extend(points.constant());
            let expected: Vec<u64> = row
                .iter()
                .enumerate()
                .map(|(j, &v)| ((v - centre.get(j).copied().unwrap_or(0.0)) * factor).to_bits())
                .collect();
            let got: Vec<u64> = problem
                .point(k, &mut buffer)
                .iter()
                .map(|v| v.to_bits())
                .collect();
            assert_eq!(got, expected, "point {k} of {points:?}");
            // Any range of it alone: the same bits.
            for range in [0..got.len(), 1..got.len(), 0..1, 2..got.len() + 3] {
                let part: Vec<u64> = problem
                    .stored_part(k, range.clone(), &mut buffer)
                    .iter()
                    .map(|v| v.to_bits())
                    .collect();
                let within = range.start.min(got.len())..range.end.min(got.len());
                assert_eq!(part, got[within], "coordinates {range:?} of point {k}");
            }
            // Priced without forming the point: the bits of the product with the point.
            let w: Vec<f64> = (0..got.len()).map(|j| 0.7 - j as f64 * 0.45).collect();
            let formed = crate::simd::dot_fast(&w, problem.point(k, &mut buffer));
            let priced = problem.dot_fast(k, &w, &mut buffer);
            assert_eq!(
                priced.to_bits(),
                formed.to_bits(),
                "point {k} of {points:?}"
            );
            assert_eq!(problem.labels[k], data.labels()[i]);
        }
    }
}
