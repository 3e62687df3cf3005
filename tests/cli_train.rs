//! `novikoff train` through the real binary: textbook runs and bad input.

mod common;

use common::{data, json, novikoff, stdout, write};

#[test]
fn train_reproduces_the_seed004_run_as_json() {
    let out = json(&novikoff(&[
        "train",
        &data("seed004.csv"),
        "--format",
        "json",
    ]));
    assert_eq!(out["mistakes"], 3);
    assert_eq!(out["epochs"], 2);
    assert_eq!(out["converged"], true);
    assert_eq!(out["stop_reason"], "converged");
    assert_eq!(out["w"], serde_json::json!([3.0, 1.0]));
    assert_eq!(out["b"], 0.0);
    assert_eq!(out["n"], 6);
    assert_eq!(out["d"], 2);
    assert_eq!(out["radius"], 5f64.sqrt());
    assert!(out["train_seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(out["params"]["bias"], "none");
    assert_eq!(out["params"]["eta"], 1.0);
}

#[test]
fn train_writes_a_trace_with_one_row_per_update() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.csv");
    let out = json(&novikoff(&[
        "train",
        &data("seed004.csv"),
        "--format",
        "json",
        "--trace",
        trace.to_str().unwrap(),
    ]));
    assert_eq!(out["mistakes"], 3);
    let text = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(
        text,
        "update,epoch,row,activation,w0,w1,b\n1,1,0,0,1,-2,0\n2,1,2,-1,2,-1,0\n3,1,4,0,3,1,0\n"
    );
}

#[test]
fn every_bias_rule_reports_a_capped_run_on_xor() {
    for rule in ["none", "classic", "novikoff"] {
        for file in ["xor.csv", "cs536_1d.csv"] {
            let out = json(&novikoff(&[
                "train",
                &data(file),
                "--bias",
                rule,
                "--max-epochs",
                "100",
                "--format",
                "json",
            ]));
            assert_eq!(out["converged"], false, "{rule} {file}");
            assert_eq!(out["stop_reason"], "epoch_cap");
            assert_eq!(out["epochs"], 100);
        }
    }
}

#[test]
fn labels_can_be_chosen_by_name_and_positive_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "iris.csv",
        b"species,a,b\nsetosa,1,2\nvirginica,-1,-2\nversicolor,-2,-1\n",
    );
    let out = json(&novikoff(&[
        "train",
        path.to_str().unwrap(),
        "--label-col",
        "species",
        "--positive",
        "setosa",
        "--format",
        "json",
    ]));
    assert_eq!(out["n"], 3);
    assert_eq!(out["d"], 2);
    assert_eq!(out["converged"], true);
}

/// Each bad file gives exit code 2, no panic, and a message naming the file, the line and the problem.
#[test]
fn bad_input_is_refused_with_a_located_message() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, &[u8], Vec<&str>, &str)> = vec![
        (
            "nan.csv",
            b"a,b,y\n1,2,1\n3,NaN,-1\n",
            vec![],
            ":3:2: value `NaN` is not finite",
        ),
        (
            "inf.csv",
            b"a,b,y\n1,inf,1\n3,4,-1\n",
            vec![],
            ":2:2: value `inf` is not finite",
        ),
        (
            "ragged.csv",
            b"a,b,y\n1,2,1\n3,-1\n",
            vec![],
            ":3: ragged row: 2 fields where the header has 3",
        ),
        ("empty.csv", b"", vec![], "the file is empty"),
        ("header.csv", b"a,b,y\n", vec![], "no data rows"),
        (
            "single.csv",
            b"a,y\n1,2\n2,2\n",
            vec![],
            ":2: every label is 2: a single class must be +1, -1 or 0",
        ),
        (
            "three.csv",
            b"a,y\n1,1\n2,-1\n3,2\n",
            vec![],
            ":4:2: a third class `2`",
        ),
        (
            "text.csv",
            b"a,b,y\n1,x7,1\n3,4,-1\n",
            vec![],
            ":2:2: `x7` is not a number (column `b`)",
        ),
        (
            "col.csv",
            b"a,b,y\n1,2,1\n3,4,-1\n",
            vec!["--label-col", "label"],
            "no column named `label`; the header has: a, b, y",
        ),
        (
            "twovals.csv",
            b"a,y\n1,2\n3,4\n",
            vec![],
            "labels 2 and 4 are neither ±1 nor 0/1",
        ),
        (
            "utf8.csv",
            b"a,y\n1,1\n\xff,-1\n",
            vec![],
            ":3:1: the field is not valid UTF-8",
        ),
    ];
    for (name, contents, extra, expected) in cases {
        let path = write(&dir, name, contents);
        let mut args = vec!["train", path.to_str().unwrap()];
        args.extend(extra);
        let out = novikoff(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(name),
            "{name}: the message names the file: {stderr}"
        );
        assert!(
            stderr.contains(expected),
            "{name}: expected `{expected}` in: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
    }
}

