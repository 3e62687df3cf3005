//! `train --multiclass ovr --kernel … --save`, `predict` and `score` through the real binary: a saved
//! multi-class kernel model scores every class with the bits of the library's one-vs-rest run on
//! held-out rows, and models edited by hand exit 2 naming the file.

mod common;

use common::{edited_models_are_refused, four_classes, json, novikoff, stdout};
use novikoff::dataset::MulticlassDataset;
use novikoff::io::{ReadOptions, Storage};
use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams};
use novikoff::model::{Model, ModelFile};
use novikoff::multiclass::{BinaryLearner, OneVsRest};
use novikoff::perceptron::BiasRule;

/// Four classes in five dimensions, margin small enough that some classes stop at the cap.
fn generated(dir: &tempfile::TempDir, name: &str, seed: &str) -> String {
    four_classes(dir, name, 240, 5, seed)
}

fn read(file: &str, storage: Storage, classes: Option<&[String]>) -> MulticlassDataset {
    let options = ReadOptions::default().storage(storage);
    match classes {
        Some(classes) => novikoff::io::open_multiclass_as(file, &options, classes),
        None => novikoff::io::open_multiclass(file, &options),
    }
    .unwrap()
}

/// Every class's score that `novikoff predict` printed, as bits, a row at a time.
fn printed_scores(csv: &str) -> Vec<Vec<u64>> {
    csv.lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .skip(1)
                .map(|v| v.parse::<f64>().unwrap().to_bits())
                .collect()
        })
        .collect()
}

fn bits(scores: &ndarray::Array2<f64>) -> Vec<Vec<u64>> {
    scores
        .rows()
        .into_iter()
        .map(|row| row.iter().map(|v| v.to_bits()).collect())
        .collect()
}

#[test]
fn a_saved_multiclass_kernel_model_scores_with_the_bits_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let train = generated(&dir, "train.svm", "3");
    let test = generated(&dir, "test.svm", "4");
    let model = dir.path().join("model.json").display().to_string();
    let kernels: [(&[&str], KernelParams); 2] = [
        (
            &["--kernel", "poly", "--degree", "2", "--kernel-gamma", "0.7"],
            KernelParams::polynomial(2).gamma(Gamma::Value(0.7)),
        ),
        (
            &["--kernel", "rbf", "--kernel-gamma", "scale"],
            KernelParams::rbf().gamma(Gamma::Scale),
        ),
    ];
    for (storage, storage_flag) in [(Storage::Dense, "dense"), (Storage::Sparse, "sparse")] {
        let training = read(&train, storage, None);
        let held_out = read(&test, storage, Some(training.classes()));
        for (flags, kernel) in &kernels {
            for (rule, rule_flag) in [(BiasRule::None, "none"), (BiasRule::Classic, "classic")] {
                let mut args = vec![
                    "train",
                    &train,
                    "--multiclass",
                    "ovr",
                    "--storage",
                    storage_flag,
                    "--bias",
                    rule_flag,
                    "--max-epochs",
                    "3",
                    "--save",
                    &model,
                    "--format",
                    "json",
                ];
                args.extend(*flags);
                let run = json(&novikoff(&args));
                let what = format!("{storage_flag} {flags:?} {rule_flag}");

                let kernel = kernel.clone().check_for(training.features()).unwrap();
                let learner = KernelPerceptronParams::new(kernel).bias(rule).max_epochs(3);
                let ovr = OneVsRest::fit(&training, &BinaryLearner::Kernel(learner)).unwrap();
                assert_eq!(run["run"]["mistakes"], ovr.mistakes, "{what}");

                let saved = ModelFile::load(&model).unwrap();
                assert_eq!(saved.model.kind(), "multiclass_kernel", "{what}");
                let Model::MulticlassKernel(saved_model) = &saved.model else {
                    panic!("{what}: not a multi-class kernel model");
                };
                assert_eq!(saved_model.classes(), training.classes());
                let provenance = saved.provenance.unwrap();
                assert_eq!(provenance.learner, format!("kernel:{}", flags[1]));
                assert_eq!(provenance.run.mistakes, ovr.mistakes, "{what}");
                assert_eq!(provenance.data.class_counts, Some(training.class_counts()));

                let want = ovr.decision_function(held_out.features()).unwrap();
                assert_eq!(
                    bits(
                        &saved_model
                            .decision_function_dataset(held_out.features())
                            .unwrap()
                    ),
                    bits(&want),
                    "{what}"
                );
                let printed = stdout(&novikoff(&[
                    "predict",
                    &model,
                    &test,
                    "--storage",
                    storage_flag,
                ]));
                assert_eq!(printed_scores(&printed), bits(&want), "{what}");

                let score = json(&novikoff(&[
                    "score",
                    &model,
                    &test,
                    "--storage",
                    storage_flag,
                    "--format",
                    "json",
                ]));
                let confusion = ovr.confusion(&held_out).unwrap();
                assert_eq!(
                    score["accuracy"].as_f64(),
                    Some(confusion.accuracy()),
                    "{what}"
                );
                assert_eq!(
                    score["confusion"]["counts"],
                    serde_json::json!(confusion.counts)
                );
                assert_eq!(
                    (&score["kind"], &score["method"], &score["kernel"]),
                    (&"multiclass_kernel".into(), &"ovr".into(), &flags[1].into())
                );
            }
        }
    }
}

