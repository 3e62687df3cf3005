//! The CLI's output, byte for byte, against committed transcripts in `tests/golden/`.
//!
//! Every refactor must leave what a user sees unchanged: `train`, `margin`, `verify` and `experiment` on
//! the repository's data files and on small generated sets, as tables and as JSON, with their exit codes.
//! Only wall-clock timings are masked (a JSON value whose key ends in `seconds`, a table line that names
//! seconds, a CSV column whose header ends in `seconds`), because they cannot repeat.
//!
//! A deliberate change of output is recorded with `NOVIKOFF_BLESS=1 cargo test --test cli_golden`, and
//! the diff of `tests/golden/` then shows a reviewer exactly what changed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The cases: a name (the transcript's file) and the arguments, run in a folder that holds `data/`.
fn cases() -> Vec<(String, Vec<String>)> {
    let mut cases = Vec::new();
    let mut add = |name: &str, args: &[&str]| {
        cases.push((
            name.to_string(),
            args.iter().map(|s| s.to_string()).collect(),
        ));
    };
    for file in ["seed004", "xor", "cs536_1d", "separable", "noisy", "offset"] {
        let path = format!("data/{file}.csv");
        for format in ["table", "json"] {
            for bias in ["none", "classic", "novikoff"] {
                add(
                    &format!("train-{file}-{bias}-{format}"),
                    &[
                        "train",
                        &path,
                        "--bias",
                        bias,
                        "--max-epochs",
                        "300",
                        "--format",
                        format,
                    ],
                );
            }
            add(
                &format!("train-{file}-shuffle-{format}"),
                &[
                    "train",
                    &path,
                    "--order",
                    "shuffle",
                    "--seed",
                    "7",
                    "--eta",
                    "0.5",
                    "--summation",
                    "sequential",
                    "--max-epochs",
                    "300",
                    "--format",
                    format,
                ],
            );
            add(
                &format!("margin-{file}-{format}"),
                &["margin", &path, "--format", format],
            );
            add(
                &format!("margin-{file}-origin-{format}"),
                &["margin", &path, "--through-origin", "--format", format],
            );
            add(
                &format!("verify-{file}-{format}"),
                &["verify", &path, "--max-epochs", "300", "--format", format],
            );
            add(
                &format!("verify-{file}-shuffle-steps-{format}"),
                &[
                    "verify",
                    &path,
                    "--order",
                    "shuffle",
                    "--seed",
                    "3",
                    "--steps",
                    "--max-epochs",
                    "300",
                    "--format",
                    format,
                ],
            );
        }
    }
    for format in ["table", "json"] {
        add(
            &format!("verify-seed004-adversary-{format}"),
            &[
                "verify",
                "data/seed004.csv",
                "--adversary",
                "--restarts",
                "3",
                "--seed",
                "5",
                "--format",
                format,
            ],
        );
        add(
            &format!("verify-seed004-separator-{format}"),
            &[
                "verify",
                "data/seed004.csv",
                "--separator",
                "1,0",
                "--separator-bias",
                "0",
                "--format",
                format,
            ],
        );
        add(
            &format!("verify-seed004-bad-separator-{format}"),
            &[
                "verify",
                "data/seed004.csv",
                "--separator",
                "0,1",
                "--format",
                format,
            ],
        );
        add(
            &format!("verify-separable-adversary-{format}"),
            &[
                "verify",
                "data/separable.csv",
                "--rules",
                "none,novikoff",
                "--adversary",
                "--restarts",
                "2",
                "--seed",
                "1",
                "--format",
                format,
            ],
        );
    }
    cases
}

const SPEC: &str = r#"
name = "golden"
seed = 7

[train]
rules = ["none", "classic", "novikoff"]
orders = ["cyclic", "shuffle"]
seeds = [0, 1]
eta = [1.0, 0.5]
max_epochs = 300
summation = "sequential"

[measure]
margin = true
bounds = true
invariants = true
trace_summary = true

[[dataset]]
file = "data/seed004.csv"

[[dataset]]
file = "data/xor.csv"

[[dataset]]
file = "data/noisy.csv"

[[dataset]]
family = "separable"
params = { n = 40, d = [2, 5], margin = [0.2, 0.05], radius = 1.0 }
replicates = 2

[[dataset]]
family = "basis"
params = { m = [4, 9] }
"#;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn run(dir: &Path, args: &[String]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_novikoff"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    )
}

fn mask_json(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if key.ends_with("seconds") && item.is_number() {
                    *item = Value::String("<seconds>".into());
                } else {
                    mask_json(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_json),
        _ => {}
    }
}