#[test]
fn missing_files_directories_and_bad_parameters_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.csv");
    for args in [
        vec!["train", missing.to_str().unwrap()],
        vec!["train", dir.path().to_str().unwrap()],
        vec!["train", &data("seed004.csv"), "--eta", "-1"],
        vec!["train", &data("seed004.csv"), "--bias", "sometimes"],
        vec!["train", &data("seed004.csv"), "--max-epochs", "0"],
        vec!["train"],
    ] {
        let out = novikoff(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"));
    }
}

/// `--opt -1` means what `--opt=-1` means in every command: a negative number is a value, never a flag.
#[test]
fn negative_option_values_need_no_equals_sign() {
    let seed004 = data("seed004.csv");
    let dir = tempfile::tempdir().unwrap();
    let out_csv = dir.path().join("offset.csv");
    let out_path = out_csv.to_str().unwrap();
    // Refused by the parameter checks, whose messages must come through unchanged (not clap's
    // "unexpected argument '-1'").
    for (spaced, joined, message) in [
        (
            vec!["train", &seed004, "--eta", "-1"],
            vec!["train", &seed004, "--eta=-1"],
            "invalid parameter `eta`: the learning rate must be finite and positive, got -1",
        ),
        (
            vec!["train", &seed004, "--eta", "-0.5", "--bias", "classic"],
            vec!["train", &seed004, "--eta=-0.5", "--bias", "classic"],
            "invalid parameter `eta`: the learning rate must be finite and positive, got -0.5",
        ),
        (
            vec!["margin", &seed004, "--tolerance", "-1e-6"],
            vec!["margin", &seed004, "--tolerance=-1e-6"],
            "invalid parameter `tolerance`",
        ),
        (
            vec![
                "generate",
                "separable",
                "--n",
                "10",
                "--d",
                "2",
                "--margin",
                "-0.1",
                "--out",
                out_path,
            ],
            vec![
                "generate",
                "separable",
                "--n",
                "10",
                "--d",
                "2",
                "--margin=-0.1",
                "--out",
                out_path,
            ],
            "invalid parameter `margin`",
        ),
    ] {
        for args in [spaced, joined] {
            let out = novikoff(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains(message), "{args:?}: {stderr}");
            assert!(
                !stderr.contains("unexpected argument"),
                "{args:?}: {stderr}"
            );
        }
    }
    // Accepted: the positive class -1 (one-vs-rest) flips every label, so from w = 0 every update is
    // negated and the run ends at -w of the plain run, (−3, −1).
    let flipped = json(&novikoff(&[
        "train",
        &seed004,
        "--positive",
        "-1",
        "--format",
        "json",
    ]));
    assert_eq!(flipped["w"], serde_json::json!([-3.0, -1.0]));
    assert_eq!(flipped["mistakes"], 3);
    // An unsigned option gets its own parser's message for -1.
    let seed = novikoff(&["train", &seed004, "--seed", "-1"]);
    assert_eq!(seed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&seed.stderr).contains("invalid value '-1' for '--seed"));
    // A negative offset for the generator, in exponent form (clap's own number test misses `-3e-1`).
    let generated = json(&novikoff(&[
        "generate",
        "separable",
        "--n",
        "20",
        "--d",
        "2",
        "--offset",
        "-3e-1",
        "--seed",
        "3",
        "--out",
        out_path,
        "--format",
        "json",
    ]));
    assert_eq!(generated["b"], -0.3);
    assert!(out_csv.exists());
}

/// The README's worst case, `generate basis` (every label +1), reads back and trains in every format:
/// through the origin the perceptron makes exactly m = (R/γ)² mistakes, and with a bias rule one class
/// is just as legitimate (the rule is the plain perceptron on (x, c)).
#[test]
fn a_single_class_trains_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["worst.csv", "worst.svm", "worst.npy", "worst.npz"] {
        let path = dir.path().join(name);
        let path = path.to_str().unwrap();
        stdout(&novikoff(&["generate", "basis", "--m", "4", "--out", path]));
        let out = json(&novikoff(&["train", path, "--format", "json"]));
        assert_eq!(out["mistakes"], 4, "{name}: {out}");
        assert_eq!(out["converged"], true, "{name}");
        assert_eq!(out["w"], serde_json::json!([1.0, 1.0, 1.0, 1.0]), "{name}");
        assert_eq!(out["accuracy"], 1.0, "{name}");
        for rule in ["classic", "novikoff"] {
            let out = json(&novikoff(&[
                "train", path, "--bias", rule, "--format", "json",
            ]));
            assert_eq!(out["converged"], true, "{name} {rule}: {out}");
            assert_eq!(out["accuracy"], 1.0, "{name} {rule}");
        }
    }
}

