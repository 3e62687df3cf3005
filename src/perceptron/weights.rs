//! The state that batch fitting and online learning share; the kernel's training pass is the only code
//! that updates it.

use crate::error::Result;
use crate::kernel::{self, KernelPath, Learner, OnUpdate, Rows, Summation, Update};

/// The weights of the perceptron on augmented vectors `(x, c)`: `w` for the features and `v` for the
/// constant coordinate, so that the bias is `b = c·v`.
///
/// The activation is `dot(w, x) + c·v`, which is exactly the augmented dot product with its last term
/// added last. In [`Summation::Sequential`] order this makes a biased run bit-identical to the no-bias
/// perceptron on the materialised vectors `(x, c)`.
#[derive(Debug, Clone)]
pub(crate) struct Weights {
    pub(crate) w: Vec<f64>,
    pub(crate) v: f64,
    pub(crate) c: f64,
    pub(crate) eta: f64,
    pub(crate) summation: Summation,
    /// The kernels, resolved once rather than on every call.
    pub(crate) path: &'static KernelPath,
}

impl Weights {
    pub(crate) fn new(w: Vec<f64>, b: f64, c: f64, eta: f64, summation: Summation) -> Self {
        let v = if c == 0.0 { 0.0 } else { b / c };
        Self {
            w,
            v,
            c,
            eta,
            summation,
            path: kernel::active(),
        }
    }

    /// The bias `b = c·v`.
    pub(crate) fn bias(&self) -> f64 {
        self.c * self.v
    }

    /// `w·x + b`, with the bits every training pass computes for the same weights.
    #[inline(always)]
    pub(crate) fn activation(&self, x: &[f64]) -> f64 {
        self.path.dot(&self.w, x, self.summation) + self.bias()
    }

    /// One training pass of the kernel ([`kernel::train`]) over `rows` with these weights, the only code
    /// that updates them: `w` in place, and the constant coordinate's weight `v` kept when the pass ends.
    pub(crate) fn train(
        &mut self,
        rows: &Rows<'_>,
        on_update: &mut OnUpdate<'_>,
    ) -> Result<Option<usize>> {
        let mut learner = Learner {
            w: &mut self.w,
            v: self.v,
            c: self.c,
            eta: self.eta,
        };
        let stopped = self
            .path
            .train(&mut learner, rows, self.summation, on_update);
        self.v = learner.v;
        stopped
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

/// The mistake test `y·(w·x + b) ≤ 0`: a zero activation is a mistake.
#[inline(always)]
pub(crate) fn is_mistake(y: f64, activation: f64) -> bool {
    y * activation <= 0.0
}
