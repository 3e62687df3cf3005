//! The experiment spec (TOML): datasets × rules × orders × η × seeds, and what to measure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use super::axes::GridOrder;
use super::axes::{optional_variant_names, rule_names, variant_names};
use super::grid::{ParamValue, Scalar, generator, grid};
pub use super::kernel_axes::GridMulticlass;
use super::kernel_axes::{default_coef0s, default_degrees, default_gammas, default_kernels};
use super::locate::{find_key_line, key_line_in_table, line_of_offset, nth_table_line};
use super::measure_options::Measure;
use crate::error::{Error, Location, Result};
use crate::perceptron::{BiasRule, Variant};
use crate::simd::Summation;

/// A whole experiment, as written in its TOML file.
///
/// ```
/// let spec = novikoff::experiment::Spec::parse(r#"
///     name = "tiny"
///     [train]
///     rules = ["none", "classic"]
///     [[dataset]]
///     file = "data/seed004.csv"
/// "#, "tiny.toml".as_ref())?;
/// assert_eq!(spec.train.rules.len(), 2);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// A name for the experiment, copied into every result row's environment record.
    pub name: String,
    /// The master seed: every generator and shuffle seed is derived from it and the task's id.
    #[serde(default)]
    pub seed: u64,
    /// The training grid.
    #[serde(default)]
    pub train: TrainGrid,
    /// What to measure for every task.
    #[serde(default)]
    pub measure: Measure,
    /// The datasets: files, globs or generated families.
    #[serde(rename = "dataset", default)]
    pub datasets: Vec<DatasetSpec>,
    /// Where the spec was parsed from, so that later errors (a missing file, a glob without matches)
    /// give its file and line.
    #[serde(skip)]
    origin: Origin,
}

/// The file and text a spec was parsed from.
#[derive(Debug, Clone, Default)]
struct Origin {
    path: Option<PathBuf>,
    text: String,
}

/// Where a spec came from does not change what it asks for.
impl PartialEq for Origin {
    fn eq(&self, _: &Origin) -> bool {
        true
    }
}

/// The most tasks a spec may expand to. The plan alone takes about 250 bytes a task (2.5 GB at the
/// limit), and no experiment of this kind needs more; a larger grid is almost always a typo (a list where
/// a scalar was meant), and is refused before anything is allocated.
pub const MAX_TASKS: u64 = 10_000_000;

/// The training grid shared by every dataset.
///
/// ```
/// use novikoff::{experiment::{GridOrder, TrainGrid}, perceptron::BiasRule};
/// let grid = TrainGrid::default();
/// assert_eq!(grid.rules, vec![BiasRule::None, BiasRule::Classic, BiasRule::Novikoff]);
/// assert_eq!(grid.orders, vec![GridOrder::Cyclic]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainGrid {
    /// Bias rules, named in the spec as `none`, `classic`, `novikoff` or `c=VALUE`.
    #[serde(default = "default_rules", with = "rule_names")]
    pub rules: Vec<BiasRule>,
    /// Members of the perceptron's family, named as `perceptron`, `averaged`, `voted`, `pocket`,
    /// `margin:β`, `pa`, `pa1:C` or `pa2:C`. The Passive–Aggressive variants choose their own step, so
    /// they run once per rule and order with η = 1, whatever the `eta` axis holds.
    #[serde(default = "default_variants", with = "variant_names")]
    pub variants: Vec<Variant>,
    /// Orders: `cyclic` and/or `shuffle`.
    #[serde(default = "default_orders")]
    pub orders: Vec<GridOrder>,
    /// Learning rates.
    #[serde(default = "default_eta")]
    pub eta: Vec<f64>,
    /// Replicate numbers for the shuffled order; each gives a different derived shuffle seed.
    #[serde(default = "default_seeds")]
    pub seeds: Vec<u64>,
    /// The epoch cap.
    #[serde(default = "default_max_epochs")]
    pub max_epochs: usize,
    /// The update cap, if any.
    #[serde(default)]
    pub max_updates: Option<u64>,
    /// The summation order.
    #[serde(default)]
    pub summation: Summation,
    /// Kernels: `none` (the primal perceptron, the default), `linear`, `poly` and `rbf`; each run
    /// with the kernel perceptron and checked in its feature space ([`crate::kernel`]).
    #[serde(default = "default_kernels")]
    pub kernel: Vec<String>,
    /// Degrees of the `poly` kernel.
    #[serde(default = "default_degrees")]
    pub degree: Vec<u32>,
    /// Constants `c₀` of the `poly` kernel.
    #[serde(default = "default_coef0s")]
    pub coef0: Vec<f64>,
    /// γ of the `poly` and `rbf` kernels: numbers, `scale` or `auto`.
    #[serde(default = "default_gammas")]
    pub kernel_gamma: Vec<Scalar>,
    /// Learn every dataset's classes with these methods (`ovr`, `kesler`); empty (the default): binary
    /// labels. `kesler` runs without a kernel only (it pairs with `none` and `linear`).
    #[serde(default)]
    pub multiclass: Vec<GridMulticlass>,
}