/// A single label maps to its sign: 1 is +1, -1 and 0 are −1 (0/1 convention), `--positive` decides
/// for any other value, and without it another single value is refused at its first line.
#[test]
fn a_single_label_value_maps_to_its_sign() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &[&str], f64); 5] = [
        ("plus.csv", b"a,y\n2,1\n1,+1\n", &[], 1.0),
        ("minus.csv", b"a,y\n-2,-1\n-1,-1\n", &[], -1.0),
        ("zero.csv", b"a,y\n-2,0\n-1,0\n", &[], -1.0),
        (
            "cat.csv",
            b"a,y\n2,cat\n1,cat\n",
            &["--positive", "cat"],
            1.0,
        ),
        (
            "dog.csv",
            b"a,y\n-2,dog\n-1,dog\n",
            &["--positive", "cat"],
            -1.0,
        ),
    ];
    for (name, contents, extra, sign) in cases {
        let path = write(&dir, name, contents);
        let mut args = vec!["train", path.to_str().unwrap(), "--format", "json"];
        args.extend(extra);
        let out = json(&novikoff(&args));
        // One update on the first row, w = y·x₁: each file puts x₁ on its class's side, so w = 2
        // exactly when the label was mapped to `sign` (the other sign gives −2).
        assert_eq!(out["mistakes"], 1, "{name}: {out}");
        assert_eq!(
            out["w"],
            serde_json::json!([2.0]),
            "{name} (→ {sign}): {out}"
        );
    }
}

/// A flag the file's format would ignore is refused, naming the flag and why; on CSV each is honoured.
#[test]
fn flags_a_format_would_ignore_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("d.csv");
    std::fs::copy(data("seed004.csv"), &csv).unwrap();
    let mut files = vec![csv.clone()];
    for ext in ["svm", "npy", "npz"] {
        let path = dir.path().join(format!("d.{ext}"));
        stdout(&novikoff(&[
            "convert",
            csv.to_str().unwrap(),
            path.to_str().unwrap(),
        ]));
        files.push(path);
    }
    let flags: [(&[&str], &str); 4] = [
        (&["--label-col", "1"], "--label-col"),
        (&["--no-header"], "--no-header"),
        (&["--delimiter", ";"], "--delimiter"),
        (&["--delimiter", ","], "--delimiter"),
    ];
    for path in &files[1..] {
        let name = path.to_str().unwrap();
        for (extra, flag) in flags {
            for command in ["train", "margin", "verify"] {
                let mut args = vec![command, name];
                args.extend(extra);
                let out = novikoff(&args);
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
                assert!(
                    stderr.contains(&format!("`{flag}`"))
                        && stderr.contains("applies only to delimited text")
                        && stderr.contains("would be ignored"),
                    "{args:?}: {stderr}"
                );
                assert!(out.stdout.is_empty(), "{args:?}");
            }
            let out = dir.path().join("out.csv");
            let mut args = vec!["convert", name, out.to_str().unwrap()];
            args.extend(extra);
            assert_eq!(novikoff(&args).status.code(), Some(2), "{args:?}");
        }
    }
    // On CSV the same flags mean something and are honoured.
    let semi = write(&dir, "semi.csv", b"1;0;1\n-1;0;-1\n");
    let out = json(&novikoff(&[
        "train",
        semi.to_str().unwrap(),
        "--no-header",
        "--delimiter",
        ";",
        "--label-col",
        "3",
        "--format",
        "json",
    ]));
    assert_eq!(out["n"], 2);
}

/// `--seed` seeds only the shuffled order: with the cyclic order it would be ignored, so it is refused.
#[test]
fn a_seed_without_the_shuffled_order_is_refused() {
    let seed004 = data("seed004.csv");
    for extra in [&["--seed", "3"][..], &["--seed", "3", "--order", "cyclic"]] {
        let mut args = vec!["train", seed004.as_str()];
        args.extend(extra);
        let out = novikoff(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("`--seed`") && stderr.contains("--order shuffle"),
            "{stderr}"
        );
    }
    let shuffled = json(&novikoff(&[
        "train", &seed004, "--order", "shuffle", "--seed", "3", "--format", "json",
    ]));
    assert_eq!(shuffled["params"]["seed"], 3);
    let default = json(&novikoff(&["train", &seed004, "--format", "json"]));
    assert_eq!(default["params"]["seed"], 0);
}

/// A reader that goes away (`novikoff … | head -1`) ends the process quietly, never with a panic.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_novikoff"))
        .args(["experiment", "--print-default-spec"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
