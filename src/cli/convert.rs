//! `novikoff convert IN OUT`: read any supported format, write any other.

use std::path::PathBuf;

use clap::Args;
use novikoff::Result;
use novikoff::io::Format;
use serde_json::json;

use super::output::{print_json, print_pairs, round_trip};
use super::{DataArgs, OutputFormat};

#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    data: DataArgs,
    /// The output file; the format follows the extension (.csv .tsv .txt .svm .libsvm .npy .npz).
    out: PathBuf,
    /// How to print the summary.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
}

pub fn run(args: &ConvertArgs) -> Result<()> {
    let from = args.data.format()?;
    let to = Format::from_path(&args.out)?;
    let data = args.data.load()?;
    novikoff::io::save(&args.out, &data)?;
    let (positives, negatives) = data.class_counts();
    match args.format {
        OutputFormat::Json => print_json(&json!({
            "from": args.data.data.display().to_string(),
            "to": args.out.display().to_string(),
            "from_format": from.name(),
            "to_format": to.name(),
            "n": data.n_samples(),
            "d": data.n_features(),
            "positives": positives,
            "negatives": negatives,
            "radius": data.radius(),
        })),
        OutputFormat::Table => print_pairs(&[
            (
                "from",
                format!("{} ({})", args.data.data.display(), from.name()),
            ),
            ("to", format!("{} ({})", args.out.display(), to.name())),
            (
                "n × d",
                format!("{} × {}", data.n_samples(), data.n_features()),
            ),
            (
                "classes",
                format!("{positives} positive, {negatives} negative"),
            ),
            ("radius R", round_trip(data.radius())),
        ]),
    }
}
