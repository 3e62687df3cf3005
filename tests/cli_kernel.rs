//! The command line with `--kernel` and `--multiclass`: the runs, their JSON, and every refusal with
//! exit code 2.

mod common;

use common::{data, novikoff, stdout, write};

fn json(args: &[&str]) -> serde_json::Value {
    let output = novikoff(args);
    serde_json::from_str(&stdout(&output)).expect("one JSON object")
}

fn refused(args: &[&str], needle: &str) {
    let output = novikoff(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn xor_is_learnt_and_checked_under_a_degree_2_kernel() {
    let xor = data("xor.csv");
    let poly = [
        "--kernel",
        "poly",
        "--degree",
        "2",
        "--coef0",
        "1",
        "--kernel-gamma",
        "1",
    ];
    let mut args = vec!["train", xor.as_str(), "--format", "json"];
    args.extend(poly);
    let run = json(&args);
    assert_eq!(run["converged"], true);
    assert_eq!(run["accuracy"], 1.0);
    assert_eq!(run["kernel"]["kernel"], "poly");
    let mut args = vec!["verify", xor.as_str(), "--format", "json"];
    args.extend(poly);
    let verdict = json(&args);
    assert_eq!(verdict["passed"], true);
    for rule in verdict["rules"].as_array().unwrap() {
        assert_eq!(rule["holds"], true);
        assert!(rule["mistakes"].as_f64().unwrap() <= rule["bound"].as_f64().unwrap());
        assert_eq!(rule["invariants"]["violations"], 0);
    }
    let mut args = vec!["margin", xor.as_str(), "--format", "json"];
    args.extend(poly);
    let margin = json(&args);
    assert_eq!(margin["status"], "separable");
    let (lower, upper) = (
        margin["gamma_lower"].as_f64().unwrap(),
        margin["gamma_upper"].as_f64().unwrap(),
    );
    assert!(lower > 0.0 && upper - lower <= 1e-6 * upper);
    // The linear kernel: XOR is not separable, and margin says so with a certificate.
    let linear = json(&[
        "margin",
        xor.as_str(),
        "--kernel",
        "linear",
        "--format",
        "json",
    ]);
    assert_eq!(linear["status"], "not_separable");
}

#[test]
fn the_linear_kernel_gives_the_primal_run() {
    let seed004 = data("seed004.csv");
    let primal = json(&[
        "train",
        seed004.as_str(),
        "--bias",
        "novikoff",
        "--format",
        "json",
    ]);
    let dual = json(&[
        "train",
        seed004.as_str(),
        "--bias",
        "novikoff",
        "--kernel",
        "linear",
        "--format",
        "json",
    ]);
    assert_eq!(primal["mistakes"], dual["mistakes"]);
    assert_eq!(primal["epochs"], dual["epochs"]);
    assert_eq!(primal["b"], dual["b"]);
}

#[test]
fn multi_class_runs_train_verify_and_test() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.csv");
    let output = novikoff(&[
        "generate",
        "multiclass",
        "--n",
        "120",
        "--d",
        "3",
        "--classes",
        "4",
        "--margin",
        "0.08",
        "--seed",
        "1",
        "--out",
        train.to_str().unwrap(),
    ]);
    stdout(&output);
    let train = train.to_str().unwrap();
    let run = json(&[
        "train",
        train,
        "--multiclass",
        "kesler",
        "--test",
        train,
        "--format",
        "json",
    ]);
    assert_eq!(run["run"]["converged"], true);
    assert!(run["run"]["train_seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(run["test"]["accuracy"], 1.0);
    assert_eq!(run["classes"], serde_json::json!(["0", "1", "2", "3"]));
    let verdict = json(&[
        "verify",
        train,
        "--multiclass",
        "kesler",
        "--format",
        "json",
    ]);
    assert_eq!(verdict["passed"], true);
    let ovr = json(&[
        "verify",
        train,
        "--multiclass",
        "ovr",
        "--rules",
        "classic",
        "--format",
        "json",
    ]);
    assert_eq!(
        ovr["rules"][0]["run"]["classes"].as_array().unwrap().len(),
        4
    );
    let margin = json(&[
        "margin",
        train,
        "--multiclass",
        "kesler",
        "--through-origin",
        "--format",
        "json",
    ]);
    // The generator's W proves γ_Φ* ≥ 0.08.
    assert!(margin["gamma_upper"].as_f64().unwrap() >= 0.08);
    // The multi-class margins are linear solves and take the working set's budget (enough here).
    for (command, method) in [
        ("margin", "kesler"),
        ("margin", "ovr"),
        ("verify", "kesler"),
        ("verify", "ovr"),
    ] {
        let with = json(&[
            command,
            train,
            "--multiclass",
            method,
            "--working-set-mb",
            "1",
            "--format",
            "json",
        ]);
        let status = match (command, method) {
            ("margin", "kesler") => &with["status"],
            ("margin", _) => &with["classes"][0]["status"],
            ("verify", "kesler") => &with["rules"][0]["margin_status"],
            _ => &with["passed"],
        };
        assert!(
            *status == "separable" || *status == true,
            "{command} {method}: {status}"
        );
        let refused = novikoff(&[
            command,
            train,
            "--multiclass",
            method,
            "--working-set-mb",
            "0",
        ]);
        assert_eq!(refused.status.code(), Some(2), "{command} {method}");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains("working"), "{stderr}");
    }
}

#[test]
fn bad_kernel_parameters_and_gram_matrices_are_refused_with_exit_2() {
    let xor = data("xor.csv");
    let xor = xor.as_str();
    for (args, needle) in [
        (
            vec!["--kernel", "rbf", "--kernel-gamma", "nan"],
            "--kernel-gamma",
        ),
        (
            vec!["--kernel", "rbf", "--kernel-gamma", "0"],
            "--kernel-gamma",
        ),
        (
            vec!["--kernel", "rbf", "--kernel-gamma", "-2"],
            "--kernel-gamma",
        ),
        (vec!["--kernel", "rbf", "--bandwidth", "0"], "--bandwidth"),
        (vec!["--kernel", "poly", "--degree", "0"], "--degree"),
        (vec!["--kernel", "poly", "--coef0", "-1"], "--coef0"),
        (vec!["--kernel", "poly", "--coef0", "nan"], "--coef0"),
        (
            vec!["--kernel", "rbf", "--degree", "2"],
            "applies to --kernel poly only",
        ),
        (vec!["--kernel", "sigmoid"], "unknown kernel"),
        (vec!["--degree", "2"], "name one with --kernel"),
        (vec!["--kernel", "precomputed"], "--gram"),
        (vec!["--kernel", "rbf", "--variant", "voted"], "--variant"),
        (vec!["--kernel", "rbf", "--cache-mb", "0"], "cache_bytes"),
    ] {
        for command in ["train", "verify", "margin"] {
            if command == "margin" && args.contains(&"--variant") {
                continue;
            }
            let mut full = vec![command, xor];
            full.extend(&args);
            refused(&full, needle);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let labels = write(&dir, "labels.csv", "x,y\n0,1\n0,-1\n0,1\n");
    let labels = labels.to_str().unwrap();
    for (name, text, needle) in [
        ("square.csv", "1,0,0\n0,1,0\n", "square"),
        (
            "symmetric.csv",
            "1,0.5,0\n0.4,1,0\n0,0,1\n",
            "entry (0, 1) is 0.5 but entry (1, 0) is 0.4",
        ),
        (
            "diagonal.csv",
            "1,0,0\n0,-2,0\n0,0,1\n",
            "entry (1, 1) on the diagonal is -2",
        ),
        ("schwarz.csv", "1,3,0\n3,1,0\n0,0,1\n", "entry (0, 1) is 3"),
        (
            "nan.csv",
            "1,0,0\n0,nan,0\n0,0,1\n",
            "nan.csv:2:2: `nan` is not a finite number",
        ),
        ("size.csv", "1,0\n0,1\n", "the data have 3 examples"),
    ] {
        let gram = write(&dir, name, text);
        refused(
            &[
                "train",
                labels,
                "--kernel",
                "precomputed",
                "--gram",
                gram.to_str().unwrap(),
            ],
            needle,
        );
    }
}

#[test]
fn multi_class_refusals_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let one = write(&dir, "one.csv", "a,label\n1,cat\n2,cat\n");
    refused(
        &["train", one.to_str().unwrap(), "--multiclass", "kesler"],
        "one.csv:2: every label is `cat`",
    );
    let train = write(&dir, "train.csv", "a,label\n1,cat\n-2,dog\n");
    let test = write(&dir, "test.csv", "a,label\n1,cat\n3,emu\n");
    for method in ["kesler", "ovr"] {
        refused(
            &[
                "train",
                train.to_str().unwrap(),
                "--multiclass",
                method,
                "--test",
                test.to_str().unwrap(),
            ],
            "test.csv:3: the class `emu` does not occur in the training data",
        );
    }
    refused(
        &["train", train.to_str().unwrap(), "--multiclass", "ovo"],
        "unknown multi-class method",
    );
    refused(
        &[
            "train",
            train.to_str().unwrap(),
            "--multiclass",
            "kesler",
            "--positive",
            "cat",
        ],
        "--positive",
    );
    refused(
        &[
            "train",
            train.to_str().unwrap(),
            "--multiclass",
            "kesler",
            "--kernel",
            "rbf",
        ],
        "--multiclass ovr",
    );
    // A flag that would be ignored is refused before any work. (Multi-class and kernel models of
    // every kind are saved: tests/cli_multiclass_model.rs, tests/cli_kernel_model.rs and
    // tests/cli_multiclass_kernel_model.rs.)
    let train = train.to_str().unwrap();
    for extra in [
        ["--multiclass", "kesler"],
        ["--multiclass", "ovr"],
        ["--kernel", "rbf"],
    ] {
        let mut args = vec!["verify", train];
        args.extend(extra);
        args.extend(["--test", train]);
        refused(&args, "--test");
    }
    refused(
        &["train", train, "--positive", "cat", "--cache-mb", "5"],
        "--cache-mb describes a kernel",
    );
}

#[test]
fn a_lifted_matrix_beyond_the_memory_budget_is_refused_before_it_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("five.csv").display().to_string();
    let generated = novikoff(&[
        "generate",
        "multiclass",
        "--n",
        "2000",
        "--d",
        "50",
        "--classes",
        "5",
        "--seed",
        "1",
        "--out",
        &file,
    ]);
    assert!(generated.status.success());
    // 2000 rows of 50 values lift to 8000 rows of 100 stored values (plus the bias entries): about
    // 9.7 MB with c = 0 and 9.9 MB with c = 1.
    let run = |budget: &str, args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_novikoff"))
            .args(args)
            .env("NOVIKOFF_MEMORY_BUDGET", budget)
            .output()
            .unwrap()
    };
    // `margin` lifts (x, 1) (its bias is free) and `verify` first lifts x (the rule `none`).
    for (args, lifted) in [
        (
            ["margin", &file, "--multiclass", "kesler"],
            "816000 stored values, 9856008 bytes",
        ),
        (
            ["verify", &file, "--multiclass", "kesler"],
            "800000 stored values, 9664008 bytes",
        ),
    ] {
        let output = run("9000000", &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "8000 rows and {lifted}, beyond the memory budget of 9000000 bytes"
            )),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        let output = run("20000000", &args);
        assert!(
            output.status.code() != Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
