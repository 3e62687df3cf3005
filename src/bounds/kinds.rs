//! The forms of the theorem: one value per source document, with its formula and the rule it speaks of.

use serde::{Deserialize, Serialize};

/// One form of the perceptron convergence theorem, named after the source document that states it.
///
/// | kind | source | rule of the run | bound on the mistakes |
/// |---|---|---|---|
/// | [`BlockNovikoff`](BoundKind::BlockNovikoff) | seed 004 (10-607) | no bias | `(R/γ)²`, γ the margin through the origin |
/// | [`Haykin`](BoundKind::Haykin) | seed 003 | no bias | `β/α²`, β = max‖x‖², α = min y·w*·x, ‖w*‖ = 1 |
/// | [`Helmbold`](BoundKind::Helmbold) | seed 000 | no bias, unit-norm data | `1/δ²`, δ = min y·u·x |
/// | [`NovikoffBias`](BoundKind::NovikoffBias) | seed 002 | `b += η·y·R²` | `(2R/γ)²`, γ the free-bias margin, `|b_opt| ≤ R` |
/// | [`NovikoffBiasTight`](BoundKind::NovikoffBiasTight) | seed 002's proof | `b += η·y·R²` | `2R²/γ̂²`, γ̂ the margin of `(x, R)` through the origin |
/// | [`Augmented`](BoundKind::Augmented) | seed 000, Simplification 1 | `b += η·y·c²` (c = 1: `b += η·y`) | `R_c²/γ_c²` on `x' = (x, c)` |
/// | [`Cs536`](BoundKind::Cs536) | seed 001 | `b += y`, unit-norm data | `4/γ²`, γ the free-bias margin |
///
/// ```
/// use novikoff::bounds::BoundKind;
/// assert_eq!(BoundKind::BlockNovikoff.formula(), "(R/γ)²");
/// assert_eq!(BoundKind::ALL.len(), 7);
/// assert_eq!(BoundKind::Cs536.id(), "cs536");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BoundKind {
    /// Block (1962), Novikoff (1962) as on the 10-607 slides (seed 004): no bias, `k ≤ (R/γ)²`.
    BlockNovikoff,
    /// Haykin, *Neural Networks and Learning Machines* (seed 003): no bias, `n ≤ β/α²`.
    Haykin,
    /// Helmbold's proof outline (seed 000): unit-norm data, no bias, `mistakes ≤ 1/δ²`.
    Helmbold,
    /// Novikoff's theorem in the primal form with `b += η·y·R²` (seed 002): `k ≤ (2R/γ)²`.
    NovikoffBias,
    /// The bound seed 002's proof actually yields for `b += η·y·R²`: `k ≤ 2R²/γ̂²` with γ̂ the margin of the
    /// augmented vectors `(x, R)` through the origin. Never larger than `(2R/γ)²`.
    NovikoffBiasTight,
    /// Helmbold's add-a-dimension trick (seed 000, Simplification 1): the run with `b += η·y·c²` is the
    /// perceptron without bias on `x' = (x, c)`, so `k ≤ (R'/γ')²` on those vectors (c = 1 for `b += η·y`).
    Augmented,
    /// CS 536 (seed 001): unit-norm data, `w += y·x, b += y`, `T ≤ 4/γ²`.
    Cs536,
}

impl BoundKind {
    /// Every form, in the order the reports list them.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::BoundKind::ALL[0].id(), "block_novikoff");
    /// ```
    pub const ALL: [BoundKind; 7] = [
        BoundKind::BlockNovikoff,
        BoundKind::Haykin,
        BoundKind::Helmbold,
        BoundKind::Augmented,
        BoundKind::Cs536,
        BoundKind::NovikoffBias,
        BoundKind::NovikoffBiasTight,
    ];

