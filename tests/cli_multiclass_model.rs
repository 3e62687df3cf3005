//! `train --multiclass … --save`, `predict` and `score` through the real binary: a saved multi-class
//! model scores every class with the bits of the library's run, and bad models and data exit 2 naming
//! the file.

mod common;

use common::{edited_models_are_refused, four_classes, json, novikoff, stdout, write};
use novikoff::dataset::MulticlassDataset;
use novikoff::io::{ReadOptions, Storage};
use novikoff::model::ModelFile;
use novikoff::multiclass::{BinaryLearner, Method, MulticlassPerceptronParams, OneVsRest};
use novikoff::perceptron::{BiasRule, Order, PerceptronParams, Variant};

/// Four classes in 6 dimensions, not separated in a few epochs, so that the runs stop at their cap
/// with weights that differ between the variants.
fn generated(dir: &tempfile::TempDir, name: &str, seed: &str) -> String {
    four_classes(dir, name, 400, 6, seed)
}

/// The scores `novikoff predict` printed: the predicted class of each row and its `k` scores.
fn predicted(csv: &str) -> (Vec<String>, Vec<String>, Vec<Vec<f64>>) {
    let mut lines = csv.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let (mut classes, mut scores) = (Vec::new(), Vec::new());
    for line in lines {
        let mut fields = line.split(',');
        classes.push(fields.next().unwrap().to_string());
        scores.push(fields.map(|f| f.parse::<f64>().unwrap()).collect());
    }
    (header, classes, scores)
}

fn read(file: &str, storage: Storage) -> MulticlassDataset {
    novikoff::io::open_multiclass(file, &ReadOptions::default().storage(storage)).unwrap()
}

struct Flags {
    cli: Vec<&'static str>,
    bias: BiasRule,
    epochs: usize,
    order: Order,
    variant: Variant,
}

fn flag_sets() -> Vec<Flags> {
    let plain = |cli, bias| Flags {
        cli,
        bias,
        epochs: 3,
        order: Order::Cyclic,
        variant: Variant::Perceptron,
    };
    vec![
        plain(vec!["--max-epochs", "3"], BiasRule::None),
        plain(
            vec!["--max-epochs", "3", "--bias", "classic"],
            BiasRule::Classic,
        ),
        plain(
            vec!["--max-epochs", "3", "--bias", "novikoff"],
            BiasRule::Novikoff,
        ),
        Flags {
            cli: vec![
                "--max-epochs",
                "4",
                "--bias",
                "classic",
                "--order",
                "shuffle",
                "--seed",
                "9",
            ],
            bias: BiasRule::Classic,
            epochs: 4,
            order: Order::Shuffle { seed: 9 },
            variant: Variant::Perceptron,
        },
    ]
}

/// One-vs-rest's variants whose predictor is not the last weights.
fn variant_flag_sets() -> Vec<Flags> {
    [("averaged", Variant::Averaged), ("pocket", Variant::Pocket)]
        .into_iter()
        .map(|(name, variant)| Flags {
            cli: vec!["--max-epochs", "3", "--bias", "classic", "--variant", name],
            bias: BiasRule::Classic,
            epochs: 3,
            order: Order::Cyclic,
            variant,
        })
        .collect()
}

