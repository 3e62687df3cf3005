//! The forms of the theorem: one value per source document, with its formula and the rule it speaks of.

use serde::{Deserialize, Serialize};

use crate::perceptron::{Fit, Variant};

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
/// The perceptron's family adds the bounds its papers prove, every one for every bias rule through
/// the augmentation `x' = (x, c)`, `R' = max‖x'‖`:
///
/// | kind | source | variant | bound |
/// |---|---|---|---|
/// | [`FreundSchapire`](BoundKind::FreundSchapire) | Freund & Schapire 1999, Thm. 2 | perceptron (any data) | mistakes `≤ ((R' + D)/γ)²` for any unit `u`, `γ > 0` |
/// | [`ShalevShwartzSinger`](BoundKind::ShalevShwartzSinger) | Shalev-Shwartz & Singer 2005 | perceptron (any data) | mistakes `≤ L + R'‖u‖√L + R'²‖u‖²` for any `u` |
/// | [`MarginPerceptron`](BoundKind::MarginPerceptron) | Collobert & Bengio 2004 | margin `β` | updates `≤ (R'² + 2β/η)/γ'²` |
/// | [`PassiveAggressiveSeparable`](BoundKind::PassiveAggressiveSeparable) | Crammer et al. 2006, Thm. 2 | PA | `Σℓₜ² ≤ (R'/γ')²` |
/// | [`PassiveAggressiveUnitNorm`](BoundKind::PassiveAggressiveUnitNorm) | Crammer et al. 2006, Thm. 3 | PA, ‖x'‖ = 1 | `Σℓₜ² ≤ (‖u‖ + 2√(Σℓₜ*²))²` for any `u` |
/// | [`PassiveAggressiveI`](BoundKind::PassiveAggressiveI) | Crammer et al. 2006, Thm. 4 | PA-I | mistakes `≤ max(R'², 1/C)(‖u‖² + 2CΣℓₜ*)` for any `u` |
/// | [`PassiveAggressiveII`](BoundKind::PassiveAggressiveII) | Crammer et al. 2006, Thm. 5 | PA-II | `Σℓₜ² ≤ (R'² + 1/(2C))(‖u‖² + 2CΣℓₜ*²)` for any `u` |
///
/// Every form bounds the mistakes: the margin perceptron updates on every mistake, and a mistake has
/// hinge loss `ℓₜ ≥ 1`, so `mistakes ≤ updates` and `mistakes ≤ Σℓₜ²`. [`BoundKind::measure`] says which
/// quantity a form bounds directly, and that is the one checked.
///
/// ```
/// use novikoff::bounds::BoundKind;
/// assert_eq!(BoundKind::BlockNovikoff.formula(), "(R/γ)²");
/// assert_eq!(BoundKind::ALL.len(), 14);
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
    /// Freund and Schapire (1999, Theorem 2): on any sequence, for any unit `u` and `γ > 0`, with
    /// deviations `dₜ = max(0, γ − yₜ u·x'ₜ)` over the presentations and `D = √(Σ dₜ²)`, the perceptron
    /// makes at most `((R' + D)/γ)²` mistakes.
    FreundSchapire,
    /// Shalev-Shwartz and Singer (COLT 2005): for any `u`, with `L = Σ max(0, 1 − yₜ u·x'ₜ)` over the
    /// mistake rounds, the perceptron makes at most `L + R'‖u‖√L + R'²‖u‖²` mistakes.
    ShalevShwartzSinger,
    /// The perceptron with margin β (Collobert and Bengio 2004): at most `(R'² + 2β/η)/γ'²` updates.
    MarginPerceptron,
    /// Passive–Aggressive on separable data (Crammer et al. 2006, Theorem 2): `Σℓₜ² ≤ ‖u‖²R'²` for any
    /// `u` with `yₜ u·x'ₜ ≥ 1`, i.e. `(R'/γ')²`.
    PassiveAggressiveSeparable,
    /// Passive–Aggressive on unit vectors (Crammer et al. 2006, Theorem 3): `Σℓₜ² ≤ (‖u‖ + 2√(Σℓₜ*²))²`.
    PassiveAggressiveUnitNorm,
    /// PA-I's mistake bound (Crammer et al. 2006, Theorem 4): `max(R'², 1/C)·(‖u‖² + 2C·Σℓₜ*)`.
    PassiveAggressiveI,
    /// PA-II's loss bound (Crammer et al. 2006, Theorem 5): `Σℓₜ² ≤ (R'² + 1/(2C))(‖u‖² + 2C·Σℓₜ*²)`.
    PassiveAggressiveII,
}

