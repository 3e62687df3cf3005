//! The one update mechanism shared by batch fitting and online learning.

use crate::kernel::{self, KernelPath, Summation};

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
    pub(crate) b: f64,
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
            b: c * v,
            eta,
            summation,
            path: kernel::active(),
        }
    }

    #[inline(always)]
    pub(crate) fn activation(&self, x: &[f64]) -> f64 {
        self.path.dot(&self.w, x, self.summation) + self.b
    }

    /// `(w, v) += η·y·(x, c)`. Returns false when the weights stopped being finite.
    #[inline]
    pub(crate) fn update(&mut self, x: &[f64], y: f64) -> bool {
        let step = self.eta * y;
        self.path.axpy(step, x, &mut self.w);
        self.v += step * self.c;
        self.b = self.c * self.v;
        // A fold rather than `all`, so that the check runs without early exits and vectorises.
        self.b.is_finite() && self.w.iter().fold(true, |finite, w| finite & w.is_finite())
    }
}

/// The mistake test `y·(w·x + b) ≤ 0`: a zero activation is a mistake.
#[inline(always)]
pub(crate) fn is_mistake(y: f64, activation: f64) -> bool {
    y * activation <= 0.0
}
