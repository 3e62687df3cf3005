//! The results store: `results.jsonl` (the source of truth) and `results.csv` (derived from it), appended
//! one whole row at a time, flushed, resumable and mergeable.
//!
//! Crash safety: each row is one `write` of a complete line followed by a flush, JSON first. A write that
//! fails (a full disk, a quota) is cut back to the last whole line in both files, and the run stops. A
//! process killed at any moment leaves at most one partial last line. [`Store::open`] with `resume` drops
//! torn or malformed lines wherever they are (reporting each in [`Store::dropped`]), keeps every whole
//! row, and rewrites both files from the JSON lines so the two always agree.
//!
//! One writer: a store holds an [`OutputLock`] on its folder (per shard) from opening to [`Store::finish`].

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::atomic::write_atomically;
use super::lock::OutputLock;
use super::record::{TaskRecord, csv_header, csv_row};
use super::shard::Shard;
use crate::error::{Error, Location, Result};

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

/// The completion marker beside a results file (`results.complete`, `results.shard-I-of-N.complete`):
/// written by [`Store::finish`] once every task of the run is stored, removed when a run opens the
/// store. [`merge`](super::merge()) reads it to tell a finished shard from one that stopped part-way.
pub(super) fn completion_path(jsonl_path: &Path) -> PathBuf {
    jsonl_path.with_extension("complete")
}

/// A line of `results.jsonl` that a resumed run dropped, and why.
///
/// ```
/// # use novikoff::experiment::{Store, DroppedLine};
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("results.jsonl"), "{\"task_\n")?;
/// let store = Store::open(dir.path(), None, vec![], true)?;
/// assert_eq!(store.dropped()[0].line, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DroppedLine {
    /// The file.
    pub path: PathBuf,
    /// Its 1-based line.
    pub line: usize,
    /// Why it was dropped.
    pub reason: String,
}

impl std::fmt::Display for DroppedLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.reason)
    }
}

/// An open results store that rows are appended to. It holds the folder's [`OutputLock`] until
/// [`Store::finish`] or drop.
#[derive(Debug)]
pub struct Store {
    csv_path: PathBuf,
    jsonl_path: PathBuf,
    csv: File,
    jsonl: File,
    /// Lengths of the files up to their last whole line, to cut a failed write back to.
    csv_len: u64,
    jsonl_len: u64,
    bound_names: Vec<String>,
    done: HashSet<String>,
    dropped: Vec<DroppedLine>,
    _lock: OutputLock,
}

