//! The perceptron's family: which update rule a run follows and which predictor it returns.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A member of the perceptron's family. Every variant runs in the same engine (epochs, orders, caps,
/// traces, bias rules as the augmentation `(x, c)`); a variant only changes **when** the engine updates,
/// **by how much**, and **which weights it predicts with**.
///
/// | variant | name | updates when | step `w += s·y·x` | predicts with | source |
/// |---|---|---|---|---|---|
/// | [`Perceptron`](Variant::Perceptron) | `perceptron` | `y·a ≤ 0` | `s = η` | the last weights | Rosenblatt 1958 |
/// | [`Averaged`](Variant::Averaged) | `averaged` | `y·a ≤ 0` | `s = η` | the average of all weights | Freund & Schapire 1999 |
/// | [`Voted`](Variant::Voted) | `voted` | `y·a ≤ 0` | `s = η` | a vote of all weights, weighted by survival | Freund & Schapire 1999 |
/// | [`Pocket`](Variant::Pocket) | `pocket` | `y·a ≤ 0` | `s = η` | the fewest-errors weights seen (ratchet) | Gallant 1990 |
/// | [`Margin`](Variant::Margin) | `margin:β` | `y·a ≤ β` | `s = η` | the last weights | Collobert & Bengio 2004 |
/// | [`PassiveAggressive`](Variant::PassiveAggressive) | `pa` | `y·a < 1` | `s = ℓ/‖x‖²` | the last weights | Crammer et al. 2006 |
/// | [`PassiveAggressiveI`](Variant::PassiveAggressiveI) | `pa1:C` | `y·a < 1` | `s = min(C, ℓ/‖x‖²)` | the last weights | Crammer et al. 2006 |
/// | [`PassiveAggressiveII`](Variant::PassiveAggressiveII) | `pa2:C` | `y·a < 1` | `s = ℓ/(‖x‖² + 1/(2C))` | the last weights | Crammer et al. 2006 |
///
/// Here `a = w·x + b` is the activation and `ℓ = max(0, 1 − y·a)` the hinge loss; with a bias rule `x`
/// is the augmented `(x, c)` throughout, so `‖x‖²` includes `c²`. The averaged, voted and pocket
/// perceptrons make exactly the plain perceptron's updates (the same bits); only their predictors
/// differ, so one run yields all of them ([`Fit::averaged`](super::Fit::averaged),
/// [`Fit::voted`](super::Fit::voted), [`Fit::pocket`](super::Fit::pocket)).
///
/// A **mistake** is always `y·a ≤ 0`; for the margin perceptron and Passive–Aggressive an update can
/// also happen on a correct prediction whose margin is small, so [`Fit::updates`](super::Fit::updates)
/// may exceed [`Fit::mistakes`](super::Fit::mistakes).
///
/// ```
/// use novikoff::perceptron::Variant;
/// assert_eq!(Variant::parse("margin:0.5")?, Variant::Margin { beta: 0.5 });
/// assert_eq!(Variant::parse("pa1:2")?.name(), "pa1:2");
/// assert_eq!(Variant::parse("averaged")?.name(), "averaged");
/// assert!(Variant::parse("margin:-1")?.check().is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Variant {
    /// Rosenblatt's perceptron: update on a mistake, predict with the last weights.
    #[default]
    Perceptron,
    /// The plain run, predicting with the average of the weights after every presentation.
    Averaged,
    /// The plain run, predicting by a vote of every weight vector weighted by how long it survived.
    Voted,
    /// The plain run, predicting with the weights of fewest training errors seen (Gallant's pocket
    /// algorithm with ratchet).
    Pocket,
    /// The perceptron with margin: update whenever `y·a ≤ β`.
    Margin {
        /// The margin threshold β ≥ 0 (β = 0 is the plain perceptron).
        beta: f64,
    },
    /// Passive–Aggressive (PA): the smallest change that gives the example hinge loss 0.
    PassiveAggressive,
    /// PA-I: PA with the step capped at `C`.
    PassiveAggressiveI {
        /// The aggressiveness `C > 0`.
        c: f64,
    },
    /// PA-II: PA with the step damped by `1/(2C)`.
    PassiveAggressiveII {
        /// The aggressiveness `C > 0`.
        c: f64,
    },
}

/// When a variant updates and by how much: the rule the engine applies at each presentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum UpdateRule {
    /// Update at `y·a ≤ threshold` by `η·y·x` (threshold 0: the plain perceptron).
    Threshold(f64),
    /// Update at `y·a < 1` by `τ·y·x` with `τ = ℓ/(‖x‖² + ridge)`, capped at `cap`.
    PassiveAggressive { cap: f64, ridge: f64 },
}

