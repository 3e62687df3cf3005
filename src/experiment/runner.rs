//! Running a plan on a rayon pool, one dataset's shared work at a time, storing rows as tasks finish.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use super::atomic::{write_atomically, write_new_atomically};
use super::env::Environment;
use super::lock::OutputLock;
use super::measure::{bound_names, failed_record, load, measure, prepare};
use super::plan::{Plan, Task};
use super::record::TaskRecord;
use super::shard::Shard;
use super::spec::Spec;
use super::store::{DroppedLine, Store, read_records, result_paths};
use crate::error::{Error, Location, Result};

/// How to run an experiment.
///
/// ```
/// let options = novikoff::experiment::RunOptions::new("results");
/// assert!(!options.resume);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// The output folder.
    pub out: PathBuf,
    /// Worker threads; `None` uses every core.
    pub threads: Option<usize>,
    /// Run only this shard's tasks, into shard-suffixed files.
    pub shard: Option<Shard>,
    /// Continue an interrupted run, skipping the task ids already stored.
    pub resume: bool,
    /// Show a progress bar on stderr (it is hidden anyway when stderr is not a terminal).
    pub progress: bool,
    /// The folder that relative dataset paths in the spec are relative to.
    pub spec_dir: Option<PathBuf>,
}

impl RunOptions {
    /// Defaults: all cores, no shard, no resume, progress on.
    ///
    /// ```
    /// let o = novikoff::experiment::RunOptions::new("out");
    /// assert_eq!(o.out, std::path::PathBuf::from("out"));
    /// ```
    pub fn new(out: impl Into<PathBuf>) -> Self {
        Self {
            out: out.into(),
            threads: None,
            shard: None,
            resume: false,
            progress: true,
            spec_dir: None,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Tasks run now.
    pub ran: usize,
    /// Tasks skipped because a resumed store already had them.
    pub skipped: usize,
    /// Tasks that ended in an error row.
    pub failed: usize,
    /// Whether a failure came from a solver rather than from the input.
    pub solver_failed: bool,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Every row now in the store, sorted by task index.
    pub records: Vec<TaskRecord>,
    /// The results files.
    pub csv_path: PathBuf,
    /// The results files.
    pub jsonl_path: PathBuf,
    /// Lines of a resumed results file that were torn or malformed and were dropped (their tasks ran
    /// again).
    pub dropped: Vec<DroppedLine>,
}

impl RunReport {
    /// `Ok` when no task of this run failed; otherwise [`Error::TasksFailed`], naming the first failed
    /// row. The rows are stored either way: this is the verdict a batch script reads as an exit code (2
    /// when every failure came from the input, 1 when a solver failed).
    ///
    /// (Run for real by `tests/hostile.rs`: a spec naming a file with a NaN exits 2.)
    ///
    /// ```no_run
    /// use novikoff::experiment::{RunOptions, Spec, run};
    /// let spec = Spec::parse(
    ///     "name = \"x\"\n[[dataset]]\nfile = \"nan.csv\"\n",
    ///     std::path::Path::new("x.toml"),
    /// )?;
    /// let out = tempfile::tempdir().unwrap();
    /// let mut options = RunOptions::new(out.path().join("results"));
    /// options.progress = false;
    /// let report = run(&spec, "x", &options)?;
    /// let failure = report.check_failures().unwrap_err();
    /// assert_eq!(failure.exit_code(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TasksFailed`] when `failed > 0`.
    pub fn check_failures(&self) -> Result<()> {
        if self.failed == 0 {
            return Ok(());
        }
        let first = self.records.iter().find_map(|r| {
            r.error.as_ref().map(|e| {
                (
                    format!("dataset `{}`, rule {}", r.dataset, r.rule),
                    e.clone(),
                )
            })
        });
        let (first_task, first_error) = first.unwrap_or_default();
        Err(Error::TasksFailed {
            failed: self.failed,
            first_task,
            first_error,
            input: !self.solver_failed,
        })
    }
}

/// The hash of a spec's text that every row carries.
///
/// ```
/// assert_eq!(novikoff::experiment::spec_hash("a"), novikoff::experiment::spec_hash("a"));
/// ```
pub fn spec_hash(text: &str) -> String {
    super::plan::task_id(text)
}

/// Run an experiment. `spec_text` is the spec's source, copied to `OUT/spec.toml` and hashed into every
/// row. Results are bit-identical whatever the thread count (apart from the timing columns).
///
/// The run holds an [`OutputLock`] on `OUT` (per shard) from start to end, so a second run of the same
/// results is refused. It stops at the first row it cannot write (a full disk, a quota), leaving whole
/// rows only; `--resume` continues from there.
///
/// ```no_run
/// use novikoff::experiment::{run, RunOptions, Spec, DEFAULT_SPEC};
/// let spec = Spec::default_spec();
/// let report = run(&spec, DEFAULT_SPEC, &RunOptions::new("results"))?;
/// println!("{} tasks in {:.1} s", report.ran, report.seconds);
/// # Ok::<(), novikoff::Error>(())
/// ```
pub fn run(spec: &Spec, spec_text: &str, options: &RunOptions) -> Result<RunReport> {
    let started = Instant::now();
    let mut plan = Plan::new(spec, options.spec_dir.as_deref())?;
    if let Some(shard) = options.shard {
        plan = plan.shard(shard);
    }
    let hash = spec_hash(spec_text);
    let lock = OutputLock::acquire(&options.out, options.shard)?;
    check_spec_copy(&options.out, spec_text, options.resume)?;

    let threads = options
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let env = Environment::capture(
        threads,
        &spec.name,
        &hash,
        options.shard.map(|s| format!("{}/{}", s.index, s.count)),
    );
    let env_name = match options.shard {
        Some(s) => format!("env{}.json", s.suffix()),
        None => "env.json".to_string(),
    };
    let env_json = serde_json::to_vec_pretty(&env)
        .map_err(|e| Error::io(&options.out, std::io::Error::other(e)))?;
    write_atomically(&options.out.join(env_name), &env_json)?;

    let bound_names = bound_names();
    let store = Store::open_locked(lock, bound_names, options.resume)?;
    let dropped = store.dropped().to_vec();
    let pending: Vec<&Task> = plan
        .tasks
        .iter()
        .filter(|t| !store.done().contains(&t.id))
        .collect();
    let skipped = plan.tasks.len() - pending.len();

    // Group by dataset so that loading and the margin solves happen once per dataset.
    let mut groups: Vec<(usize, Vec<&Task>)> = Vec::new();
    for task in &pending {
        match groups.iter_mut().find(|(d, _)| *d == task.dataset) {
            Some((_, tasks)) => tasks.push(task),
            None => groups.push((task.dataset, vec![task])),
        }
    }
    // Datasets differ in cost by 1000× (the margin solves dominate). The biggest go first and each
    // worker takes the next dataset when it is free (greedy longest-first scheduling), so that no thread
    // is left working alone at the end. The results do not depend on this order.
    groups.sort_by(|a, b| {
        let cost = |g: &(usize, Vec<&Task>)| estimated_cost(&plan.datasets[g.0]);
        cost(b).total_cmp(&cost(a))
    });

    let bar = progress_bar(pending.len() as u64, options.progress);
    let store = Mutex::new(store);
    let write_error: Mutex<Option<Error>> = Mutex::new(None);
    // After the first failed write no task starts: its row could not be stored either.
    let stop = AtomicBool::new(false);
    let unstored = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let solver_failed = AtomicBool::new(false);
    let next_group = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::parameter("threads", e.to_string()))?;
    let run_group = |(dataset, tasks): &(usize, Vec<&Task>)| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let instance = &plan.datasets[*dataset];
        let loaded = load(instance);
        let solved;
        let prepared = match &loaded {
            Ok(data) => {
                solved = prepare(data, instance, &spec.measure);
                solved.as_ref()
            }
            Err(e) => Err(e),
        };
        tasks.par_iter().with_max_len(1).for_each(|task| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let (record, input_failure) = match prepared {
                Ok(prepared) => {
                    let (record, failure) = measure(task, instance, prepared, &spec.measure, &hash);
                    (record, failure.map(|e| e.is_input()))
                }
                Err(e) => (failed_record(task, instance, &hash, e), Some(e.is_input())),
            };
            if let Some(input) = input_failure {
                failed.fetch_add(1, Ordering::Relaxed);
                if !input {
                    solver_failed.store(true, Ordering::Relaxed);
                }
            }
            // A poisoned lock means a worker panicked while appending: a bug, which the pool re-raises.
            let appended = store
                .lock()
                .expect("no worker panics while it holds the store")
                .append(&record);
            if let Err(e) = appended {
                stop.store(true, Ordering::Relaxed);
                unstored.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut slot) = write_error.lock() {
                    slot.get_or_insert(e);
                }
            }
            bar.inc(1);
        });
    };
    pool.scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|_| {
                while let Some(group) = groups.get(next_group.fetch_add(1, Ordering::Relaxed)) {
                    run_group(group);
                }
            });
        }
    });
    bar.finish_and_clear();
    let store = store
        .into_inner()
        .expect("no worker panics while it holds the store");
    if let Some(e) = write_error.into_inner().ok().flatten() {
        let stored = store.done().len();
        let unstored = unstored.into_inner();
        let not_run = plan.tasks.len().saturating_sub(stored + unstored);
        return Err(stopped_by_write_error(e, stored, unstored, not_run));
    }
    store.finish()?;
    let (csv_path, jsonl_path) = result_paths(&options.out, options.shard);
    let records = read_records(&jsonl_path)?;
    Ok(RunReport {
        ran: pending.len(),
        skipped,
        failed: failed.into_inner(),
        solver_failed: solver_failed.into_inner(),
        threads,
        seconds: started.elapsed().as_secs_f64(),
        records,
        csv_path,
        jsonl_path,
        dropped,
    })
}

