//! Argument parsing and dispatch. Each subcommand lives in its own file and only parses, calls the
//! library and formats.

mod convert;
mod experiment;
mod experiment_axes;
mod generate;
mod generate_classes;
mod kernel;
mod kernel_args;
mod margin;
mod model;
mod multiclass;
mod output;
mod train;
mod verify;
mod verify_table;

use std::any::TypeId;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
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
    /// Predict the labels of a data file with a model saved by `train --save` (CSV: prediction,decision).
    Predict(model::PredictArgs),
    /// Score a model saved by `train --save` on a labelled data file: accuracy, confusion, margin.
    Score(model::ScoreArgs),
    /// Write a seeded synthetic dataset (separable, noisy, blobs, xor, concentric, basis, anisotropic,
    /// sparse, multiclass).
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
    /// .npy (label in the last column) or .npz (arrays x and y), optionally gzipped (.gz); `-` reads
    /// standard input (with --input-format).
    pub data: PathBuf,
    /// The data file's format, whatever its name: csv, tsv, txt, libsvm, svm, npy or npz. Required for
    /// `-` (standard input).
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<String>,
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
    /// The storage of a sparse format (LIBSVM): auto (sparse when at most a quarter of the values are
    /// stored and the dense matrix would exceed 16 MiB), dense or sparse.
    #[arg(long, value_name = "STORAGE", default_value = "auto")]
    pub storage: String,
}

impl DataArgs {
    pub fn read_options(&self) -> Result<ReadOptions> {
        let mut options = ReadOptions::default()
            .positive(self.positive.clone())
            .header(!self.no_header);
        if let Some(name) = &self.label_col {
            options = options.label(LabelColumn::parse(name));
        }
        if let Some(format) = &self.input_format {
            options = options.input_format(format)?;
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
        Ok(options.storage(novikoff::io::Storage::parse(&self.storage)?))
    }

    /// The format the data file is read as.
    pub fn format(&self) -> Result<novikoff::io::Format> {
        novikoff::io::input_format(&self.data, &self.read_options()?)
    }

    pub fn load(&self) -> Result<novikoff::Dataset> {
        let options = self.read_options().map_err(name_the_flag)?;
        novikoff::io::open(&self.data, &options).map_err(name_the_flag)
    }
}

/// Name a refused read option by the flag that set it, so that the user sees what to drop.
pub(crate) fn name_the_flag(error: novikoff::Error) -> novikoff::Error {
    match error {
        novikoff::Error::Parameter { name, reason } => {
            let flag = match name {
                "label" => "--label-col",
                "header" => "--no-header",
                "delimiter" => "--delimiter",
                "features" => "--features",
                "storage" => "--storage",
                "positive" => "--positive",
                other => other,
            };
            novikoff::Error::parameter(flag, reason)
        }
        other => other,
    }
}

/// Parse the command line, exiting with clap's message and code 2 on a usage error.
///
/// Every option that takes a value accepts a negative number as that value: `--eta -1` means what
/// `--eta=-1` means, and `--offset -0.3`, `--offset -1e-3`, `--positive -1` or `--separator -2,0.5`
/// work. Plain clap reads a leading `-1` as an unknown flag. The settings are applied here to every
/// argument of every subcommand, so that an option added later cannot miss them.
pub fn parse() -> Cli {
    let mut matches = allow_negative_numbers(Cli::command()).get_matches();
    Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|error| error.exit())
}

/// Let every argument that takes a value accept a negative number, and every option whose values are
/// `f64` accept any value starting with `-`.
///
/// The second rule is needed because clap's test for a negative number accepts `-1`, `-0.5` and `-1e5`
/// but not `-1e-5` or `-2,0.5`. It is safe for floats: a flag taken by mistake as the value (`--eta
/// --format`) fails to parse as a number and is refused with exit code 2. It is not applied to text or
/// path options, where `--trace --no-header` would quietly write a file named `--no-header`. No option
/// has a digit as its short name, so no flag is shadowed.
fn allow_negative_numbers(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            if !arg.get_action().takes_values() {
                return arg;
            }
            let float_option =
                !arg.is_positional() && arg.get_value_parser().type_id() == TypeId::of::<f64>();
            arg.allow_negative_numbers(true)
                .allow_hyphen_values(float_option)
        })
        .mut_subcommands(allow_negative_numbers)
}

