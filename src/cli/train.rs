//! `novikoff train`: one run of the perceptron on a data file.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use novikoff::kernel::KernelKind;
use novikoff::model::ModelFile;
use novikoff::perceptron::{
    BiasRule, CsvTrace, Fit, NoTrace, Order, PerceptronParams, Predictor, TestAccuracy, Variant,
};
use novikoff::simd::Summation;
use novikoff::{Dataset, Error, Result};
use serde::Serialize;
use serde_json::{Value, json};

use super::output::{Floats, print_json, print_pairs, summarise_vector};
use super::{DataArgs, OutputFormat};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    Cyclic,
    Shuffle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SummationArg {
    Sequential,
    Fast,
}

impl From<SummationArg> for Summation {
    fn from(s: SummationArg) -> Self {
        match s {
            SummationArg::Sequential => Summation::Sequential,
            SummationArg::Fast => Summation::Fast,
        }
    }
}

/// The training options shared by `train` and `verify`.
#[derive(Debug, Clone, Args)]
pub struct TrainOptions {
    /// The learning rate η (> 0).
    #[arg(long, default_value_t = 1.0)]
    pub eta: f64,
    /// The order of the examples within an epoch.
    #[arg(long, value_enum, default_value_t = OrderArg::Cyclic)]
    pub order: OrderArg,
    /// The seed of the shuffled order (default 0); refused with the cyclic order, which has no use for it.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop after this many epochs.
    #[arg(long, default_value_t = 1000)]
    pub max_epochs: usize,
    /// Stop after this many updates.
    #[arg(long)]
    pub max_updates: Option<u64>,
    /// The dot product's summation order.
    #[arg(long, value_enum, default_value_t = SummationArg::Fast)]
    pub summation: SummationArg,
    /// The member of the perceptron's family: perceptron, averaged, voted, pocket, margin:β, pa, pa1:C or
    /// pa2:C.
    #[arg(long, default_value = "perceptron", value_parser = parse_variant)]
    pub variant: Variant,
    /// Held-out data, read with the same options as the data: the last, averaged and voted predictors
    /// (and the pocket's) are scored on it.
    #[arg(long, value_name = "FILE")]
    pub test: Option<PathBuf>,
}

impl TrainOptions {
    /// The seed used: `--seed`, or 0.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(0)
    }

    /// Refuse `--seed` where nothing reads it: it seeds the shuffled order and, when `also` names
    /// another reader that is on (verify's `--adversary`), that one.
    pub fn check_seed_is_used(&self, also: Option<&str>) -> Result<()> {
        if self.seed.is_none() || self.order == OrderArg::Shuffle || also.is_some() {
            return Ok(());
        }
        Err(Error::parameter(
            "--seed",
            "it seeds only --order shuffle (and verify's --adversary); the cyclic order would ignore it",
        ))
    }

    pub fn params(&self, bias: BiasRule) -> PerceptronParams {
        let order = match self.order {
            OrderArg::Cyclic => Order::Cyclic,
            OrderArg::Shuffle => Order::Shuffle { seed: self.seed() },
        };
        PerceptronParams::new()
            .bias(bias)
            .eta(self.eta)
            .order(order)
            .max_epochs(self.max_epochs)
            .max_updates(self.max_updates)
            .summation(self.summation.into())
            .variant(self.variant)
            // With test data, the vote is kept so that it can be scored too.
            .record_votes(self.test.is_some() && self.variant.updates_like_perceptron())
    }

    /// The test data of `--test`, read like the training data and in its dimension `d`.
    pub fn load_test(&self, data: &DataArgs, d: usize) -> Result<Option<Dataset>> {
        let Some(path) = &self.test else {
            return Ok(None);
        };
        let mut args = data.clone();
        args.data = path.clone();
        args.features = Some(d);
        args.load().map(Some)
    }
}

pub fn parse_variant(text: &str) -> std::result::Result<Variant, String> {
    Variant::parse(text)
        .and_then(Variant::check)
        .map_err(|e| e.to_string())
}

