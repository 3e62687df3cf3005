//! The kernel perceptron's parameters, validated once.

use super::cache::DEFAULT_CACHE_BYTES;
use super::function::Kernel;
use super::run::Representation;
use crate::error::{Error, Result};
use crate::perceptron::{BiasRule, Order};
use crate::simd::Summation;

/// Unvalidated parameters of the kernel perceptron; [`KernelPerceptronParams::check`] validates them.
///
/// | parameter | default |
/// |---|---|
/// | kernel | (required) |
/// | bias rule | [`BiasRule::None`]; `c = 1` or `c = R_K` through `K̂ = K + c²` |
/// | η | 1 |
/// | order | [`Order::Cyclic`] |
/// | `max_epochs` | 1000 |
/// | `max_updates` | none |
/// | summation of the inner products | [`Summation::Fast`] |
/// | Gram cache | [`DEFAULT_CACHE_BYTES`] |
/// | representation | [`Representation::Auto`] |
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, Dataset};
/// // XOR: not linearly separable, separable under (x·z + 1)².
/// let xor = Dataset::new(array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]], array![1., -1., -1., 1.])?;
/// let kernel = KernelParams::polynomial(2).coef0(1.0).gamma(Gamma::Value(1.0)).check()?;
/// let fit = KernelPerceptronParams::new(kernel).check()?.fit(&xor)?;
/// assert!(fit.converged);
/// assert_eq!(fit.accuracy(&xor)?, 1.0);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KernelPerceptronParams {
    pub(crate) kernel: Kernel,
    pub(crate) bias: BiasRule,
    pub(crate) eta: f64,
    pub(crate) order: Order,
    pub(crate) max_epochs: usize,
    pub(crate) max_updates: Option<u64>,
    pub(crate) summation: Summation,
    pub(crate) cache_bytes: usize,
    pub(crate) representation: Representation,
}

impl KernelPerceptronParams {
    /// The defaults above with this kernel.
    ///
    /// ```
    /// let p = novikoff::kernel::KernelPerceptronParams::new(novikoff::kernel::Kernel::linear());
    /// assert_eq!(p.check()?.max_epochs(), 1000);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn new(kernel: Kernel) -> Self {
        Self {
            kernel,
            bias: BiasRule::None,
            eta: 1.0,
            order: Order::Cyclic,
            max_epochs: 1000,
            max_updates: None,
            summation: Summation::Fast,
            cache_bytes: DEFAULT_CACHE_BYTES,
            representation: Representation::Auto,
        }
    }

    /// Set the bias rule: `c = 0`, 1, `R_K` or a constant, applied as `K̂(x, z) = K(x, z) + c²`.
    #[must_use]
    pub fn bias(mut self, rule: BiasRule) -> Self {
        self.bias = rule;
        self
    }

    /// Set η (finite, > 0).
    #[must_use]
    pub fn eta(mut self, eta: f64) -> Self {
        self.eta = eta;
        self
    }

    /// Set the visiting order.
    #[must_use]
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Set the epoch cap (≥ 1).
    #[must_use]
    pub fn max_epochs(mut self, max_epochs: usize) -> Self {
        self.max_epochs = max_epochs;
        self
    }

    /// Set the update cap (≥ 1).
    #[must_use]
    pub fn max_updates(mut self, max_updates: Option<u64>) -> Self {
        self.max_updates = max_updates;
        self
    }

    /// Set the summation order of the inner products inside the kernel.
    #[must_use]
    pub fn summation(mut self, summation: Summation) -> Self {
        self.summation = summation;
        self
    }

    /// Set the memory budget of the Gram-row cache, in bytes (at least two rows, `16·n`).
    #[must_use]
    pub fn cache_bytes(mut self, bytes: usize) -> Self {
        self.cache_bytes = bytes;
        self
    }

    /// Set the representation of the weights.
    #[must_use]
    pub fn representation(mut self, representation: Representation) -> Self {
        self.representation = representation;
        self
    }

    /// The kernel perceptron with the settings of a perceptron's parameters: its bias rule, η, order,
    /// caps and summation (a start from non-zero weights and the variants other than the plain
    /// perceptron are refused: the dual run starts from α = 0 and makes the perceptron's updates).
    ///
    /// ```
    /// use novikoff::{kernel::{Kernel, KernelPerceptronParams}, perceptron::{BiasRule, PerceptronParams}};
    /// let primal = PerceptronParams::new().bias(BiasRule::Classic).eta(0.5).max_epochs(20);
    /// let dual = KernelPerceptronParams::from_perceptron(&primal, Kernel::linear())?;
    /// assert_eq!((dual.bias_rule(), dual.check()?.max_epochs()), (BiasRule::Classic, 20));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for another variant or initial weights (a kept vote is ignored), and the perceptron's
    /// own refusals.
    pub fn from_perceptron(
        params: &crate::perceptron::PerceptronParams,
        kernel: Kernel,
    ) -> Result<Self> {
        if params.variant != crate::perceptron::Variant::Perceptron {
            return Err(Error::parameter(
                "variant",
                format!(
                    "the kernel perceptron makes the plain perceptron's updates; {} is not offered with a \
                     kernel",
                    params.variant.name()
                ),
            ));
        }
        if params.initial_w.is_some() || params.initial_b != 0.0 {
            return Err(Error::parameter(
                "initial",
                "the kernel perceptron starts from α = 0; initial weights are not offered with a kernel",
            ));
        }
        let checked = params.clone().check()?;
        Ok(Self::new(kernel)
            .bias(params.bias)
            .eta(checked.eta())
            .order(checked.order().clone())
            .max_epochs(checked.max_epochs())
            .max_updates(checked.max_updates())
            .summation(checked.summation()))
    }

    /// The kernel.
    ///
    /// ```
    /// use novikoff::kernel::{Kernel, KernelPerceptronParams};
    /// assert!(KernelPerceptronParams::new(Kernel::linear()).kernel().is_linear());
    /// ```
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The bias rule.
    ///
    /// ```
    /// use novikoff::{kernel::{Kernel, KernelPerceptronParams}, perceptron::BiasRule};
    /// assert_eq!(KernelPerceptronParams::new(Kernel::linear()).bias_rule(), BiasRule::None);
    /// ```
    pub fn bias_rule(&self) -> BiasRule {
        self.bias
    }

    /// Validate everything that can be checked without the data.
    ///
    /// ```
    /// use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams, Representation};
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(1.0)).check()?;
    /// let err = KernelPerceptronParams::new(rbf).representation(Representation::Explicit).check();
    /// assert!(err.unwrap_err().to_string().contains("identity"));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn check(self) -> Result<KernelPerceptron> {
        crate::perceptron::PerceptronParams::check_shared(
            self.bias,
            self.eta,
            &self.order,
            self.max_epochs,
            self.max_updates,
        )?;
        if self.representation == Representation::Explicit && !self.kernel.is_linear() {
            return Err(Error::parameter(
                "representation",
                format!(
                    "the explicit representation keeps w itself, which needs a feature map that is the \
                     identity: the linear kernel, not {}",
                    self.kernel.name()
                ),
            ));
        }
        Ok(KernelPerceptron { params: self })
    }
}

/// A validated kernel perceptron. Made by [`KernelPerceptronParams::check`].
#[derive(Debug, Clone, PartialEq)]
pub struct KernelPerceptron {
    pub(crate) params: KernelPerceptronParams,
}
