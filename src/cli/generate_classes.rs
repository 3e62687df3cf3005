//! `novikoff generate multiclass`: write a multi-class dataset and say what was written.

use std::path::Path;

use novikoff::Result;
use novikoff::generate::MulticlassParams;
use novikoff::io::Format;
use serde_json::json;

use super::OutputFormat;
use super::output::{print_json, print_pairs, round_trip};

/// `novikoff generate multiclass`.
pub fn run(params: &MulticlassParams, path: &Path, output: OutputFormat) -> Result<()> {
    let format = Format::from_path(path)?;
    let generated = params.generate()?;
    novikoff::io::save_multiclass(path, &generated.data)?;
    let data = &generated.data;
    let counts = data.class_counts();
    match output {
        OutputFormat::Json => print_json(&json!({
            "family": "multiclass",
            "out": path.display().to_string(),
            "file_format": format.name(),
            "n": data.n_samples(),
            "d": data.n_features(),
            "classes": data.classes(),
            "class_counts": counts,
            "seed": params.seed,
            "margin": generated.margin,
            "radius": generated.radius,
            "w": generated.w.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
            "radius_measured": data.features().radius(),
            "params": params,
            "description": generated.description,
        })),
        OutputFormat::Table => print_pairs(&[
            ("family", "multiclass".to_string()),
            ("wrote", format!("{} ({})", path.display(), format.name())),
            (
                "n × d",
                format!("{} × {}", data.n_samples(), data.n_features()),
            ),
            (
                "classes",
                format!("{} (examples per class: {counts:?})", data.n_classes()),
            ),
            ("seed", params.seed.to_string()),
            (
                "prescribed multi-class margin",
                round_trip(generated.margin),
            ),
            ("prescribed radius R", round_trip(generated.radius)),
            ("measured radius", round_trip(data.features().radius())),
            ("description", generated.description.clone()),
        ]),
    }
}
