//! The state that batch fitting and online learning share; the kernel's training pass is the only code
//! that updates it.

use crate::kernel::{self, KernelPath, Learner, Summation};

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

    /// The kernel's view of these weights for a training pass ([`kernel::train`]). The pass updates `w`
    /// in place and leaves the new `v` in the learner, to be stored back with [`Weights::keep`].
    pub(crate) fn learner(&mut self) -> Learner<'_> {
        Learner {
            w: &mut self.w,
            v: self.v,
            c: self.c,
            eta: self.eta,
        }
    }

    /// Store the constant coordinate's weight a training pass ended with.
    pub(crate) fn keep(&mut self, v: f64) {
        self.v = v;
    }
}

/// The mistake test `y·(w·x + b) ≤ 0`: a zero activation is a mistake.
#[inline(always)]
pub(crate) fn is_mistake(y: f64, activation: f64) -> bool {
    y * activation <= 0.0
}