impl Store {
    /// Lock `dir` (see [`OutputLock`]) and open the store in it. Without `resume`, existing results are
    /// an error (nothing written is ever overwritten). With `resume`, torn and malformed lines are dropped
    /// wherever they are (see [`Store::dropped`]) and the ids already present are reported by
    /// [`Store::done`].
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
        Store::open_locked(OutputLock::acquire(dir, shard)?, bound_names, resume)
    }

    /// Open the store of a folder already locked, e.g. by a run that checked the folder's spec first.
    ///
    /// ```
    /// use novikoff::experiment::{OutputLock, Store};
    /// let dir = tempfile::tempdir().unwrap();
    /// let lock = OutputLock::acquire(dir.path(), None)?;
    /// let store = Store::open_locked(lock, vec![], false)?;
    /// assert!(store.done().is_empty());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn open_locked(lock: OutputLock, bound_names: Vec<String>, resume: bool) -> Result<Store> {
        let (csv_path, jsonl_path) = result_paths(lock.dir(), lock.shard());
        let mut records = Vec::new();
        let mut dropped = Vec::new();
        if jsonl_path.exists() || csv_path.exists() {
            if !resume {
                return Err(Error::Spec {
                    at: Location::new(&jsonl_path),
                    message: "results already exist here: pass --resume to continue them, or choose a new output folder".into(),
                });
            }
            (records, dropped) = recover_records(&jsonl_path)?;
        }
        // The run is under way until `finish`: a marker from an earlier run no longer holds.
        let marker = completion_path(&jsonl_path);
        match std::fs::remove_file(&marker) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::io(&marker, e));
            }
            _ => {}
        }
        // Rewrite both files from the whole JSON lines: drops torn lines in either file.
        let jsonl_bytes = jsonl_bytes(&records)?;
        let csv_bytes = csv_bytes(&records, &bound_names)?;
        write_atomically(&jsonl_path, &jsonl_bytes)?;
        write_atomically(&csv_path, &csv_bytes)?;
        let append = |path: &Path| {
            OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|e| Error::io(path, e))
        };
        Ok(Store {
            csv: append(&csv_path)?,
            jsonl: append(&jsonl_path)?,
            csv_len: csv_bytes.len() as u64,
            jsonl_len: jsonl_bytes.len() as u64,
            csv_path,
            jsonl_path,
            bound_names,
            done: records.into_iter().map(|r| r.task_id).collect(),
            dropped,
            _lock: lock,
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

    /// The lines a resumed store dropped (torn by a crash or a full disk, malformed, or a task stored
    /// twice); their tasks are not in [`Store::done`], so they run again.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = novikoff::experiment::Store::open(dir.path(), None, vec![], false)?;
    /// assert!(store.dropped().is_empty());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn dropped(&self) -> &[DroppedLine] {
        &self.dropped
    }

    /// Append one row to both files and flush. When either write fails, both files are cut back to
    /// their last whole line, so that a full disk never leaves part of a row.
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
        let row = csv_line(&csv_row(record, &self.bound_names))?;
        append_line(&mut self.jsonl, self.jsonl_len, &line)
            .map_err(|e| Error::io(&self.jsonl_path, e))?;
        if let Err(e) = append_line(&mut self.csv, self.csv_len, &row) {
            // Keep the two files in step: the JSON row goes too (its task runs again on resume).
            let _ = self.jsonl.cut_to(self.jsonl_len);
            return Err(Error::io(&self.csv_path, e));
        }
        self.jsonl_len += line.len() as u64;
        self.csv_len += row.len() as u64;
        self.done.insert(record.task_id.clone());
        Ok(())
    }

    /// Rewrite both files sorted by task index, so that a finished run's files do not depend on the
    /// order in which tasks completed. The lock is released after the rewrite.
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
        write_atomically(&self.csv_path, &csv_bytes(&records, &self.bound_names)?)?;
        let marker = serde_json::json!({ "rows": records.len() }).to_string() + "\n";
        write_atomically(&completion_path(&self.jsonl_path), marker.as_bytes())
    }
}

/// Whether the run that wrote `file` finished with exactly `rows` rows: its completion marker exists and
/// counts them. A shard killed part-way has no marker (or, resumed and killed again, a stale count).
pub(super) fn finished_with(file: &Path, rows: usize) -> bool {
    std::fs::read(completion_path(file))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|marker| marker.get("rows")?.as_u64())
        .is_some_and(|counted| counted == rows as u64)
}

/// Where rows are appended: a file, or in tests a buffer that fails like a full disk.
trait LineSink: Write {
    /// Shorten to `len` bytes.
    fn cut_to(&mut self, len: u64) -> std::io::Result<()>;
}

impl LineSink for File {
    fn cut_to(&mut self, len: u64) -> std::io::Result<()> {
        self.set_len(len)
    }
}

/// Append one whole line to a sink of `len` whole bytes, or leave it at `len` bytes and return the
/// error. A write can fail after part of the line went out (a disk that fills up in the middle); without
/// the cut, the next successful write would glue a row to that fragment.
fn append_line(sink: &mut impl LineSink, len: u64, line: &[u8]) -> std::io::Result<()> {
    let written = sink.write_all(line).and_then(|()| sink.flush());
    if let Err(e) = written {
        return Err(match sink.cut_to(len) {
            Ok(()) => e,
            Err(cut) => std::io::Error::new(
                e.kind(),
                format!("{e}; cutting back the partial line also failed: {cut}"),
            ),
        });
    }
    Ok(())
}