/// Which weights a variant predicts with.
///
/// ```
/// use novikoff::perceptron::{Predictor, Variant};
/// assert_eq!(Variant::Voted.predictor(), Predictor::Voted);
/// assert_eq!(Variant::Margin { beta: 1.0 }.predictor(), Predictor::Last);
/// assert_eq!(Predictor::Averaged.name(), "averaged");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Predictor {
    /// The weights at the end of the run.
    Last,
    /// The average of the weights over the run's presentations.
    Averaged,
    /// The survival-weighted vote of every weight vector.
    Voted,
    /// The pocket weights (fewest training errors seen).
    Pocket,
}

impl Predictor {
    /// Every predictor, in the order reports list them.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::Predictor::ALL.len(), 4);
    /// ```
    pub const ALL: [Predictor; 4] = [
        Predictor::Last,
        Predictor::Averaged,
        Predictor::Voted,
        Predictor::Pocket,
    ];

    /// `last`, `averaged`, `voted` or `pocket`.
    ///
    /// ```
    /// assert_eq!(novikoff::perceptron::Predictor::Pocket.name(), "pocket");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Predictor::Last => "last",
            Predictor::Averaged => "averaged",
            Predictor::Voted => "voted",
            Predictor::Pocket => "pocket",
        }
    }
}

impl Variant {
    /// The name as the CLI, the specs and the result files spell it: `perceptron`, `averaged`, `voted`,
    /// `pocket`, `margin:β`, `pa`, `pa1:C`, `pa2:C`.
    ///
    /// ```
    /// use novikoff::perceptron::Variant;
    /// assert_eq!(Variant::PassiveAggressiveII { c: 0.5 }.name(), "pa2:0.5");
    /// ```
    pub fn name(self) -> String {
        match self {
            Variant::Perceptron => "perceptron".into(),
            Variant::Averaged => "averaged".into(),
            Variant::Voted => "voted".into(),
            Variant::Pocket => "pocket".into(),
            Variant::Margin { beta } => format!("margin:{beta}"),
            Variant::PassiveAggressive => "pa".into(),
            Variant::PassiveAggressiveI { c } => format!("pa1:{c}"),
            Variant::PassiveAggressiveII { c } => format!("pa2:{c}"),
        }
    }

