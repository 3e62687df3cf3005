//! Seeded synthetic datasets whose margin γ and radius R the experimenter controls.
//!
//! Every family is a parameter struct that validates itself and then generates:
//!
//! ```
//! use novikoff::generate::{Family, SeparableParams};
//! let generated = SeparableParams::new(200, 5).margin(0.1).radius(1.0).seed(7).check()?.generate()?;
//! assert_eq!(generated.data.n_samples(), 200);
//! assert!(generated.data.radius() <= 1.0);
//! # Ok::<(), novikoff::Error>(())
//! ```
//!
//! | family | [`Family::NAME`] | what it is | separable? |
//! |---|---|---|---|
//! | [`SeparableParams`] | `separable` | uniform in the ball of radius R minus the slab \|u·x + b\| < γ | yes, margin ≥ γ by construction |
//! | [`NoisyParams`] | `noisy` | `separable`, then a fraction of the labels flipped | no (not by u) |
//! | [`BlobsParams`] | `blobs` | two Gaussian blobs at a chosen centre distance | depends on distance/spread |
//! | [`XorParams`] | `xor` | the four quadrants of XOR, in antipodal pairs | never |
//! | [`ConcentricParams`] | `concentric` | a ball inside a shell (rings in 2-D) | never |
//! | [`BasisParams`] | `basis` | the worst case xᵢ = eᵢ in ℝ^m, all labels +1 | yes, γ = 1/√m, R = 1: the bound m is attained |
//! | [`AnisotropicParams`] | `anisotropic` | `separable` with feature j scaled by ratio^{j/(d−1)} | yes, but R/γ inflated |
//! | [`SparseParams`] | `sparse` | CSR rows of `nnz` values in dimension d (to 10⁷ and beyond): one signal column of a sparse `u`, the rest noise | yes, margin ≥ γ by construction |
//!
//! Multi-class data come from [`MulticlassParams`] (`multiclass`): `k` classes in the ball of radius R,
//! with a prescribed multi-class margin for a known unit-Frobenius `W`.
//!
//! The batch runner names a family with [`GeneratorSpec`], which deserialises from TOML or JSON with a
//! `family` tag: `{ family = "separable", n = 100, d = 5, margin = 0.1, seed = 3 }`.
//!
//! ## Reproducibility
//!
//! The same parameters and seed give the same bits on every machine, forever. All randomness is the
//! ChaCha8 stream of [`crate::rng`]; the variates built on it (normals by Marsaglia's polar method, the
//! ball coordinate, shuffles) are written in this module with a logarithm and an exponential implemented in
//! plain IEEE arithmetic, because `rand_distr`'s algorithms may change between releases and the platform's
//! `ln`/`exp` differ in the last bit between operating systems.

mod anisotropic;
mod basis;
mod blobs;
mod concentric;
mod multiclass;
mod noisy;
mod sampling;
mod separable;
mod sparse;
mod xor;

use ndarray::Array1;
use serde::{Deserialize, Serialize};

pub use anisotropic::{AnisotropicParams, anisotropic};
pub use basis::{BasisParams, basis};
pub use blobs::{BlobsParams, blobs};
pub use concentric::{ConcentricParams, concentric};
pub use multiclass::{GeneratedClasses, MulticlassParams};
pub use noisy::{NoisyParams, noisy};
pub use separable::{SeparableParams, separable};
pub use sparse::SparseParams;
pub use xor::{XorParams, xor};

use crate::dataset::Dataset;
use crate::error::{Error, Result};

/// A generated dataset and what the generator knows about it.
///
/// ```
/// let g = novikoff::generate::basis(4)?;
/// assert_eq!(g.margin, Some(0.5)); // 1/√4
/// assert_eq!(g.radius, Some(1.0));
/// assert_eq!(g.u.unwrap().to_vec(), vec![0.5; 4]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Generated {
    /// The examples and their labels.
    pub data: Dataset,
    /// The unit normal the labels were drawn from (for `blobs`, the direction between the centres), when
    /// the family has one.
    pub u: Option<Array1<f64>>,
    /// The offset used with `u`: labels are `sign(u·x + b)`.
    pub b: Option<f64>,
    /// The prescribed margin γ: `min yᵢ(u·xᵢ + b) ≥ γ` holds for the returned `u` and `b`. The maximum
    /// margin γ* of the data may be larger. `None` when the family prescribes none.
    pub margin: Option<f64>,
    /// The prescribed radius R: every `‖xᵢ‖ ≤ R`. `None` when the family prescribes none.
    pub radius: Option<f64>,
    /// One line saying what was generated, with every parameter.
    pub description: String,
}