fn default_rules() -> Vec<BiasRule> {
    vec![BiasRule::None, BiasRule::Classic, BiasRule::Novikoff]
}
fn default_variants() -> Vec<Variant> {
    vec![Variant::Perceptron]
}
fn default_orders() -> Vec<GridOrder> {
    vec![GridOrder::Cyclic]
}
fn default_eta() -> Vec<f64> {
    vec![1.0]
}
fn default_seeds() -> Vec<u64> {
    vec![0]
}
fn default_max_epochs() -> usize {
    1000
}

impl Default for TrainGrid {
    fn default() -> Self {
        Self {
            rules: default_rules(),
            variants: default_variants(),
            orders: default_orders(),
            eta: default_eta(),
            seeds: default_seeds(),
            max_epochs: default_max_epochs(),
            max_updates: None,
            summation: Summation::Fast,
            kernel: default_kernels(),
            degree: default_degrees(),
            coef0: default_coef0s(),
            kernel_gamma: default_gammas(),
            multiclass: Vec::new(),
        }
    }
}

/// One `[[dataset]]` entry: exactly one of `file`, `glob` or `family`.
///
/// ```
/// let spec = novikoff::experiment::Spec::parse(r#"
///     name = "grid"
///     [[dataset]]
///     family = "separable"
///     params = { n = [50, 100], d = 2, margin = 0.1, radius = 1.0 }
///     replicates = 2
/// "#, "grid.toml".as_ref())?;
/// assert_eq!(spec.datasets[0].replicates, 2);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetSpec {
    /// A short name for the entry (defaults to the file stem or the family).
    #[serde(default)]
    pub name: Option<String>,
    /// A data file (relative paths are relative to the spec file's folder).
    #[serde(default)]
    pub file: Option<String>,
    /// A glob of data files (`*`, `?` and `[...]` in the file name part).
    #[serde(default)]
    pub glob: Option<String>,
    /// A generator family (see [`crate::generate`]).
    #[serde(default)]
    pub family: Option<String>,
    /// Generator parameters: each a number, a string, or an array of them to form a grid.
    #[serde(default)]
    pub params: BTreeMap<String, ParamValue>,
    /// How many generated replicates per grid point, each with its own derived seed.
    #[serde(default = "one")]
    pub replicates: usize,
    /// Label column of a file (a header name or a 1-based number).
    #[serde(default)]
    pub label_col: Option<String>,
    /// Positive class of a file.
    #[serde(default)]
    pub positive: Option<String>,
    /// Override the grid's epoch cap for this entry (useful for non-separable data).
    #[serde(default)]
    pub max_epochs: Option<usize>,
    /// The storage of a sparse file format: `auto` (default), `dense` or `sparse` (see
    /// [`Storage`](crate::io::Storage)).
    #[serde(default)]
    pub storage: crate::io::Storage,
    /// Held-out data for a `file` entry, read with the same options: every predictor of every run
    /// (last, averaged, voted, pocket) is scored on it.
    #[serde(default)]
    pub test: Option<String>,
    /// Override the grid's variants for this entry.
    #[serde(default, with = "optional_variant_names")]
    pub variants: Option<Vec<Variant>>,
    /// Also search for the adversary's worst order on this entry's datasets (for the plain
    /// perceptron's cyclic tasks; each adversarial step reads every row, and runs stop at
    /// [`ADVERSARY_UPDATES`] updates).
    #[serde(default)]
    pub adversary: bool,
}

