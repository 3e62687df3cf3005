//! `novikoff margin` through the real binary: separable, not separable, through the origin, bad input.

mod common;

use common::{data, json, novikoff, write};

fn number(value: &serde_json::Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is not a number"))
}

#[test]
fn seed004_has_margin_one_as_json() {
    for through_origin in [false, true] {
        let path = data("seed004.csv");
        let mut args = vec!["margin", path.as_str(), "--format", "json"];
        if through_origin {
            args.push("--through-origin");
        }
        let out = json(&novikoff(&args));
        assert_eq!(out["separable"], true);
        assert_eq!(out["status"], "separable");
        assert_eq!(
            out["bias"],
            if through_origin {
                "through_origin"
            } else {
                "free"
            }
        );
        assert_eq!(out["n"], 6);
        assert_eq!(out["d"], 2);
        assert_eq!(out["radius"], 5f64.sqrt());
        let (lower, upper) = (number(&out["gamma_lower"]), number(&out["gamma_upper"]));
        assert!(lower <= 1.0 && 1.0 <= upper && upper - lower < 1e-9);
        let gamma = number(&out["gamma"]);
        assert!(lower <= gamma && gamma <= upper);
        let w: Vec<f64> = serde_json::from_value(out["w"].clone()).unwrap();
        assert!((w[0] - 1.0).abs() < 1e-9 && w[1].abs() < 1e-9);
        assert!(number(&out["b"]).abs() < 1e-9);
        assert_eq!(out["support"], serde_json::json!([0, 1, 2, 3, 4, 5]));
        assert!(number(&out["solve_seconds"]) >= 0.0);
        assert!(out.get("certificate").is_none());
    }
}

#[test]
fn xor_gives_a_certificate_with_one_weight_per_row() {
    let out = json(&novikoff(&["margin", &data("xor.csv"), "--format", "json"]));
    assert_eq!(out["separable"], false);
    assert_eq!(out["status"], "not_separable");
    let weights: Vec<f64> = serde_json::from_value(out["certificate"]["weights"].clone()).unwrap();
    assert_eq!(weights.len(), 4);
    for w in &weights {
        assert!((w - 0.5).abs() < 1e-12, "{weights:?}");
    }
    assert!(number(&out["certificate"]["residual"]) < 1e-9);
    assert!(out.get("gamma").is_none());
}

#[test]
fn the_table_explains_a_non_separable_result_in_words() {
    let out = novikoff(&["margin", &data("cs536_1d.csv")]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("not linearly separable"), "{text}");
    assert!(text.contains("rows 1, 0 and 2"), "{text}");
    assert!(text.contains("convex hulls of the classes meet"), "{text}");
}

#[test]
fn separable_with_a_bias_but_not_through_the_origin() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "shifted.csv", b"x,y\n1,-1\n2,1\n");
    let free = json(&novikoff(&[
        "margin",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]));
    assert_eq!(free["separable"], true);
    assert!((number(&free["gamma"]) - 0.5).abs() < 1e-12);
    let origin = json(&novikoff(&[
        "margin",
        path.to_str().unwrap(),
        "--through-origin",
        "--format",
        "json",
    ]));
    assert_eq!(origin["separable"], false);
    assert_eq!(origin["bias"], "through_origin");
    let table = novikoff(&["margin", path.to_str().unwrap(), "--through-origin"]);
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.contains("not separable through the origin"), "{text}");
}

#[test]
fn label_column_and_positive_class_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "named.csv",
        b"species,a,b\ncat,0,0\ndog,4,0\nbird,0,3\n",
    );
    let out = json(&novikoff(&[
        "margin",
        path.to_str().unwrap(),
        "--label-col",
        "species",
        "--positive",
        "dog",
        "--format",
        "json",
    ]));
    // dog at (4,0) against cat (0,0) and bird (0,3): the nearest point of the segment to (4,0) is (0,0).
    assert_eq!(out["separable"], true);
    assert!((number(&out["gamma"]) - 2.0).abs() < 1e-9);
}

