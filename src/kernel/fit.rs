//! The result of a kernel perceptron run, and its predictions.

use ndarray::{Array1, ArrayView2};
use rayon::prelude::*;

use super::cache::CacheStats;
use super::function::Kernel;
use super::run::{Representation, RunOutcome};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::perceptron::{Presentations, StopReason};
use crate::simd::Summation;

/// Test rows times support vectors above which prediction runs in parallel.
const PARALLEL_WORK: usize = 1 << 16;

/// `f(x) = Σₖ coefₖ·K(sₖ, x) + b` for every row of `data`, the support vectors `sₖ` in order: the one
/// loop of a fit's prediction and a saved kernel model's, so that both give the same bits.
pub(crate) fn dual_decisions(
    kernel: &Kernel,
    support: &Dataset,
    coef: &[f64],
    b: f64,
    summation: Summation,
    data: &Dataset,
) -> Array1<f64> {
    let value = |i: usize| {
        let x = data.row_view(i);
        let mut sum = 0.0;
        for (k, &c) in coef.iter().enumerate() {
            sum += c * kernel.eval(support.row_view(k), x, summation);
        }
        sum + b
    };
    let n = data.n_samples();
    if n * coef.len().max(1) >= PARALLEL_WORK {
        (0..n).into_par_iter().map(value).collect::<Vec<_>>().into()
    } else {
        (0..n).map(value).collect()
    }
}

/// A finished kernel perceptron run: the dual counts, the predictor `f(x) = Σⱼ αⱼηyⱼK(xⱼ, x) + b`, and
/// what the theorem reads (`‖ŵ‖²` in the feature space, the presentations).
///
/// The support vectors (the rows with `αⱼ > 0`) are kept with the fit, so that it predicts on its own,
/// as scikit-learn's `SVC.support_vectors_`.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, Dataset};
/// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
/// let rbf = KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?;
/// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
/// assert!(fit.converged);
/// assert_eq!(fit.predict(&data)?.to_vec(), vec![1.0, -1.0, 1.0, -1.0]);
/// assert_eq!(fit.support.len(), fit.alpha.iter().filter(|&&a| a > 0).count());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KernelFit {
    /// The kernel the run used.
    pub kernel: Kernel,
    /// The mistake count αᵢ of every training row: `w = Σⱼ αⱼ·η·yⱼ·φ(xⱼ)`.
    pub alpha: Vec<u64>,
    /// The coefficient `αⱼ·η·yⱼ` of every training row, as the run accumulated it.
    pub coef: Vec<f64>,
    /// The bias `b = c²·Σⱼ αⱼηyⱼ`.
    pub b: f64,
    /// The augmentation constant `c` of the bias rule (the kernel run is the perceptron without bias on
    /// `K̂ = K + c²`).
    pub bias_constant: f64,
    /// The number of mistakes, which are the updates.
    pub mistakes: u64,
    /// The number of passes, including the final clean one.
    pub epochs: usize,
    /// True when the last epoch had no mistake.
    pub converged: bool,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// Wall-clock seconds in the training loop (the Gram rows it computed included).
    pub train_seconds: f64,
    /// `‖ŵ‖² = η²·αᵀ(YK̂Y)α` at the end, maintained incrementally.
    pub norm_sq: f64,
    /// The learning rate η.
    pub eta: f64,
    /// The summation order of the inner products.
    pub summation: Summation,
    /// The representation the run used.
    pub representation: Representation,
    /// The presentations up to the last update (Freund and Schapire's sequence).
    pub presentations: Presentations,
    /// What the Gram cache did.
    pub cache: CacheStats,
    /// The support vectors: the rows with `αⱼ > 0`, ascending.
    pub support: Vec<usize>,
    support_vectors: Option<Dataset>,
    support_coef: Vec<f64>,
    primal_w: Option<Array1<f64>>,
    n_train: usize,
    n_features: usize,
}

impl KernelFit {
    pub(crate) fn assemble(data: &Dataset, run: RunOutcome) -> KernelFit {
        let support: Vec<usize> = (0..data.n_samples())
            .filter(|&i| run.alpha[i] > 0)
            .collect();
        let support_vectors = run.kernel.gram().is_none().then(|| data.select(&support));
        let support_coef = support.iter().map(|&i| run.coef[i]).collect();
        KernelFit {
            kernel: run.kernel,
            alpha: run.alpha,
            coef: run.coef,
            b: run.b,
            bias_constant: run.c,
            mistakes: run.mistakes,
            epochs: run.epochs,
            converged: run.stop_reason == StopReason::Converged,
            stop_reason: run.stop_reason,
            train_seconds: run.train_seconds,
            norm_sq: run.norm_sq,
            eta: run.eta,
            summation: run.summation,
            representation: run.representation,
            presentations: run.presentations,
            cache: run.cache,
            support,
            support_vectors,
            support_coef,
            primal_w: run.primal_w,
            n_train: data.n_samples(),
            n_features: data.n_features(),
        }
    }

