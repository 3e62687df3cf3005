//! Parameters of the perceptron, validated once before fitting (the linfa `ParamGuard` idea).

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::variant::Variant;
use crate::error::{Error, Result};
use crate::simd::Summation;

/// How the bias `b` is learned. Every rule is the plain perceptron run on the augmented vectors
/// `(x, c)`, with `b = c·w_{d+1}`, so that an update adds `η·y·c²` to `b`:
///
/// | rule | constant `c` | update of `b` | source |
/// |---|---|---|---|
/// | [`BiasRule::None`] | 0 | `b` stays 0 | Block–Novikoff (seed 004), Haykin (seed 003), Helmbold (seed 000) |
/// | [`BiasRule::Classic`] | 1 | `b += η·y` | CS 536 eq. 4 (seed 001) |
/// | [`BiasRule::Novikoff`] | `R = max‖xᵢ‖` | `b += η·y·R²` | the primal form of seed 002 |
/// | [`BiasRule::Constant`] | any `c` | `b += η·y·c²` | the add-a-dimension trick (seed 000) |
///
/// ```
/// use novikoff::perceptron::BiasRule;
/// assert_eq!(BiasRule::Classic.constant(7.0), 1.0);
/// assert_eq!(BiasRule::Novikoff.constant(7.0), 7.0);
/// assert_eq!(BiasRule::None.constant(7.0), 0.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BiasRule {
    /// No bias: the separator passes through the origin.
    #[default]
    None,
    /// `b += η·y` (augmentation constant 1).
    Classic,
    /// `b += η·y·R²` (augmentation constant R, the dataset's radius).
    Novikoff,
    /// `b += η·y·c²` for a user-chosen augmentation constant `c`.
    Constant(f64),
}

impl BiasRule {
    /// The augmentation constant `c` for a dataset of radius `radius`.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::BiasRule::Constant(2.5).constant(9.0), 2.5);
    /// ```
    pub fn constant(self, radius: f64) -> f64 {
        match self {
            BiasRule::None => 0.0,
            BiasRule::Classic => 1.0,
            BiasRule::Novikoff => radius,
            BiasRule::Constant(c) => c,
        }
    }

    /// The rule's name as the CLI and result files spell it (`none`, `classic`, `novikoff`, `c=VALUE`).
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::BiasRule::Constant(2.0).name(), "c=2");
    /// ```
    pub fn name(self) -> String {
        match self {
            BiasRule::None => "none".into(),
            BiasRule::Classic => "classic".into(),
            BiasRule::Novikoff => "novikoff".into(),
            BiasRule::Constant(c) => format!("c={c}"),
        }
    }

    /// Parse `none`, `classic`, `novikoff` or `c=VALUE`.
    ///
    /// ```
    /// use novikoff::perceptron::BiasRule;
    /// assert_eq!(BiasRule::parse("novikoff")?, BiasRule::Novikoff);
    /// assert_eq!(BiasRule::parse("c=0.5")?, BiasRule::Constant(0.5));
    /// assert!(BiasRule::parse("sometimes").is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn parse(text: &str) -> Result<Self> {
        match text.trim() {
            "none" => Ok(BiasRule::None),
            "classic" => Ok(BiasRule::Classic),
            "novikoff" => Ok(BiasRule::Novikoff),
            other => match other.strip_prefix("c=").map(str::parse::<f64>) {
                Some(Ok(c)) if c.is_finite() => Ok(BiasRule::Constant(c)),
                _ => Err(Error::parameter(
                    "bias",
                    format!(
                        "unknown bias rule `{other}`: expected none, classic, novikoff or c=VALUE"
                    ),
                )),
            },
        }
    }
}

/// The order in which examples are visited within an epoch.
///
/// ```
/// use novikoff::perceptron::Order;
/// assert_eq!(Order::Shuffle { seed: 3 }.name(), "shuffle");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Rows `0, 1, …, n−1` in every epoch (Haykin's cyclic pass, seed 003).
    #[default]
    Cyclic,
    /// A fresh seeded permutation every epoch, drawn from one ChaCha8 stream.
    Shuffle {
        /// The seed of the stream.
        seed: u64,
    },
    /// The same user-given permutation of `0..n` in every epoch.
    Permutation(Vec<usize>),
}

impl Order {
    /// `cyclic`, `shuffle` or `permutation`.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::Order::Cyclic.name(), "cyclic");
    /// ```
    pub fn name(&self) -> &'static str {
        match self {
            Order::Cyclic => "cyclic",
            Order::Shuffle { .. } => "shuffle",
            Order::Permutation(_) => "permutation",
        }
    }
}