    /// The stable snake_case identifier used in JSON and CSV output.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::BoundKind::NovikoffBiasTight.id(), "novikoff_bias_tight");
    /// ```
    pub fn id(self) -> &'static str {
        match self {
            BoundKind::BlockNovikoff => "block_novikoff",
            BoundKind::Haykin => "haykin",
            BoundKind::Helmbold => "helmbold",
            BoundKind::NovikoffBias => "novikoff_bias",
            BoundKind::NovikoffBiasTight => "novikoff_bias_tight",
            BoundKind::Augmented => "augmented",
            BoundKind::Cs536 => "cs536",
        }
    }

    /// The name a person reads, after the source.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::BoundKind::BlockNovikoff.name(), "Block–Novikoff");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            BoundKind::BlockNovikoff => "Block–Novikoff",
            BoundKind::Haykin => "Haykin",
            BoundKind::Helmbold => "Helmbold",
            BoundKind::NovikoffBias => "Novikoff with bias",
            BoundKind::NovikoffBiasTight => "Novikoff with bias, tight",
            BoundKind::Augmented => "Augmented vectors",
            BoundKind::Cs536 => "CS 536",
        }
    }

    /// The source document.
    ///
    /// ```
    /// assert!(novikoff::bounds::BoundKind::Haykin.source().starts_with("seed 003"));
    /// ```
    pub fn source(self) -> &'static str {
        match self {
            BoundKind::BlockNovikoff => "seed 004 (10-607 slides, Theorem 0.1)",
            BoundKind::Haykin => "seed 003 (Haykin 2009, pp. 50-53)",
            BoundKind::Helmbold => "seed 000 (Helmbold, proof outline)",
            BoundKind::NovikoffBias => "seed 002 (primal form, Novikoff's theorem)",
            BoundKind::NovikoffBiasTight => "seed 002 (Lemmas 2 and 3 with ‖x̂‖² ≤ 2R²)",
            BoundKind::Augmented => "seed 000 (Helmbold, Simplification 1)",
            BoundKind::Cs536 => "seed 001 (CS 536, eq. 22)",
        }
    }

    /// The bound as the source writes it.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::BoundKind::Cs536.formula(), "4/γ²");
    /// ```
    pub fn formula(self) -> &'static str {
        match self {
            BoundKind::BlockNovikoff => "(R/γ)²",
            BoundKind::Haykin => "β/α²",
            BoundKind::Helmbold => "1/δ²",
            BoundKind::NovikoffBias => "(2R/γ)²",
            BoundKind::NovikoffBiasTight => "(√2·R/γ̂)²",
            BoundKind::Augmented => "(R'/γ')²",
            BoundKind::Cs536 => "4/γ²",
        }
    }

    /// What the symbols of [`BoundKind::formula`] stand for.
    ///
    /// ```
    /// assert!(novikoff::bounds::BoundKind::Haykin.symbols().contains("β = max‖x‖²"));
    /// ```
    pub fn symbols(self) -> &'static str {
        match self {
            BoundKind::BlockNovikoff => "R = max‖x‖, γ = margin through the origin",
            BoundKind::Haykin => "β = max‖x‖², α = min y·w*·x with ‖w*‖ = 1",
            BoundKind::Helmbold => "δ = min y·u·x with ‖u‖ = 1, on unit-norm x",
            BoundKind::NovikoffBias => "R = max‖x‖, γ = margin with free bias",
            BoundKind::NovikoffBiasTight => "γ̂ = margin of x̂ = (x, R) through the origin",
            BoundKind::Augmented => {
                "x' = (x, c), R' = max‖x'‖, γ' = margin of x' through the origin"
            }
            BoundKind::Cs536 => "γ = margin with free bias, on unit-norm x",
        }
    }

    /// The kind of update rule the form speaks of.
    ///
    /// ```
    /// use novikoff::bounds::{BoundKind, RuleFamily};
    /// assert_eq!(BoundKind::Cs536.rule_family(), RuleFamily::UnitConstant);
    /// ```
    pub fn rule_family(self) -> RuleFamily {
        match self {
            BoundKind::BlockNovikoff | BoundKind::Haykin | BoundKind::Helmbold => {
                RuleFamily::NoBias
            }
            BoundKind::NovikoffBias | BoundKind::NovikoffBiasTight => RuleFamily::RadiusConstant,
            BoundKind::Augmented => RuleFamily::AnyConstant,
            BoundKind::Cs536 => RuleFamily::UnitConstant,
        }
    }
}

/// Which runs a form of the theorem is about, by the augmentation constant `c` of the bias rule (every
/// rule is the perceptron without bias on `(x, c)`; see [`BiasRule`](crate::perceptron::BiasRule)).
///
/// ```
/// use novikoff::bounds::RuleFamily;
/// assert!(RuleFamily::NoBias.matches(0.0, 3.0));
/// assert!(RuleFamily::RadiusConstant.matches(3.0, 3.0));
/// assert!(!RuleFamily::UnitConstant.matches(3.0, 3.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RuleFamily {
    /// `c = 0`: no bias, the separator passes through the origin.
    NoBias,
    /// `c = 1`: `b += η·y` (CS 536 with η = 1).
    UnitConstant,
    /// `c = R`: `b += η·y·R²` (seed 002).
    RadiusConstant,
    /// Any `c ≠ 0` other than `R` (for `c = R`, see [`BoundKind::NovikoffBiasTight`], the same bound).
    AnyConstant,
}

impl RuleFamily {
    /// True when a run with augmentation constant `c` on data of radius `radius` belongs to the family.
    ///
    /// ```
    /// use novikoff::bounds::RuleFamily;
    /// assert!(RuleFamily::AnyConstant.matches(1.0, 5.0));
    /// assert!(!RuleFamily::AnyConstant.matches(5.0, 5.0));
    /// ```
    pub fn matches(self, c: f64, radius: f64) -> bool {
        match self {
            RuleFamily::NoBias => c == 0.0,
            RuleFamily::UnitConstant => c == 1.0,
            RuleFamily::RadiusConstant => radius > 0.0 && c == radius,
            RuleFamily::AnyConstant => c != 0.0 && c != radius,
        }
    }

    /// The rule in words.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::RuleFamily::NoBias.describe(), "no bias (c = 0)");
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            RuleFamily::NoBias => "no bias (c = 0)",
            RuleFamily::UnitConstant => "b += η·y (c = 1)",
            RuleFamily::RadiusConstant => "b += η·y·R² (c = R)",
            RuleFamily::AnyConstant => "b += η·y·c² with c ≠ 0, c ≠ R",
        }
    }
}
