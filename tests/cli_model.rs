//! `train --save`, `predict` and `score` through the real binary: the saved model predicts what the run
//! predicts, bit for bit, and every bad model or mismatched data file exits 2 naming the file.

mod common;

use common::{data, json, novikoff, stdout, write};
use novikoff::model::ModelFile;

fn train_and_save(
    dir: &tempfile::TempDir,
    file: &str,
    extra: &[&str],
) -> (String, serde_json::Value) {
    let model = dir.path().join("model.json").display().to_string();
    let mut args = vec!["train", file, "--save", &model, "--format", "json"];
    args.extend_from_slice(extra);
    let run = json(&novikoff(&args));
    (model, run)
}

#[test]
fn predict_reproduces_the_run_and_score_its_accuracy() {
    let dir = tempfile::tempdir().unwrap();
    let (model, run) = train_and_save(&dir, &data("seed004.csv"), &["--bias", "classic"]);
    let saved = ModelFile::load(&model).unwrap();
    let linear = saved.model.linear().unwrap();
    let w: Vec<f64> = serde_json::from_value(run["w"].clone()).unwrap();
    assert_eq!(linear.w(), w.as_slice());
    assert_eq!(linear.b(), run["b"].as_f64().unwrap());
    let provenance = saved.provenance.unwrap();
    assert_eq!(provenance.params.bias, "classic");
    assert_eq!(provenance.data.radius, run["radius"].as_f64());
    assert_eq!(provenance.run.mistakes, run["mistakes"].as_u64().unwrap());

    let predictions = stdout(&novikoff(&["predict", &model, &data("seed004.csv")]));
    // w = (4, 1), b = 0 on seed004's rows.
    assert_eq!(
        predictions,
        "prediction,decision\n-1,-2\n1,4\n1,5\n-1,-4\n-1,-6\n1,3\n"
    );
    let out = dir.path().join("predictions.csv");
    let printed = novikoff(&[
        "predict",
        &model,
        &data("seed004.csv"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&printed), "");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), predictions);

    let score = json(&novikoff(&[
        "score",
        &model,
        &data("seed004.csv"),
        "--format",
        "json",
    ]));
    assert_eq!(score["accuracy"], 1.0);
    assert_eq!(score["confusion"]["true_positive"], 3);
    assert_eq!(score["confusion"]["true_negative"], 3);
    assert_eq!(score["kind"], "linear");
    // The margin of (4, 1) on seed004: row 0 is nearest, at 2/√17.
    let margin = score["margin"].as_f64().unwrap();
    assert!((margin - 2.0 / 17f64.sqrt()).abs() < 1e-15, "{margin}");
    let table = stdout(&novikoff(&["score", &model, &data("seed004.csv")]));
    assert!(table.contains("TP 3  FP 0  TN 3  FN 0"), "{table}");
    assert!(table.contains("(separates)"), "{table}");
}

#[test]
fn a_sparse_file_gets_the_bits_of_the_run_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    // A LIBSVM file with awkward values, read as sparse storage.
    let mut text = String::new();
    for i in 0..40 {
        let label = if (i * 7) % 3 == 0 { 1 } else { -1 };
        let a = (i as f64 + 0.1) / 7.0;
        let b = -((i * i) as f64 + 0.3) / 13.0;
        text.push_str(&format!("{label} 2:{a} {}:{b}\n", 3 + i % 5));
    }
    let file = write(&dir, "d.svm", text);
    let file = file.to_str().unwrap();
    let (model, _) = train_and_save(
        &dir,
        file,
        &[
            "--storage",
            "sparse",
            "--bias",
            "novikoff",
            "--eta",
            "0.3",
            "--max-epochs",
            "5",
        ],
    );
    let saved = ModelFile::load(&model).unwrap();
    assert_eq!(saved.provenance.as_ref().unwrap().data.storage, "sparse");
    let data = novikoff::io::open(
        file,
        &novikoff::io::ReadOptions::default().storage(novikoff::io::Storage::Sparse),
    )
    .unwrap();
    let expected = saved.model.decision_function_dataset(&data).unwrap();
    let printed = stdout(&novikoff(&["predict", &model, file, "--storage", "sparse"]));
    let decisions: Vec<f64> = printed
        .lines()
        .skip(1)
        .map(|line| line.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(decisions.len(), 40);
    for (a, b) in decisions.iter().zip(&expected) {
        assert_eq!(a.to_bits(), b.to_bits());
    }
}