/// Read every whole line of a `results.jsonl`; a torn last line (no newline) is ignored, and any other
/// malformed line is an error naming its line (resume with `--resume` to drop it).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("results.jsonl");
/// std::fs::write(&path, "{\"task_id\":\"a\",\"index\":0,\"key\":\"\",\"spec_hash\":\"\",\"dataset\":\"\",\"source\":\"\",\"rule\":\"none\",\"order\":\"cyclic\",\"eta\":1.0}\n{\"task_").unwrap();
/// assert_eq!(novikoff::experiment::read_records(&path)?.len(), 1);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn read_records(path: &Path) -> Result<Vec<TaskRecord>> {
    let mut records = Vec::new();
    for (line, parsed) in parse_lines(path)? {
        records.push(parsed.map_err(|e| {
            Error::parse(
                Location::new(path).line(line),
                format!("not a result row: {e} (`--resume` on this folder drops torn rows and runs their tasks again)"),
            )
        })?);
    }
    Ok(records)
}

/// The rows of a finished `results.jsonl`, for a summary or plots: like [`read_records`], but a file that
/// is missing or holds no whole row is an error naming it, because there is nothing to report.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("results.jsonl");
/// std::fs::write(&path, "{\"task_id\":\"a\",\"rule\":\"no").unwrap();
/// let err = novikoff::experiment::load_results(&path).unwrap_err();
/// assert!(err.to_string().contains("no whole result row"), "{err}");
/// ```
///
/// # Errors
/// [`Error::Io`] for a missing file, [`Error::Spec`] for a file without rows, and as [`read_records`].
pub fn load_results(path: &Path) -> Result<Vec<TaskRecord>> {
    if !path.is_file() {
        let kind = if path.is_dir() {
            std::io::ErrorKind::IsADirectory
        } else {
            std::io::ErrorKind::NotFound
        };
        return Err(Error::io(path, std::io::Error::from(kind)));
    }
    let records = read_records(path)?;
    if records.is_empty() {
        let torn = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        return Err(Error::Spec {
            at: Location::new(path).line(1),
            message: if torn {
                "no whole result row: the only line is torn (no newline); `--resume` on its folder runs its task again".into()
            } else {
                "no whole result row: the file is empty".into()
            },
        });
    }
    Ok(records)
}

/// Each non-empty whole line of a results file with its 1-based number, parsed.
fn parse_lines(path: &Path) -> Result<Vec<(usize, serde_json::Result<TaskRecord>)>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    // A last line without its newline was never finished.
    let whole = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => &bytes[..=last],
        None => &bytes[..0],
    };
    Ok(whole
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, line)| !line.trim_ascii().is_empty())
        .map(|(k, line)| (k + 1, serde_json::from_slice::<TaskRecord>(line)))
        .collect())
}

/// The rows a resumed run keeps: every whole row, wherever torn or malformed lines are. A line where a
/// torn fragment was glued to a whole row (a write that resumed after a full disk) keeps the row.
/// A task stored twice keeps its first row.
fn recover_records(path: &Path) -> Result<(Vec<TaskRecord>, Vec<DroppedLine>)> {
    let bytes = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut records = Vec::new();
    let mut dropped = Vec::new();
    let mut seen = HashSet::new();
    let drop_line = |line: usize, reason: &str| DroppedLine {
        path: path.to_path_buf(),
        line,
        reason: reason.into(),
    };
    for (line, parsed) in parse_lines(path)? {
        let record = match parsed {
            Ok(record) => record,
            Err(_) => match salvage(lines.get(line - 1).copied().unwrap_or("")) {
                Some(record) => {
                    dropped.push(drop_line(
                        line,
                        "dropped a torn fragment before a whole row",
                    ));
                    record
                }
                None => {
                    dropped.push(drop_line(
                        line,
                        "dropped a torn or malformed row; its task runs again",
                    ));
                    continue;
                }
            },
        };
        if seen.insert(record.task_id.clone()) {
            records.push(record);
        } else {
            dropped.push(drop_line(line, "dropped a second row of the same task"));
        }
    }
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        dropped.push(drop_line(
            lines.len(),
            "dropped an unfinished last row; its task runs again",
        ));
    }
    Ok((records, dropped))
}

