//! The augmentation constant: the one mechanism behind every bias rule.

use serde::Serialize;

use super::BiasRule;
use crate::dataset::Dataset;

/// The constant coordinate `c` that a bias rule appends to every example: the perceptron with a bias is
/// the perceptron through the origin on `(x, c)`, with weights `(w, v)` and bias `b = c·v`.
///
/// It is made once per run from the rule and the data (`c = R` needs the radius, which the dataset
/// owns), and it is the only place that turns `v` into `b` and back.
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::{Augmentation, BiasRule}, Dataset};
/// let data = Dataset::new(array![[3.0, 4.0], [-1.0, 0.0]], array![1.0, -1.0])?;
/// let novikoff = Augmentation::of(BiasRule::Novikoff, &data);
/// assert_eq!(novikoff.constant(), 5.0); // c = R
/// assert_eq!(novikoff.bias(2.0), 10.0); // b = c·v
/// assert_eq!(novikoff.weight_of_bias(10.0), 2.0);
/// assert_eq!(novikoff.apply(&data).x().row(0).to_vec(), vec![3.0, 4.0, 5.0]);
/// assert!(Augmentation::of(BiasRule::None, &data).is_none());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Augmentation {
    c: f64,
}

impl Augmentation {
    /// No constant coordinate: the perceptron through the origin (`c = 0`).
    pub const NONE: Augmentation = Augmentation { c: 0.0 };

    /// The constant of `rule` on `data`. Only [`BiasRule::Novikoff`] reads the data (its radius, computed
    /// once by the dataset).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::{Augmentation, BiasRule}, Dataset};
    /// let data = Dataset::new(array![[1.0]], array![1.0])?;
    /// assert_eq!(Augmentation::of(BiasRule::Classic, &data).constant(), 1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of(rule: BiasRule, data: &Dataset) -> Self {
        match rule {
            BiasRule::Novikoff => Self::with_constant(data.radius()),
            other => Self::with_constant(other.constant(0.0)),
        }
    }

    /// The augmentation by a known constant `c`.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::Augmentation::with_constant(2.0).bias(0.5), 1.0);
    /// ```
    pub fn with_constant(c: f64) -> Self {
        Self { c }
    }

    /// The constant `c`.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::Augmentation::NONE.constant(), 0.0);
    /// ```
    pub fn constant(self) -> f64 {
        self.c
    }

    /// True for `c = 0`: there is no bias to learn.
    ///
    /// ```
    /// assert!(novikoff::perceptron::Augmentation::with_constant(0.0).is_none());
    /// ```
    pub fn is_none(self) -> bool {
        self.c == 0.0
    }

    /// The bias `b = c·v` of the constant coordinate's weight `v`.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::Augmentation::with_constant(3.0).bias(2.0), 6.0);
    /// ```
    #[inline(always)]
    pub fn bias(self, v: f64) -> f64 {
        self.c * v
    }

    /// The constant coordinate's weight `v = b/c` of a bias `b` given from outside a run (a starting
    /// point, a supplied separator); 0 when `c = 0`. A run carries its own `v` and never divides.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::Augmentation::with_constant(4.0).weight_of_bias(2.0), 0.5);
    /// ```
    pub fn weight_of_bias(self, b: f64) -> f64 {
        if self.is_none() { 0.0 } else { b / self.c }
    }

    /// The augmented dataset `(x, c)` (Helmbold's add-a-dimension, seed 000; the `(x, R)` of seed 002).
    ///
    /// ```
    /// use ndarray::array;
    /// let data = novikoff::Dataset::new(array![[2.0]], array![1.0])?;
    /// let one = novikoff::perceptron::Augmentation::with_constant(1.0);
    /// assert_eq!(one.apply(&data).x(), array![[2.0, 1.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn apply(self, data: &Dataset) -> Dataset {
        data.augment(self.c)
    }
}