/// A family of synthetic datasets: a parameter struct with a stable name.
///
/// ```
/// use novikoff::generate::{Family, XorParams};
/// assert_eq!(XorParams::NAME, "xor");
/// let checked = XorParams::new(8).seed(1).check()?;
/// assert_eq!(checked.generate()?.data.n_samples(), 8);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub trait Family: Sized + private::Sample {
    /// The family's stable name (used by the CLI and by experiment specs).
    const NAME: &'static str;

    /// Validate the parameters once; the result can generate any number of times.
    ///
    /// ```
    /// use novikoff::generate::{Family, SeparableParams};
    /// let err = SeparableParams::new(10, 2).margin(0.6).offset(0.5).check().unwrap_err();
    /// assert!(err.to_string().contains("margin + |offset| < radius"));
    /// ```
    fn check(self) -> Result<Checked<Self>> {
        self.validate()?;
        Ok(Checked(self))
    }
}

mod private {
    /// Sealed: only the families of this module generate.
    pub trait Sample {
        fn validate(&self) -> crate::Result<()>;
        fn sample(&self) -> crate::Result<super::Generated>;
    }
}

/// Parameters that passed [`Family::check`].
///
/// ```
/// use novikoff::generate::{BasisParams, Family};
/// let checked = BasisParams::new(3).check()?;
/// assert_eq!(checked.params().m, 3);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Checked<P>(P);

impl<P: Family> Checked<P> {
    /// The validated parameters.
    ///
    /// ```
    /// use novikoff::generate::{BlobsParams, Family};
    /// assert_eq!(BlobsParams::new(10, 2).check()?.params().n, 10);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn params(&self) -> &P {
        &self.0
    }

    /// Generate the dataset. Fails only if memory cannot be allocated or a sampler is stuck (a bug).
    ///
    /// ```
    /// use novikoff::generate::{Family, NoisyParams};
    /// let g = NoisyParams::new(50, 3).flip(0.1).seed(2).check()?.generate()?;
    /// assert_eq!(g.margin, None); // flipped labels void the margin
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn generate(&self) -> Result<Generated> {
        self.0.sample()
    }
}

/// The names of every family, in the order of the module table.
///
/// ```
/// assert!(novikoff::generate::FAMILIES.contains(&"separable"));
/// ```
pub const FAMILIES: [&str; 8] = [
    SeparableParams::NAME,
    NoisyParams::NAME,
    BlobsParams::NAME,
    XorParams::NAME,
    ConcentricParams::NAME,
    BasisParams::NAME,
    AnisotropicParams::NAME,
    SparseParams::NAME,
];

/// Any family with its parameters, tagged by the family name: what an experiment spec holds.
///
/// ```
/// use novikoff::generate::GeneratorSpec;
/// let spec: GeneratorSpec = serde_json::from_str(
///     r#"{"family": "separable", "n": 20, "d": 3, "margin": 0.2, "seed": 5}"#,
/// ).unwrap();
/// assert_eq!(spec.family(), "separable");
/// let g = spec.with_seed(6).generate()?;
/// assert_eq!(g.data.n_features(), 3);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "snake_case")]
#[non_exhaustive]
pub enum GeneratorSpec {
    /// [`SeparableParams`].
    Separable(SeparableParams),
    /// [`NoisyParams`].
    Noisy(NoisyParams),
    /// [`BlobsParams`].
    Blobs(BlobsParams),
    /// [`XorParams`].
    Xor(XorParams),
    /// [`ConcentricParams`].
    Concentric(ConcentricParams),
    /// [`BasisParams`].
    Basis(BasisParams),
    /// [`AnisotropicParams`].
    Anisotropic(AnisotropicParams),
    /// [`SparseParams`].
    Sparse(SparseParams),
}