/// Unvalidated perceptron parameters, built with consuming setters. [`PerceptronParams::check`] validates
/// them once and returns the [`Perceptron`](super::Perceptron) that fits.
///
/// | parameter | default |
/// |---|---|
/// | bias rule | [`BiasRule::None`] |
/// | learning rate η | 1 |
/// | order | [`Order::Cyclic`] |
/// | `max_epochs` | 1000 |
/// | `max_updates` | none |
/// | initial `w`, `b` | zero |
/// | summation | [`Summation::Fast`] |
/// | variant | [`Variant::Perceptron`] |
/// | keep the vote | only for [`Variant::Voted`] |
///
/// ```
/// use novikoff::perceptron::{BiasRule, PerceptronParams};
/// let learner = PerceptronParams::new().bias(BiasRule::Classic).eta(0.5).max_epochs(100).check()?;
/// assert_eq!(learner.eta(), 0.5);
/// assert!(PerceptronParams::new().eta(-1.0).check().is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PerceptronParams {
    pub(crate) bias: BiasRule,
    pub(crate) eta: f64,
    pub(crate) order: Order,
    pub(crate) max_epochs: usize,
    pub(crate) max_updates: Option<u64>,
    pub(crate) initial_w: Option<Array1<f64>>,
    pub(crate) initial_b: f64,
    pub(crate) summation: Summation,
    pub(crate) variant: Variant,
    pub(crate) record_votes: bool,
}

impl Default for PerceptronParams {
    fn default() -> Self {
        Self {
            bias: BiasRule::None,
            eta: 1.0,
            order: Order::Cyclic,
            max_epochs: 1000,
            max_updates: None,
            initial_w: None,
            initial_b: 0.0,
            summation: Summation::Fast,
            variant: Variant::Perceptron,
            record_votes: false,
        }
    }
}

impl PerceptronParams {
    /// The defaults listed above.
    ///
    /// ```
    /// let p = novikoff::perceptron::PerceptronParams::new();
    /// assert_eq!(p.clone().check().unwrap().max_epochs(), 1000);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Set the bias rule.
    ///
    /// ```
    /// use novikoff::perceptron::{BiasRule, PerceptronParams};
    /// assert_eq!(PerceptronParams::new().bias(BiasRule::Novikoff).bias_rule(), BiasRule::Novikoff);
    /// ```
    #[must_use]
    pub fn bias(mut self, rule: BiasRule) -> Self {
        self.bias = rule;
        self
    }

