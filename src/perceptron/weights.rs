//! The state that batch fitting and online learning share; the kernel's training pass is the only code
//! that updates it.

use super::{Augmentation, PerceptronParams};
use crate::dataset::{Dataset, RowView};
use crate::error::{Error, Result};
use crate::simd::{self, Learner, OnUpdate, Rows, SimdPath, SparseRows, Summation, Update};

/// The state of a run, batch or online: the weights of the perceptron on augmented vectors `(x, c)`,
/// `w` for the features and `v` for the constant coordinate, so that the bias is `b = c·v`.
///
/// The activation is `dot(w, x) + c·v`, which is exactly the augmented dot product with its last term
/// added last. In [`Summation::Sequential`] order this makes a biased run bit-identical to the no-bias
/// perceptron on the materialised vectors `(x, c)`.
///
/// The kernel borrows it for a pass as a [`Learner`] (the BLAS-like view of the weights the `simd`
/// layer takes), and nothing else updates it.
#[derive(Debug, Clone)]
pub(crate) struct Weights {
    pub(crate) w: Vec<f64>,
    pub(crate) v: f64,
    pub(crate) augmentation: Augmentation,
    pub(crate) eta: f64,
    pub(crate) summation: Summation,
    /// The kernels, resolved once rather than on every call.
    pub(crate) path: &'static SimdPath,
}

impl Weights {
    /// The start of a run on `n_features` features: the parameters' initial `(w, b)`, or zero. The one
    /// setup batch fitting and online learning share.
    pub(crate) fn start(
        params: &PerceptronParams,
        n_features: usize,
        augmentation: Augmentation,
    ) -> Result<Self> {
        if let Some(w) = &params.initial_w
            && w.len() != n_features
        {
            return Err(Error::Shape {
                what: "initial weights against features",
                expected: n_features,
                found: w.len(),
            });
        }
        // Huge pages under a long weight vector: sparse rows gather from all of it at random, and with
        // 4 KiB pages every gather of a vector of millions of weights is a TLB miss.
        let mut w = simd::advised_buffer(n_features);
        match &params.initial_w {
            Some(initial) => w.extend(initial.iter().copied()),
            None => w.resize(n_features, 0.0),
        }
        Ok(Self {
            w,
            v: augmentation.weight_of_bias(params.initial_b),
            augmentation,
            eta: params.eta,
            summation: params.summation,
            path: simd::active(),
        })
    }

    /// The augmentation constant `c`.
    pub(crate) fn c(&self) -> f64 {
        self.augmentation.constant()
    }

    /// The bias `b = c·v`.
    pub(crate) fn bias(&self) -> f64 {
        self.augmentation.bias(self.v)
    }

    /// `w·x + b`, with the bits every training pass computes for the same weights.
    #[inline(always)]
    pub(crate) fn activation(&self, x: &[f64]) -> f64 {
        self.path.dot(&self.w, x, self.summation) + self.bias()
    }

    /// [`Weights::activation`] of a row of either storage.
    pub(crate) fn activation_of(&self, x: RowView<'_>) -> f64 {
        match x {
            RowView::Dense(x) => self.activation(x),
            sparse => sparse.dot(&self.w, self.summation) + self.bias(),
        }
    }

    /// One training pass over `data` in the order `visit` (empty: row order), on the kernel of its
    /// storage: the SIMD pass for dense rows, the pass over stored entries for sparse ones.
    pub(crate) fn train_on(
        &mut self,
        data: &Dataset,
        visit: &[usize],
        on_update: &mut OnUpdate<'_>,
    ) -> Result<Option<usize>> {
        match data.csr() {
            None if visit.is_empty() => self.train(&data.rows(), on_update),
            None => {
                let rows = Rows::indexed_prechecked(
                    data.as_flat_slice(),
                    data.labels(),
                    data.n_features(),
                    visit,
                );
                self.train(&rows, on_update)
            }
            Some(x) => {
                let indptr = x.indptr();
                let indptr = indptr.to_proper();
                let rows = SparseRows {
                    indptr: &indptr,
                    indices: x.indices(),
                    values: x.data(),
                    labels: data.labels(),
                    index: (!visit.is_empty()).then_some(visit),
                };
                let mut learner = Learner {
                    w: &mut self.w,
                    v: self.v,
                    c: self.augmentation.constant(),
                    eta: self.eta,
                };
                let stopped = simd::train_sparse(&mut learner, &rows, self.summation, on_update);
                self.v = learner.v;
                Ok(stopped)
            }
        }
    }

