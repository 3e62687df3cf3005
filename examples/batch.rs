//! A small batch experiment through the library API, written into a temporary folder.
//!
//! Shows [`novikoff::experiment`]: a spec in TOML (a built-in example, a generated grid over the
//! margin γ, and the worst case `xᵢ = eᵢ`, × three bias rules × two orders), [`experiment::run`] with one
//! thread into a temporary folder, the crash-safe results files it leaves there, a few rows read back
//! from `results.jsonl`, and the per-rule summary that `novikoff summary` prints. The same spec through
//! the CLI is `novikoff experiment SPEC.toml --out DIR`.
//!
//! Run it with `cargo run --release --example batch`.

use std::path::Path;

use novikoff::experiment::{self, RunOptions, Spec, read_records, summarize, summary_table};

const SPEC: &str = r#"
name = "example"
seed = 42

[train]
rules = ["none", "classic", "novikoff"]
orders = ["cyclic", "shuffle"]
seeds = [0]
max_epochs = 500

[[dataset]]
family = "seed004"

# Smaller γ, a larger bound: (R/γ)² grows as 1/γ².
[[dataset]]
family = "separable"
params = { n = 200, d = 3, margin = [0.3, 0.1, 0.03], radius = 1.0 }
replicates = 2

# The bound is attained: exactly m = (R/γ)² mistakes, in every order.
[[dataset]]
family = "basis"
params = { m = 16 }
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = Spec::parse(SPEC, Path::new("example.toml"))?;
    let out = tempfile::tempdir()?;
    let options = RunOptions {
        threads: Some(1),
        progress: false,
        ..RunOptions::new(out.path())
    };
    let report = experiment::run(&spec, SPEC, &options)?;
    println!(
        "{} tasks ({} failed) in {:.3} s; files in {}:",
        report.ran,
        report.failed,
        report.seconds,
        out.path().display()
    );
    let mut files: Vec<String> = std::fs::read_dir(out.path())?
        .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    files.sort();
    println!("  {}\n", files.join(", "));

    // The JSON lines are the source of truth: read them back as the CLI's `summary` does.
    let records = read_records(&report.jsonl_path)?;
    // One row per dataset: the rule without bias, cyclic order. The bound grows as 1/γ²; the mistakes
    // stay below it, far below except on the basis, where they reach it.
    println!(
        "{:<44} {:<7} {:>8}  {:>7}  ratio",
        "dataset", "γ", "mistakes", "bound"
    );
    for r in records
        .iter()
        .filter(|r| r.rule == "none" && r.order == "cyclic")
    {
        println!(
            "{:<44} {:<7} {:>8}  {:>7}  {}",
            r.dataset,
            r.gamma.map_or("—".into(), |g| format!("{g:.4}")),
            r.mistakes.map_or("—".into(), |m| m.to_string()),
            r.bound.map_or("—".into(), |b| format!("{b:.1}")),
            r.ratio.map_or("—".into(), |x| format!("{x:.3}")),
        );
    }
    println!("\n{}", summary_table(&summarize(&records)));
    assert_eq!(report.failed, 0);
    assert!(
        records
            .iter()
            .all(|r| r.holds != Some(false) && r.invariants_ok != Some(false))
    );
    Ok(())
}