fn refused(args: &[&str], names: &str, says: &str) {
    let output = novikoff(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(names), "{stderr} (should name {names})");
    assert!(stderr.contains(says), "{stderr} (should say {says})");
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_models_and_mismatched_data_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (model, _) = train_and_save(&dir, &data("seed004.csv"), &[]);
    let text = std::fs::read_to_string(&model).unwrap();
    let one_d = data("cs536_1d.csv");
    for command in ["predict", "score"] {
        refused(
            &[command, &model, &one_d],
            "cs536_1d.csv",
            "has 1 features, but the model",
        );
        let corrupt = write(&dir, "corrupt.json", &text[..text.len() / 3]);
        refused(
            &[command, corrupt.to_str().unwrap(), &data("seed004.csv")],
            "corrupt.json",
            "does not parse",
        );
        let newer = write(
            &dir,
            "newer.json",
            text.replace("\"format_version\": 1", "\"format_version\": 2"),
        );
        refused(
            &[command, newer.to_str().unwrap(), &data("seed004.csv")],
            "newer.json",
            "format version 2 is newer",
        );
        let kind = write(&dir, "kind.json", text.replace("\"linear\"", "\"voted\""));
        refused(
            &[command, kind.to_str().unwrap(), &data("seed004.csv")],
            "kind.json",
            "model kind `voted`",
        );
        refused(
            &[command, "missing.json", &data("seed004.csv")],
            "missing.json",
            "No such file",
        );
    }
}

#[test]
fn a_failed_save_keeps_the_report_and_exits_2() {
    let output = novikoff(&[
        "train",
        &data("seed004.csv"),
        "--save",
        "/no/such/dir/model.json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/no/such/dir/model.json"));
    assert!(String::from_utf8_lossy(&output.stdout).contains("mistakes"));
}

#[test]
fn a_variant_saves_its_own_predictor_and_the_voted_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Not separable (row 3 is on the wrong side), so the averaged and pocket weights differ from the
    // last ones.
    let file = write(
        &dir,
        "noisy.csv",
        "x1,x2,y\n2,1,1\n1,2,1\n3,0.5,1\n0.5,0.2,-1\n-1,-2,-1\n-2,-0.5,-1\n-0.3,0.4,1\n1.5,1.5,1\n",
    );
    let file = file.to_str().unwrap();
    for variant in ["averaged", "pocket"] {
        let extra = [
            "--variant",
            variant,
            "--max-epochs",
            "7",
            "--bias",
            "classic",
        ];
        let (model, run) = train_and_save(&dir, file, &extra);
        let saved = ModelFile::load(&model).unwrap();
        assert_eq!(saved.provenance.as_ref().unwrap().learner, variant);
        let linear = saved.model.linear().unwrap();
        let w: Vec<f64> = serde_json::from_value(run["predictor_weights"]["w"].clone()).unwrap();
        let last: Vec<f64> = serde_json::from_value(run["w"].clone()).unwrap();
        assert_ne!(w, last, "{variant}: the test needs predictors that differ");
        assert_eq!(linear.w(), w.as_slice(), "{variant}");
        assert_eq!(linear.b(), run["predictor_weights"]["b"].as_f64().unwrap());
    }
    let model = dir.path().join("voted.json");
    let output = novikoff(&[
        "train",
        file,
        "--variant",
        "voted",
        "--save",
        model.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("voted"));
    assert!(!model.exists());
}

#[test]
fn a_libsvm_file_whose_rows_end_early_is_read_in_the_model_s_dimension() {
    let dir = tempfile::tempdir().unwrap();
    let train = write(&dir, "train.svm", "1 1:1 3:2\n-1 1:-1\n1 2:1\n-1 3:-0.5\n");
    let (model, _) = train_and_save(
        &dir,
        train.to_str().unwrap(),
        &["--bias", "classic", "--storage", "sparse"],
    );
    // The held-out rows use features 1 and 2 only: the file alone says d = 2.
    let short = write(&dir, "short.svm", "1 1:1\n-1 2:-1\n1 1:0.25 2:2\n");
    let short = short.to_str().unwrap();
    let predicted = stdout(&novikoff(&["predict", &model, short]));
    let stated = stdout(&novikoff(&["predict", &model, short, "--features", "3"]));
    assert_eq!(predicted, stated);
    assert_eq!(predicted.lines().count(), 4, "{predicted}");
    let score = json(&novikoff(&["score", &model, short, "--format", "json"]));
    assert_eq!(score["d"], 3);
    // A dimension the user states is still checked against the model's, and so is a wider file.
    refused(
        &["predict", &model, short, "--features", "2"],
        "short.svm",
        "has 2 features, but the model",
    );
    let wide = write(&dir, "wide.svm", "1 4:1\n");
    refused(
        &["score", &model, wide.to_str().unwrap()],
        "wide.svm",
        "has 4 features, but the model",
    );
}