impl GeneratorSpec {
    /// The family's stable name.
    ///
    /// ```
    /// use novikoff::generate::{BasisParams, GeneratorSpec};
    /// assert_eq!(GeneratorSpec::Basis(BasisParams::new(2)).family(), "basis");
    /// ```
    pub fn family(&self) -> &'static str {
        match self {
            GeneratorSpec::Separable(_) => SeparableParams::NAME,
            GeneratorSpec::Noisy(_) => NoisyParams::NAME,
            GeneratorSpec::Blobs(_) => BlobsParams::NAME,
            GeneratorSpec::Xor(_) => XorParams::NAME,
            GeneratorSpec::Concentric(_) => ConcentricParams::NAME,
            GeneratorSpec::Basis(_) => BasisParams::NAME,
            GeneratorSpec::Anisotropic(_) => AnisotropicParams::NAME,
            GeneratorSpec::Sparse(_) => SparseParams::NAME,
        }
    }

    /// The seed, or `None` for the deterministic `basis` family.
    ///
    /// ```
    /// use novikoff::generate::{GeneratorSpec, XorParams};
    /// assert_eq!(GeneratorSpec::Xor(XorParams::new(4).seed(9)).seed(), Some(9));
    /// ```
    pub fn seed(&self) -> Option<u64> {
        match self {
            GeneratorSpec::Separable(p) => Some(p.seed),
            GeneratorSpec::Noisy(p) => Some(p.seed),
            GeneratorSpec::Blobs(p) => Some(p.seed),
            GeneratorSpec::Xor(p) => Some(p.seed),
            GeneratorSpec::Concentric(p) => Some(p.seed),
            GeneratorSpec::Basis(_) => None,
            GeneratorSpec::Anisotropic(p) => Some(p.seed),
            GeneratorSpec::Sparse(p) => Some(p.seed),
        }
    }

    /// The same spec with another seed (the runner derives one per task); `basis` ignores it.
    ///
    /// ```
    /// use novikoff::generate::{BlobsParams, GeneratorSpec};
    /// let spec = GeneratorSpec::Blobs(BlobsParams::new(10, 2)).with_seed(4);
    /// assert_eq!(spec.seed(), Some(4));
    /// ```
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        match &mut self {
            GeneratorSpec::Separable(p) => p.seed = seed,
            GeneratorSpec::Noisy(p) => p.seed = seed,
            GeneratorSpec::Blobs(p) => p.seed = seed,
            GeneratorSpec::Xor(p) => p.seed = seed,
            GeneratorSpec::Concentric(p) => p.seed = seed,
            GeneratorSpec::Basis(_) => {}
            GeneratorSpec::Anisotropic(p) => p.seed = seed,
            GeneratorSpec::Sparse(p) => p.seed = seed,
        }
        self
    }

    /// Validate without generating.
    ///
    /// ```
    /// use novikoff::generate::{GeneratorSpec, XorParams};
    /// assert!(GeneratorSpec::Xor(XorParams::new(2)).check().is_err()); // xor needs n ≥ 4
    /// ```
    pub fn check(&self) -> Result<()> {
        use private::Sample;
        match self {
            GeneratorSpec::Separable(p) => p.validate(),
            GeneratorSpec::Noisy(p) => p.validate(),
            GeneratorSpec::Blobs(p) => p.validate(),
            GeneratorSpec::Xor(p) => p.validate(),
            GeneratorSpec::Concentric(p) => p.validate(),
            GeneratorSpec::Basis(p) => p.validate(),
            GeneratorSpec::Anisotropic(p) => p.validate(),
            GeneratorSpec::Sparse(p) => p.validate(),
        }
    }

    /// Validate and generate.
    ///
    /// ```
    /// use novikoff::generate::{ConcentricParams, GeneratorSpec};
    /// let g = GeneratorSpec::Concentric(ConcentricParams::new(12, 2)).generate()?;
    /// assert_eq!(g.data.class_counts(), (6, 6));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn generate(&self) -> Result<Generated> {
        use private::Sample;
        self.check()?;
        match self {
            GeneratorSpec::Separable(p) => p.sample(),
            GeneratorSpec::Noisy(p) => p.sample(),
            GeneratorSpec::Blobs(p) => p.sample(),
            GeneratorSpec::Xor(p) => p.sample(),
            GeneratorSpec::Concentric(p) => p.sample(),
            GeneratorSpec::Basis(p) => p.sample(),
            GeneratorSpec::Anisotropic(p) => p.sample(),
            GeneratorSpec::Sparse(p) => p.sample(),
        }
    }
}

/// `n` examples: at least 2 (both classes are required), and `n·d` values must fit in memory.
fn check_size(n: usize, d: usize, min_n: usize) -> Result<()> {
    if n < min_n {
        return Err(Error::parameter(
            "n",
            format!("must be at least {min_n} so that both classes occur, got {n}"),
        ));
    }
    if d == 0 {
        return Err(Error::parameter("d", "must be at least 1"));
    }
    if n.checked_mul(d).and_then(|v| v.checked_mul(8)).is_none() {
        return Err(Error::parameter(
            "n",
            format!("n·d = {n}·{d} values do not fit in memory"),
        ));
    }
    Ok(())
}

fn check_finite(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::parameter(
            name,
            format!("must be finite, got {value}"),
        ))
    }
}

