//! `train --kernel … --save`, `predict` and `score` through the real binary: a saved kernel model
//! predicts with the bits of the library's run on held-out rows, and bad models exit 2 naming the
//! file.

mod common;

use common::{edited_models_are_refused, json, novikoff, stdout, write};
use novikoff::io::{ReadOptions, Storage};
use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams};
use novikoff::model::ModelFile;
use novikoff::perceptron::BiasRule;

/// A noisy set, so that the runs stop at their cap with many support vectors.
fn generated(dir: &tempfile::TempDir, name: &str, seed: &str) -> String {
    let file = dir.path().join(name).display().to_string();
    let output = novikoff(&[
        "generate", "noisy", "--n", "300", "--d", "5", "--margin", "0.05", "--flip", "0.1",
        "--seed", seed, "--out", &file,
    ]);
    assert!(output.status.success(), "{output:?}");
    file
}

fn read(file: &str, storage: Storage) -> novikoff::Dataset {
    novikoff::io::open(file, &ReadOptions::default().storage(storage)).unwrap()
}

/// The decision values `novikoff predict` printed.
fn decisions(csv: &str) -> Vec<u64> {
    csv.lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .nth(1)
                .unwrap()
                .parse::<f64>()
                .unwrap()
                .to_bits()
        })
        .collect()
}

#[test]
fn a_saved_kernel_model_predicts_with_the_bits_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let train = generated(&dir, "train.svm", "3");
    let test = generated(&dir, "test.svm", "4");
    let model = dir.path().join("model.json").display().to_string();
    let kernels: [(&[&str], KernelParams); 3] = [
        (
            &[
                "--kernel",
                "poly",
                "--degree",
                "3",
                "--coef0",
                "0.5",
                "--kernel-gamma",
                "0.7",
            ],
            KernelParams::polynomial(3)
                .coef0(0.5)
                .gamma(Gamma::Value(0.7)),
        ),
        (
            &["--kernel", "rbf", "--kernel-gamma", "1.3"],
            KernelParams::rbf().gamma(Gamma::Value(1.3)),
        ),
        (
            &["--kernel", "rbf", "--kernel-gamma", "scale"],
            KernelParams::rbf().gamma(Gamma::Scale),
        ),
    ];
    for (storage, storage_flag) in [(Storage::Dense, "dense"), (Storage::Sparse, "sparse")] {
        let training = read(&train, storage);
        let held_out = read(&test, storage);
        for (flags, kernel) in &kernels {
            for (rule, rule_flag) in [
                (BiasRule::None, "none"),
                (BiasRule::Classic, "classic"),
                (BiasRule::Novikoff, "novikoff"),
            ] {
                let mut args = vec![
                    "train",
                    &train,
                    "--storage",
                    storage_flag,
                    "--bias",
                    rule_flag,
                    "--max-epochs",
                    "4",
                    "--save",
                    &model,
                    "--format",
                    "json",
                ];
                args.extend(*flags);
                let run = json(&novikoff(&args));
                let what = format!("{storage_flag} {flags:?} {rule_flag}");
                let saved = ModelFile::load(&model).unwrap();
                assert_eq!(saved.model.kind(), "kernel", "{what}");
                let provenance = saved.provenance.unwrap();
                assert_eq!(provenance.run.mistakes, run["mistakes"].as_u64().unwrap());
                assert_eq!(provenance.learner, format!("kernel:{}", flags[1]));

                let fit = KernelPerceptronParams::new(kernel.clone().check_for(&training).unwrap())
                    .bias(rule)
                    .max_epochs(4)
                    .check()
                    .unwrap()
                    .fit(&training)
                    .unwrap();
                assert_eq!(run["support_vectors"], fit.support.len(), "{what}");
                let want: Vec<u64> = fit
                    .decision_function(&held_out)
                    .unwrap()
                    .iter()
                    .map(|v| v.to_bits())
                    .collect();
                let printed = stdout(&novikoff(&[
                    "predict",
                    &model,
                    &test,
                    "--storage",
                    storage_flag,
                ]));
                assert_eq!(decisions(&printed), want, "{what}");

                let score = json(&novikoff(&[
                    "score",
                    &model,
                    &test,
                    "--storage",
                    storage_flag,
                    "--format",
                    "json",
                ]));
                let accuracy = fit.accuracy(&held_out).unwrap();
                assert_eq!(score["accuracy"].as_f64().unwrap(), accuracy, "{what}");
                assert_eq!(score["kind"], "kernel");
                assert!(score["margin"].is_null());
            }
        }
    }
}

#[test]
fn a_linear_kernel_saves_its_explicit_weights_and_refusals_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let train = generated(&dir, "train.csv", "5");
    let model = dir.path().join("model.json");
    let model_path = model.to_str().unwrap();
    let run = json(&novikoff(&[
        "train",
        &train,
        "--kernel",
        "linear",
        "--bias",
        "classic",
        "--max-epochs",
        "3",
        "--save",
        model_path,
        "--format",
        "json",
    ]));
    let saved = ModelFile::load(&model).unwrap();
    let linear = saved
        .model
        .linear()
        .expect("a linear kernel's explicit weights are linear");
    assert_eq!(linear.b(), run["b"].as_f64().unwrap());
    std::fs::remove_file(&model).unwrap();

    // A precomputed kernel is refused before any work, and nothing is written.
    let gram = write(&dir, "gram.csv", "1,0\n0,1\n");
    let two = write(&dir, "two.csv", "a,y\n1,1\n-1,-1\n");
    let args = [
        "train",
        two.to_str().unwrap(),
        "--kernel",
        "precomputed",
        "--gram",
        gram.to_str().unwrap(),
        "--save",
        model_path,
    ];
    let output = novikoff(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains("--save"), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(!model.exists());

    // A kernel model edited by hand is refused with the file and the line.
    novikoff(&[
        "train",
        &train,
        "--kernel",
        "rbf",
        "--kernel-gamma",
        "0.5",
        "--max-epochs",
        "2",
        "--save",
        model_path,
    ]);
    let text = std::fs::read_to_string(&model).unwrap();
    let edits = [
        (
            text.replacen("\"gamma\": 0.5", "\"gamma\": -0.5", 1),
            "kernel_gamma",
        ),
        (
            text.replacen("\"coef\": [", "\"coef\": [1.0, ", 1),
            "coefficients for",
        ),
        (
            text.replacen("\"bias_constant\"", "\"bias_konstant\"", 1),
            "unknown field `bias_konstant`",
        ),
        (
            text.replacen("\"rbf\"", "\"sigmoid\"", 1),
            "unknown variant `sigmoid`",
        ),
        (
            text.replacen("\"n_features\": 5", "\"n_features\": 4", 1),
            "has 5 values, but n_features is 4",
        ),
    ];
    edited_models_are_refused(&dir, &text, &train, &edits);
}