/// The whole row at the end of a line whose start is a torn fragment.
fn salvage(line: &str) -> Option<TaskRecord> {
    let start = line.rfind("{\"task_id\":").filter(|&i| i > 0)?;
    serde_json::from_str(&line[start..]).ok()
}

pub(super) fn jsonl_bytes(records: &[TaskRecord]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for r in records {
        serde_json::to_writer(&mut out, r)
            .map_err(|e| Error::io("<jsonl>", std::io::Error::other(e)))?;
        out.push(b'\n');
    }
    Ok(out)
}

pub(super) fn csv_bytes(records: &[TaskRecord], bound_names: &[String]) -> Result<Vec<u8>> {
    let mut out = csv_line(&csv_header(bound_names))?;
    for r in records {
        out.extend(csv_line(&csv_row(r, bound_names))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::atomic::write_new_atomically;
    use super::super::merge::shard_of_file;
    use super::*;

    /// A buffer that fails like a disk filling up: after `room` bytes it takes no more, until `room` is
    /// raised again (space returns).
    struct FillingDisk {
        bytes: Vec<u8>,
        room: usize,
    }

    impl Write for FillingDisk {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let free = self.room.saturating_sub(self.bytes.len());
            if free == 0 {
                return Err(std::io::Error::from(std::io::ErrorKind::StorageFull));
            }
            let n = free.min(buf.len());
            self.bytes.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl LineSink for FillingDisk {
        fn cut_to(&mut self, len: u64) -> std::io::Result<()> {
            self.bytes.truncate(len as usize);
            Ok(())
        }
    }

    #[test]
    fn a_disk_that_fills_and_frees_up_leaves_only_whole_lines() {
        let mut disk = FillingDisk {
            bytes: Vec::new(),
            room: 25,
        };
        let mut len = 0;
        for line in [&b"first row\n"[..], b"second row\n"] {
            append_line(&mut disk, len, line).unwrap();
            len += line.len() as u64;
        }
        // The third row fits only in part: the write fails and the fragment is cut off.
        let failed = append_line(&mut disk, len, b"third row\n").unwrap_err();
        assert_eq!(failed.kind(), std::io::ErrorKind::StorageFull);
        assert_eq!(disk.bytes, b"first row\nsecond row\n");
        // Space returns: the next row follows the last whole line, not a fragment.
        disk.room = 1000;
        append_line(&mut disk, len, b"third row\n").unwrap();
        assert_eq!(disk.bytes, b"first row\nsecond row\nthird row\n");
    }

    #[test]
    fn concurrent_atomic_writes_of_one_file_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.toml");
        std::thread::scope(|scope| {
            for t in 0..8u8 {
                let path = &path;
                scope.spawn(move || {
                    for _ in 0..200 {
                        write_atomically(path, &[b'a' + t; 64]).unwrap();
                    }
                });
            }
        });
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 64);
        assert!(bytes.iter().all(|&b| b == bytes[0]));
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn the_first_of_racing_creators_wins_and_the_others_see_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.toml");
        let seen: Vec<Vec<u8>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8u8)
                .map(|t| {
                    let path = &path;
                    scope.spawn(move || write_new_atomically(path, &[b'a' + t; 64]).unwrap())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let stored = std::fs::read(&path).unwrap();
        assert!(seen.iter().all(|s| *s == stored));
    }

    #[test]
    fn shard_files_are_recognised_by_name() {
        let shard = shard_of_file(Path::new("x/results.shard-2-of-3.jsonl")).unwrap();
        assert_eq!((shard.index, shard.count), (2, 3));
        assert!(shard_of_file(Path::new("results.jsonl")).is_none());
        assert!(shard_of_file(Path::new("results.shard-3-of-3.jsonl")).is_none());
    }
}
