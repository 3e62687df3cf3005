//! `novikoff verify`: train with each bias rule and check every form of the theorem on the run.
//!
//! The exit status tells a script whether the theorem survived the run (see [`EXIT_STATUS`]): the report
//! goes to stdout either way, and every failed check is named on stderr.

use std::process::ExitCode;

use clap::Args;
use novikoff::bounds::{AdversaryParams, Geometry, ReportOptions, report};
use novikoff::margin::Bias;
use novikoff::perceptron::BiasRule;
use novikoff::{Error, Result};

use super::output::print_json;
use super::train::{TrainOptions, parse_bias};
use super::verify_table;
use super::{DataArgs, OutputFormat};

/// The exit codes of `novikoff verify`, as its `--help` prints them.
const EXIT_STATUS: &str = "\
Exit status:
  0  every check passed: each applicable bound held and the proof's inequalities held after every
     update. Also when no bound applies (data that cannot be separated): nothing was promised.
  1  a check failed, and stderr says which: a run made more mistakes than an applicable bound (the
     optimal separator's, your --separator's, or an --adversary order's), an inequality of the proof
     failed beyond its rounding tolerance, or the weights overflowed while a bound promised convergence.
     Floating point can do this where exact arithmetic cannot, e.g. a subnormal --eta whose updates
     round to zero. (1 is also the code of a machine or solver failure, printed as `error: ...`.)
  2  bad input or usage: a file that does not parse, an invalid option value such as --eta -1.
A run stopped by --max-epochs or --max-updates before its bound was reached is not a failure.";

#[derive(Debug, Args)]
#[command(after_help = EXIT_STATUS)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// The bias rules to run, comma-separated: none, classic (b += ηy), novikoff (b += ηyR²), c=VALUE.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none,classic,novikoff",
        value_parser = parse_bias
    )]
    pub rules: Vec<BiasRule>,
    #[command(flatten)]
    pub train: TrainOptions,
    /// Print every update's u·ŵ_k, ‖ŵ_k‖² and cosine against the proof's bounds.
    #[arg(long)]
    pub steps: bool,
    /// Also evaluate the bounds for this separator w (comma-separated weights, one per feature).
    #[arg(long, value_name = "W1,W2,...", value_delimiter = ',')]
    pub separator: Option<Vec<f64>>,
    /// The bias b of the separator given with --separator (default 0; needs --separator).
    #[arg(long, value_name = "B", requires = "separator")]
    pub separator_bias: Option<f64>,
    /// Also search for presentation orders that force more mistakes than the cyclic pass.
    #[arg(long)]
    pub adversary: bool,
    /// Random restarts of the adversarial search (default 8; needs --adversary).
    #[arg(long, requires = "adversary")]
    pub restarts: Option<usize>,
    /// Mebibytes the working set of each maximum-margin solve may take (default 128); as
    /// `margin --working-set-mb`.
    #[arg(long, value_name = "MB")]
    pub working_set_mb: Option<u64>,
    #[command(flatten)]
    pub kernel: super::kernel::KernelArgs,
    #[command(flatten)]
    pub multiclass: super::multiclass::MulticlassArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// The adversarial search's random restarts without `--restarts`.
const DEFAULT_RESTARTS: usize = 8;

/// Run the checks and print the report; exit 1 (with the reasons on stderr) when a check failed.
pub fn run(args: &VerifyArgs) -> Result<ExitCode> {
    args.train
        .check_seed_is_used(args.adversary.then_some("--adversary"))?;
    if args.rules.is_empty() {
        return Err(Error::parameter("rules", "name at least one bias rule"));
    }
    let source = args.data.data.display().to_string();
    let special = args.kernel.kernel.is_some() || args.multiclass.multiclass.is_some();
    let solver = super::margin::linear_solver(
        Bias::Free,
        args.working_set_mb,
        args.kernel.kernel.is_some(),
    )?;
    if special && (args.separator.is_some() || args.adversary) {
        return Err(Error::parameter(
            if args.adversary {
                "--adversary"
            } else {
                "--separator"
            },
            "it is offered for the primal perceptron only, not with --kernel or --multiclass",
        ));
    }
    if special && args.train.test.is_some() {
        // Refused rather than ignored: the command would succeed without the accuracy asked for.
        return Err(Error::parameter(
            "--test",
            "verify reports a test accuracy for the primal perceptron only; with --kernel or \
             --multiclass, `novikoff train DATA --test FILE` reports it",
        ));
    }
    if let Some(method) = args.multiclass.multiclass {
        let runs: Vec<_> = args
            .rules
            .iter()
            .map(|&rule| args.train.params(rule))
            .collect();
        return super::multiclass::verify(
            &source,
            &args.data,
            &runs,
            method,
            &args.kernel,
            &solver,
            args.format,
        );
    }
    let data = args.data.load()?;
    if let Some(kernel) = args.kernel.kernel(&data)? {
        let runs = args
            .rules
            .iter()
            .map(|&rule| {
                super::kernel::params(&args.train.params(rule), &kernel, args.kernel.cache_bytes())
            })
            .collect::<Result<Vec<_>>>()?;
        return super::kernel::verify(&source, &data, &runs, args.steps, args.format);
    }
    let geometry = Geometry::compute_with(&data, &solver)?;
    let rules: Vec<_> = args
        .rules
        .iter()
        .map(|&rule| args.train.params(rule))
        .collect();
    let options = ReportOptions {
        record_steps: args.steps,
        separator: args
            .separator
            .clone()
            .map(|w| (w, args.separator_bias.unwrap_or(0.0))),
        adversary: args.adversary.then(|| {
            AdversaryParams::new()
                .restarts(args.restarts.unwrap_or(DEFAULT_RESTARTS))
                .seed(args.train.seed())
                .max_updates(args.train.max_updates)
        }),
    };
    let test = args.train.load_test(&args.data, data.n_features())?;
    let report = report(&geometry, &rules, &options)?;
    let tests = report
        .rules
        .iter()
        .map(|rule| {
            test.as_ref()
                .map(|test| rule.verdict.fit.test_accuracy(test))
                .transpose()
        })
        .collect::<Result<Vec<_>>>()?;
    let failures = report.failures();
    match args.format {
        OutputFormat::Json => print_json(&verify_table::to_json(&source, &data, &report, &tests)?),
        OutputFormat::Table => verify_table::print_table(&source, &report, args.steps, &tests),
    }?;
    super::output::finish(&failures)
}