#[test]
fn a_linear_kernel_saves_the_classes_explicit_weights() {
    let dir = tempfile::tempdir().unwrap();
    let train = generated(&dir, "train.csv", "5");
    let test = generated(&dir, "test.csv", "6");
    let model = dir.path().join("model.json").display().to_string();
    novikoff(&[
        "train",
        &train,
        "--multiclass",
        "ovr",
        "--kernel",
        "linear",
        "--bias",
        "classic",
        "--max-epochs",
        "3",
        "--save",
        &model,
    ]);
    let saved = ModelFile::load(&model).unwrap();
    assert_eq!(saved.model.kind(), "multiclass");
    assert_eq!(saved.provenance.unwrap().learner, "kernel:linear");

    let training = read(&train, Storage::Dense, None);
    let held_out = read(&test, Storage::Dense, Some(training.classes()));
    let learner = KernelPerceptronParams::new(KernelParams::linear().check().unwrap())
        .bias(BiasRule::Classic)
        .max_epochs(3);
    let ovr = OneVsRest::fit(&training, &BinaryLearner::Kernel(learner)).unwrap();
    let want = ovr.decision_function(held_out.features()).unwrap();
    let printed = stdout(&novikoff(&["predict", &model, &test]));
    assert_eq!(printed_scores(&printed), bits(&want));
}

#[test]
fn an_edited_multiclass_kernel_model_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let train = generated(&dir, "train.csv", "7");
    let model = dir.path().join("model.json").display().to_string();
    novikoff(&[
        "train",
        &train,
        "--multiclass",
        "ovr",
        "--kernel",
        "rbf",
        "--kernel-gamma",
        "0.5",
        "--max-epochs",
        "2",
        "--save",
        &model,
    ]);
    let text = std::fs::read_to_string(&model).unwrap();
    let edits = [
        (
            text.replacen("\"method\": \"ovr\"", "\"method\": \"kesler\"", 1),
            "the multi-class perceptron works in the input space only",
        ),
        (
            text.replacen("\"n_features\": 5", "\"n_features\": 4", 1),
            "n_features is 4 but the classes' models take 5",
        ),
        (text.replacen("\"0\",", "", 1), "4 models for 3 classes"),
        (
            text.replacen("\"1\",", "\"0\",", 1),
            "the class `0` is named twice",
        ),
        (
            text.replacen("\"classes\"", "\"labels\"", 1),
            "unknown field `labels`",
        ),
        (
            text.replacen("\"gamma\": 0.5", "\"gamma\": -0.5", 1),
            "kernel_gamma",
        ),
    ];
    edited_models_are_refused(&dir, &text, &train, &edits);
}