/// Run the parsed command. `Ok` carries the exit status of a command that finished but whose checks
/// failed (`novikoff verify` exits 1 when a bound or an invariant of the proof fails); errors map to
/// [`novikoff::Error::exit_code`].
pub fn run(cli: Cli) -> Result<ExitCode> {
    let done = |result: Result<()>| result.map(|()| ExitCode::SUCCESS);
    match cli.command {
        Some(Command::Train(args)) => done(train::run(&args)),
        Some(Command::Experiment(args)) => done(experiment::run_experiment(&args)),
        Some(Command::Merge(args)) => done(experiment::run_merge(&args)),
        Some(Command::Summary(args)) => done(experiment::run_summary(&args)),
        Some(Command::Plot(args)) => done(experiment::run_plot(&args)),
        None => done(experiment::run_experiment(
            &experiment::ExperimentArgs::main_job(),
        )),
        Some(Command::Margin(args)) => done(margin::run(&args)),
        Some(Command::Verify(args)) => verify::run(&args),
        Some(Command::Predict(args)) => done(model::run_predict(&args)),
        Some(Command::Score(args)) => done(model::run_score(&args)),
        Some(Command::Generate(args)) => done(generate::run(&args)),
        Some(Command::Convert(args)) => done(convert::run(&args)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option and positional that takes a value, in every subcommand, accepts a negative number,
    /// and every float option any hyphen value.
    #[test]
    fn every_value_argument_accepts_negative_numbers() {
        fn check(command: &clap::Command, path: &str, counts: &mut [usize; 2]) {
            for arg in command.get_arguments() {
                if !arg.get_action().takes_values() {
                    continue;
                }
                let name = format!("{path} {}", arg.get_id());
                assert!(arg.is_allow_negative_numbers_set(), "{name}");
                counts[0] += 1;
                let float = arg.get_value_parser().type_id() == TypeId::of::<f64>();
                let hyphens = arg.is_allow_hyphen_values_set();
                assert_eq!(hyphens, float && !arg.is_positional(), "{name}");
                counts[1] += usize::from(hyphens);
            }
            for sub in command.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()), counts);
            }
        }
        let mut command = allow_negative_numbers(Cli::command());
        command.build();
        let mut counts = [0, 0];
        check(&command, "novikoff", &mut counts);
        // Guards against a check that sees nothing (e.g. a type test that never matches).
        assert!(counts[0] > 40 && counts[1] > 15, "{counts:?}");
    }

    #[test]
    fn a_negative_value_parses_as_with_an_equals_sign() {
        let parse = |args: &[&str]| {
            let matches = allow_negative_numbers(Cli::command()).try_get_matches_from(args);
            Cli::from_arg_matches(&matches.unwrap()).unwrap()
        };
        for value in ["-1", "-0.5", "-1e-3", "-2.5E+2"] {
            let spaced = parse(&["novikoff", "train", "d.csv", "--eta", value]);
            let joined = parse(&["novikoff", "train", "d.csv", &format!("--eta={value}")]);
            assert_eq!(format!("{spaced:?}"), format!("{joined:?}"));
            let eta: f64 = value.parse().unwrap();
            assert!(
                format!("{spaced:?}").contains(&format!("eta: {eta:?}")),
                "{spaced:?}"
            );
        }
        let separator = parse(&["novikoff", "verify", "d.csv", "--separator", "-2,-1e-3"]);
        assert!(format!("{separator:?}").contains("separator: Some([-2.0, -0.001])"));
        // A flag where a float belongs is refused (as a value that is not a number), never lost.
        let bad = allow_negative_numbers(Cli::command()).try_get_matches_from([
            "novikoff",
            "train",
            "d.csv",
            "--eta",
            "--no-header",
        ]);
        assert!(bad.is_err());
    }
}