/// Mask timings: each JSON line's `*seconds` values, and the numbers of any other line naming seconds.
fn mask(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if let Ok(mut value) = serde_json::from_str::<Value>(line)
            && value.is_object()
        {
            mask_json(&mut value);
            out.push_str(&value.to_string());
            out.push('\n');
            continue;
        }
        if line.contains("seconds") || line.contains(" s ") || line.ends_with(" s") {
            let masked: String = line
                .split(' ')
                .map(|word| {
                    if word.parse::<f64>().is_ok() && word.contains('.') {
                        "<t>"
                    } else {
                        word
                    }
                })
                .collect::<Vec<_>>()
                .join(" ");
            out.push_str(&masked);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Mask the CSV columns whose header ends in `seconds`.
fn mask_csv(text: &str) -> String {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut timed = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.expect("the results are CSV");
        if i == 0 {
            timed = record.iter().map(|h| h.ends_with("seconds")).collect();
            writer.write_record(&record).unwrap();
            continue;
        }
        let masked = record.iter().enumerate().map(|(j, field)| {
            if timed.get(j).copied().unwrap_or(false) && !field.is_empty() {
                "<t>"
            } else {
                field
            }
        });
        writer.write_record(masked).unwrap();
    }
    String::from_utf8(writer.into_inner().unwrap()).unwrap()
}

fn transcript(args: &[String], (code, stdout, stderr): (i32, String, String)) -> String {
    format!(
        "$ novikoff {}\nexit {code}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        mask(&stdout),
        mask(&stderr)
    )
}

/// Compare with the committed transcript, or record it under `NOVIKOFF_BLESS=1`; returns a mismatch.
fn check(name: &str, actual: &str) -> Option<String> {
    let path = golden_dir().join(format!("{name}.txt"));
    if std::env::var_os("NOVIKOFF_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (record with NOVIKOFF_BLESS=1)", path.display()));
    if expected == actual {
        return None;
    }
    let first = expected
        .lines()
        .zip(actual.lines())
        .position(|(e, a)| e != a)
        .unwrap_or(expected.lines().count().min(actual.lines().count()));
    Some(format!(
        "{name}: differs from line {} on\n  expected: {:?}\n  actual:   {:?}",
        first + 1,
        expected.lines().nth(first),
        actual.lines().nth(first)
    ))
}

/// A folder with the bundled data files plus small generated ones, all named relative to it.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    for file in ["seed004.csv", "xor.csv", "cs536_1d.csv"] {
        std::fs::copy(bundled.join(file), data.join(file)).unwrap();
    }
    for (file, args) in [
        (
            "separable.csv",
            "separable --n 60 --d 4 --margin 0.1 --radius 2 --seed 11",
        ),
        (
            "noisy.csv",
            "noisy --n 50 --d 3 --margin 0.1 --radius 1 --flip 0.1 --seed 12",
        ),
        (
            "offset.csv",
            "separable --n 40 --d 3 --margin 0.2 --radius 1 --offset 0.4 --seed 13",
        ),
    ] {
        let mut argv: Vec<String> = vec!["generate".into()];
        argv.extend(args.split(' ').map(String::from));
        argv.extend(["--out".into(), format!("data/{file}")]);
        let (code, _, stderr) = run(dir.path(), &argv);
        assert_eq!(code, 0, "generate {args}: {stderr}");
    }
    dir
}

#[test]
fn train_margin_and_verify_print_what_they_printed() {
    let dir = workspace();
    let mismatches: Vec<String> = cases()
        .iter()
        .filter_map(|(name, args)| check(name, &transcript(args, run(dir.path(), args))))
        .collect();
    assert!(
        mismatches.is_empty(),
        "{} of {} transcripts changed:\n{}",
        mismatches.len(),
        cases().len(),
        mismatches.join("\n")
    );
}

#[test]
fn experiment_prints_and_stores_what_it_did() {
    let dir = workspace();
    std::fs::write(dir.path().join("spec.toml"), SPEC).unwrap();
    let mut mismatches = Vec::new();
    for format in ["table", "json"] {
        let out = format!("out-{format}");
        let args: Vec<String> = [
            "experiment",
            "spec.toml",
            "--out",
            &out,
            "--threads",
            "2",
            "--no-plots",
            "--format",
            format,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let name = format!("experiment-{format}");
        mismatches.extend(check(&name, &transcript(&args, run(dir.path(), &args))));
        let results = std::fs::read_to_string(dir.path().join(&out).join("results.csv")).unwrap();
        mismatches.extend(check(&format!("{name}-results.csv"), &mask_csv(&results)));
        let summary: Vec<String> = ["summary", &out, "--format", format]
            .iter()
            .map(|s| s.to_string())
            .collect();
        mismatches.extend(check(
            &format!("{name}-summary"),
            &transcript(&summary, run(dir.path(), &summary)),
        ));
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