    /// One training pass of the kernel ([`simd::train`]) over `rows` with these weights, the only code
    /// that updates them: `w` in place, and the constant coordinate's weight `v` kept when the pass ends.
    pub(crate) fn train(
        &mut self,
        rows: &Rows<'_>,
        on_update: &mut OnUpdate<'_>,
    ) -> Result<Option<usize>> {
        let mut learner = Learner {
            w: &mut self.w,
            v: self.v,
            c: self.augmentation.constant(),
            eta: self.eta,
        };
        let stopped = self
            .path
            .train(&mut learner, rows, self.summation, on_update);
        self.v = learner.v;
        stopped
    }
}

/// True when the weights after an update on the row `x` are all finite (so are the data, so only an
/// overflow fails). The weights were finite before it, so only those the row changed need a look: all of
/// them for a dense row, the stored entries' columns for a sparse one (O(nnz), not O(d), per update).
#[inline]
pub(crate) fn is_finite_after(update: &Update<'_>, x: RowView<'_>) -> bool {
    match x {
        RowView::Dense(_) => is_finite(update),
        sparse => update.b.is_finite() && sparse.entries().all(|(j, _)| update.w[j].is_finite()),
    }
}

/// True when the weights after an update are all finite (so are the data, so only an overflow fails).
#[inline]
pub(crate) fn is_finite(update: &Update<'_>) -> bool {
    // A fold rather than `all`: no early exit, so it vectorises.
    update
        .w
        .iter()
        .fold(update.b.is_finite(), |ok, w| ok & w.is_finite())
}

/// Whether the zero activation of an update is an underflow rather than a point on the plane: every
/// product `wⱼ·xⱼ` of non-zero factors (weights before the update) was too small to be represented at
/// all, and the bias was tiny too (data near 10⁻³⁰⁰), so the sum 0 says nothing of the sign.
/// Called only for a zero activation, off the hot path; it reads the row's stored entries only (a
/// sparse row's zero activations are common: a row that shares no column with `w`).
pub(crate) fn activation_underflowed(
    update: &Update<'_>,
    x: RowView<'_>,
    y: f64,
    c: f64,
    eta: f64,
) -> bool {
    // The largest product of non-zero factors, as a base-2 logarithm: the product itself may underflow.
    // The weights before the update are w − η·y·x, to within rounding (only their size matters).
    let largest = x
        .entries()
        .map(|(j, xj)| ((update.w[j] - eta * y * xj).abs(), xj.abs()))
        .filter(|&(w, xj)| w > 0.0 && xj > 0.0)
        .map(|(w, xj)| w.log2() + xj.log2())
        .fold(f64::NEG_INFINITY, f64::max);
    let b_before = (update.b - eta * y * c * c).abs();
    // Below half the smallest subnormal, 2⁻¹⁰⁷⁵, a product rounds to zero. Subnormal products above it
    // keep their sign (and small ones are exact: η = 2⁻¹⁰⁶⁰ still gives the η = 1 run's ties).
    const ROUNDS_TO_ZERO: f64 = -1075.0;
    largest > f64::NEG_INFINITY && largest < ROUNDS_TO_ZERO && b_before < f64::MIN_POSITIVE
}

/// The mistake test `y·(w·x + b) ≤ 0`: a zero activation is a mistake.
#[inline(always)]
pub(crate) fn is_mistake(y: f64, activation: f64) -> bool {
    y * activation <= 0.0
}