    /// Parse a name of [`Variant::name`]. `margin`, `pa1` and `pa2` alone take β = 1 and C = 1 (the
    /// default C of scikit-learn's `PassiveAggressiveClassifier`). Values are checked by
    /// [`Variant::check`], not here.
    ///
    /// ```
    /// use novikoff::perceptron::Variant;
    /// assert_eq!(Variant::parse("pa2")?, Variant::PassiveAggressiveII { c: 1.0 });
    /// assert_eq!(Variant::parse("margin")?, Variant::Margin { beta: 1.0 });
    /// assert!(Variant::parse("adaline").is_err());
    /// assert!(Variant::parse("pa1:x").is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn parse(text: &str) -> Result<Self> {
        let text = text.trim();
        let (head, value) = match text.split_once(':') {
            Some((head, value)) => (head.trim(), Some(value.trim())),
            None => (text, None),
        };
        let number = |what: &str| -> Result<f64> {
            match value {
                None => Ok(1.0),
                Some(v) => v.parse::<f64>().map_err(|_| {
                    Error::parameter(
                        "variant",
                        format!("`{text}`: {what} must be a number, got `{v}`"),
                    )
                }),
            }
        };
        let plain = |variant: Variant| -> Result<Variant> {
            match value {
                None => Ok(variant),
                Some(_) => Err(Error::parameter(
                    "variant",
                    format!("`{text}`: the variant `{head}` takes no value"),
                )),
            }
        };
        match head {
            "perceptron" => plain(Variant::Perceptron),
            "averaged" => plain(Variant::Averaged),
            "voted" => plain(Variant::Voted),
            "pocket" => plain(Variant::Pocket),
            "pa" => plain(Variant::PassiveAggressive),
            "margin" => Ok(Variant::Margin {
                beta: number("β")?
            }),
            "pa1" => Ok(Variant::PassiveAggressiveI { c: number("C")? }),
            "pa2" => Ok(Variant::PassiveAggressiveII { c: number("C")? }),
            _ => Err(Error::parameter(
                "variant",
                format!(
                    "unknown variant `{text}`: expected perceptron, averaged, voted, pocket, margin:β, \
                     pa, pa1:C or pa2:C"
                ),
            )),
        }
    }

    /// Check the variant's own parameters: β finite and ≥ 0, C finite and > 0.
    ///
    /// ```
    /// use novikoff::perceptron::Variant;
    /// assert!(Variant::PassiveAggressiveI { c: 0.0 }.check().is_err());
    /// assert!(Variant::Margin { beta: f64::NAN }.check().is_err());
    /// assert!(Variant::Margin { beta: 0.0 }.check().is_ok());
    /// ```
    pub fn check(self) -> Result<Self> {
        match self {
            Variant::Margin { beta } if !(beta.is_finite() && beta >= 0.0) => {
                Err(Error::parameter(
                    "variant",
                    format!("the margin β must be finite and ≥ 0, got {beta}"),
                ))
            }
            Variant::PassiveAggressiveI { c } | Variant::PassiveAggressiveII { c }
                if !(c.is_finite() && c > 0.0) =>
            {
                Err(Error::parameter(
                    "variant",
                    format!("the aggressiveness C must be finite and > 0, got {c}"),
                ))
            }
            _ => Ok(self),
        }
    }

    /// The predictor this variant returns.
    ///
    /// ```
    /// use novikoff::perceptron::{Predictor, Variant};
    /// assert_eq!(Variant::Averaged.predictor(), Predictor::Averaged);
    /// ```
    pub fn predictor(self) -> Predictor {
        match self {
            Variant::Averaged => Predictor::Averaged,
            Variant::Voted => Predictor::Voted,
            Variant::Pocket => Predictor::Pocket,
            _ => Predictor::Last,
        }
    }

    /// True for the variants whose updates are the plain perceptron's (the same bits): `perceptron`,
    /// `averaged`, `voted` and `pocket`. Every bound on the plain perceptron's mistakes applies to them.
    ///
    /// ```
    /// use novikoff::perceptron::Variant;
    /// assert!(Variant::Pocket.updates_like_perceptron());
    /// assert!(!Variant::PassiveAggressive.updates_like_perceptron());
    /// ```
    pub fn updates_like_perceptron(self) -> bool {
        matches!(
            self,
            Variant::Perceptron | Variant::Averaged | Variant::Voted | Variant::Pocket
        )
    }

    /// True for the Passive–Aggressive variants, which choose their own step (η must be 1).
    ///
    /// ```
    /// assert!(novikoff::perceptron::Variant::PassiveAggressive.is_passive_aggressive());
    /// ```
    pub fn is_passive_aggressive(self) -> bool {
        matches!(
            self,
            Variant::PassiveAggressive
                | Variant::PassiveAggressiveI { .. }
                | Variant::PassiveAggressiveII { .. }
        )
    }

    /// The update rule the engine applies.
    pub(crate) fn rule(self) -> UpdateRule {
        match self {
            Variant::Margin { beta } => UpdateRule::Threshold(beta),
            Variant::PassiveAggressive => UpdateRule::PassiveAggressive {
                cap: f64::INFINITY,
                ridge: 0.0,
            },
            Variant::PassiveAggressiveI { c } => {
                UpdateRule::PassiveAggressive { cap: c, ridge: 0.0 }
            }
            Variant::PassiveAggressiveII { c } => UpdateRule::PassiveAggressive {
                cap: f64::INFINITY,
                ridge: 0.5 / c,
            },
            _ => UpdateRule::Threshold(0.0),
        }
    }
}

impl UpdateRule {
    /// The step `s > 0` for an example with label `y`, activation `a` and squared length `sq_norm`
    /// (augmented), or `None` when the rule does not update. `eta` is the learning rate of the threshold
    /// rules.
    #[inline]
    pub(crate) fn step(self, y: f64, activation: f64, sq_norm: f64, eta: f64) -> Option<f64> {
        let margin = y * activation;
        match self {
            UpdateRule::Threshold(beta) => (margin <= beta).then_some(eta),
            UpdateRule::PassiveAggressive { cap, ridge } => {
                // `!(margin >= 1)` also updates on a NaN activation, which the engine then reports.
                if margin >= 1.0 {
                    return None;
                }
                let loss = 1.0 - margin;
                let denominator = sq_norm + ridge;
                // A zero example (with no bias) cannot be moved: PA's step is undefined there, and no
                // step changes its loss, so the example is passed over.
                if denominator <= 0.0 {
                    return None;
                }
                Some((loss / denominator).min(cap))
            }
        }
    }
}
