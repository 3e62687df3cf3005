//! Expanding a spec into dataset instances and tasks, each with a stable id.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::grid::{Scalar, grid};
use super::shard::Shard;
use super::spec::{DatasetSpec, GridOrder, Spec, instance_count, resolve};
use crate::error::{Error, Result};
use crate::io::{LabelColumn, ReadOptions};
use crate::perceptron::{Order, PerceptronParams, Variant};
use crate::rng::derive_seed;

/// Where a dataset instance comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A file on disk, read with these options.
    File {
        /// The file.
        path: PathBuf,
        /// How to read it.
        options: ReadOptions,
    },
    /// A generator family at one grid point.
    Generated {
        /// The family's name.
        family: String,
        /// One value per parameter.
        params: BTreeMap<String, Scalar>,
        /// The derived generator seed.
        seed: u64,
    },
}

/// One concrete dataset: a file, or a family at one grid point and replicate.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetInstance {
    /// A stable, readable key, e.g. `seed004` or `separable(d=2,margin=0.1,n=50,radius=1)#0`.
    pub key: String,
    /// Where it comes from.
    pub source: Source,
    /// The epoch cap for tasks on it.
    pub max_epochs: usize,
    /// The 0-based `[[dataset]]` entry of the spec it comes from.
    pub entry: usize,
    /// Held-out data, read like the dataset (a `file` entry's `test`).
    pub test: Option<PathBuf>,
    /// Search for the adversary's worst order on the plain perceptron's cyclic tasks.
    pub adversary: bool,
    /// Read with every class kept (the spec's `train.multiclass`).
    pub classes: bool,
    /// Some task of it runs the primal perceptron on binary labels (so its margins are solved).
    pub binary_geometry: bool,
}

/// One unit of work: a dataset instance, a rule, an order, η and a replicate seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Position in the spec's expansion order.
    pub index: usize,
    /// Stable id: 16 hex digits hashed from `key`.
    pub id: String,
    /// The readable key the id is hashed from.
    pub key: String,
    /// Index into [`Plan::datasets`].
    pub dataset: usize,
    /// The run: its bias rule, η, order (a shuffled order carries its derived seed), caps and summation.
    pub params: PerceptronParams,
    /// The replicate number of a shuffled order.
    pub replicate: Option<u64>,
    /// The kernel, when the run is the kernel perceptron's.
    pub kernel: Option<super::kernel_axes::KernelChoice>,
    /// The multi-class method, when the dataset's classes are learnt.
    pub multiclass: Option<crate::multiclass::Method>,
}

/// The expanded experiment.
///
/// ```
/// use novikoff::experiment::{Plan, Spec};
/// let spec = Spec::parse(r#"
///     name = "t"
///     [train]
///     rules = ["none", "classic"]
///     orders = ["cyclic", "shuffle"]
///     seeds = [0, 1]
///     [[dataset]]
///     family = "separable"
///     params = { n = 20, d = [2, 3], margin = 0.1, radius = 1.0 }
/// "#, "t.toml".as_ref())?;
/// let plan = Plan::new(&spec, None)?;
/// assert_eq!(plan.datasets.len(), 2);
/// // per dataset: 2 rules × (1 cyclic + 2 shuffled) = 6 tasks
/// assert_eq!(plan.tasks.len(), 12);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Every dataset instance.
    pub datasets: Vec<DatasetInstance>,
    /// Every task, in expansion order.
    pub tasks: Vec<Task>,
}