#[test]
fn bad_input_exits_2_with_a_located_message() {
    let dir = tempfile::tempdir().unwrap();

    let nan = write(&dir, "nan.csv", b"x,y\n1,1\nnan,-1\n");
    let out = novikoff(&["margin", nan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nan.csv:3"), "{stderr}");

    let out = novikoff(&["margin", "/no/such/file.csv"]);
    assert_eq!(out.status.code(), Some(2));

    let out = novikoff(&["margin", &data("seed004.csv"), "--tolerance", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

/// One class: through the origin the margin is defined and certified (the basis e₁…e₄ has γ* = 1/2);
/// with a free bias it is unbounded, and only that is refused, naming the file and the reason.
#[test]
fn a_single_class_has_a_margin_through_the_origin_only() {
    let dir = tempfile::tempdir().unwrap();
    let worst = dir.path().join("worst.csv");
    let worst = worst.to_str().unwrap();
    common::stdout(&novikoff(&[
        "generate", "basis", "--m", "4", "--out", worst,
    ]));
    let out = json(&novikoff(&[
        "margin",
        worst,
        "--through-origin",
        "--format",
        "json",
    ]));
    assert_eq!(out["status"], "separable");
    let (lower, upper) = (number(&out["gamma_lower"]), number(&out["gamma_upper"]));
    assert!(lower <= 0.5 + 1e-12 && 0.5 <= upper + 1e-12, "{out}");
    assert!(lower > 0.5 - 1e-6, "{out}");

    let free = novikoff(&["margin", worst]);
    assert_eq!(free.status.code(), Some(2));
    assert!(free.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&free.stderr);
    assert!(
        stderr.contains("only one class is present in ")
            && stderr.contains("worst.csv")
            && stderr.contains("a free bias needs both classes"),
        "{stderr}"
    );
}

/// `--working-set-mb` sets the working set's memory budget: accepted for the linear solves (the
/// multi-class ones too, `tests/cli_kernel.rs`), refused with exit code 2 when it is too small or when
/// `--kernel` would ignore it.
#[test]
fn the_working_set_budget_is_checked_and_never_silently_ignored() {
    let seed004 = data("seed004.csv");
    let out = json(&novikoff(&[
        "margin",
        &seed004,
        "--working-set-mb",
        "1",
        "--format",
        "json",
    ]));
    assert_eq!(out["status"], "separable");
    for extra in [
        &["--working-set-mb", "0"][..],
        &["--working-set-mb", "64", "--kernel", "linear"],
        &["--working-set-mb", "18446744073709551615"],
    ] {
        let mut args = vec!["margin", seed004.as_str()];
        args.extend_from_slice(extra);
        let out = novikoff(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("working"), "{extra:?}: {stderr}");
    }
    // Past the budget the answer is inaccurate, and says nothing of separability (`null`, not
    // `false`): the data below are separable.
    let dir = tempfile::tempdir().unwrap();
    let file = common::sparse_beyond_one_mebibyte(&dir);
    let file = file.as_str();
    let small = [
        "margin",
        file,
        "--storage",
        "sparse",
        "--working-set-mb",
        "1",
    ];
    let out = json(&novikoff(&[&small[..], &["--format", "json"]].concat()));
    assert_eq!(out["status"], "inaccurate");
    assert_eq!(out["separable"], serde_json::Value::Null);
    // The solve stopped before its first separator: the table says so, and shows no zero w.
    let table = String::from_utf8(novikoff(&small).stdout).unwrap();
    assert!(
        table.contains("none: the solve stopped before its first separator"),
        "{table}"
    );
    assert!(
        !table.contains("w (unit)") && !table.contains("inf"),
        "{table}"
    );
    assert!(table.len() < 2000, "{table}");
}

/// Rows that all lie at the origin cannot be separated by any plane: both biases prove it with a
/// certificate of residual exactly zero (it was once `inaccurate`, the residual's rounding floor
/// measured against a radius of zero). Through the origin one row is the whole certificate, and the
/// table says so in the singular.
#[test]
fn rows_at_the_origin_are_proved_not_separable() {
    let dir = tempfile::tempdir().unwrap();
    let zeros = write(&dir, "zeros.csv", b"a,b,y\n0,0,1\n0,0,-1\n0,0,1\n");
    let zeros = zeros.to_str().unwrap();
    for through_origin in [false, true] {
        let mut args = vec!["margin", zeros, "--format", "json"];
        if through_origin {
            args.push("--through-origin");
        }
        let out = json(&novikoff(&args));
        assert_eq!(out["status"], "not_separable", "{out}");
        assert_eq!(number(&out["radius"]), 0.0, "{out}");
        assert_eq!(number(&out["certificate"]["residual"]), 0.0, "{out}");
    }
    let table = common::stdout(&novikoff(&["margin", zeros, "--through-origin"]));
    assert!(
        table.contains(" carries a certificate: it is the origin") && !table.contains("rows "),
        "{table}"
    );
}

/// The main thread is the global pool's first worker (`main.rs`): with one thread the pool is the main
/// thread alone, and every parallel step of a solve, sparse (the descent) or dense, must still run on
/// it, never waiting on a worker that does not exist. The answers agree with the pool of two.
#[test]
fn a_pool_of_one_thread_is_the_main_thread_and_still_solves() {
    let dir = tempfile::tempdir().unwrap();
    let sparse = common::sparse_beyond_one_mebibyte(&dir);
    for path in [sparse, data("seed004.csv")] {
        let brackets: Vec<(f64, f64)> = ["1", "2"]
            .iter()
            .map(|threads| {
                // To a file, not a pipe: a pipe nobody reads until the end would fill with the
                // separator's 20 000 values and stop the writer.
                let answer = dir.path().join(format!("answer-{threads}.json"));
                let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_novikoff"))
                    .args(["margin", path.as_str(), "--format", "json"])
                    .env("RAYON_NUM_THREADS", threads)
                    .stdout(std::fs::File::create(&answer).unwrap())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap();
                let started = std::time::Instant::now();
                while child.try_wait().unwrap().is_none() {
                    if started.elapsed().as_secs() > 120 {
                        child.kill().unwrap();
                        panic!("{path} on {threads} thread(s) did not finish in 120 s");
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                assert!(
                    child.wait().unwrap().success(),
                    "{path} on {threads} thread(s)"
                );
                let value: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&answer).unwrap()).unwrap();
                assert_eq!(value["status"], "separable", "{path}: {value}");
                (number(&value["gamma_lower"]), number(&value["gamma_upper"]))
            })
            .collect();
        let ((low_one, high_one), (low_two, high_two)) = (brackets[0], brackets[1]);
        assert!(
            low_one <= high_two && low_two <= high_one,
            "{path}: {brackets:?}"
        );
    }
}
