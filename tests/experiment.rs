//! Batch experiments end to end through the CLI: results, thread invariance, resume, shards, plots.

use std::path::{Path, PathBuf};
use std::process::Command;

use novikoff::experiment::{TaskRecord, read_records};

const SPEC: &str = r#"
name = "small"
seed = 7

[train]
rules = ["none", "classic", "novikoff"]
orders = ["cyclic", "shuffle"]
seeds = [0, 1]
max_epochs = 500

[measure]
trace_summary = true

[[dataset]]
family = "seed004"

[[dataset]]
family = "cs536-xor"
max_epochs = 50

[[dataset]]
family = "separable"
params = { n = [30, 60], d = [2, 5], margin = 0.1, radius = 1.0 }
"#;

fn novikoff(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_novikoff"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn write_spec(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("spec.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run_ok(args: &[&str]) -> String {
    let out = novikoff(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Rows with the wall-clock fields blanked, sorted by id: what must not depend on how the run went.
fn canonical(mut rows: Vec<TaskRecord>) -> Vec<TaskRecord> {
    for r in &mut rows {
        r.train_seconds = None;
        r.solve_seconds = None;
    }
    rows.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    rows
}

fn records(dir: &Path, name: &str) -> Vec<TaskRecord> {
    read_records(&dir.join(name)).unwrap()
}

#[test]
fn small_spec_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), SPEC);
    let out = tmp.path().join("out");
    let stdout = run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(stdout.contains("bounds held"), "{stdout}");

    // 6 datasets (seed004, XOR, 2 × 2 generated) × 3 rules × (1 cyclic + 2 shuffled) = 54 tasks.
    let rows = records(&out, "results.jsonl");
    assert_eq!(rows.len(), 54);
    assert!(
        rows.iter().all(|r| r.error.is_none()),
        "{:?}",
        rows.iter().find(|r| r.error.is_some())
    );

    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    for column in [
        "task_id",
        "dataset",
        "n",
        "d",
        "rule",
        "order",
        "eta",
        "seed",
        "radius",
        "gamma",
        "gamma_lower",
        "gamma_upper",
        "separable",
        "mistakes",
        "epochs",
        "converged",
        "ratio",
        "holds",
        "train_seconds",
        "solve_seconds",
        "bound_block_novikoff",
    ] {
        assert!(
            header.contains(&column),
            "missing column {column}: {header:?}"
        );
    }
    assert_eq!(csv.lines().count(), 55);

    // The seed 004 example: 3 mistakes against the Block–Novikoff bound (R/γ)² = 5.
    let seed004 = rows
        .iter()
        .find(|r| r.dataset == "seed004" && r.rule == "none" && r.order == "cyclic")
        .unwrap();
    assert_eq!(seed004.mistakes, Some(3));
    assert_eq!(seed004.epochs, Some(2));
    assert_eq!(seed004.bound_name.as_deref(), Some("block_novikoff"));
    assert!(
        (seed004.bound.unwrap() - 5.0).abs() < 1e-6,
        "{:?}",
        seed004.bound
    );
    assert_eq!(seed004.holds, Some(true));
    assert_eq!(seed004.invariants_ok, Some(true));

    // XOR is found not separable and the run is capped.
    let xor = rows.iter().find(|r| r.dataset == "cs536-xor").unwrap();
    assert_eq!(xor.separable, Some(false));
    assert_eq!(xor.converged, Some(false));

    // Every applicable bound held on separable data.
    assert!(
        rows.iter()
            .filter(|r| r.separable == Some(true))
            .all(|r| r.holds == Some(true))
    );

    assert!(out.join("spec.toml").exists());
    let env: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("env.json")).unwrap()).unwrap();
    assert_eq!(env["crate_version"], env!("CARGO_PKG_VERSION"));
    assert!(env["threads"].as_u64().unwrap() >= 1);

    // Plots: valid SVG and PNG files.
    let plots = out.join("plots");
    let svg = std::fs::read_to_string(plots.join("mistakes_vs_bound.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.trim_end().ends_with("</svg>"));
    let png = std::fs::read(plots.join("mistakes_vs_bound.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(plots.join("dataset_seed004.svg").exists());
    assert!(plots.join("mistakes_vs_inverse_gamma2.png").exists());
    assert!(std::fs::read_dir(&plots).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("trace_")
    }));

    // `summary` and `plot` work from the results file alone.
    let summary = run_ok(&["summary", out.to_str().unwrap()]);
    assert!(summary.lines().count() >= 4, "{summary}");
    let replot = tmp.path().join("replot");
    run_ok(&[
        "plot",
        out.join("results.jsonl").to_str().unwrap(),
        "--out",
        replot.to_str().unwrap(),
    ]);
    assert!(replot.join("mistakes_vs_bound.svg").exists());
}

#[test]
fn thread_count_does_not_change_results() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), SPEC);
    let one = tmp.path().join("one");
    let two = tmp.path().join("two");
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        one.to_str().unwrap(),
        "--threads",
        "1",
        "--no-plots",
    ]);
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        two.to_str().unwrap(),
        "--threads",
        "2",
        "--no-plots",
    ]);
    let a = canonical(records(&one, "results.jsonl"));
    let b = canonical(records(&two, "results.jsonl"));
    assert_eq!(a.len(), 54);
    assert_eq!(a, b);
}

