//! Argument parsing and dispatch. Each subcommand lives in its own file and only parses, calls the
//! library and formats.

mod convert;
mod experiment;
mod generate;
mod margin;
mod output;
mod train;
mod verify;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use novikoff::Result;
use novikoff::io::{LabelColumn, ReadOptions};

/// The perceptron and its convergence theorem: exact textbook runs, certified margins, checked bounds.
#[derive(Debug, Parser)]
#[command(name = "novikoff", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Train the perceptron on a data file and report the run.
    Train(train::TrainArgs),
    /// Run a batch experiment (the built-in default without a spec).
    Experiment(experiment::ExperimentArgs),
    /// Combine the results of shards into one results file.
    Merge(experiment::MergeArgs),
    /// Print the per-rule summary table of a results file.
    Summary(experiment::SummaryArgs),
    /// Redraw the plots of a results file.
    Plot(experiment::PlotArgs),
    /// The radius and the certified maximum margin of a data file, or a proof that none exists.
    Margin(margin::MarginArgs),
    /// Train with each bias rule and check every form of the convergence theorem on the run.
    Verify(verify::VerifyArgs),
    /// Write a seeded synthetic dataset (separable, noisy, blobs, xor, concentric, basis, anisotropic).
    Generate(generate::GenerateArgs),
    /// Convert a dataset between CSV, LIBSVM, .npy and .npz (by extension).
    Convert(convert::ConvertArgs),
}

/// How results are printed on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormat {
    /// Aligned text for people.
    #[default]
    Table,
    /// One JSON object.
    Json,
}

/// Options shared by every command that reads a data file.
#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    /// The data file: .csv/.tsv/.txt (header row; the label is the last column by default), .svm/.libsvm,
    /// .npy (label in the last column) or .npz (arrays x and y).
    pub data: PathBuf,
    /// The label column: a header name, or a 1-based column number.
    #[arg(long, value_name = "NAME")]
    pub label_col: Option<String>,
    /// The label of the positive class; every other label becomes -1 (one-vs-rest).
    #[arg(long, value_name = "VALUE")]
    pub positive: Option<String>,
    /// The file has no header row.
    #[arg(long)]
    pub no_header: bool,
    /// The field delimiter (a single character).
    #[arg(long, value_name = "CHAR")]
    pub delimiter: Option<char>,
    /// The number of features (LIBSVM: the dimension, default the largest index; other formats: a check).
    #[arg(long, value_name = "D")]
    pub features: Option<usize>,
}

impl DataArgs {
    pub fn read_options(&self) -> Result<ReadOptions> {
        let mut options = ReadOptions::default()
            .positive(self.positive.clone())
            .header(!self.no_header);
        if let Some(name) = &self.label_col {
            options = options.label(LabelColumn::parse(name));
        }
        if let Some(c) = self.delimiter {
            let byte = u8::try_from(c).ok().filter(u8::is_ascii).ok_or_else(|| {
                novikoff::Error::parameter(
                    "delimiter",
                    format!("`{c}` is not a single ASCII character"),
                )
            })?;
            options = options.delimiter(byte);
        }
        if let Some(d) = self.features {
            if d == 0 {
                return Err(novikoff::Error::parameter("features", "must be at least 1"));
            }
            options = options.n_features(d);
        }
        Ok(options)
    }

    pub fn load(&self) -> Result<novikoff::Dataset> {
        novikoff::io::open(&self.data, &self.read_options()?)
    }
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Train(args)) => train::run(&args),
        Some(Command::Experiment(args)) => experiment::run_experiment(&args),
        Some(Command::Merge(args)) => experiment::run_merge(&args),
        Some(Command::Summary(args)) => experiment::run_summary(&args),
        Some(Command::Plot(args)) => experiment::run_plot(&args),
        None => experiment::run_experiment(&experiment::ExperimentArgs::main_job()),
        Some(Command::Margin(args)) => margin::run(&args),
        Some(Command::Verify(args)) => verify::run(&args),
        Some(Command::Generate(args)) => generate::run(&args),
        Some(Command::Convert(args)) => convert::run(&args),
    }
}