impl BoundKind {
    /// Every form, in the order the reports list them.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::BoundKind::ALL[0].id(), "block_novikoff");
    /// ```
    pub const ALL: [BoundKind; 14] = [
        BoundKind::BlockNovikoff,
        BoundKind::Haykin,
        BoundKind::Helmbold,
        BoundKind::Augmented,
        BoundKind::Cs536,
        BoundKind::NovikoffBias,
        BoundKind::NovikoffBiasTight,
        BoundKind::FreundSchapire,
        BoundKind::ShalevShwartzSinger,
        BoundKind::MarginPerceptron,
        BoundKind::PassiveAggressiveSeparable,
        BoundKind::PassiveAggressiveUnitNorm,
        BoundKind::PassiveAggressiveI,
        BoundKind::PassiveAggressiveII,
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
            BoundKind::FreundSchapire => "freund_schapire",
            BoundKind::ShalevShwartzSinger => "shalev_shwartz_singer",
            BoundKind::MarginPerceptron => "margin_perceptron",
            BoundKind::PassiveAggressiveSeparable => "pa_separable",
            BoundKind::PassiveAggressiveUnitNorm => "pa_unit_norm",
            BoundKind::PassiveAggressiveI => "pa1",
            BoundKind::PassiveAggressiveII => "pa2",
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
            BoundKind::FreundSchapire => "Freund–Schapire",
            BoundKind::ShalevShwartzSinger => "Shalev-Shwartz–Singer",
            BoundKind::MarginPerceptron => "Perceptron with margin",
            BoundKind::PassiveAggressiveSeparable => "Passive–Aggressive, separable",
            BoundKind::PassiveAggressiveUnitNorm => "Passive–Aggressive, unit norm",
            BoundKind::PassiveAggressiveI => "PA-I mistakes",
            BoundKind::PassiveAggressiveII => "PA-II loss",
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
            BoundKind::FreundSchapire => {
                "Freund & Schapire 1999, Machine Learning 37(3), Theorem 2"
            }
            BoundKind::ShalevShwartzSinger => {
                "Shalev-Shwartz & Singer 2005, COLT (A new perspective on an old perceptron algorithm)"
            }
            BoundKind::MarginPerceptron => {
                "Collobert & Bengio 2004, ICML (Links between perceptrons, MLPs and SVMs)"
            }
            BoundKind::PassiveAggressiveSeparable => "Crammer et al. 2006, JMLR 7, Theorem 2",
            BoundKind::PassiveAggressiveUnitNorm => "Crammer et al. 2006, JMLR 7, Theorem 3",
            BoundKind::PassiveAggressiveI => "Crammer et al. 2006, JMLR 7, Theorem 4",
            BoundKind::PassiveAggressiveII => "Crammer et al. 2006, JMLR 7, Theorem 5",
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
            BoundKind::FreundSchapire => "((R' + D)/γ)²",
            BoundKind::ShalevShwartzSinger => "L + R'‖u‖√L + R'²‖u‖²",
            BoundKind::MarginPerceptron => "(R'² + 2β/η)/γ'²",
            BoundKind::PassiveAggressiveSeparable => "(R'/γ')²",
            BoundKind::PassiveAggressiveUnitNorm => "(‖u‖ + 2√(Σℓ*²))²",
            BoundKind::PassiveAggressiveI => "max(R'², 1/C)·(‖u‖² + 2C·Σℓ*)",
            BoundKind::PassiveAggressiveII => "(R'² + 1/(2C))·(‖u‖² + 2C·Σℓ*²)",
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
            BoundKind::FreundSchapire => {
                "x' = (x, c), R' = max‖x'‖, u a unit vector, γ > 0, D² = Σ over the presentations of max(0, γ − y·u·x')²"
            }
            BoundKind::ShalevShwartzSinger => {
                "x' = (x, c), R' = max‖x'‖, u any vector, L = Σ over the mistake rounds of max(0, 1 − y·u·x')"
            }
            BoundKind::MarginPerceptron => {
                "x' = (x, c), R' = max‖x'‖, γ' = margin of x' through the origin, β the threshold, η the rate"
            }
            BoundKind::PassiveAggressiveSeparable => {
                "ℓₜ = max(0, 1 − y·w·x') of the run, γ' = margin of x' = (x, c) through the origin"
            }
            BoundKind::PassiveAggressiveUnitNorm => {
                "ℓₜ of the run, u any vector, ℓ* = max(0, 1 − y·u·x') over the presentations, ‖x'‖ = 1"
            }
            BoundKind::PassiveAggressiveI => {
                "M the mistakes, R' = max‖x'‖, u any vector, ℓ* = max(0, 1 − y·u·x') over the presentations"
            }
            BoundKind::PassiveAggressiveII => {
                "ℓₜ of the run, R' = max‖x'‖, u any vector, ℓ* = max(0, 1 − y·u·x') over the presentations"
            }
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
            BoundKind::FreundSchapire
            | BoundKind::ShalevShwartzSinger
            | BoundKind::MarginPerceptron
            | BoundKind::PassiveAggressiveSeparable
            | BoundKind::PassiveAggressiveUnitNorm
            | BoundKind::PassiveAggressiveI
            | BoundKind::PassiveAggressiveII => RuleFamily::Any,
        }
    }

    /// The quantity of the run the form bounds directly.
    ///
    /// ```
    /// use novikoff::bounds::{BoundKind, Measure};
    /// assert_eq!(BoundKind::MarginPerceptron.measure(), Measure::Updates);
    /// assert_eq!(BoundKind::PassiveAggressiveII.measure(), Measure::SquaredLoss);
    /// assert_eq!(BoundKind::FreundSchapire.measure(), Measure::Mistakes);
    /// ```
    pub fn measure(self) -> Measure {
        match self {
            BoundKind::MarginPerceptron => Measure::Updates,
            BoundKind::PassiveAggressiveSeparable
            | BoundKind::PassiveAggressiveUnitNorm
            | BoundKind::PassiveAggressiveII => Measure::SquaredLoss,
            _ => Measure::Mistakes,
        }
    }

    /// True when the form speaks of runs of `variant`.
    ///
    /// ```
    /// use novikoff::bounds::BoundKind;
    /// use novikoff::perceptron::Variant;
    /// assert!(BoundKind::FreundSchapire.speaks_of(Variant::Averaged));
    /// assert!(!BoundKind::BlockNovikoff.speaks_of(Variant::PassiveAggressive));
    /// assert!(BoundKind::PassiveAggressiveI.speaks_of(Variant::PassiveAggressiveI { c: 1.0 }));
    /// ```
    pub fn speaks_of(self, variant: Variant) -> bool {
        match self {
            BoundKind::MarginPerceptron => matches!(variant, Variant::Margin { .. }),
            BoundKind::PassiveAggressiveSeparable | BoundKind::PassiveAggressiveUnitNorm => {
                variant == Variant::PassiveAggressive
            }
            BoundKind::PassiveAggressiveI => matches!(variant, Variant::PassiveAggressiveI { .. }),
            BoundKind::PassiveAggressiveII => {
                matches!(variant, Variant::PassiveAggressiveII { .. })
            }
            _ => variant.updates_like_perceptron(),
        }
    }

    /// The variants the form speaks of, in words.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::BoundKind::PassiveAggressiveI.variants(), "PA-I (pa1:C)");
    /// ```
    pub fn variants(self) -> &'static str {
        match self {
            BoundKind::MarginPerceptron => "the perceptron with margin (margin:β)",
            BoundKind::PassiveAggressiveSeparable | BoundKind::PassiveAggressiveUnitNorm => {
                "Passive–Aggressive (pa)"
            }
            BoundKind::PassiveAggressiveI => "PA-I (pa1:C)",
            BoundKind::PassiveAggressiveII => "PA-II (pa2:C)",
            _ => "the perceptron's updates (perceptron, averaged, voted or pocket)",
        }
    }

    /// True for the forms whose value depends on the run itself (its sequence of presentations, its
    /// mistake rounds), not only on the data: they hold for any comparator `u`, which the crate searches
    /// for once the run is known.
    ///
    /// ```
    /// use novikoff::bounds::BoundKind;
    /// assert!(BoundKind::FreundSchapire.needs_run());
    /// assert!(!BoundKind::MarginPerceptron.needs_run());
    /// ```
    pub fn needs_run(self) -> bool {
        matches!(
            self,
            BoundKind::FreundSchapire
                | BoundKind::ShalevShwartzSinger
                | BoundKind::PassiveAggressiveUnitNorm
                | BoundKind::PassiveAggressiveI
                | BoundKind::PassiveAggressiveII
        )
    }
}