#[test]
fn a_saved_multiclass_model_scores_with_the_bits_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let train = generated(&dir, "train.csv", "3");
    let test = generated(&dir, "test.svm", "4");
    let model = dir.path().join("model.json").display().to_string();
    for storage in [Storage::Dense, Storage::Sparse] {
        let storage_flag = if storage == Storage::Dense {
            "dense"
        } else {
            "sparse"
        };
        let training = read(&train, storage);
        let held_out = novikoff::io::open_multiclass_as(
            &test,
            &ReadOptions::default()
                .storage(storage)
                .n_features(training.n_features()),
            training.classes(),
        )
        .unwrap();
        for method in [Method::Kesler, Method::OneVsRest] {
            let mut sets = flag_sets();
            if method == Method::OneVsRest {
                sets.extend(variant_flag_sets());
            }
            for flags in sets {
                // The run that saves the model, and the same run scoring the held-out rows itself.
                let train_json = |then: [&str; 2]| {
                    let mut args = vec!["train", &train, "--multiclass", method.name()];
                    args.extend(["--storage", storage_flag, "--format", "json"]);
                    args.extend(then);
                    args.extend(&flags.cli);
                    json(&novikoff(&args))
                };
                let run = train_json(["--save", &model]);
                let what = format!("{storage_flag} {} {:?}", method.name(), flags.cli);
                let saved = ModelFile::load(&model).unwrap();
                let multiclass = saved.model.multiclass().unwrap();
                assert_eq!(multiclass.method(), method, "{what}");
                assert_eq!(multiclass.classes(), ["0", "1", "2", "3"], "{what}");
                let provenance = saved.provenance.unwrap();
                assert_eq!(
                    provenance.run.mistakes,
                    run["run"]["mistakes"].as_u64().unwrap(),
                    "{what}"
                );
                assert_eq!(
                    provenance.data.class_counts,
                    Some(training.class_counts()),
                    "{what}"
                );
                assert_eq!(provenance.params.bias, flags.bias.name(), "{what}");
                assert_eq!(provenance.learner, flags.variant.name(), "{what}");

                // The held-out rows, scored by the CLI from the file and by the library's run.
                let printed = stdout(&novikoff(&[
                    "predict",
                    &model,
                    &test,
                    "--storage",
                    storage_flag,
                ]));
                let (header, classes, scores) = predicted(&printed);
                assert_eq!(
                    header,
                    [
                        "prediction",
                        "decision:0",
                        "decision:1",
                        "decision:2",
                        "decision:3"
                    ],
                    "{what}"
                );
                let expected = library_scores(&training, &held_out, method, &flags);
                assert_eq!(scores.len(), held_out.n_samples(), "{what}");
                for (i, row) in scores.iter().enumerate() {
                    let bits: Vec<u64> = row.iter().map(|s| s.to_bits()).collect();
                    let want: Vec<u64> = expected.row(i).iter().map(|s| s.to_bits()).collect();
                    assert_eq!(bits, want, "{what}: row {i}");
                }
                let want_classes: Vec<String> = multiclass
                    .predict_dataset(held_out.features())
                    .unwrap()
                    .iter()
                    .map(|&r| r.to_string())
                    .collect();
                assert_eq!(classes, want_classes, "{what}");

                // `score` agrees with the run's own `--test`.
                let tested = train_json(["--test", &test]);
                let score = json(&novikoff(&[
                    "score",
                    &model,
                    &test,
                    "--storage",
                    storage_flag,
                    "--features",
                    "6",
                    "--format",
                    "json",
                ]));
                assert_eq!(score["kind"], "multiclass", "{what}");
                assert_eq!(score["method"], method.name(), "{what}");
                assert_eq!(score["accuracy"], tested["test"]["accuracy"], "{what}");
                assert_eq!(score["confusion"], tested["test"]["confusion"], "{what}");
                assert_eq!(score["n"], 400, "{what}");
            }
        }
    }
}

/// The library's run that the CLI's flags name, trained on `training` and scoring `held_out`, for
/// comparison bit for bit.
fn library_scores(
    training: &MulticlassDataset,
    held_out: &MulticlassDataset,
    method: Method,
    flags: &Flags,
) -> ndarray::Array2<f64> {
    let params = PerceptronParams::new()
        .bias(flags.bias)
        .max_epochs(flags.epochs)
        .order(flags.order.clone())
        .variant(flags.variant);
    match method {
        Method::Kesler => MulticlassPerceptronParams::from_perceptron(&params)
            .unwrap()
            .check()
            .unwrap()
            .fit(training)
            .unwrap()
            .decision_function(held_out.features())
            .unwrap(),
        _ => OneVsRest::fit(training, &BinaryLearner::Linear(params))
            .unwrap()
            .decision_function(held_out.features())
            .unwrap(),
    }
}

fn refused(args: &[&str], names: &str, says: &str) {
    let output = novikoff(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(names), "{stderr} (should name {names})");
    assert!(stderr.contains(says), "{stderr} (should say {says})");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.stdout.is_empty(), "{args:?}");
}

