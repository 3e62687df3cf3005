//! What every kernel run shares: the representation of its weights, its update events and their
//! observers, what it hands to its result, and the radius of the feature space.

use serde::Serialize;

use super::cache::CacheStats;
use super::eval::OnData;
use super::function::Kernel;
use crate::dataset::Dataset;
use crate::error::Result;
use crate::perceptron::{Presentations, StopReason};
use crate::simd::Summation;

/// How the run represents its weight vector `w = Σⱼ αⱼ·η·yⱼ·φ(xⱼ)`.
///
/// ```
/// use novikoff::kernel::{Kernel, Representation};
/// assert_eq!(Representation::Auto.resolve(&Kernel::linear()), Representation::Explicit);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Representation {
    /// [`Representation::Explicit`] for the linear kernel, [`Representation::Dual`] for the others.
    #[default]
    Auto,
    /// The mistake counts αᵢ, with the activations of every example kept up to date: an update on
    /// `xₜ` adds `η·yₜ·K(xₜ, xᵢ)` to the activation of every `xᵢ` (one row of the Gram matrix, O(n)),
    /// and a presentation reads its activation in O(1).
    Dual,
    /// `w` itself, for a kernel whose feature map is the identity (the linear kernel): the run is the
    /// primal perceptron's, bit for bit, with the αᵢ counted beside it.
    Explicit,
}

impl Representation {
    /// The representation used for `kernel`.
    ///
    /// ```
    /// use novikoff::kernel::{Gamma, KernelParams, Representation};
    /// let rbf = KernelParams::rbf().gamma(Gamma::Value(1.0)).check()?;
    /// assert_eq!(Representation::Auto.resolve(&rbf), Representation::Dual);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn resolve(self, kernel: &Kernel) -> Representation {
        match self {
            Representation::Auto if kernel.is_linear() => Representation::Explicit,
            Representation::Auto => Representation::Dual,
            other => other,
        }
    }
}

/// One update of the kernel perceptron, as its observers see it.
///
/// The update made was `ŵ += step·label·φ̂(x_row)` in the feature space of the augmented kernel
/// `K̂ = K + c²`, that is `α_row += 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelUpdateEvent {
    /// 1-based update number `k`.
    pub update: u64,
    /// 1-based epoch.
    pub epoch: usize,
    /// 0-based row.
    pub row: usize,
    /// The row's label ±1.
    pub label: f64,
    /// `ŵ·φ̂(x) = Σⱼ αⱼηyⱼK̂(xⱼ, x)` before the update (`f(x)`, the bias included).
    pub activation: f64,
    /// The learning rate η.
    pub step: f64,
    /// `K̂(x, x) = K(x, x) + c²`.
    pub self_kernel: f64,
    /// `‖ŵ_k‖² = αᵀ(YK̂Y)α·η²` after the update, maintained incrementally:
    /// `‖ŵ + s·φ̂‖² = ‖ŵ‖² + 2s·ŵ·φ̂ + s²·K̂(x, x)` with `s = η·y`.
    pub norm_sq: f64,
    /// The bias `b = c²·Σⱼ αⱼηyⱼ` after the update.
    pub b: f64,
}

/// Something that observes every update of a kernel run (the proof's inequalities in the RKHS are
/// checked by one, [`super::KernelInvariantCheck`]).
pub trait KernelSink {
    /// Observe one update; an error stops the run and is returned by `fit`.
    fn record(&mut self, event: &KernelUpdateEvent) -> Result<()>;
}

impl KernelSink for () {
    fn record(&mut self, _: &KernelUpdateEvent) -> Result<()> {
        Ok(())
    }
}

impl<T: KernelSink + ?Sized> KernelSink for &mut T {
    fn record(&mut self, event: &KernelUpdateEvent) -> Result<()> {
        (**self).record(event)
    }
}

/// Every update of a kernel run, in memory.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{Kernel, KernelPerceptronParams, KernelTrace}, Dataset};
/// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
/// let mut trace = KernelTrace::default();
/// KernelPerceptronParams::new(Kernel::linear()).check()?.fit_with(&data, &mut trace)?;
/// assert_eq!(trace.events.len(), 1);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelTrace {
    /// The updates in order.
    pub events: Vec<KernelUpdateEvent>,
}

impl KernelSink for KernelTrace {
    fn record(&mut self, event: &KernelUpdateEvent) -> Result<()> {
        self.events.push(*event);
        Ok(())
    }
}

/// What a finished run hands to `KernelFit::assemble`.
pub(crate) struct RunOutcome {
    pub(crate) kernel: Kernel,
    pub(crate) eta: f64,
    pub(crate) summation: Summation,
    pub(crate) alpha: Vec<u64>,
    pub(crate) coef: Vec<f64>,
    pub(crate) b: f64,
    pub(crate) c: f64,
    pub(crate) norm_sq: f64,
    pub(crate) mistakes: u64,
    pub(crate) epochs: usize,
    pub(crate) stop_reason: StopReason,
    pub(crate) train_seconds: f64,
    pub(crate) presentations: Presentations,
    pub(crate) cache: CacheStats,
    pub(crate) primal_w: Option<ndarray::Array1<f64>>,
    pub(crate) representation: Representation,
}

/// `R_K = maxᵢ √K(xᵢ, xᵢ)` from the diagonal.
pub(crate) fn radius_of_diagonal(diagonal: &[f64]) -> f64 {
    diagonal.iter().fold(0.0_f64, |m, &k| m.max(k)).sqrt()
}

/// [`radius`] from a diagonal already computed.
pub(crate) fn radius_from(kernel: &Kernel, data: &Dataset, diagonal: &[f64]) -> f64 {
    if kernel.is_linear() {
        data.radius()
    } else {
        radius_of_diagonal(diagonal)
    }
}

/// The radius of the data in the feature space, `R_K = maxᵢ √K(xᵢ, xᵢ)`. For the linear kernel it is
/// the dataset's own `R` ([`Dataset::radius`], to the bit), so that `--kernel linear` runs the rules of
/// the primal perceptron with the same constant `c = R`.
///
/// ```
/// use ndarray::array;
/// use novikoff::{kernel::{radius, Gamma, Kernel, KernelParams}, Dataset};
/// let data = Dataset::new(array![[3.0, 4.0], [1.0, 0.0]], array![1.0, -1.0])?;
/// assert_eq!(radius(&Kernel::linear(), &data)?, 5.0);
/// let rbf = KernelParams::rbf().gamma(Gamma::Value(1.0)).check()?;
/// assert_eq!(radius(&rbf, &data)?, 1.0); // K(x, x) = 1
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn radius(kernel: &Kernel, data: &Dataset) -> Result<f64> {
    kernel.check_data(data)?;
    if kernel.is_linear() {
        return Ok(data.radius());
    }
    Ok(radius_of_diagonal(
        &OnData::new(kernel, data, Summation::Fast).diagonal(),
    ))
}