#[derive(Debug, Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// The bias rule: none, classic (b += ηy), novikoff (b += ηyR²) or c=VALUE.
    #[arg(long, default_value = "none", value_parser = parse_bias)]
    pub bias: BiasRule,
    #[command(flatten)]
    pub train: TrainOptions,
    #[command(flatten)]
    pub kernel: super::kernel::KernelArgs,
    #[command(flatten)]
    pub multiclass: super::multiclass::MulticlassArgs,
    /// Write one CSV row per update (update,epoch,row,activation,w…,b) to this file.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Save the model (w, b, the parameters, the data's n, d and R; with --multiclass, every class's
    /// w and b) as JSON, for `predict` and `score`.
    #[arg(long, value_name = "MODEL.json")]
    pub save: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

pub fn parse_bias(text: &str) -> std::result::Result<BiasRule, String> {
    BiasRule::parse(text).map_err(|e| e.to_string())
}

pub fn run(args: &TrainArgs) -> Result<()> {
    args.train.check_seed_is_used(None)?;
    let source = args.data.data.display().to_string();
    if args.kernel.kernel.is_some() || args.multiclass.multiclass.is_some() {
        // Refused before any work: a flag that would be ignored must not look as if it was obeyed.
        if args.trace.is_some() {
            return Err(Error::parameter(
                "--trace",
                "the trace writes the primal weights; it is not offered with --kernel or --multiclass",
            ));
        }
    }
    if args.save.is_some() && args.train.params(args.bias).variant_kind() == Variant::Voted {
        return Err(Error::parameter(
            "--save",
            "the voted perceptron predicts by a vote of many weight vectors, which a model file \
             cannot hold; save --variant averaged instead",
        ));
    }
    if let (Some(_), Some(kernel)) = (&args.save, &args.kernel.kernel)
        && KernelKind::parse(kernel).ok() == Some(KernelKind::Precomputed)
    {
        return Err(Error::parameter(
            "--save",
            "a precomputed kernel predicts from the Gram matrix between new and training \
             examples, which a model file cannot hold",
        ));
    }
    if let Some(method) = args.multiclass.multiclass {
        return super::multiclass::train(
            &args.data,
            &args.train.params(args.bias),
            args.train.test.as_deref(),
            method,
            &args.kernel,
            args.save.as_deref(),
            args.format,
        );
    }
    let data = args.data.load()?;
    if let Some(kernel) = args.kernel.kernel(&data)? {
        let params = super::kernel::params(
            &args.train.params(args.bias),
            &kernel,
            args.kernel.cache_bytes(),
        )?;
        let test = super::kernel::test_data(
            args.train.test.as_deref(),
            &args.data,
            data.n_features(),
            &kernel,
        )?;
        return super::kernel::train(
            &source,
            &data,
            &params,
            test.as_ref(),
            args.save.as_deref(),
            args.format,
        );
    }
    let test = args.train.load_test(&args.data, data.n_features())?;
    let learner = args.train.params(args.bias).check()?;
    let fit = match &args.trace {
        Some(path) => {
            let file = File::create(path).map_err(|e| Error::io(path, e))?;
            let mut sink = CsvTrace::new(BufWriter::new(file), data.n_features(), path);
            let fit = learner.fit_with_trace(&data, &mut sink);
            // Flush what was written even when the run failed part-way.
            let flushed = sink.finish();
            let fit = fit?;
            flushed?;
            fit
        }
        None => learner.fit_with_trace(&data, &mut NoTrace)?,
    };
    let test = test.map(|test| fit.test_accuracy(&test)).transpose()?;
    let source = args.data.data.display().to_string();
    report(&source, &data, args, &fit, test.as_ref())?;
    match &args.save {
        Some(path) => ModelFile::from_fit(&fit, &learner, &data, Some(&source))?.save(path),
        None => Ok(()),
    }
}

/// The JSON record of `train`, written with its weight vectors where they lie ([`Floats`]); the
/// fields are in alphabetical order, the order of the keys of a JSON object as the crate has always
/// written them.
#[derive(Serialize)]
struct TrainRecord<'a> {
    accuracy: f64,
    b: f64,
    converged: bool,
    d: usize,
    data: &'a str,
    epochs: usize,
    mistakes: u64,
    n: usize,
    params: Value,
    predictor: &'static str,
    predictor_accuracy: f64,
    predictor_weights: PredictorWeights<'a>,
    radius: f64,
    stop_reason: &'static str,
    test: Option<Value>,
    train_seconds: f64,
    updates: u64,
    variant: String,
    w: Floats<'a>,
}