    /// Set the learning rate η (> 0, finite).
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::PerceptronParams::new().eta(0.1).check().unwrap().eta(), 0.1);
    /// ```
    #[must_use]
    pub fn eta(mut self, eta: f64) -> Self {
        self.eta = eta;
        self
    }

    /// Set the visiting order.
    ///
    /// ```
    /// use novikoff::perceptron::{Order, PerceptronParams};
    /// let p = PerceptronParams::new().order(Order::Shuffle { seed: 1 });
    /// assert_eq!(p.clone().check().unwrap().order().name(), "shuffle");
    /// ```
    #[must_use]
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Stop after this many epochs (≥ 1) even if a mistake was made in the last one.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::PerceptronParams::new().max_epochs(5).check().unwrap().max_epochs(), 5);
    /// ```
    #[must_use]
    pub fn max_epochs(mut self, max_epochs: usize) -> Self {
        self.max_epochs = max_epochs;
        self
    }

    /// Stop as soon as this many updates (≥ 1) have been made.
    ///
    /// ```
    /// let p = novikoff::perceptron::PerceptronParams::new().max_updates(Some(10));
    /// assert_eq!(p.clone().check().unwrap().max_updates(), Some(10));
    /// ```
    #[must_use]
    pub fn max_updates(mut self, max_updates: Option<u64>) -> Self {
        self.max_updates = max_updates;
        self
    }

    /// Start from these weights and bias instead of zero. A non-zero initial bias needs a bias rule other
    /// than [`BiasRule::None`], and `w` must have one entry per feature (checked at fit time).
    ///
    /// ```
    /// use ndarray::array;
    /// let p = novikoff::perceptron::PerceptronParams::new().initial(array![1.0, 0.0], 0.0);
    /// assert!(p.check().is_ok());
    /// ```
    #[must_use]
    pub fn initial(mut self, w: Array1<f64>, b: f64) -> Self {
        self.initial_w = Some(w);
        self.initial_b = b;
        self
    }

    /// Choose the dot product's summation order.
    ///
    /// ```
    /// use novikoff::{simd::Summation, perceptron::PerceptronParams};
    /// let p = PerceptronParams::new().summation(Summation::Sequential);
    /// assert_eq!(p.clone().check().unwrap().summation(), Summation::Sequential);
    /// ```
    #[must_use]
    pub fn summation(mut self, summation: Summation) -> Self {
        self.summation = summation;
        self
    }

    /// Choose the member of the perceptron's family ([`Variant`]).
    ///
    /// ```
    /// use novikoff::perceptron::{PerceptronParams, Variant};
    /// let p = PerceptronParams::new().variant(Variant::PassiveAggressiveI { c: 0.5 });
    /// assert_eq!(p.clone().check()?.variant(), Variant::PassiveAggressiveI { c: 0.5 });
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[must_use]
    pub fn variant(mut self, variant: Variant) -> Self {
        self.variant = variant;
        self
    }

    /// Keep the voted perceptron's vote ([`Fit::voted`](super::Fit::voted)) even when the variant is
    /// not [`Variant::Voted`], so that one run can be scored with the last, averaged and voted
    /// predictors. Only for the variants that update like the plain perceptron; it costs the stored
    /// entries of the updated rows plus 12 bytes per update.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{perceptron::PerceptronParams, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().record_votes(true).fit(&data)?;
    /// assert!(fit.voted.is_some());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    #[must_use]
    pub fn record_votes(mut self, record: bool) -> Self {
        self.record_votes = record;
        self
    }

    /// The bias rule.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::PerceptronParams::new().bias_rule().name(), "none");
    /// ```
    pub fn bias_rule(&self) -> BiasRule {
        self.bias
    }

    /// The variant.
    ///
    /// ```
    /// use novikoff::perceptron::{PerceptronParams, Variant};
    /// assert_eq!(PerceptronParams::new().variant_kind(), Variant::Perceptron);
    /// ```
    pub fn variant_kind(&self) -> Variant {
        self.variant
    }

    /// Check the fields the kernel and multi-class learners share with the binary one, with the same
    /// messages: they are checked as the binary parameters would be.
    pub(crate) fn check_shared(
        bias: BiasRule,
        eta: f64,
        order: &Order,
        max_epochs: usize,
        max_updates: Option<u64>,
    ) -> Result<()> {
        PerceptronParams::new()
            .bias(bias)
            .eta(eta)
            .order(order.clone())
            .max_epochs(max_epochs)
            .max_updates(max_updates)
            .check()
            .map(drop)
    }

    /// Validate everything that can be checked without the data.
    ///
    /// ```
    /// use novikoff::perceptron::PerceptronParams;
    /// let err = PerceptronParams::new().max_epochs(0).check().unwrap_err();
    /// assert_eq!(err.to_string(), "invalid parameter `max_epochs`: must be at least 1");
    /// ```
    pub fn check(self) -> Result<super::Perceptron> {
        if !(self.eta.is_finite() && self.eta > 0.0) {
            return Err(Error::parameter(
                "eta",
                format!(
                    "the learning rate must be finite and positive, got {}",
                    self.eta
                ),
            ));
        }
        if self.max_epochs == 0 {
            return Err(Error::parameter("max_epochs", "must be at least 1"));
        }
        if self.max_updates == Some(0) {
            return Err(Error::parameter("max_updates", "must be at least 1"));
        }
        if let BiasRule::Constant(c) = self.bias
            && !c.is_finite()
        {
            return Err(Error::parameter(
                "bias",
                format!("the constant c = {c} is not finite"),
            ));
        }
        if let Some(w) = &self.initial_w
            && let Some(v) = w.iter().find(|v| !v.is_finite())
        {
            return Err(Error::parameter(
                "initial_w",
                format!("holds the non-finite value {v}"),
            ));
        }
        if !self.initial_b.is_finite() {
            return Err(Error::parameter("initial_b", "must be finite"));
        }
        if self.initial_b != 0.0 && matches!(self.bias, BiasRule::None | BiasRule::Constant(0.0)) {
            return Err(Error::parameter(
                "initial_b",
                "a non-zero initial bias needs a bias rule (classic, novikoff or c=VALUE with c ≠ 0)",
            ));
        }
        if let Order::Permutation(p) = &self.order {
            check_permutation(p, p.len())?;
        }
        self.variant.check()?;
        if self.variant.is_passive_aggressive() && self.eta != 1.0 {
            return Err(Error::parameter(
                "eta",
                format!(
                    "{} chooses its own step τ, so η must be 1 (got {})",
                    self.variant.name(),
                    self.eta
                ),
            ));
        }
        if self.record_votes && !self.variant.updates_like_perceptron() {
            return Err(Error::parameter(
                "record_votes",
                format!(
                    "the vote is the plain perceptron's, but {} updates differently",
                    self.variant.name()
                ),
            ));
        }
        Ok(super::Perceptron { params: self })
    }
}

/// Check that `p` is a permutation of `0..n`.
pub(crate) fn check_permutation(p: &[usize], n: usize) -> Result<()> {
    if p.len() != n {
        return Err(Error::parameter(
            "order",
            format!(
                "the permutation has {} entries but the dataset has {n} rows",
                p.len()
            ),
        ));
    }
    let mut seen = vec![false; n];
    for &i in p {
        if i >= n || std::mem::replace(&mut seen[i], true) {
            return Err(Error::parameter(
                "order",
                format!(
                    "the permutation is not a permutation of 0..{n}: index {i} is out of range or repeated"
                ),
            ));
        }
    }
    Ok(())
}
