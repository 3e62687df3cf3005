//! The results store: `results.jsonl` (the source of truth) and `results.csv` (derived from it), appended
//! one whole row at a time, flushed, resumable and mergeable.
//!
//! Crash safety: each row is one `write` of a complete line followed by a flush, JSON first. A process
//! killed at any moment leaves at most one partial last line; [`Store::open`] with `resume` cuts it off,
//! keeps every whole row, and rewrites the CSV from the JSON lines so the two always agree.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::plan::Shard;
use crate::error::{Error, Location, Result};

/// One bound's value in a result row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundRecord {
    /// The bound's stable name, e.g. `block_novikoff`.
    pub name: String,
    /// Its value, when it applies.
    pub value: Option<f64>,
    /// Whether its hypotheses hold for this run.
    pub applies: bool,
    /// Why not, when it does not apply.
    #[serde(default)]
    pub reason: String,
}

/// One task's results: one line of `results.jsonl` and one row of `results.csv`.
///
/// Fields that a failed task could not compute are `None`, and `error` says why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TaskRecord {
    /// The task's stable id.
    pub task_id: String,
    /// Position in the spec's expansion order.
    pub index: usize,
    /// The readable key the id is hashed from.
    pub key: String,
    /// Hash of the spec text, so that results of different specs are never merged.
    pub spec_hash: String,
    /// The dataset instance's key.
    pub dataset: String,
    /// `file` or the generator family.
    pub source: String,
    /// Number of examples.
    pub n: Option<usize>,
    /// Number of features.
    pub d: Option<usize>,
    /// The bias rule.
    pub rule: String,
    /// `cyclic` or `shuffle`.
    pub order: String,
    /// The learning rate.
    pub eta: f64,
    /// The replicate number of a shuffled order.
    pub seed: Option<u64>,
    /// R = max ‖x‖.
    pub radius: Option<f64>,
    /// Whether the data is separable in the sense the rule needs.
    pub separable: Option<bool>,
    /// Which margin `gamma` is (`through_origin`, `free`, ...).
    pub margin_kind: Option<String>,
    /// γ* (best estimate).
    pub gamma: Option<f64>,
    /// Certified lower end of γ*.
    pub gamma_lower: Option<f64>,
    /// Certified upper end of γ*.
    pub gamma_upper: Option<f64>,
    /// Every bound, applicable or not.
    #[serde(default)]
    pub bounds: Vec<BoundRecord>,
    /// The name of the rule's primary bound.
    pub bound_name: Option<String>,
    /// The primary bound's value.
    pub bound: Option<f64>,
    /// Number of updates.
    pub mistakes: Option<u64>,
    /// Number of passes including the final clean one.
    pub epochs: Option<usize>,
    /// Whether the run converged.
    pub converged: Option<bool>,
    /// Why the run stopped.
    pub stop_reason: Option<String>,
    /// mistakes / primary bound.
    pub ratio: Option<f64>,
    /// Whether every applicable bound held.
    pub holds: Option<bool>,
    /// Whether the proof's inequalities held at every update.
    pub invariants_ok: Option<bool>,
    /// Seconds in the training loop.
    pub train_seconds: Option<f64>,
    /// Seconds in the margin solves for this dataset (shared by its tasks).
    pub solve_seconds: Option<f64>,
    /// The error that stopped the task, if any.
    pub error: Option<String>,
    /// Extra measurements (trace summary, separators of 2-D data) for the plots.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub extra: serde_json::Value,
}

/// The fixed leading columns of `results.csv`; one `bound_NAME` column per bound follows, then the rest.
const LEAD: &[&str] = &[
    "task_id",
    "index",
    "dataset",
    "source",
    "n",
    "d",
    "rule",
    "order",
    "eta",
    "seed",
    "radius",
    "separable",
    "margin_kind",
    "gamma",
    "gamma_lower",
    "gamma_upper",
];
const TAIL: &[&str] = &[
    "bound_name",
    "bound",
    "mistakes",
    "epochs",
    "converged",
    "stop_reason",
    "ratio",
    "holds",
    "invariants_ok",
    "train_seconds",
    "solve_seconds",
    "error",
    "key",
    "spec_hash",
];