#[test]
fn resume_after_a_crash_completes_without_duplicates() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), SPEC);
    let full = tmp.path().join("full");
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        full.to_str().unwrap(),
        "--no-plots",
    ]);
    let expected = canonical(records(&full, "results.jsonl"));

    // Simulate a crash: keep 20 whole rows and half of the 21st, in both files.
    let crashed = tmp.path().join("crashed");
    std::fs::create_dir_all(&crashed).unwrap();
    std::fs::copy(full.join("spec.toml"), crashed.join("spec.toml")).unwrap();
    for name in ["results.jsonl", "results.csv"] {
        let text = std::fs::read_to_string(full.join(name)).unwrap();
        let keep = if name.ends_with("csv") { 21 } else { 20 };
        let mut lines: Vec<&str> = text.lines().take(keep).collect();
        let torn = text.lines().nth(keep).unwrap();
        let torn = &torn[..torn.len() / 2];
        lines.push(torn);
        std::fs::write(crashed.join(name), lines.join("\n")).unwrap();
    }
    // Without --resume the folder is refused rather than overwritten.
    let refused = novikoff(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        crashed.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--resume"));

    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        crashed.to_str().unwrap(),
        "--resume",
        "--no-plots",
    ]);
    let resumed = canonical(records(&crashed, "results.jsonl"));
    assert_eq!(resumed, expected);
    let csv = std::fs::read_to_string(crashed.join("results.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        55,
        "the CSV is rebuilt whole, without the torn row"
    );
}

#[test]
fn shards_plus_merge_equal_the_whole_run() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), SPEC);
    let whole = tmp.path().join("whole");
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        whole.to_str().unwrap(),
        "--no-plots",
    ]);
    let shards = tmp.path().join("shards");
    for shard in ["0/3", "1/3", "2/3"] {
        run_ok(&[
            "experiment",
            spec.to_str().unwrap(),
            "--out",
            shards.to_str().unwrap(),
            "--shard",
            shard,
        ]);
    }
    let merged = tmp.path().join("merged");
    run_ok(&[
        "merge",
        shards.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(
        canonical(records(&merged, "results.jsonl")),
        canonical(records(&whole, "results.jsonl"))
    );
    // Merging the same shard twice is refused (even when missing shards are allowed).
    let twice = tmp.path().join("twice");
    let shard0 = shards.join("results.shard-0-of-3.jsonl");
    let out = novikoff(&[
        "merge",
        shard0.to_str().unwrap(),
        shard0.to_str().unwrap(),
        "--out",
        twice.to_str().unwrap(),
        "--allow-partial",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("duplicates"));
}

#[test]
fn bad_specs_give_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "name = \"x\"\n[train]\nrulez = [\"none\"]\n",
            "spec.toml:3",
            "rulez",
        ),
        (
            "name = \"x\"\n[train]\nrules = [\"sometimes\"]\n[[dataset]]\nfamily = \"seed004\"\n",
            "spec.toml:3",
            "sometimes",
        ),
        (
            "name = \"x\"\n[train]\nrules = [\"none\"]\norders = [\"random\"]\n[[dataset]]\nfamily = \"seed004\"\n",
            "spec.toml:4",
            "random",
        ),
        (
            "name = \"x\"\n[[dataset]]\nfile = \"does-not-exist.csv\"\n",
            "does-not-exist.csv",
            "not found",
        ),
        (
            "name = \"x\"\n[[dataset]]\nfamily = \"no-such-family\"\n",
            "spec.toml:3",
            "no-such-family",
        ),
        (
            "name = \"x\"\n[[dataset]]\nfamily = \"separable\"\nparams = { n = 10, d = 2, margin = 0.1, radius = 1.0, bogus = 3 }\n",
            "spec.toml:",
            "bogus",
        ),
    ];
    for (k, (text, location, word)) in cases.into_iter().enumerate() {
        let dir = tmp.path().join(format!("case{k}"));
        std::fs::create_dir_all(&dir).unwrap();
        let spec = write_spec(&dir, text);
        let out = novikoff(&[
            "experiment",
            spec.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "case {k}: {stderr}");
        assert!(
            stderr.contains(location),
            "case {k}: expected {location} in {stderr}"
        );
        assert!(
            stderr.to_lowercase().contains(&word.to_lowercase()),
            "case {k}: expected {word} in {stderr}"
        );
        assert!(!stderr.contains("panicked"));
    }
}

