//! `experiment`: a batch experiment from a TOML spec, as `novikoff experiment SPEC --out DIR` runs it.

use std::path::PathBuf;

use novikoff::Error;
use novikoff::experiment::{RunOptions, Shard, Spec, run, summarize};
use pyo3::prelude::*;

use crate::errors::OrPy;

/// Run the spec into `out` and return what the CLI's `--format json` prints: `spec`, `ran`, `skipped`,
/// `failed`, `threads`, `seconds`, `results_csv`, `results_jsonl`, `plots` and the per-rule `summary`
/// (as JSON text, for the Python layer to parse). Progress goes to stderr through the crate's progress
/// bar (hidden when stderr is not a terminal). Failed tasks are stored with their errors and then
/// reported as the crate's error, as the CLI's exit status reports them.
#[pyfunction]
#[pyo3(signature = (spec_path, out, *, threads, shard, resume, progress, plots))]
#[allow(clippy::too_many_arguments)]
pub fn experiment(
    py: Python<'_>,
    spec_path: PathBuf,
    out: PathBuf,
    threads: Option<usize>,
    shard: Option<(usize, usize)>,
    resume: bool,
    progress: bool,
    plots: bool,
) -> PyResult<String> {
    let shard = match shard {
        Some((index, count)) => Some(format!("{index}/{count}").parse::<Shard>().or_py()?),
        None => None,
    };
    if threads == Some(0) {
        return Err(Error::parameter(
            "threads",
            "0 threads cannot run anything; give at least 1",
        ))
        .or_py();
    }
    py.detach(|| {
        let text = std::fs::read_to_string(&spec_path).map_err(|e| Error::io(&spec_path, e))?;
        let spec = Spec::parse(&text, &spec_path)?;
        let mut options = RunOptions::new(&out);
        options.threads = threads;
        options.shard = shard;
        options.resume = resume;
        options.progress = progress;
        options.spec_dir = spec_path.parent().map(PathBuf::from);
        let report = run(&spec, &text, &options)?;
        let drawn = if plots && shard.is_none() {
            novikoff::plot::plot_all(&report.records, &out.join("plots"))?
        } else {
            Vec::new()
        };
        report.check_failures()?;
        let json = serde_json::json!({
            "spec": spec.name,
            "ran": report.ran,
            "skipped": report.skipped,
            "failed": report.failed,
            "threads": report.threads,
            "seconds": report.seconds,
            "results_csv": report.csv_path,
            "results_jsonl": report.jsonl_path,
            "plots": drawn,
            "summary": summarize(&report.records),
        });
        Ok(json.to_string())
    })
    .or_py()
}
