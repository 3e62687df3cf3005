//! The working set's points: the rows of the data that the exact solves see, in the coordinates those
//! solves work in, and the active set they leave for the next round.
//!
//! Dense data are read in place, in coordinates fixed once for the whole solve (centred on the data's
//! mean with a free bias, scaled into the unit ball; [`Problem::in_place`] computes a point when it is
//! read, and keeps a compact copy only while the working set is a small fraction of the data), so a row
//! keeps its point when others join, and the active set's factorisation carries over from one round to
//! the next; so are sparse data in up to a thousand columns ([`Representation`]). A sparse working set in
//! many columns is held as its rows' coordinates in their span ([`Span`]), packed
//! (about `|W| × rank / 2` values whatever the columns its rows use) and read where they are. Those
//! coordinates gain dimensions as rows join, but a row's own never change (zeros in the new ones), so
//! the factorisation carries over too; a direction comes back as the rows' combination with the
//! solve's weights.

use super::Bias;
use super::accurate::{binary_exponent, times_power_of_two};
use super::corral::CorralParts;
use super::points::Points;
use super::polish::{Polished, Start};
use super::problem::Problem;
use super::span::Span;
use ndarray::Array1;

/// A dense working set is also copied, compactly, while the copy takes at most this fraction of the
/// data (`1/COPY_FRACTION`): a small working set then stays in cache and is read by the plain kernels
/// (about 5 % faster on the 10⁴ × 100 and hard 10⁵ × 100 shapes of `benches/margin_passes`, twenty
/// interleaved runs), while one that is most of the data (the d = 1000 shapes) is read in place and
/// costs no memory.
const COPY_FRACTION: usize = 8;

/// Sparse data in at most this many columns are read in place like dense rows (each read written out
/// in full), not held in their span. The span's coordinates come from the rows' Gram matrix, a
/// Cholesky factor without pivoting: where the working set's rows are nearly dependent (rows of a few
/// values in a few hundred columns, or features on scales 10⁻³ to 10³), a dimension opened by a row
/// barely out of the span has a pivot near `√u·‖x‖`, later coordinates along it lose digits by the
/// same factor, and the bracket ends far wider than the tolerance. Measured in session 32 (release
/// build, `solve_seconds`, one run each alternating with the build before):
/// * the generator's 2·10⁴ × 1000 sparse set with 5 values a row (`generate sparse --nnz 5`, margin
///   ≥ 0.01 by construction) ended `Inaccurate` in the span with a lower end of −0.0027, and is
///   certified in place in less time (1.25 → 1.01 s) and memory (29 → 23 MB);
/// * 12 % of 764 random sets in 257–500 columns ended `Inaccurate` stored sparse and were decided
///   stored dense; 43 % of badly scaled sets in up to 24 columns had (session 31);
/// * in place is as fast or faster where the span was accurate: 2·10⁴ × 500 with 10 values a row
///   0.255 → 0.124 s, 2·10⁴ × 1000 with 30 values 0.344 → 0.283 s, at the same memory.
///
/// Between this and [`RETRY_IN_PLACE_COLUMNS`] the span is tried first, being faster there (2·10⁴ ×
/// 4000, 30 values a row: 1.9 s in the span, 4.4 s in place), and a solve it leaves `Inaccurate` is
/// done again in place.
const SPARSE_IN_PLACE_COLUMNS: usize = 1024;

/// The most columns in which a sparse solve that the span left `Inaccurate` is done again in place.
/// Each read of a row in place writes out its `d` values, so wider data would pay `|W| × d` for every
/// pricing of the working set, where the span pays about `|W| × rank / 2`.
const RETRY_IN_PLACE_COLUMNS: usize = 4096;

/// How a working set holds its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Representation {
    /// The rows read where the data hold them, in fixed centred coordinates, with a compact copy of the
    /// working set while it is small against the data's stored values.
    InPlace,
    /// The rows' coordinates in their span ([`Span`]).
    Span,
}

impl Representation {
    /// The first choice for `data`: in place for dense data and for sparse data in at most
    /// [`SPARSE_IN_PLACE_COLUMNS`] columns, the span beyond.
    pub(super) fn first_choice(data: Points<'_>) -> Representation {
        if !data.is_sparse() || data.n_features() <= SPARSE_IN_PLACE_COLUMNS {
            Representation::InPlace
        } else {
            Representation::Span
        }
    }

    /// The representation to try again in after a solve in `self` ended `Inaccurate`: in place after
    /// the span, for sparse data in at most [`RETRY_IN_PLACE_COLUMNS`] columns.
    pub(super) fn retry(self, data: Points<'_>) -> Option<Representation> {
        (self == Representation::Span && data.n_features() <= RETRY_IN_PLACE_COLUMNS)
            .then_some(Representation::InPlace)
    }
}

/// A row's position in the working set, for rows outside it.
pub(super) const OUTSIDE: usize = usize::MAX;

