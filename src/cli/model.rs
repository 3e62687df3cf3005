//! `novikoff predict` and `novikoff score`: a model saved by `train --save`, applied to a data file.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use novikoff::model::{Model, ModelFile, predictions_csv, save_predictions};
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

/// The model and the data, with a model of another dimension refused in the data file's name.
fn load(model: &Path, data: &DataArgs) -> Result<(Model, Dataset)> {
    let model_file = ModelFile::load(model)?;
    let dataset = data.load()?;
    if model_file.model.n_features() != dataset.n_features() {
        return Err(Error::parse(
            Location::new(&data.data),
            format!(
                "has {} features, but the model {} takes {}",
                dataset.n_features(),
                model.display(),
                model_file.model.n_features()
            ),
        ));
    }
    Ok((model_file.model, dataset))
}

/// The predictions as CSV ([`predictions_csv`]), into `--out` or onto stdout.
pub fn run_predict(args: &PredictArgs) -> Result<()> {
    let (model, data) = load(&args.model, &args.data)?;
    let decisions = model.decision_function_dataset(&data)?.to_vec();
    match &args.out {
        Some(path) => save_predictions(path, &decisions),
        None => std::io::stdout()
            .lock()
            .write_all(predictions_csv(&decisions).as_bytes())
            .map_err(|e| Error::io("<stdout>", e)),
    }
}

/// Accuracy, the confusion counts and the model's signed margin on a labelled data file.
pub fn run_score(args: &ScoreArgs) -> Result<()> {
    let (model, data) = load(&args.model, &args.data)?;
    let score = model.score(&data)?;
    let c = score.confusion;
    match args.format {
        OutputFormat::Json => print_json(&json!({
            "model": args.model.display().to_string(),
            "data": args.data.data.display().to_string(),
            "kind": model.kind(),
            "n": score.n,
            "d": data.n_features(),
            "accuracy": score.accuracy,
            "confusion": c,
            "margin": score.margin,
        })),
        OutputFormat::Table => print_pairs(&[
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
                    .unwrap_or_else(|| "none (w = 0)".into()),
            ),
        ]),
    }
}