#[test]
fn the_default_spec_is_printed_and_parses() {
    let text = run_ok(&["experiment", "--print-default-spec"]);
    assert_eq!(text, novikoff::experiment::DEFAULT_SPEC);
    let spec = novikoff::experiment::Spec::parse(&text, "default.toml".as_ref()).unwrap();
    let plan = novikoff::experiment::Plan::new(&spec, None).unwrap();
    assert!(
        plan.tasks.len() >= 300,
        "hundreds of tasks: {}",
        plan.tasks.len()
    );
}

/// Items 13 and 14: spec entries that name a directory or a device, a glob that matches nothing,
/// duplicate dataset keys and a per-dataset `max_epochs = 0` are refused with the spec's file:line.
#[test]
fn bad_dataset_entries_name_the_spec_line() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a-folder")).unwrap();
    let cases = [
        (
            "name = \"x\"\n[[dataset]]\nfamily = \"seed004\"\n\n[[dataset]]\nfile = \"a-folder\"\n",
            "spec.toml:6",
            "is a directory",
        ),
        (
            "name = \"x\"\n[[dataset]]\nfile = \"/dev/zero\"\n",
            "spec.toml:3",
            "not a regular file",
        ),
        (
            "name = \"x\"\n[[dataset]]\nfamily = \"seed004\"\n[[dataset]]\nglob = \"nothing-*.csv\"\n",
            "spec.toml:5",
            "matches no file",
        ),
        (
            "name = \"x\"\n[[dataset]]\nglob = \"no-such-folder/*.csv\"\n",
            "spec.toml:3",
            "no-such-folder",
        ),
        (
            "name = \"x\"\n[[dataset]]\nfamily = \"seed004\"\n[[dataset]]\nfamily = \"seed004\"\n",
            "spec.toml:4",
            "share the key `seed004`",
        ),
        (
            "name = \"x\"\n[[dataset]]\nfamily = \"seed004\"\nmax_epochs = 0\n",
            "spec.toml:4",
            "max_epochs must be at least 1",
        ),
    ];
    for (k, (text, location, words)) in cases.into_iter().enumerate() {
        let spec = write_spec(tmp.path(), text);
        let out = novikoff(&[
            "experiment",
            spec.to_str().unwrap(),
            "--out",
            tmp.path().join(format!("out{k}")).to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "case {k}: {stderr}");
        assert!(
            stderr.contains(location),
            "case {k}: {location} in {stderr}"
        );
        assert!(stderr.contains(words), "case {k}: {words} in {stderr}");
    }
}