/// A model that names its classes (as the Python package's `save_model` writes one for labels other
/// than ±1): `predict` prints the names and `score` reads them, numbers by value.
#[test]
fn a_model_that_names_its_classes_predicts_and_scores_in_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let (model, _) = train_and_save(&dir, &data("seed004.csv"), &["--bias", "classic"]);
    let mut file = ModelFile::load(&model).unwrap();
    let linear = file.model.linear().unwrap().clone();
    file.model = novikoff::model::Model::Linear(linear.with_classes("0", "yes, sir").unwrap());
    let named = dir.path().join("named.json");
    file.save(&named).unwrap();
    let named = named.to_str().unwrap();

    // seed004's rows relabelled: -1 as `0` (once spelt `0.0`), +1 as `yes, sir`.
    let text = std::fs::read_to_string(data("seed004.csv")).unwrap();
    let relabelled = text
        .replacen(",-1\n", ",0.0\n", 1)
        .replace(",-1\n", ",0\n")
        .replace(",1\n", ",\"yes, sir\"\n");
    let named_data = write(&dir, "named.csv", &relabelled);
    let named_data = named_data.to_str().unwrap();

    let plain = stdout(&novikoff(&["predict", &model, &data("seed004.csv")]));
    let printed = stdout(&novikoff(&["predict", named, named_data]));
    let expected = plain
        .replace("\n-1,", "\n0,")
        .replace("\n1,", "\n\"yes, sir\",");
    assert_eq!(printed, expected);
    assert!(printed.starts_with("prediction,decision\n0,-2\n\"yes, sir\",4\n"));
    // `predict` drops the labels, so new data may carry any (here seed004's own ±1).
    assert_eq!(
        stdout(&novikoff(&["predict", named, &data("seed004.csv")])),
        expected
    );

    let score = json(&novikoff(&["score", named, named_data, "--format", "json"]));
    let plain_score = json(&novikoff(&[
        "score",
        &model,
        &data("seed004.csv"),
        "--format",
        "json",
    ]));
    assert_eq!(score["classes"], serde_json::json!(["0", "yes, sir"]));
    for field in ["accuracy", "confusion", "margin", "n"] {
        assert_eq!(score[field], plain_score[field], "{field}");
    }
    assert!(plain_score.get("classes").is_none());
    let table = stdout(&novikoff(&["score", named, named_data]));
    assert!(table.contains("−1 = 0, +1 = yes, sir"), "{table}");

    // Labels of neither class, and a --positive that would contradict the model, are refused.
    refused(
        &["score", named, &data("seed004.csv")],
        "seed004.csv:2",
        "the class `-1` does not occur",
    );
    refused(
        &["score", named, named_data, "--positive", "0"],
        "--positive",
        "names its classes (`yes, sir` is +1, `0` is −1)",
    );
}

/// `predict` reads the labels and drops them, for a model of any kind: new data may carry any
/// label, and `--positive`, which would be ignored, is refused.
#[test]
fn predict_drops_the_labels_and_refuses_positive() {
    let dir = tempfile::tempdir().unwrap();
    let (model, _) = train_and_save(&dir, &data("seed004.csv"), &["--bias", "classic"]);
    let text = std::fs::read_to_string(data("seed004.csv")).unwrap();
    let unknown = write(
        &dir,
        "unknown.csv",
        text.replace(",1\n", ",?\n").replace(",-1\n", ",?\n"),
    );
    assert_eq!(
        stdout(&novikoff(&["predict", &model, unknown.to_str().unwrap()])),
        stdout(&novikoff(&["predict", &model, &data("seed004.csv")]))
    );
    refused(
        &["predict", &model, &data("seed004.csv"), "--positive", "1"],
        "--positive",
        "predict reads no labels",
    );
}