/// The predictor of the run's variant, when it is not the last weights (`null` when it is).
#[derive(Serialize)]
#[serde(untagged)]
enum PredictorWeights<'a> {
    Averaged {
        b: f64,
        w: Floats<'a>,
    },
    Voted {
        voters: Option<usize>,
    },
    Pocket {
        b: f64,
        epoch: usize,
        training_errors: u64,
        w: Floats<'a>,
    },
    Last,
}

impl<'a> PredictorWeights<'a> {
    fn of(fit: &'a Fit) -> Self {
        match fit.variant.predictor() {
            Predictor::Averaged => PredictorWeights::Averaged {
                b: fit.averaged.b,
                w: Floats(&fit.averaged.w),
            },
            Predictor::Voted => PredictorWeights::Voted {
                voters: fit.voted.as_ref().map(|v| v.voters()),
            },
            Predictor::Pocket => match &fit.pocket {
                Some(p) => PredictorWeights::Pocket {
                    b: p.predictor.b,
                    epoch: p.epoch,
                    training_errors: p.training_errors,
                    w: Floats(&p.predictor.w),
                },
                None => PredictorWeights::Last,
            },
            _ => PredictorWeights::Last,
        }
    }
}

fn report(
    source: &str,
    data: &Dataset,
    args: &TrainArgs,
    fit: &Fit,
    test: Option<&TestAccuracy>,
) -> Result<()> {
    let radius = data.radius();
    let accuracy = fit.accuracy(data)?;
    let own_accuracy = fit
        .accuracy_with(fit.variant.predictor(), data)?
        .unwrap_or(accuracy);
    match args.format {
        OutputFormat::Json => print_json(&TrainRecord {
            accuracy,
            b: fit.b,
            converged: fit.converged,
            d: data.n_features(),
            data: source,
            epochs: fit.epochs,
            mistakes: fit.mistakes,
            n: data.n_samples(),
            params: json!({
                "bias": args.bias.name(),
                "bias_constant": fit.bias_constant,
                "eta": args.train.eta,
                "order": format!("{:?}", args.train.order).to_lowercase(),
                "seed": args.train.seed(),
                "max_epochs": args.train.max_epochs,
                "max_updates": args.train.max_updates,
                "summation": Summation::from(args.train.summation).name(),
            }),
            predictor: fit.variant.predictor().name(),
            predictor_accuracy: own_accuracy,
            predictor_weights: PredictorWeights::of(fit),
            radius,
            stop_reason: fit.stop_reason.name(),
            // A few numbers: as a JSON value its keys are written in order, as they always were.
            test: test.map(|t| json!(t)),
            train_seconds: fit.train_seconds,
            updates: fit.updates,
            variant: fit.variant.name(),
            w: Floats(&fit.w),
        }),
        OutputFormat::Table => {
            let mut pairs = vec![
                ("data", source.to_string()),
                (
                    "n × d",
                    format!("{} × {}", data.n_samples(), data.n_features()),
                ),
                ("radius R", radius.to_string()),
                ("bias rule", args.bias.name()),
            ];
            if fit.variant != Variant::Perceptron {
                pairs.push(("variant", fit.variant.name()));
            }
            pairs.extend([
                ("converged", fit.converged.to_string()),
                ("stop reason", fit.stop_reason.name().to_string()),
                ("mistakes", fit.mistakes.to_string()),
            ]);
            if fit.updates != fit.mistakes {
                pairs.push(("updates", fit.updates.to_string()));
            }
            pairs.extend([
                ("epochs", fit.epochs.to_string()),
                ("w", summarise_vector(fit.w.as_slice().unwrap_or(&[]))),
                ("b", fit.b.to_string()),
                ("training accuracy", accuracy.to_string()),
            ]);
            if fit.variant.predictor() != Predictor::Last {
                pairs.push((
                    "training accuracy, own predictor",
                    format!("{own_accuracy} ({})", fit.variant.predictor().name()),
                ));
            }
            if let Some(test) = test {
                let optional = |v: Option<f64>| v.map_or("-".to_string(), |v| v.to_string());
                pairs.push((
                    "test accuracy",
                    format!(
                        "last {}, averaged {}, voted {}, pocket {} (n = {})",
                        test.last,
                        test.averaged,
                        optional(test.voted),
                        optional(test.pocket),
                        test.n
                    ),
                ));
            }
            pairs.push(("train seconds", format!("{:.6}", fit.train_seconds)));
            print_pairs(&pairs)
        }
    }
}