/// Item 13: `--out` naming an existing file is a usage error (exit 2), for `experiment` and `plot`.
#[test]
fn an_output_folder_that_is_a_file_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        "name = \"x\"\n[[dataset]]\nfamily = \"seed004\"\n",
    );
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = novikoff(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a folder"), "{stderr}");

    let results = tmp.path().join("results");
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        results.to_str().unwrap(),
        "--no-plots",
    ]);
    let out = novikoff(&[
        "plot",
        results.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a folder"), "{stderr}");
}

#[test]
fn kernel_and_multiclass_axes_run_each_task_in_its_feature_space() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        r#"
name = "kernels"
seed = 7

[train]
rules = ["none", "classic"]
orders = ["cyclic"]
max_epochs = 200
kernel = ["none", "poly", "rbf"]
degree = [2]
coef0 = [1.0]
kernel_gamma = [1.0]

[[dataset]]
family = "cs536-xor"
"#,
    );
    let out = tmp.path().join("out");
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let rows = records(&out, "results.jsonl");
    // 1 dataset × 2 rules × 3 kernels.
    assert_eq!(rows.len(), 6);
    for row in &rows {
        assert_eq!(row.holds, Some(true), "{row:?}");
        match row.kernel.as_deref() {
            // XOR is not linearly separable, but it is under a degree-2 polynomial and an RBF kernel.
            None => assert_eq!(row.separable, Some(false)),
            Some(kernel) => {
                assert!(kernel == "poly" || kernel == "rbf", "{kernel}");
                assert_eq!(row.separable, Some(true), "{row:?}");
                assert_eq!(row.converged, Some(true), "{row:?}");
                assert!(row.gamma_lower.unwrap() > 0.0);
                assert!(row.mistakes.unwrap() as f64 <= row.bound.unwrap());
                assert_eq!(row.invariants_ok, Some(true));
            }
        }
    }
    assert_eq!(
        rows.iter().filter(|r| r.kernel_degree == Some(2)).count(),
        2
    );

    let spec = write_spec(
        tmp.path(),
        r#"
name = "classes"
seed = 3

[train]
rules = ["classic"]
orders = ["cyclic"]
max_epochs = 100
multiclass = ["ovr", "kesler"]

[[dataset]]
family = "multiclass"
params = { n = 60, d = 3, k = 3, margin = 0.1 }
"#,
    );
    let out = tmp.path().join("classes");
    run_ok(&[
        "experiment",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let rows = records(&out, "results.jsonl");
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter()
            .all(|r| r.classes == Some(3) && r.holds == Some(true))
    );
    let kesler = rows
        .iter()
        .find(|r| r.multiclass.as_deref() == Some("kesler"))
        .unwrap();
    assert_eq!(kesler.bound_name.as_deref(), Some("kesler"));
    assert!(kesler.mistakes.unwrap() as f64 <= kesler.bound.unwrap());
    assert!(out.join("plots").read_dir().unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("confusion_")
    }));
}

/// `[measure] working_set_mb` bounds the margin solves of every task. Too small a budget leaves a
/// row's separability open (`null`, never `false`, which would claim a certificate); 0 is refused
/// at its line of the spec.
#[test]
fn a_spec_sets_the_working_set_budget_and_an_inaccurate_margin_stays_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = |budget: &str| {
        format!(
            r#"
name = "budget"
[train]
rules = ["none", "classic"]
orders = ["cyclic"]
max_epochs = 3

[measure]
invariants = false
working_set_mb = {budget}

[[dataset]]
family = "sparse"
params = {{ n = 2000, d = 20000, nnz = 12, margin = 0.01 }}
"#
        )
    };
    let zero = write_spec(tmp.path(), &spec("0"));
    let out = novikoff(&[
        "experiment",
        zero.to_str().unwrap(),
        "--out",
        tmp.path().join("zero").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("spec.toml:10") && stderr.contains("working_set_mb"),
        "{stderr}"
    );
    let small = write_spec(tmp.path(), &spec("1"));
    let out = tmp.path().join("out");
    let printed = run_ok(&[
        "experiment",
        small.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let rows = records(&out, "results.jsonl");
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row.error, None, "{row:?}");
        assert_eq!(row.separable, None, "{row:?}");
        assert_eq!(row.gamma_lower, None, "{row:?}");
    }
    // The summary counts them apart from the data found not separable.
    let summary = novikoff::experiment::summarize(&rows);
    assert!(
        summary
            .iter()
            .all(|s| s.separability_unknown == 1 && s.not_separable == 0)
    );
    assert!(printed.contains("0 (+1 unknown)"), "{printed}");
}