/// The update cap of an experiment's adversarial runs (and of their cyclic baseline).
pub const ADVERSARY_UPDATES: u64 = 5_000;

fn one() -> usize {
    1
}

impl Spec {
    /// Parse and validate a spec; `path` names it in errors, which give the key and the line.
    ///
    /// ```
    /// let err = novikoff::experiment::Spec::parse("name = \"x\"\nbogus = 1\n", "s.toml".as_ref()).unwrap_err();
    /// assert!(err.to_string().starts_with("s.toml:2"), "{err}");
    /// assert!(err.to_string().contains("bogus"));
    /// ```
    pub fn parse(text: &str, path: &Path) -> Result<Spec> {
        let spec: Spec = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|span| line_of_offset(text, span.start))
                .unwrap_or(0);
            Error::Spec {
                at: Location::new(path).line(line),
                message: e.message().trim().to_string(),
            }
        })?;
        let spec = Spec {
            origin: Origin {
                path: Some(path.to_path_buf()),
                text: text.to_string(),
            },
            ..spec
        };
        spec.validate(text, path)?;
        Ok(spec)
    }

    /// Read and parse a spec file.
    ///
    /// ```no_run
    /// let spec = novikoff::experiment::Spec::load("experiments/mine.toml".as_ref())?;
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn load(path: &Path) -> Result<Spec> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Spec::parse(&text, path)
    }

    /// The built-in default experiment (compiled into the binary).
    ///
    /// ```
    /// let spec = novikoff::experiment::Spec::default_spec();
    /// assert_eq!(spec.name, "default");
    /// ```
    pub fn default_spec() -> Spec {
        Spec::parse(DEFAULT_SPEC, Path::new("<built-in default spec>"))
            .expect("the built-in spec is valid")
    }

    fn validate(&self, text: &str, path: &Path) -> Result<()> {
        let fail = |key: &str, message: String| Error::Spec {
            at: Location::new(path).line(find_key_line(text, key)),
            message,
        };
        if self.train.rules.is_empty()
            || self.train.orders.is_empty()
            || self.train.eta.is_empty()
            || self.train.variants.is_empty()
        {
            return Err(fail(
                "train",
                "train.rules, train.variants, train.orders and train.eta must not be empty".into(),
            ));
        }
        if let Some(eta) = self
            .train
            .eta
            .iter()
            .find(|e| !(e.is_finite() && **e > 0.0))
        {
            return Err(fail(
                "eta",
                format!("train.eta: {eta} is not a positive finite number"),
            ));
        }
        self.kernel_runs()
            .map_err(|e| fail("kernel", format!("train.kernel: {e}")))?;
        if let Err(error) = self.measure.solver(crate::margin::Bias::Free).check() {
            return Err(fail(
                "working_set_mb",
                format!("measure.working_set_mb: {error}"),
            ));
        }
        if self.train.max_epochs == 0 {
            return Err(fail(
                "max_epochs",
                "train.max_epochs must be at least 1".into(),
            ));
        }
        if self.datasets.is_empty() {
            return Err(fail("name", "the spec has no [[dataset]] entries".into()));
        }
        // Before any grid is expanded: a typo can make it too large to hold in memory.
        let instances: Vec<Option<u64>> = self.datasets.iter().map(instance_count).collect();
        self.check_task_count(&instances)?;
        for (k, entry) in self.datasets.iter().enumerate() {
            let sources = [&entry.file, &entry.glob, &entry.family]
                .iter()
                .filter(|s| s.is_some())
                .count();
            if sources != 1 {
                return Err(Error::Spec {
                    at: Location::new(path).line(nth_table_line(text, "[[dataset]]", k)),
                    message: format!(
                        "dataset #{}: give exactly one of `file`, `glob` or `family` (found {sources})",
                        k + 1
                    ),
                });
            }
            if entry.max_epochs == Some(0) {
                return Err(Error::Spec {
                    at: self.entry_location(k, "max_epochs"),
                    message: format!("dataset #{}: max_epochs must be at least 1", k + 1),
                });
            }
            if entry.replicates == 0 {
                return Err(Error::Spec {
                    at: Location::new(path).line(nth_table_line(text, "[[dataset]]", k)),
                    message: format!("dataset #{}: replicates must be at least 1", k + 1),
                });
            }
            if entry.family.as_deref() == Some("multiclass") {
                if self.train.multiclass.is_empty() {
                    return Err(Error::Spec {
                        at: Location::new(path).line(key_line_in_table(text, k, "family")),
                        message: format!(
                            "dataset #{}: the `multiclass` family has k classes: learn them with \
                             train.multiclass = [\"ovr\"] or [\"kesler\"]",
                            k + 1
                        ),
                    });
                }
                for point in grid(&entry.params) {
                    super::kernel_axes::check_multiclass_family(&point).map_err(|e| {
                        Error::Spec {
                            at: Location::new(path).line(key_line_in_table(text, k, "params")),
                            message: format!("dataset #{}: {e}", k + 1),
                        }
                    })?;
                }
            } else if let Some(family) = &entry.family {
                // An unknown family is the `family` key's fault; anything else, the parameters'.
                let key = if crate::generate::is_family(family) {
                    "params"
                } else {
                    "family"
                };
                for point in grid(&entry.params) {
                    generator(family, &point, 0).map_err(|e| {
                        let message = e.to_string();
                        Error::Spec {
                            at: Location::new(path).line(key_line_in_table(text, k, key)),
                            message: format!("dataset #{}: {message}", k + 1),
                        }
                    })?;
                }
            }
            if entry.variants.as_ref().is_some_and(Vec::is_empty) {
                return Err(Error::Spec {
                    at: self.entry_location(k, "variants"),
                    message: format!("dataset #{}: `variants` must not be empty", k + 1),
                });
            }
            if entry.test.is_some() && entry.file.is_none() {
                return Err(Error::Spec {
                    at: self.entry_location(k, "test"),
                    message: format!(
                        "dataset #{}: `test` names the held-out data of a `file` entry",
                        k + 1
                    ),
                });
            }
            if entry.family.is_none() && !entry.params.is_empty() {
                return Err(Error::Spec {
                    at: Location::new(path).line(nth_table_line(text, "[[dataset]]", k)),
                    message: format!(
                        "dataset #{}: `params` only applies to a generator `family`",
                        k + 1
                    ),
                });
            }
        }
        Ok(())
    }

    /// The spec's file and the line of `key` in its `k`-th `[[dataset]]` entry (the entry's own line
    /// when the key is absent).
    pub(crate) fn entry_location(&self, k: usize, key: &str) -> Location {
        match &self.origin.path {
            Some(path) => Location::new(path).line(key_line_in_table(&self.origin.text, k, key)),
            None => Location::new("<spec>"),
        }
    }
}

/// The number of dataset instances an entry expands to, counted without expanding it: a file is one, a
/// glob counts as one until it is matched, a family is its grid points × replicates. `None` when the
/// count overflows.
pub(crate) fn instance_count(entry: &DatasetSpec) -> Option<u64> {
    if entry.family.is_none() {
        return Some(1);
    }
    entry
        .params
        .values()
        .try_fold(entry.replicates as u64, |n, value| {
            let len = match value {
                ParamValue::List(list) => list.len() as u64,
                _ => 1,
            };
            n.checked_mul(len)
        })
}

/// The default experiment's TOML text, as `novikoff experiment --print-default-spec` prints it.
pub const DEFAULT_SPEC: &str = include_str!("default.toml");

/// Resolve a path in a spec relative to the spec file's folder.
pub(crate) fn resolve(spec_dir: Option<&Path>, file: &str) -> PathBuf {
    let path = PathBuf::from(file);
    match spec_dir {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path,
    }
}