/// The CSV header for a list of bound names.
///
/// ```
/// let header = novikoff::experiment::csv_header(&["block_novikoff".to_string()]);
/// assert!(header.contains(&"bound_block_novikoff".to_string()));
/// assert_eq!(header[0], "task_id");
/// ```
pub fn csv_header(bound_names: &[String]) -> Vec<String> {
    LEAD.iter()
        .map(|s| s.to_string())
        .chain(bound_names.iter().map(|b| format!("bound_{b}")))
        .chain(TAIL.iter().map(|s| s.to_string()))
        .collect()
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(ToString::to_string).unwrap_or_default()
}

/// The CSV cells of a record, matching [`csv_header`].
pub(crate) fn csv_row(r: &TaskRecord, bound_names: &[String]) -> Vec<String> {
    let mut row = vec![
        r.task_id.clone(),
        r.index.to_string(),
        r.dataset.clone(),
        r.source.clone(),
        opt(&r.n),
        opt(&r.d),
        r.rule.clone(),
        r.order.clone(),
        r.eta.to_string(),
        opt(&r.seed),
        opt(&r.radius),
        opt(&r.separable),
        opt(&r.margin_kind),
        opt(&r.gamma),
        opt(&r.gamma_lower),
        opt(&r.gamma_upper),
    ];
    for name in bound_names {
        let value = r
            .bounds
            .iter()
            .find(|b| &b.name == name && b.applies)
            .and_then(|b| b.value);
        row.push(opt(&value));
    }
    row.extend([
        opt(&r.bound_name),
        opt(&r.bound),
        opt(&r.mistakes),
        opt(&r.epochs),
        opt(&r.converged),
        opt(&r.stop_reason),
        opt(&r.ratio),
        opt(&r.holds),
        opt(&r.invariants_ok),
        opt(&r.train_seconds),
        opt(&r.solve_seconds),
        opt(&r.error),
        r.key.clone(),
        r.spec_hash.clone(),
    ]);
    row
}

fn csv_line(cells: &[String]) -> Result<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new().from_writer(Vec::new());
    writer
        .write_record(cells)
        .map_err(|e| Error::io("<csv>", std::io::Error::other(e)))?;
    writer
        .into_inner()
        .map_err(|e| Error::io("<csv>", std::io::Error::other(e.to_string())))
}

/// File names of a run's results, with the shard suffix when sharded.
///
/// ```
/// let (csv, jsonl) = novikoff::experiment::result_paths("out".as_ref(), None);
/// assert_eq!(jsonl, std::path::Path::new("out/results.jsonl"));
/// # let _ = csv;
/// ```
pub fn result_paths(dir: &Path, shard: Option<Shard>) -> (PathBuf, PathBuf) {
    let suffix = shard.map(|s| s.suffix()).unwrap_or_default();
    (
        dir.join(format!("results{suffix}.csv")),
        dir.join(format!("results{suffix}.jsonl")),
    )
}

/// An open results store that rows are appended to.
#[derive(Debug)]
pub struct Store {
    csv_path: PathBuf,
    jsonl_path: PathBuf,
    csv: File,
    jsonl: File,
    bound_names: Vec<String>,
    done: HashSet<String>,
}

