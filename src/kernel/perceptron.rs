//! Training the kernel (dual) perceptron of Aizerman, Braverman and Rozonoer (1964): the mistake counts
//! αᵢ in place of the weights, every bias rule through the augmented kernel `K̂ = K + c²`.

use super::fit::KernelFit;
use super::learner::{KernelPerceptron, KernelPerceptronParams};
use super::run::{KernelSink, Representation};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::perceptron::Order;

impl KernelPerceptron {
    /// The validated parameters.
    pub fn params(&self) -> &KernelPerceptronParams {
        &self.params
    }

    /// The epoch cap.
    pub fn max_epochs(&self) -> usize {
        self.params.max_epochs
    }

    /// Train until an epoch has no mistake (`y·f(x) ≤ 0` is a mistake) or a cap is reached.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0]], array![1.0, -1.0, 1.0])?;
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(1.0)).check()?;
    /// let fit = KernelPerceptronParams::new(rbf).check()?.fit(&data)?;
    /// assert!(fit.converged);
    /// assert_eq!(fit.alpha.iter().sum::<u64>(), fit.mistakes);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn fit(&self, data: &Dataset) -> Result<KernelFit> {
        self.fit_with(data, &mut ())
    }

    /// [`KernelPerceptron::fit`], reporting every update to `sink`.
    pub fn fit_with<S: KernelSink>(&self, data: &Dataset, sink: &mut S) -> Result<KernelFit> {
        let p = &self.params;
        p.kernel.check_data(data)?;
        if let Order::Permutation(perm) = &p.order {
            crate::perceptron::check_permutation(perm, data.n_samples())?;
        }
        match p.representation.resolve(&p.kernel) {
            Representation::Explicit => super::explicit::fit(&self.params, data, sink),
            _ => super::dual::fit(&self.params, data, sink),
        }
    }
}