/// The working set and its points.
pub(super) struct Store<'a> {
    data: Points<'a>,
    bias: Bias,
    /// The working set's rows of the data, in order of arrival (a row's position is its index in the
    /// problem).
    rows: Vec<usize>,
    /// Each data row's position in `rows`, or [`OUTSIDE`].
    position: Vec<usize>,
    /// The points of `rows` (for sparse data, rebuilt by [`Store::prepare`] when rows joined).
    problem: Option<Problem<'a>>,
    /// Sparse data: the rows' coordinates in their span, of the rows that joined before the last
    /// [`Store::prepare`].
    span: Option<Span>,
    /// The active set of the last exact solve.
    corral: Option<CorralParts>,
    /// The first solve's start, by position (later ones resume from `corral`).
    weights: Vec<(usize, f64)>,
    /// The values the working set's points and the exact solve's factorisation may hold together (for
    /// sparse data the packed coordinates, bounded before they are computed; dense points are read in
    /// place, their compact copy bounded by [`COPY_FRACTION`] instead).
    budget_values: usize,
}

impl<'a> Store<'a> {
    /// An empty working set holding its points as `representation` says. `centre` is the translation of
    /// the fixed coordinates (ignored through the origin and in the span), `radius` bounds the length of
    /// every translated row, and the points with the exact solve's factorisation may take `memory`
    /// bytes.
    pub(super) fn new(
        data: Points<'a>,
        bias: Bias,
        centre: Vec<f64>,
        radius: f64,
        memory: usize,
        representation: Representation,
    ) -> Self {
        let in_place = representation == Representation::InPlace;
        let centre = if bias == Bias::Free {
            centre
        } else {
            Vec::new()
        };
        // A power of two, so that scaling rounds nothing.
        let factor = if radius > 0.0 && radius.is_finite() {
            times_power_of_two(1.0, -binary_exponent(radius) - 1)
        } else {
            1.0
        };
        Store {
            data,
            bias,
            rows: Vec::new(),
            position: vec![OUTSIDE; data.n_samples()],
            problem: in_place.then(|| {
                // The points' stored values (the augmented points' constant counted in each row,
                // so that dense points get `n × d` as before): a sparse set's copy, written out in
                // full, must not outgrow the set itself.
                let constants = data.n_features() - data.data().n_features();
                let stored = data.data().nnz() + data.n_samples() * constants;
                let copy_limit = stored / COPY_FRACTION;
                Problem::in_place(data, bias, centre, factor, copy_limit)
            }),
            span: (!in_place).then(|| Span::new(data)),
            corral: None,
            weights: Vec::new(),
            budget_values: memory / size_of::<f64>(),
        }
    }

    /// The working set's rows of the data.
    pub(super) fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// Whether data row `i` is in the working set.
    pub(super) fn contains(&self, i: usize) -> bool {
        self.position[i] != OUTSIDE
    }

    /// Add data rows (each at most once).
    pub(super) fn extend(&mut self, rows: &[usize]) {
        for &i in rows {
            debug_assert_eq!(self.position[i], OUTSIDE);
            self.position[i] = self.rows.len();
            self.rows.push(i);
        }
        match self.problem.as_mut() {
            Some(problem) if self.span.is_none() => problem.push_rows(rows),
            // A problem in the span is rebuilt by `prepare` from it.
            _ => self.problem = None,
        }
    }

    /// The points of the working set and where the next exact solve starts (the last one's active set,
    /// or its weights), or `None` when a sparse set's problem would exceed its limit.
    pub(super) fn prepare(&mut self) -> Option<(&Problem<'a>, Start)> {
        if let Some(span) = self.span.as_mut() {
            if span.len() < self.rows.len() {
                // Refused before the new rows' coordinates are computed (cubic in the set's size):
                // the rank can at most grow by the rows that joined, and never beyond d.
                let joining = self.rows.len() - span.len();
                if span.values_with(joining) > self.budget_values {
                    return None;
                }
                // The problem shares the coordinates, which are extended where they are.
                self.problem = None;
                span.extend(self.data, &self.rows[span.len()..]);
            }
            if self.problem.is_none() {
                self.problem = Some(span.problem(self.data, self.bias));
            }
        }
        let start = match self.corral.take() {
            Some(parts) => Start::Resume(parts),
            None => Start::Weights(std::mem::take(&mut self.weights)),
        };
        self.problem.as_ref().map(|problem| (problem, start))
    }

    /// A solve's direction in the data's coordinates (not normalised): through the problem's map back,
    /// or, when its basis is implicit, as `Σ cₖ·yₖ·xₖ` over the working set's rows with the solve's
    /// weights.
    pub(super) fn direction(&self, polished: &Polished) -> Array1<f64> {
        let d = self.data.n_features();
        match &self.problem {
            Some(problem) if problem.in_implicit_basis() => {
                let mut w = vec![0.0; d];
                for (&k, &c) in polished.rows.iter().zip(&polished.weights) {
                    let i = self.rows[k];
                    self.data.row(i).add_to(c * self.data.labels()[i], &mut w);
                }
                Array1::from(w)
            }
            Some(problem) => problem.direction_to_data(&polished.w, d),
            None => Array1::zeros(d),
        }
    }

    /// The values the working set's points and the exact solve's factorisation may hold together.
    pub(super) fn budget_values(&self) -> usize {
        self.budget_values
    }

    /// Start the next solve from these weights, by position in the working set, not from where the
    /// last one ended.
    pub(super) fn start_from(&mut self, weights: Vec<(usize, f64)>) {
        self.corral = None;
        self.weights = weights;
    }

    /// Keep what a solve ended with for the next one.
    pub(super) fn keep(&mut self, corral: CorralParts) {
        self.corral = Some(corral);
    }
}