impl Store {
    /// Open the store in `dir`. Without `resume`, existing results are an error (nothing written is ever
    /// overwritten). With `resume`, a partial last line is cut off and the ids already present are
    /// reported by [`Store::done`].
    ///
    /// ```
    /// use novikoff::experiment::{Store, TaskRecord};
    /// let dir = tempfile::tempdir().unwrap();
    /// let mut store = Store::open(dir.path(), None, vec![], false)?;
    /// store.append(&TaskRecord { task_id: "00000000000000aa".into(), ..Default::default() })?;
    /// drop(store);
    /// let store = Store::open(dir.path(), None, vec![], true)?;
    /// assert!(store.done().contains("00000000000000aa"));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn open(
        dir: &Path,
        shard: Option<Shard>,
        bound_names: Vec<String>,
        resume: bool,
    ) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let (csv_path, jsonl_path) = result_paths(dir, shard);
        let mut done = HashSet::new();
        if jsonl_path.exists() || csv_path.exists() {
            if !resume {
                return Err(Error::Spec {
                    at: Location::new(&jsonl_path),
                    message: "results already exist here: pass --resume to continue them, or choose a new output folder".into(),
                });
            }
            let records = read_records(&jsonl_path)?;
            // Rewrite both files from the whole JSON lines: drops a torn last line in either file.
            write_atomically(&jsonl_path, &jsonl_bytes(&records)?)?;
            write_atomically(&csv_path, &csv_bytes(&records, &bound_names)?)?;
            done = records.into_iter().map(|r| r.task_id).collect();
        } else {
            write_atomically(&jsonl_path, b"")?;
            write_atomically(&csv_path, &csv_bytes(&[], &bound_names)?)?;
        }
        let append = |path: &Path| {
            OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|e| Error::io(path, e))
        };
        Ok(Store {
            csv: append(&csv_path)?,
            jsonl: append(&jsonl_path)?,
            csv_path,
            jsonl_path,
            bound_names,
            done,
        })
    }

    /// The task ids already stored.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = novikoff::experiment::Store::open(dir.path(), None, vec![], false)?;
    /// assert!(store.done().is_empty());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn done(&self) -> &HashSet<String> {
        &self.done
    }

    /// Append one row to both files and flush.
    ///
    /// ```
    /// # use novikoff::experiment::{Store, TaskRecord};
    /// let dir = tempfile::tempdir().unwrap();
    /// let mut store = Store::open(dir.path(), None, vec![], false)?;
    /// store.append(&TaskRecord { task_id: "01".into(), ..Default::default() })?;
    /// assert_eq!(novikoff::experiment::read_records(&dir.path().join("results.jsonl"))?.len(), 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn append(&mut self, record: &TaskRecord) -> Result<()> {
        let mut line = serde_json::to_vec(record)
            .map_err(|e| Error::io(&self.jsonl_path, std::io::Error::other(e)))?;
        line.push(b'\n');
        self.jsonl
            .write_all(&line)
            .and_then(|()| self.jsonl.flush())
            .map_err(|e| Error::io(&self.jsonl_path, e))?;
        let row = csv_line(&csv_row(record, &self.bound_names))?;
        self.csv
            .write_all(&row)
            .and_then(|()| self.csv.flush())
            .map_err(|e| Error::io(&self.csv_path, e))?;
        self.done.insert(record.task_id.clone());
        Ok(())
    }

    /// Rewrite both files sorted by task index, so that a finished run's files do not depend on the
    /// order in which tasks completed.
    ///
    /// ```
    /// # use novikoff::experiment::{Store, TaskRecord};
    /// let dir = tempfile::tempdir().unwrap();
    /// let mut store = Store::open(dir.path(), None, vec![], false)?;
    /// store.append(&TaskRecord { task_id: "02".into(), index: 2, ..Default::default() })?;
    /// store.append(&TaskRecord { task_id: "01".into(), index: 1, ..Default::default() })?;
    /// store.finish()?;
    /// let rows = novikoff::experiment::read_records(&dir.path().join("results.jsonl"))?;
    /// assert_eq!(rows[0].index, 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn finish(self) -> Result<()> {
        let mut records = read_records(&self.jsonl_path)?;
        records.sort_by(|a, b| {
            a.index
                .cmp(&b.index)
                .then_with(|| a.task_id.cmp(&b.task_id))
        });
        write_atomically(&self.jsonl_path, &jsonl_bytes(&records)?)?;
        write_atomically(&self.csv_path, &csv_bytes(&records, &self.bound_names)?)
    }
}

/// Read every whole line of a `results.jsonl`; a torn last line (no newline) is ignored, and any other
/// malformed line is an error naming its line.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("results.jsonl");
/// std::fs::write(&path, "{\"task_id\":\"a\",\"index\":0,\"key\":\"\",\"spec_hash\":\"\",\"dataset\":\"\",\"source\":\"\",\"rule\":\"none\",\"order\":\"cyclic\",\"eta\":1.0}\n{\"task_").unwrap();
/// assert_eq!(novikoff::experiment::read_records(&path)?.len(), 1);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_records(path: &Path) -> Result<Vec<TaskRecord>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let whole = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => &bytes[..=last],
        None => &bytes[..0],
    };
    let mut records = Vec::new();
    for (k, line) in BufReader::new(whole).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let record: TaskRecord = serde_json::from_str(&line).map_err(|e| {
            Error::parse(
                Location::new(path).line(k + 1),
                format!("not a result row: {e}"),
            )
        })?;
        records.push(record);
    }
    Ok(records)
}

