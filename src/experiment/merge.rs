//! Merging the results of shards: every shard present and finished, unless the user allows a partial
//! merge, and one task id once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::atomic::write_atomically;
use super::lock::create_output_folder;
use super::record::TaskRecord;
use super::shard::Shard;
use super::store::{
    completion_path, csv_bytes, finished_with, jsonl_bytes, load_results, read_records,
    result_paths,
};
use crate::error::{Error, Location, Result};

/// What [`merge`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeSummary {
    /// Rows written.
    pub rows: usize,
    /// Input files read.
    pub inputs: usize,
    /// Shards absent from the inputs (only with [`MergeOptions::allow_partial`]).
    pub missing: Vec<Shard>,
    /// Input files whose run did not finish (only with [`MergeOptions::allow_partial`]).
    pub unfinished: Vec<PathBuf>,
}

/// How [`merge`] treats its inputs.
///
/// ```
/// let options = novikoff::experiment::MergeOptions::default().allow_partial(true);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MergeOptions {
    /// Merge even when some shards of the set are missing (they are listed in the summary).
    pub allow_partial: bool,
}

impl MergeOptions {
    /// Allow (or not) an incomplete set of shards.
    ///
    /// ```
    /// assert!(novikoff::experiment::MergeOptions::default().allow_partial(true).allow_partial);
    /// ```
    #[must_use]
    pub fn allow_partial(mut self, allow: bool) -> Self {
        self.allow_partial = allow;
        self
    }
}

/// Combine shard result files (`results*.jsonl`, or folders holding them) into `out/results.{jsonl,csv}`,
/// sorted by task index. Refuses a task id that occurs twice, rows of different specs, a row in the file
/// of a shard it does not belong to, shard files of different shard counts, and — unless
/// [`MergeOptions::allow_partial`] — a set of shards with one missing. A shard file is recognised by its
/// name, `results.shard-I-of-N.jsonl`.
///
/// ```
/// use novikoff::experiment::{merge, MergeOptions, Store, TaskRecord};
/// let a = tempfile::tempdir().unwrap();
/// let out = tempfile::tempdir().unwrap();
/// let mut store = Store::open(a.path(), Some("0/1".parse()?), vec![], false)?;
/// store.append(&TaskRecord { task_id: "01".into(), spec_hash: "h".into(), ..Default::default() })?;
/// store.finish()?;
/// let summary = merge(&[a.path().to_path_buf()], out.path(), &[], MergeOptions::default())?;
/// assert_eq!(summary.rows, 1);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn merge(
    inputs: &[PathBuf],
    out: &Path,
    bound_names: &[String],
    options: MergeOptions,
) -> Result<MergeSummary> {
    let files = merge_inputs(inputs)?;
    let missing = missing_shards(&files)?;
    if !missing.is_empty() && !options.allow_partial {
        return Err(Error::Spec {
            at: Location::new(&files[0]),
            message: format!(
                "incomplete set of shards: {} missing; run them (or pass --allow-partial to merge what is there)",
                describe_shards(&missing)
            ),
        });
    }
    let mut by_id: BTreeMap<String, (PathBuf, TaskRecord)> = BTreeMap::new();
    let mut spec_hash: Option<(String, PathBuf)> = None;
    let mut unfinished = Vec::new();
    for file in &files {
        let shard = shard_of_file(file);
        let file_records = read_records(file)?;
        if !finished_with(file, file_records.len()) {
            unfinished.push(file.clone());
        }
        for record in file_records {
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
            if let Some(shard) = shard.filter(|s| !s.contains(&record.task_id)) {
                return Err(Error::Spec {
                    at: Location::new(file),
                    message: format!(
                        "task {} does not belong to shard {}/{}; was the file renamed?",
                        record.task_id, shard.index, shard.count
                    ),
                });
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
    if by_id.is_empty() {
        // Nothing to merge: say why, in the words of the first input.
        load_results(&files[0])?;
        return Err(Error::Spec {
            at: Location::new(&files[0]),
            message: "the inputs hold no result rows: nothing to merge".into(),
        });
    }
    if let Some(file) = unfinished.first().filter(|_| !options.allow_partial) {
        return Err(Error::Spec {
            at: Location::new(file),
            message: format!(
                "the run that wrote it did not finish ({} of {} input(s) have no completion marker `{}` \
                 matching their rows); resume it with --resume (or pass --allow-partial to merge what is there)",
                unfinished.len(),
                files.len(),
                completion_path(file)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
        });
    }
    let mut records: Vec<TaskRecord> = by_id.into_values().map(|(_, r)| r).collect();
    records.sort_by(|a, b| {
        a.index
            .cmp(&b.index)
            .then_with(|| a.task_id.cmp(&b.task_id))
    });
    create_output_folder(out)?;
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
        missing,
        unfinished,
    })
}

/// The files named by the inputs: files as given, folders as their `results*.jsonl`.
fn merge_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
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
        } else if input.is_file() {
            files.push(input.clone());
        } else {
            return Err(Error::io(
                input,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
    }
    if files.is_empty() {
        let named: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::parameter(
            "inputs",
            format!("no results*.jsonl files to merge in {}", named.join(", ")),
        ));
    }
    Ok(files)
}

/// The shard a file's name says it holds: `results.shard-I-of-N.jsonl`.
pub(super) fn shard_of_file(file: &Path) -> Option<Shard> {
    let name = file.file_name()?.to_str()?;
    let middle = name
        .strip_prefix("results.shard-")?
        .strip_suffix(".jsonl")?;
    let (index, count) = middle.split_once("-of-")?;
    format!("{index}/{count}").parse().ok()
}

/// The shards of the inputs' set that no input holds. Shard files of different counts are refused,
/// because their tasks overlap.
fn missing_shards(files: &[PathBuf]) -> Result<Vec<Shard>> {
    let mut count: Option<(u64, &PathBuf)> = None;
    let mut present = BTreeSet::new();
    for file in files {
        let Some(shard) = shard_of_file(file) else {
            continue;
        };
        match count {
            Some((n, first)) if n != shard.count => {
                return Err(Error::Spec {
                    at: Location::new(file),
                    message: format!(
                        "a shard of {} but {} is a shard of {n}; refusing to merge shards of different splits",
                        shard.count,
                        first.display()
                    ),
                });
            }
            _ => count = Some((shard.count, file)),
        }
        present.insert(shard.index);
    }
    Ok(count.map_or_else(Vec::new, |(n, _)| {
        (0..n)
            .filter(|i| !present.contains(i))
            .map(|index| Shard { index, count: n })
            .collect()
    }))
}

/// `2/3, 5/8`: shards as `--shard` takes them.
pub(crate) fn describe_shards(shards: &[Shard]) -> String {
    let shown: Vec<String> = shards
        .iter()
        .take(20)
        .map(|s| format!("{}/{}", s.index, s.count))
        .collect();
    let more = shards.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "shard{} {}{more}",
        if shards.len() == 1 { "" } else { "s" },
        shown.join(", ")
    )
}
