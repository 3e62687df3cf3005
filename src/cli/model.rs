//! `novikoff predict` and `novikoff score`: a model saved by `train --save`, applied to a data file.
//! `predict` reads the file's labels and drops them; `score` reads them as ±1, or against the model's
//! classes when it names them.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use novikoff::model::{Model, ModelFile};
use novikoff::{Dataset, Error, Location, Result};
use serde_json::json;

use super::output::{num, print_json, print_pairs};
use super::{DataArgs, OutputFormat};

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// The model file written by `novikoff train --save`.
    pub model: PathBuf,
    #[command(flatten)]
    pub data: DataArgs,
    /// Write the predictions to this CSV file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// The model file written by `novikoff train --save`.
    pub model: PathBuf,
    #[command(flatten)]
    pub data: DataArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// The labelled data `score` reads for a binary model. A model that names its classes reads the
/// labels as those names (a label of neither class is refused at its first row), and `--positive` is
/// refused: the model says which class is +1.
fn load_binary(model_path: &Path, model: &Model, data: &DataArgs) -> Result<Dataset> {
    let options = read_options(data, model.n_features())?;
    let dataset = match class_names(model) {
        Some(classes) => {
            if options.positive.is_some() {
                return Err(Error::parameter(
                    "positive",
                    format!(
                        "the model {} names its classes (`{}` is +1, `{}` is −1): drop --positive",
                        model_path.display(),
                        classes[1],
                        classes[0]
                    ),
                ));
            }
            novikoff::io::open_multiclass_as(&data.data, &options, classes)
                .and_then(|named| named.one_vs_rest(1))
        }
        None => novikoff::io::open(&data.data, &options),
    }
    .map_err(super::name_the_flag)?;
    check_dimension(model_path, model.n_features(), data, dataset.n_features())?;
    Ok(dataset)
}

/// The features `predict` reads for a model of any kind: the labels are read and dropped, so new
/// data may carry any (`?` included), and `--positive`, which would map them, is refused.
fn load_features(model_path: &Path, model: &Model, data: &DataArgs) -> Result<Dataset> {
    let options = read_options(data, model.n_features())?;
    if options.positive.is_some() {
        return Err(Error::parameter(
            "positive",
            "predict reads no labels (it drops them), so --positive would be ignored: drop it",
        ));
    }
    let features =
        novikoff::io::open_features(&data.data, &options).map_err(super::name_the_flag)?;
    check_dimension(model_path, model.n_features(), data, features.n_features())?;
    Ok(features)
}

/// The binary model's names of its classes −1 and +1, when it has them.
fn class_names(model: &Model) -> Option<&[String; 2]> {
    model.linear().and_then(|m| m.classes())
}

/// The data's read options, with the model's dimension as the least one: a LIBSVM file whose rows
/// end before the model's last features is read in the model's dimension (its absent entries are
/// zeros), as `train --test` reads one.
fn read_options(data: &DataArgs, model_d: usize) -> Result<novikoff::io::ReadOptions> {
    Ok(data
        .read_options()
        .map_err(super::name_the_flag)?
        .min_features(model_d))
}

/// A model of another dimension refused in the data file's name.
fn check_dimension(model_path: &Path, model_d: usize, data: &DataArgs, d: usize) -> Result<()> {
    if model_d == d {
        return Ok(());
    }
    Err(Error::parse(
        Location::new(&data.data),
        format!(
            "has {d} features, but the model {} takes {model_d}",
            model_path.display(),
        ),
    ))
}

/// The predictions as CSV ([`Model::predictions_csv`]), into `--out` or onto stdout.
pub fn run_predict(args: &PredictArgs) -> Result<()> {
    let model = ModelFile::load(&args.model)?.model;
    let data = load_features(&args.model, &model, &args.data)?;
    match &args.out {
        Some(path) => model.save_predictions(&data, path),
        None => write_stdout(&model.predictions_csv(&data)?),
    }
}