#[test]
fn named_classes_predict_on_any_labels_and_bad_files_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let train = write(
        &dir,
        "animals.csv",
        "a,b,label\n2,0,cat\n0,2,dog\n-2,-2,emu\n3,0.5,cat\n0.5,3,dog\n-3,-2.5,emu\n",
    );
    let train = train.to_str().unwrap();
    let model = dir.path().join("animals.json").display().to_string();
    let run = json(&novikoff(&[
        "train",
        train,
        "--multiclass",
        "kesler",
        "--bias",
        "classic",
        "--save",
        &model,
        "--format",
        "json",
    ]));
    assert_eq!(run["accuracy"], 1.0);

    // `predict` reads the labels and drops them: unknown classes, or one class, are fine.
    let new = write(&dir, "new.csv", "a,b,label\n4,0,?\n0,4,?\n-4,-4,?\n");
    let (header, classes, _) = predicted(&stdout(&novikoff(&[
        "predict",
        &model,
        new.to_str().unwrap(),
    ])));
    assert_eq!(
        header,
        ["prediction", "decision:cat", "decision:dog", "decision:emu"]
    );
    assert_eq!(classes, ["cat", "dog", "emu"]);
    let out = dir.path().join("predictions.csv");
    let printed = novikoff(&[
        "predict",
        &model,
        new.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(printed.status.success() && printed.stdout.is_empty());
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("prediction,decision:cat")
    );

    // `score` reads the labels against the model's classes.
    let table = stdout(&novikoff(&["score", &model, train]));
    assert!(table.contains("accuracy  1"), "{table}");
    assert!(table.contains("cat               2    0    0"), "{table}");
    refused(
        &["score", &model, new.to_str().unwrap()],
        "new.csv:2",
        "the class `?` does not occur in the training data",
    );
    refused(
        &["score", &model, train, "--positive", "cat"],
        "--positive",
        "drop one",
    );
    let narrow = write(&dir, "narrow.csv", "a,label\n1,cat\n2,dog\n");
    for command in ["predict", "score"] {
        refused(
            &[command, &model, narrow.to_str().unwrap()],
            "narrow.csv",
            "has 1 features, but the model",
        );
    }

    // A model file edited by hand is refused with the file and the line.
    let text = std::fs::read_to_string(&model).unwrap();
    let edits = [
        (
            text.replacen("\"emu\"", "\"cat\"", 1),
            "the class `cat` is named twice",
        ),
        (
            text.replacen("      \"emu\"\n", "", 1)
                .replacen("\"dog\",", "\"dog\"", 1),
            "3 models for 2 classes",
        ),
        (
            text.replacen(
                "\"n_features\": 2,\n    \"classes\"",
                "\"n_features\": 3,\n    \"classes\"",
                1,
            ),
            "n_features is 3 but the classes' models take 2",
        ),
        (
            text.replacen("\"bias_weight\"", "\"bias_wieght\"", 1),
            "unknown field `bias_wieght`",
        ),
        (
            text.replacen("\"kesler\"", "\"ovo\"", 1),
            "unknown variant `ovo`",
        ),
    ];
    edited_models_are_refused(&dir, &text, train, &edits);
}

#[test]
fn a_voted_save_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let train = generated(&dir, "train.csv", "5");
    let model = dir.path().join("model.json");
    for extra in [
        vec!["--multiclass", "ovr", "--variant", "voted"],
        vec!["--variant", "voted"],
    ] {
        let mut args = vec!["train", &train, "--save", model.to_str().unwrap()];
        args.extend(&extra);
        refused(&args, "--save", "");
        assert!(!model.exists(), "{extra:?}");
    }
}

#[test]
fn a_failed_multiclass_save_keeps_the_report_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let train = generated(&dir, "train.csv", "6");
    for method in ["kesler", "ovr"] {
        let output = novikoff(&[
            "train",
            &train,
            "--multiclass",
            method,
            "--max-epochs",
            "2",
            "--save",
            "/no/such/dir/model.json",
        ]);
        assert_eq!(output.status.code(), Some(2), "{method}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("/no/such/dir/model.json"));
        assert!(String::from_utf8_lossy(&output.stdout).contains("confusion matrix"));
    }
}
