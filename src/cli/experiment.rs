//! `novikoff experiment`, `merge`, `summary` and `plot`: the batch side of the CLI.

use std::path::PathBuf;

use clap::Args;
use novikoff::experiment::{
    DEFAULT_SPEC, MergeOptions, RunOptions, Shard, Spec, create_output_folder, load_results, merge,
    run, summarize, summary_table, tightness, tightness_table,
};
use novikoff::{Error, Result};

use super::OutputFormat;
use super::output::print_json;

#[derive(Debug, Args)]
pub struct ExperimentArgs {
    /// The experiment spec (TOML). Without it, the built-in default experiment runs.
    pub spec: Option<PathBuf>,
    /// The output folder.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Worker threads, at least 1 (default: every core).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Run only shard I of N (0-based), e.g. --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Continue an interrupted run: skip the tasks already in the results files.
    #[arg(long)]
    pub resume: bool,
    /// Print the built-in default spec and exit (takes no other option, which it would ignore).
    #[arg(long, conflicts_with_all = ["spec", "out", "threads", "shard", "resume", "no_plots", "format"])]
    pub print_default_spec: bool,
    /// Do not draw the plots.
    #[arg(long)]
    pub no_plots: bool,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    #[command(flatten)]
    pub axes: super::experiment_axes::AxesArgs,
}

/// `--threads 0` would quietly mean one thread: refuse it as a usage error.
fn parse_threads(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => {
            Err("0 threads cannot run anything; give at least 1 (omit it for every core)".into())
        }
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

impl ExperimentArgs {
    /// The main job: the default experiment into `results/`, resuming what a previous run left there.
    pub fn main_job() -> Self {
        Self {
            spec: None,
            out: PathBuf::from("results"),
            threads: None,
            shard: None,
            resume: true,
            print_default_spec: false,
            no_plots: false,
            format: OutputFormat::Table,
            axes: Default::default(),
        }
    }
}

pub fn run_experiment(args: &ExperimentArgs) -> Result<()> {
    if args.print_default_spec {
        print!("{DEFAULT_SPEC}");
        return Ok(());
    }
    let (spec, text, dir) = match &args.spec {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            let spec = Spec::parse(&text, path)?;
            let dir = path.parent().map(PathBuf::from);
            (spec, text, dir)
        }
        None => (Spec::default_spec(), DEFAULT_SPEC.to_string(), None),
    };
    let (spec, text) = args.axes.apply(
        spec,
        text,
        args.spec
            .as_deref()
            .unwrap_or(std::path::Path::new("<built-in default spec>")),
    )?;
    let mut options = RunOptions::new(&args.out);
    options.threads = args.threads;
    options.shard = args.shard;
    options.resume = args.resume;
    options.spec_dir = dir;
    eprintln!(
        "novikoff: experiment `{}` → {}{}",
        spec.name,
        args.out.display(),
        args.shard
            .map(|s| format!(" (shard {}/{})", s.index, s.count))
            .unwrap_or_default()
    );
    let report = run(&spec, &text, &options)?;
    for dropped in &report.dropped {
        eprintln!("novikoff: {dropped}");
    }
    if report.skipped > 0 {
        eprintln!(
            "novikoff: {} task(s) were already in {} and were skipped (delete the folder to start over)",
            report.skipped,
            args.out.display()
        );
    }
    let summary = summarize(&report.records);
    let tight = tightness(&report.records);
    let plots = if args.no_plots || args.shard.is_some() {
        Vec::new()
    } else {
        novikoff::plot::plot_all(&report.records, &args.out.join("plots"))?
    };
    match args.format {
        OutputFormat::Json => print_json(&serde_json::json!({
            "spec": spec.name,
            "ran": report.ran,
            "skipped": report.skipped,
            "failed": report.failed,
            "threads": report.threads,
            "seconds": report.seconds,
            "results_csv": report.csv_path,
            "results_jsonl": report.jsonl_path,
            "plots": plots,
            "summary": summary,
            "tightness": tight,
        })),
        OutputFormat::Table => {
            println!(
                "{} tasks run ({} skipped, {} failed) on {} thread(s) in {:.1} s\n",
                report.ran, report.skipped, report.failed, report.threads, report.seconds
            );
            print!("{}", summary_table(&summary));
            if !tight.is_empty() {
                println!(
                    "\nhow tight the bound is: mistakes in the cyclic order, the most over {} shuffled \
                     orders, and in the adversary's worst order; worst/bound takes each run against \
                     its own tightest bound",
                    spec.train.seeds.len()
                );
                print!("{}", tightness_table(&tight));
            }
            println!(
                "\nresults: {} and {}",
                report.csv_path.display(),
                report.jsonl_path.display()
            );
            if !plots.is_empty() {
                println!(
                    "plots:   {} files in {}",
                    plots.len(),
                    args.out.join("plots").display()
                );
            }
            Ok(())
        }
    }?;
    report.check_failures()
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard result files (results*.jsonl) or folders holding them.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The folder to write the merged results.csv and results.jsonl into.
    #[arg(long)]
    pub out: PathBuf,
    /// Merge even when shards of the set are missing (they are named on stderr).
    #[arg(long)]
    pub allow_partial: bool,
}

pub fn run_merge(args: &MergeArgs) -> Result<()> {
    let summary = merge(
        &args.inputs,
        &args.out,
        &novikoff::experiment::bound_names(),
        MergeOptions::default().allow_partial(args.allow_partial),
    )?;
    if !summary.missing.is_empty() {
        let missing: Vec<String> = summary
            .missing
            .iter()
            .map(|s| format!("{}/{}", s.index, s.count))
            .collect();
        eprintln!(
            "novikoff: warning: partial merge, {} shard(s) missing: {}",
            missing.len(),
            missing.join(", ")
        );
    }
    for file in &summary.unfinished {
        eprintln!(
            "novikoff: warning: partial merge, the run that wrote {} did not finish",
            file.display()
        );
    }
    println!(
        "merged {} rows from {} file(s) into {}",
        summary.rows,
        summary.inputs,
        args.out.display()
    );
    Ok(())
}

#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// A results.jsonl file, or the folder holding it.
    pub results: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

fn jsonl_path(path: &std::path::Path) -> PathBuf {
    if path.is_dir() {
        path.join("results.jsonl")
    } else {
        path.to_path_buf()
    }
}

pub fn run_summary(args: &SummaryArgs) -> Result<()> {
    let records = load_results(&jsonl_path(&args.results))?;
    let summary = summarize(&records);
    let tight = tightness(&records);
    match args.format {
        OutputFormat::Json => {
            print_json(&serde_json::json!({ "summary": summary, "tightness": tight }))
        }
        OutputFormat::Table => {
            print!("{}", summary_table(&summary));
            if !tight.is_empty() {
                print!("\n{}", tightness_table(&tight));
            }
            Ok(())
        }
    }
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A results.jsonl file, or the folder holding it.
    pub results: PathBuf,
    /// Where to write the plots (default: plots/ beside the results).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run_plot(args: &PlotArgs) -> Result<()> {
    let path = jsonl_path(&args.results);
    let records = load_results(&path)?;
    let dir = args.out.clone().unwrap_or_else(|| {
        path.parent()
            .unwrap_or(std::path::Path::new("."))
            .join("plots")
    });
    create_output_folder(&dir)?;
    let files = novikoff::plot::plot_all(&records, &dir)?;
    println!("wrote {} plot files to {}", files.len(), dir.display());
    Ok(())
}