/// The quantity of a run that a form of the theorem bounds.
///
/// ```
/// use novikoff::bounds::Measure;
/// assert_eq!(Measure::SquaredLoss.name(), "squared_loss");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Measure {
    /// The mistakes, `y·(w·x + b) ≤ 0`.
    Mistakes,
    /// The updates (at least the mistakes).
    Updates,
    /// Passive–Aggressive's cumulative squared hinge loss `Σℓₜ²` (at least the mistakes).
    SquaredLoss,
}

impl Measure {
    /// `mistakes`, `updates` or `squared_loss`.
    ///
    /// ```
    /// assert_eq!(novikoff::bounds::Measure::Updates.name(), "updates");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Measure::Mistakes => "mistakes",
            Measure::Updates => "updates",
            Measure::SquaredLoss => "squared_loss",
        }
    }

    /// The run's value of the quantity, `None` when the run does not have it (the squared loss of a run
    /// that is not Passive–Aggressive).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{bounds::Measure, perceptron::PerceptronParams, Dataset};
    /// let data = Dataset::new(array![[1.0], [-1.0]], array![1.0, -1.0])?;
    /// let fit = PerceptronParams::new().fit(&data)?;
    /// assert_eq!(Measure::Mistakes.of(&fit), Some(1.0));
    /// assert_eq!(Measure::SquaredLoss.of(&fit), None);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn of(self, fit: &Fit) -> Option<f64> {
        match self {
            Measure::Mistakes => Some(fit.mistakes as f64),
            Measure::Updates => Some(fit.updates as f64),
            Measure::SquaredLoss => fit.history.squared_loss,
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
    /// Every bias rule, through the augmentation (c = 0 included).
    Any,
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
            RuleFamily::Any => true,
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
            RuleFamily::Any => "any bias rule, through the augmentation (x, c)",
        }
    }
}