fn write_stdout(text: &str) -> Result<()> {
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// Accuracy, per-class recall and the confusion matrix of a multi-class model on data of its classes
/// (a class the model does not know is refused at its first row).
fn score_classes(args: &ScoreArgs, model: &Model, classes: &[String]) -> Result<()> {
    let options = read_options(&args.data, model.n_features())?;
    let data = novikoff::io::open_multiclass_as(&args.data.data, &options, classes)
        .map_err(super::name_the_flag)?;
    let d = data.n_features();
    check_dimension(&args.model, model.n_features(), &args.data, d)?;
    let confusion = model.confusion(&data)?;
    // A kernel's classes are learnt one-vs-rest: the multi-class perceptron has no kernel.
    let method = model.multiclass().map_or("ovr", |m| m.method().name());
    let kernel = match model {
        Model::MulticlassKernel(m) => Some(m.models()[0].kernel().name()),
        _ => None,
    };
    match args.format {
        OutputFormat::Json => {
            let mut report = json!({
                "model": args.model.display().to_string(),
                "data": args.data.data.display().to_string(),
                "kind": model.kind(),
                "method": method,
                "n": confusion.total(),
                "d": d,
                "classes": classes,
                "accuracy": confusion.accuracy(),
                "recall": confusion.recall(),
                "confusion": confusion,
            });
            if let Some(kernel) = kernel {
                report["kernel"] = json!(kernel);
            }
            print_json(&report)
        }
        OutputFormat::Table => {
            let mut rows = vec![
                ("model", args.model.display().to_string()),
                ("data", args.data.data.display().to_string()),
                ("n × d", format!("{} × {d}", confusion.total())),
                (
                    "classes",
                    format!("{} ({})", classes.len(), classes.join(", ")),
                ),
                ("method", method.to_string()),
                ("accuracy", confusion.accuracy().to_string()),
            ];
            if let Some(kernel) = kernel {
                rows.insert(5, ("kernel", kernel.to_string()));
            }
            print_pairs(&rows)?;
            print!(
                "\nconfusion matrix:\n{}",
                super::multiclass::confusion_text(&confusion)
            );
            Ok(())
        }
    }
}

/// Accuracy, the confusion counts and the model's signed margin on a labelled data file.
pub fn run_score(args: &ScoreArgs) -> Result<()> {
    let model = ModelFile::load(&args.model)?.model;
    if let Some(classes) = model.classes() {
        return score_classes(args, &model, classes);
    }
    let data = load_binary(&args.model, &model, &args.data)?;
    let score = model.score(&data)?;
    let c = score.confusion;
    match args.format {
        OutputFormat::Json => {
            let mut report = json!({
                "model": args.model.display().to_string(),
                "data": args.data.data.display().to_string(),
                "kind": model.kind(),
                "n": score.n,
                "d": data.n_features(),
                "accuracy": score.accuracy,
                "confusion": c,
                "margin": score.margin,
            });
            if let Some(classes) = class_names(&model) {
                report["classes"] = json!(classes);
            }
            print_json(&report)
        }
        OutputFormat::Table => {
            let mut rows = vec![
                ("model", args.model.display().to_string()),
                ("data", args.data.data.display().to_string()),
                ("n × d", format!("{} × {}", score.n, data.n_features())),
                ("accuracy", score.accuracy.to_string()),
                (
                    "confusion",
                    format!(
                        "TP {}  FP {}  TN {}  FN {}",
                        c.true_positive, c.false_positive, c.true_negative, c.false_negative
                    ),
                ),
                (
                    "margin",
                    score
                        .margin
                        .map(|m| {
                            let side = if m > 0.0 {
                                "separates"
                            } else {
                                "does not separate"
                            };
                            format!("{} ({side})", num(m))
                        })
                        .unwrap_or_else(|| match model {
                            Model::Kernel(_) => "— (not computed for a kernel model)".into(),
                            _ => "none (w = 0)".into(),
                        }),
                ),
            ];
            if let Some([negative, positive]) = class_names(&model) {
                rows.insert(3, ("classes", format!("−1 = {negative}, +1 = {positive}")));
            }
            print_pairs(&rows)
        }
    }
}