fn check_non_negative(name: &'static str, value: f64) -> Result<()> {
    check_finite(name, value)?;
    if value < 0.0 {
        return Err(Error::parameter(name, format!("must be ≥ 0, got {value}")));
    }
    Ok(())
}

fn check_positive(name: &'static str, value: f64) -> Result<()> {
    check_finite(name, value)?;
    if value <= 0.0 {
        return Err(Error::parameter(name, format!("must be > 0, got {value}")));
    }
    Ok(())
}

/// A zeroed `n·d` buffer, advised for huge pages before it is written, or an error instead of an abort
/// when memory is short.
fn zeros(n: usize, d: usize) -> Result<Vec<f64>> {
    let len = n * d;
    let mut values = crate::simd::reserve_advised(len).map_err(|_| {
        Error::parameter(
            "n",
            format!("cannot allocate {n}×{d} values ({} bytes)", len * 8),
        )
    })?;
    values.resize(len, 0.0);
    Ok(values)
}

fn dataset(values: Vec<f64>, labels: Vec<f64>, d: usize) -> Result<Dataset> {
    let n = labels.len();
    let x = ndarray::Array2::from_shape_vec((n, d), values)
        .expect("every generator writes d values per label");
    Dataset::new(x, Array1::from_vec(labels))
}

/// The labels `+1` ×⌈n/2⌉ and `−1` ×⌊n/2⌋ in a random order.
fn balanced_labels(n: usize, sampler: &mut sampling::Sampler) -> Vec<f64> {
    let mut labels: Vec<f64> = (0..n)
        .map(|i| if i < n.div_ceil(2) { 1.0 } else { -1.0 })
        .collect();
    sampler.shuffle(&mut labels);
    labels
}

fn default_seed() -> u64 {
    0
}

/// Whether `family` names a generator of [`FAMILIES`] or a built-in example of the source documents
/// ([`textbook::NAMES`](crate::textbook::NAMES)).
///
/// ```
/// assert!(novikoff::generate::is_family("noisy") && novikoff::generate::is_family("seed004"));
/// assert!(!novikoff::generate::is_family("gaussian"));
/// ```
pub fn is_family(family: &str) -> bool {
    FAMILIES.contains(&family) || crate::textbook::NAMES.contains(&family)
}

/// The generator named `family` with `params` (the keys of its parameter struct) and `seed`, validated;
/// `None` for a built-in example of the source documents, which takes no parameters. An unknown family
/// is an error that lists the known ones.
///
/// ```
/// use serde_json::json;
/// let params = [("n", json!(50)), ("d", json!(3)), ("margin", json!(0.1))]
///     .map(|(k, v)| (k.to_string(), v)).into_iter().collect();
/// let spec = novikoff::generate::resolve("separable", params, 7)?.unwrap();
/// assert_eq!(spec.generate()?.data.n_samples(), 50);
/// assert!(novikoff::generate::resolve("gaussian", Default::default(), 7).is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn resolve(
    family: &str,
    params: serde_json::Map<String, serde_json::Value>,
    seed: u64,
) -> Result<Option<GeneratorSpec>> {
    if crate::bundled::NAMES.contains(&family) {
        // A bundled real dataset: one class against the rest.
        let positive = params.get("positive");
        if let Some(key) = params.keys().find(|key| *key != "positive") {
            return Err(Error::parameter(
                "params",
                format!("the bundled dataset `{family}` takes only `positive` (got `{key}`)"),
            ));
        }
        return match positive {
            Some(serde_json::Value::String(_) | serde_json::Value::Number(_)) => Ok(None),
            _ => Err(Error::parameter(
                "params",
                format!(
                    "the bundled dataset `{family}` needs `positive`, the class against the rest"
                ),
            )),
        };
    }
    if crate::textbook::NAMES.contains(&family) {
        if let Some(key) = params.keys().next() {
            return Err(Error::parameter(
                "params",
                format!("the built-in example `{family}` takes no parameters (got `{key}`)"),
            ));
        }
        return Ok(None);
    }
    if !FAMILIES.contains(&family) {
        return Err(Error::parameter(
            "family",
            format!(
                "unknown generator family `{family}`: expected one of {}, a built-in example ({}) or a \
                 bundled dataset ({})",
                FAMILIES.join(", "),
                crate::textbook::NAMES.join(", "),
                crate::bundled::NAMES.join(", ")
            ),
        ));
    }
    let mut object = params;
    object.insert(
        "family".into(),
        serde_json::Value::String(family.to_string()),
    );
    let spec: GeneratorSpec = serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|e| Error::parameter("family", format!("family `{family}`: {e}")))?;
    let spec = spec.with_seed(seed);
    spec.check()?;
    Ok(Some(spec))
}