impl Plan {
    /// Expand a spec. `spec_dir` anchors relative file paths (the folder of the spec file).
    ///
    /// ```
    /// let plan = novikoff::experiment::Plan::new(&novikoff::experiment::Spec::default_spec(), None)?;
    /// assert!(plan.tasks.len() > 100);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn new(spec: &Spec, spec_dir: Option<&Path>) -> Result<Plan> {
        // Counted before expanding (a spec may not have come through `Spec::parse`), and again as each
        // glob is matched.
        let mut counts: Vec<Option<u64>> = spec.datasets.iter().map(instance_count).collect();
        spec.check_task_count(&counts)?;
        let mut datasets = Vec::new();
        for (k, entry) in spec.datasets.iter().enumerate() {
            let before = datasets.len();
            expand_entry(spec, k, entry, spec_dir, &mut datasets)?;
            counts[k] = Some((datasets.len() - before) as u64);
            spec.check_task_count(&counts)?;
        }
        check_unique_keys(spec, &datasets)?;
        let kernel_runs = spec.kernel_runs()?;
        let classes = !spec.train.multiclass.is_empty();
        let binary_geometry = kernel_runs.iter().any(|(k, m)| k.is_none() && m.is_none());
        for instance in &mut datasets {
            instance.classes = classes;
            instance.binary_geometry = binary_geometry;
        }
        let mut tasks = Vec::new();
        for (d, instance) in datasets.iter().enumerate() {
            let variants = spec.datasets[instance.entry]
                .variants
                .as_ref()
                .unwrap_or(&spec.train.variants);
            for (kernel, multiclass) in &kernel_runs {
                for &rule in &spec.train.rules {
                    for &variant in variants {
                        // Passive–Aggressive chooses its own step: it runs once, with η = 1.
                        let etas: &[f64] = if variant.is_passive_aggressive() {
                            &[1.0]
                        } else {
                            &spec.train.eta
                        };
                        for &eta in etas {
                            for &order in &spec.train.orders {
                                let replicates: Vec<Option<u64>> = if order == GridOrder::Shuffle {
                                    spec.train.seeds.iter().map(|&s| Some(s)).collect()
                                } else {
                                    vec![None]
                                };
                                for replicate in replicates {
                                    // The plain perceptron's keys (and so its task ids) are those of
                                    // specs without variants.
                                    let key = format!(
                                        "{}|rule={}{}|eta={eta}|order={}{}{}{}",
                                        instance.key,
                                        rule.name(),
                                        if variant == Variant::Perceptron {
                                            String::new()
                                        } else {
                                            format!("|variant={}", variant.name())
                                        },
                                        order.name(),
                                        replicate.map(|r| format!("|rep={r}")).unwrap_or_default(),
                                        kernel
                                            .as_ref()
                                            .map(|k| format!("|kernel={}", k.name()))
                                            .unwrap_or_default(),
                                        multiclass
                                            .map(|m| format!("|multiclass={}", m.method().name()))
                                            .unwrap_or_default()
                                    );
                                    let order = match replicate {
                                        Some(_) => Order::Shuffle {
                                            seed: derive_seed(spec.seed, &key),
                                        },
                                        None => Order::Cyclic,
                                    };
                                    let params = PerceptronParams::new()
                                        .bias(rule)
                                        .variant(variant)
                                        .eta(eta)
                                        .order(order)
                                        .max_epochs(instance.max_epochs)
                                        .max_updates(spec.train.max_updates)
                                        .summation(spec.train.summation)
                                        .record_votes(
                                            instance.test.is_some()
                                                && variant.updates_like_perceptron(),
                                        );
                                    tasks.push(Task {
                                        index: tasks.len(),
                                        id: task_id(&key),
                                        key,
                                        dataset: d,
                                        params,
                                        replicate,
                                        kernel: kernel.clone(),
                                        multiclass: multiclass.map(|m| m.method()),
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(Plan { datasets, tasks })
    }

    /// Keep only the tasks of one shard (and the datasets they use).
    ///
    /// ```
    /// use novikoff::experiment::{Plan, Spec};
    /// let plan = Plan::new(&Spec::default_spec(), None)?;
    /// let a = plan.clone().shard("0/2".parse()?).tasks.len();
    /// let b = plan.clone().shard("1/2".parse()?).tasks.len();
    /// assert_eq!(a + b, plan.tasks.len());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn shard(mut self, shard: Shard) -> Plan {
        self.tasks.retain(|t| shard.contains(&t.id));
        self
    }
}

/// Refuse two dataset instances with one key (their tasks would share ids), at the second's entry.
fn check_unique_keys(spec: &Spec, datasets: &[DatasetInstance]) -> Result<()> {
    let mut keys = std::collections::HashMap::new();
    for instance in datasets {
        if let Some(first) = keys.insert(instance.key.as_str(), instance.entry) {
            return Err(Error::Spec {
                at: spec.entry_location(instance.entry, "name"),
                message: format!(
                    "datasets #{} and #{} share the key `{}`: give them distinct names",
                    first + 1,
                    instance.entry + 1,
                    instance.key
                ),
            });
        }
    }
    Ok(())
}

/// The stable id of a task key.
///
/// ```
/// assert_eq!(novikoff::experiment::task_id("a").len(), 16);
/// ```
pub fn task_id(key: &str) -> String {
    format!("{:016x}", derive_seed(0, key))
}

fn expand_entry(
    spec: &Spec,
    k: usize,
    entry: &DatasetSpec,
    spec_dir: Option<&Path>,
    out: &mut Vec<DatasetInstance>,
) -> Result<()> {
    let max_epochs = entry.max_epochs.unwrap_or(spec.train.max_epochs);
    let mut options = ReadOptions::default()
        .positive(entry.positive.clone())
        .storage(entry.storage);
    if let Some(label) = &entry.label_col {
        options = options.label(LabelColumn::parse(label));
    }
    let file_instance = |path: PathBuf, name: Option<&str>| DatasetInstance {
        key: name.map(str::to_string).unwrap_or_else(|| {
            path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            )
        }),
        source: Source::File {
            path,
            options: options.clone(),
        },
        max_epochs,
        entry: k,
        test: None,
        adversary: entry.adversary,
        classes: false,
        binary_geometry: true,
    };
    if let Some(file) = &entry.file {
        let path = resolve(spec_dir, file);
        if let Some(problem) = not_a_data_file(&path) {
            return Err(Error::Spec {
                at: spec.entry_location(k, "file"),
                message: format!("dataset #{}: `{}` {problem}", k + 1, path.display()),
            });
        }
        let mut instance = file_instance(path, entry.name.as_deref());
        if let Some(test) = &entry.test {
            let path = resolve(spec_dir, test);
            if let Some(problem) = not_a_data_file(&path) {
                return Err(Error::Spec {
                    at: spec.entry_location(k, "test"),
                    message: format!("dataset #{}: `{}` {problem}", k + 1, path.display()),
                });
            }
            instance.test = Some(path);
        }
        out.push(instance);
    } else if let Some(pattern) = &entry.glob {
        let matches = glob(&resolve(spec_dir, pattern)).map_err(|e| Error::Spec {
            at: spec.entry_location(k, "glob"),
            message: format!("dataset #{}: the glob `{pattern}`: {e}", k + 1),
        })?;
        if matches.is_empty() {
            return Err(Error::Spec {
                at: spec.entry_location(k, "glob"),
                message: format!("dataset #{}: the glob `{pattern}` matches no file", k + 1),
            });
        }
        for path in matches {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = entry.name.as_ref().map(|n| format!("{n}/{stem}"));
            out.push(file_instance(path, Some(name.as_deref().unwrap_or(&stem))));
        }
    } else if let Some(family) = &entry.family {
        let base = entry.name.clone().unwrap_or_else(|| family.clone());
        for point in grid(&entry.params) {
            let described: Vec<String> = point.iter().map(|(k, v)| format!("{k}={v}")).collect();
            for replicate in 0..entry.replicates {
                let key = if described.is_empty() && entry.replicates == 1 {
                    base.clone()
                } else {
                    format!("{base}({})#{replicate}", described.join(","))
                };
                out.push(DatasetInstance {
                    source: Source::Generated {
                        family: family.clone(),
                        params: point.clone(),
                        seed: derive_seed(spec.seed, &key),
                    },
                    key,
                    max_epochs,
                    entry: k,
                    test: None,
                    adversary: entry.adversary,
                    classes: false,
                    binary_geometry: true,
                });
            }
        }
    }
    Ok(())
}

/// Why a path cannot be read as a data file, if it cannot: it is missing, a folder, or a device or pipe
/// (`/dev/zero` would be read forever).
fn not_a_data_file(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => None,
        Ok(meta) if meta.is_dir() => Some("is a directory, not a data file".into()),
        Ok(_) => Some("is not a regular file (a device or a pipe); name a data file".into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("not found".into()),
        Err(e) => Some(format!("cannot be read: {e}")),
    }
}

/// Files matching a pattern whose last component may hold `*`, `?` and `[...]`, sorted by name.
fn glob(pattern: &Path) -> std::io::Result<Vec<PathBuf>> {
    let dir = pattern
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = pattern
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let entries = std::fs::read_dir(dir).map_err(|e| {
        std::io::Error::new(e.kind(), format!("its folder `{}`: {e}", dir.display()))
    })?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| wildcard_match(name.as_bytes(), n.to_string_lossy().as_bytes()))
        })
        .collect();
    found.sort();
    Ok(found)
}

/// The shell's file-name matching: `*` any run of bytes, `?` one byte, `[abc]`, `[a-z]` and `[!a]` (or
/// `[^a]`) one byte of a class. A `[` without its `]` is an ordinary byte, as in the shell.
fn wildcard_match(pattern: &[u8], text: &[u8]) -> bool {
    match (pattern.first(), text.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            wildcard_match(&pattern[1..], text)
                || (!text.is_empty() && wildcard_match(pattern, &text[1..]))
        }
        (Some(b'?'), Some(_)) => wildcard_match(&pattern[1..], &text[1..]),
        (Some(b'['), Some(&t)) if class_end(pattern).is_some() => {
            let end = class_end(pattern).expect("checked by the guard");
            in_class(&pattern[1..end], t) && wildcard_match(&pattern[end + 1..], &text[1..])
        }
        (Some(p), Some(t)) if p == t => wildcard_match(&pattern[1..], &text[1..]),
        _ => false,
    }
}

/// The position of the `]` that closes the class opening `pattern` (a `]` first in the class, after an
/// optional negation, is a member, not the end).
fn class_end(pattern: &[u8]) -> Option<usize> {
    let mut i = 1;
    if matches!(pattern.get(i), Some(b'!' | b'^')) {
        i += 1;
    }
    if pattern.get(i) == Some(&b']') {
        i += 1;
    }
    pattern[i..].iter().position(|&b| b == b']').map(|k| i + k)
}

/// Whether `byte` is in the class body `set` (between the brackets).
fn in_class(set: &[u8], byte: u8) -> bool {
    let (negated, set) = match set.first() {
        Some(b'!' | b'^') => (true, &set[1..]),
        _ => (false, set),
    };
    let mut found = false;
    let mut i = 0;
    while i < set.len() {
        if i + 2 < set.len() && set[i + 1] == b'-' {
            found |= (set[i]..=set[i + 2]).contains(&byte);
            i += 3;
        } else {
            found |= set[i] == byte;
            i += 1;
        }
    }
    found != negated
}

#[cfg(test)]
mod tests {
    use super::wildcard_match;

    #[test]
    fn wildcards() {
        assert!(wildcard_match(b"*.csv", b"a.csv"));
        assert!(wildcard_match(b"d?.csv", b"d1.csv"));
        assert!(!wildcard_match(b"*.csv", b"a.svm"));
        assert!(wildcard_match(b"*", b""));
    }

    #[test]
    fn character_classes_match_as_the_shell_does() {
        assert!(wildcard_match(b"run[0-9].csv", b"run7.csv"));
        assert!(!wildcard_match(b"run[0-9].csv", b"runx.csv"));
        assert!(wildcard_match(b"[abc]*.csv", b"b1.csv"));
        assert!(!wildcard_match(b"[abc]*.csv", b"d1.csv"));
        assert!(wildcard_match(b"x[!0-9].csv", b"xa.csv"));
        assert!(!wildcard_match(b"x[!0-9].csv", b"x5.csv"));
        assert!(wildcard_match(b"x[^a].csv", b"xb.csv"));
        // `]` first in a class is a member; a `[` without its `]` is an ordinary byte.
        assert!(wildcard_match(b"[]a]", b"]"));
        assert!(wildcard_match(b"a[b", b"a[b"));
        assert!(!wildcard_match(b"a[b", b"ab"));
        // A class matches exactly one byte.
        assert!(!wildcard_match(b"[ab].csv", b"ab.csv"));
    }
}