    /// The weights `w` of a linear-kernel run in the explicit representation (the primal perceptron's).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Kernel, KernelPerceptronParams}, Dataset};
    /// let data = Dataset::new(array![[1.0, 2.0], [-1.0, 0.0]], array![1.0, -1.0])?;
    /// let fit = KernelPerceptronParams::new(Kernel::linear()).check()?.fit(&data)?;
    /// assert_eq!(fit.primal_weights().unwrap().to_vec(), vec![1.0, 2.0]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn primal_weights(&self) -> Option<&Array1<f64>> {
        self.primal_w.as_ref()
    }

    /// The support vectors' rows, with their labels (none for a precomputed kernel).
    pub fn support_vectors(&self) -> Option<&Dataset> {
        self.support_vectors.as_ref()
    }

    /// `f(x) = Σⱼ αⱼηyⱼK(xⱼ, x) + b` for every row of `data` (either storage), summed over the support
    /// vectors in ascending order. On the training rows this may differ in the last bits from the
    /// activations the run kept, which added the same terms in the order of the updates.
    ///
    /// # Errors
    /// [`Error::Shape`] when `data` has another number of features; [`Error::Parameter`] for a
    /// precomputed kernel, which predicts from a cross Gram matrix
    /// ([`KernelFit::decision_function_gram`]).
    pub fn decision_function(&self, data: &Dataset) -> Result<Array1<f64>> {
        if data.n_features() != self.n_features {
            return Err(Error::Shape {
                what: "columns against the training features",
                expected: self.n_features,
                found: data.n_features(),
            });
        }
        if let Some(w) = &self.primal_w {
            let w = w.as_slice().expect("contiguous weights");
            return Ok((0..data.n_samples())
                .map(|i| data.row_view(i).dot(w, self.summation) + self.b)
                .collect());
        }
        let Some(support) = &self.support_vectors else {
            return Err(Error::parameter(
                "kernel",
                "a precomputed kernel predicts from K(test, train): use decision_function_gram",
            ));
        };
        Ok(dual_decisions(
            &self.kernel,
            support,
            &self.support_coef,
            self.b,
            self.summation,
            data,
        ))
    }

    /// The support vectors (the rows with `αⱼ > 0`, in the training storage) and their coefficients
    /// `αⱼηyⱼ`; `None` for a precomputed kernel, which keeps no rows.
    pub(crate) fn support_rows(&self) -> Option<(&Dataset, &[f64])> {
        self.support_vectors
            .as_ref()
            .map(|rows| (rows, self.support_coef.as_slice()))
    }

    /// `f` from a cross Gram matrix `K(testₜ, trainⱼ)` (`n_test × n_train`), for a precomputed kernel
    /// (scikit-learn's convention for `kernel="precomputed"`); any kernel accepts it.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{GramMatrix, KernelParams, KernelPerceptronParams}, Dataset};
    /// let data = Dataset::new(array![[0.0], [0.0]], array![1.0, -1.0])?; // features unused
    /// let gram = GramMatrix::new(array![[1.0, 0.0], [0.0, 1.0]])?;
    /// let kernel = KernelParams::precomputed(gram).check_for(&data)?;
    /// let fit = KernelPerceptronParams::new(kernel).check()?.fit(&data)?;
    /// let f = fit.decision_function_gram(array![[1.0, 0.0], [0.0, 1.0]].view())?;
    /// assert!(f[0] > 0.0 && f[1] < 0.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`] when the matrix does not have one column per training example.
    pub fn decision_function_gram(&self, cross: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        if cross.ncols() != self.n_train {
            return Err(Error::Shape {
                what: "cross Gram matrix columns against training examples",
                expected: self.n_train,
                found: cross.ncols(),
            });
        }
        Ok(cross
            .rows()
            .into_iter()
            .map(|row| {
                let mut sum = 0.0;
                for (&j, &c) in self.support.iter().zip(&self.support_coef) {
                    sum += c * row[j];
                }
                sum + self.b
            })
            .collect())
    }

    /// `sign f(x)` with sign(0) = +1.
    ///
    /// # Errors
    /// As [`KernelFit::decision_function`].
    pub fn predict(&self, data: &Dataset) -> Result<Array1<f64>> {
        Ok(self
            .decision_function(data)?
            .mapv(|f| if f >= 0.0 { 1.0 } else { -1.0 }))
    }

    /// The fraction of `data` that [`KernelFit::predict`] labels correctly.
    ///
    /// # Errors
    /// As [`KernelFit::decision_function`].
    pub fn accuracy(&self, data: &Dataset) -> Result<f64> {
        let predicted = self.predict(data)?;
        let correct = predicted
            .iter()
            .zip(data.labels())
            .filter(|(p, y)| p == y)
            .count();
        Ok(correct as f64 / data.n_samples() as f64)
    }
}