/// The error of a run stopped by a failed write, with what is stored and how to continue.
fn stopped_by_write_error(e: Error, stored: usize, unstored: usize, not_run: usize) -> Error {
    let advice = format!(
        "the run stopped at the first write error: {stored} row(s) are stored whole, {unstored} finished task(s) could not be stored, {not_run} task(s) were not run; free space and rerun with --resume to finish"
    );
    match e {
        Error::Io { path, source } => Error::io(
            path,
            std::io::Error::new(source.kind(), format!("{source}; {advice}")),
        ),
        other => Error::Solver(format!("{other}; {advice}")),
    }
}

/// A rough relative cost of preparing and running a dataset, for scheduling only: its number of values,
/// n·d for a generator (1 for a parameter that is absent) and the size of a file.
fn estimated_cost(instance: &super::plan::DatasetInstance) -> f64 {
    match &instance.source {
        super::plan::Source::File { path, .. } => {
            std::fs::metadata(path).map_or(0.0, |m| m.len() as f64)
        }
        super::plan::Source::Generated { params, .. } => ["n", "d"]
            .iter()
            .map(|name| match params.get(*name) {
                Some(super::grid::Scalar::Number(v)) => *v,
                _ => 1.0,
            })
            .product(),
    }
}

/// Write or check `out/spec.toml`: a resumed run (or another shard) must use the same spec text. Shards
/// started together may race here; exactly one writes the copy and the others compare with it.
fn check_spec_copy(out: &Path, spec_text: &str, resume: bool) -> Result<()> {
    let spec_copy = out.join("spec.toml");
    match write_new_atomically(&spec_copy, spec_text.as_bytes())? {
        existing if existing != spec_text.as_bytes() => Err(Error::Spec {
            at: Location::new(&spec_copy),
            message: if resume {
                "the spec differs from the one this folder was started with; refusing to resume"
                    .into()
            } else {
                "this folder holds a different experiment's spec; choose a new output folder".into()
            },
        }),
        _ => Ok(()),
    }
}

fn progress_bar(total: u64, wanted: bool) -> ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} {pos}/{len} tasks [{elapsed_precise}] {per_sec} ETA {eta} {wide_bar}",
    ) {
        bar.set_style(style);
    }
    bar
}