fn jsonl_bytes(records: &[TaskRecord]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for r in records {
        serde_json::to_writer(&mut out, r)
            .map_err(|e| Error::io("<jsonl>", std::io::Error::other(e)))?;
        out.push(b'\n');
    }
    Ok(out)
}

fn csv_bytes(records: &[TaskRecord], bound_names: &[String]) -> Result<Vec<u8>> {
    let mut out = csv_line(&csv_header(bound_names))?;
    for r in records {
        out.extend(csv_line(&csv_row(r, bound_names))?);
    }
    Ok(out)
}

/// Write a file through a temporary sibling and a rename, so readers never see half of it.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!(
        "{}.tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    let mut file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// What [`merge`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeSummary {
    /// Rows written.
    pub rows: usize,
    /// Input files read.
    pub inputs: usize,
}

/// Combine shard result files (`results*.jsonl`, or folders holding them) into `out/results.{jsonl,csv}`,
/// sorted by task index. Refuses a task id that occurs twice and rows of different specs.
///
/// ```
/// use novikoff::experiment::{merge, Store, TaskRecord};
/// let a = tempfile::tempdir().unwrap();
/// let out = tempfile::tempdir().unwrap();
/// let mut store = Store::open(a.path(), Some("0/2".parse()?), vec![], false)?;
/// store.append(&TaskRecord { task_id: "01".into(), spec_hash: "h".into(), ..Default::default() })?;
/// store.finish()?;
/// let summary = merge(&[a.path().to_path_buf()], out.path(), &[])?;
/// assert_eq!(summary.rows, 1);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn merge(inputs: &[PathBuf], out: &Path, bound_names: &[String]) -> Result<MergeSummary> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|e| Error::io(input, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name().is_some_and(|n| {
                        let n = n.to_string_lossy();
                        n.starts_with("results") && n.ends_with(".jsonl")
                    })
                })
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    if files.is_empty() {
        return Err(Error::parameter(
            "inputs",
            "no results*.jsonl files to merge",
        ));
    }
    let mut by_id: BTreeMap<String, (PathBuf, TaskRecord)> = BTreeMap::new();
    let mut spec_hash: Option<(String, PathBuf)> = None;
    for file in &files {
        for record in read_records(file)? {
            match &spec_hash {
                None => spec_hash = Some((record.spec_hash.clone(), file.clone())),
                Some((hash, first)) if *hash != record.spec_hash => {
                    return Err(Error::Spec {
                        at: Location::new(file),
                        message: format!(
                            "task {} comes from a different spec (hash {}) than {} (hash {hash}); refusing to merge",
                            record.task_id,
                            record.spec_hash,
                            first.display()
                        ),
                    });
                }
                Some(_) => {}
            }
            if let Some((other, _)) = by_id.get(&record.task_id) {
                return Err(Error::Spec {
                    at: Location::new(file),
                    message: format!(
                        "task {} also appears in {}; refusing to merge duplicates",
                        record.task_id,
                        other.display()
                    ),
                });
            }
            by_id.insert(record.task_id.clone(), (file.clone(), record));
        }
    }
    let mut records: Vec<TaskRecord> = by_id.into_values().map(|(_, r)| r).collect();
    records.sort_by(|a, b| {
        a.index
            .cmp(&b.index)
            .then_with(|| a.task_id.cmp(&b.task_id))
    });
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let (csv_path, jsonl_path) = result_paths(out, None);
    for path in [&csv_path, &jsonl_path] {
        if path.exists() {
            return Err(Error::Spec {
                at: Location::new(path),
                message: "already exists; merge into a new folder".into(),
            });
        }
    }
    write_atomically(&jsonl_path, &jsonl_bytes(&records)?)?;
    write_atomically(&csv_path, &csv_bytes(&records, bound_names)?)?;
    Ok(MergeSummary {
        rows: records.len(),
        inputs: files.len(),
    })
}
