//! Saved models: a model written and read back predicts with the bits of the run that made it, on dense
//! and sparse data, for every bias rule and summation order; every kind of bad file is refused by name.

use ndarray::{Array1, Array2};
use novikoff::model::{Confusion, LinearModel, Model, ModelFile};
use novikoff::perceptron::{BiasRule, Order, PerceptronParams};
use novikoff::simd::Summation;
use novikoff::{Dataset, Error, margin, rng};
use rand::Rng;

/// Rows with awkward values (many binades, few exact decimals), mostly zeros, labelled by a random
/// hyperplane with a few labels flipped, so that runs end with weights no short decimal writes.
fn awkward(seed: u64, n: usize, d: usize) -> Dataset {
    let mut stream = rng::from_seed(seed);
    let u: Vec<f64> = (0..d).map(|_| stream.random_range(-1.0..1.0)).collect();
    let mut x = Array2::zeros((n, d));
    let mut y = Array1::zeros(n);
    for i in 0..n {
        for j in 0..d {
            if stream.random_bool(0.4) {
                let scale = 2f64.powi(stream.random_range(-20..20));
                x[[i, j]] = stream.random_range(-1.0..1.0) * scale / 3.0;
            }
        }
        let s: f64 = (0..d).map(|j| u[j] * x[[i, j]]).sum();
        let flip = stream.random_bool(0.05);
        y[i] = if (s >= 0.0) != flip { 1.0 } else { -1.0 };
    }
    Dataset::new(x, y).unwrap()
}

#[test]
fn a_saved_model_predicts_with_the_bits_of_its_run_dense_and_sparse() {
    let mut checked = 0;
    for seed in 0..4 {
        let dense = awkward(seed, 60, 37);
        let sparse = dense.to_sparse();
        for data in [&dense, &sparse] {
            for rule in [
                BiasRule::None,
                BiasRule::Classic,
                BiasRule::Novikoff,
                BiasRule::Constant(0.37),
            ] {
                for summation in [Summation::Sequential, Summation::Fast] {
                    let learner = PerceptronParams::new()
                        .bias(rule)
                        .eta(0.1)
                        .order(Order::Shuffle { seed })
                        .max_epochs(7)
                        .summation(summation)
                        .check()
                        .unwrap();
                    let fit = learner.fit(data).unwrap();
                    let file = ModelFile::from_fit(&fit, &learner, data, Some("awkward")).unwrap();
                    let again = ModelFile::from_json(&file.to_json().unwrap(), "m.json").unwrap();
                    assert_eq!(again, file);
                    let model = again.model.linear().unwrap();
                    let bits = |a: Array1<f64>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        model.w().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        bits(fit.w.clone())
                    );
                    assert_eq!(model.b().to_bits(), fit.b.to_bits());
                    // On the data of the run (its storage), and on the other storage's rows.
                    for probe in [&dense, &sparse] {
                        assert_eq!(
                            bits(model.decision_function_dataset(probe).unwrap()),
                            bits(fit.decision_function_dataset(probe).unwrap())
                        );
                    }
                    assert_eq!(
                        bits(model.decision_function(dense.x()).unwrap()),
                        bits(fit.decision_function(dense.x()).unwrap())
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 4 * 2 * 4 * 2);
}

#[test]
fn the_weights_are_not_short_decimals_so_the_round_trip_is_a_real_test() {
    let data = awkward(7, 60, 37);
    let learner = PerceptronParams::new()
        .bias(BiasRule::Novikoff)
        .eta(0.1)
        .max_epochs(7)
        .check()
        .unwrap();
    let fit = learner.fit(&data).unwrap();
    let text = ModelFile::from_fit(&fit, &learner, &data, None)
        .unwrap()
        .to_json()
        .unwrap();
    // At least one weight needs 17 significant digits: a parser off by one ulp would be caught.
    let long = fit
        .w
        .iter()
        .filter(|v| format!("{v:e}").trim_start_matches('-').len() >= 20)
        .count();
    assert!(long > 0, "{text}");
}

#[test]
fn save_and_load_go_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = awkward(3, 40, 5);
    let learner = PerceptronParams::new()
        .bias(BiasRule::Classic)
        .check()
        .unwrap();
    let fit = learner.fit(&data).unwrap();
    let path = dir.path().join("model.json");
    let file = ModelFile::from_fit(&fit, &learner, &data, Some("d.csv")).unwrap();
    file.save(&path).unwrap();
    let loaded = ModelFile::load(&path).unwrap();
    assert_eq!(loaded, file);
    let provenance = loaded.provenance.unwrap();
    assert_eq!(provenance.params.bias, "classic");
    assert_eq!((provenance.data.n, provenance.data.d), (40, 5));
    assert_eq!(
        provenance.data.radius.map(f64::to_bits),
        Some(data.radius().to_bits())
    );
    assert_eq!(provenance.run.mistakes, fit.mistakes);
}

/// A valid file's text, to break in the tests below.
fn valid_text() -> String {
    let model =
        LinearModel::with_bias_weight(vec![0.5, -1.25], 2.0, 0.75, Summation::Fast).unwrap();
    ModelFile::new(Model::Linear(model), None)
        .to_json()
        .unwrap()
}

fn refusal(text: &str) -> String {
    let error = ModelFile::from_json(text, "m.json").unwrap_err();
    assert!(error.is_input(), "{error:?}");
    assert!(matches!(error, Error::Parse { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.starts_with("m.json"), "{message}");
    message
}

#[test]
fn bad_files_are_refused_by_name_with_the_reason() {
    let valid = valid_text();
    assert!(ModelFile::from_json(&valid, "m.json").is_ok());
    let cases: Vec<(String, &str)> = vec![
        (valid[..valid.len() / 2].to_string(), "does not parse"),
        ("[1, 2]".into(), "not a JSON object"),
        ("{}".into(), "no field \"format\""),
        (
            valid.replace("novikoff-model", "sklearn-model"),
            "no field \"format\"",
        ),
        (
            valid.replace("\"format_version\": 1", "\"format_version\": 2"),
            "format version 2 is newer",
        ),
        (
            valid.replace("\"format_version\": 1", "\"format_version\": 0"),
            "whole number from 1",
        ),
        (
            valid.replace("\"format_version\": 1", "\"format_version\": \"1\""),
            "whole number from 1",
        ),
        (
            valid.replace("\"format_version\": 1,", ""),
            "format_version is missing",
        ),
        (
            valid.replace("\"linear\"", "\"averaged\""),
            "model kind `averaged` is not one",
        ),
        (
            valid.replace("\"kind\": \"linear\",", ""),
            "no field \"kind\"",
        ),
        (
            valid.replace("\"n_features\": 2", "\"n_features\": 3"),
            "n_features is 3 but w has 2 values",
        ),
        (
            valid.replace("\"b\": 1.5", "\"b\": 1.25"),
            "is not bias_constant × bias_weight",
        ),
        (valid.replace("0.5,", "null,"), "invalid model"),
        (valid.replace("0.5,", "1e999,"), "number out of range"),
        (
            valid.replace("\"summation\"", "\"averaging\": true, \"summation\""),
            "unknown field `averaging`",
        ),
        (
            valid.replace("\"fast\"", "\"pairwise\""),
            "unknown variant `pairwise`",
        ),
        (valid.replace("\"w\"", "\"weights\""), "unknown field"),
    ];
    for (text, expected) in cases {
        let message = refusal(&text);
        assert!(message.contains(expected), "{message} (wanted {expected})");
    }
    // A parse error names the line and the column.
    let message = refusal(&valid.replace("0.5,", "0.5,,"));
    assert!(message.starts_with("m.json:9:"), "{message}");
}

#[test]
fn a_file_that_is_not_there_is_an_input_error_naming_it() {
    let error = ModelFile::load("no/such/dir/model.json").unwrap_err();
    assert!(error.is_input());
    assert!(error.to_string().starts_with("no/such/dir/model.json"));
}

#[test]
fn a_model_of_another_dimension_is_refused() {
    let model = LinearModel::new(vec![1.0, 2.0], 0.0, Summation::Fast).unwrap();
    let data = awkward(1, 10, 3);
    for error in [
        model.decision_function_dataset(&data).unwrap_err(),
        model.decision_function(data.x()).unwrap_err(),
        model.score(&data).unwrap_err(),
    ] {
        assert!(
            matches!(
                error,
                Error::Shape {
                    expected: 2,
                    found: 3,
                    ..
                }
            ),
            "{error:?}"
        );
    }
}

#[test]
fn a_run_whose_weights_overflowed_is_not_saved() {
    let data = Dataset::new(
        ndarray::array![[1e308, 1e308], [-1e308, 1e308]],
        ndarray::array![1.0, -1.0],
    )
    .unwrap();
    let learner = PerceptronParams::new()
        .eta(1e10)
        .max_epochs(50)
        .check()
        .unwrap();
    let fit = learner.fit(&data).unwrap();
    assert!(fit.w.iter().any(|v| !v.is_finite()), "{fit:?}");
    let error = ModelFile::from_fit(&fit, &learner, &data, None).unwrap_err();
    assert!(error.to_string().contains("must be finite"), "{error}");
}

#[test]
fn the_score_counts_the_confusion_and_takes_the_margin_from_its_owner() {
    let data = awkward(5, 80, 6);
    let learner = PerceptronParams::new()
        .bias(BiasRule::Classic)
        .max_epochs(3)
        .check()
        .unwrap();
    let fit = learner.fit(&data).unwrap();
    let model = LinearModel::from_fit(&fit).unwrap();
    let score = model.score(&data).unwrap();
    let predicted = fit.predict_dataset(&data).unwrap();
    let expected = Confusion::count(predicted.as_slice().unwrap(), data.labels());
    assert_eq!(score.confusion, expected);
    assert_eq!(score.n, 80);
    assert_eq!(score.accuracy, fit.accuracy(&data).unwrap());
    assert_eq!(
        score.margin,
        Some(margin::margin(&data, fit.w.view(), fit.b).unwrap())
    );
    // On the sparse copy, the same counts and the same margin.
    let sparse = model.score(&data.to_sparse()).unwrap();
    assert_eq!(sparse.confusion, score.confusion);
    assert_eq!(sparse.margin, score.margin);
    // w = 0 has no hyperplane, so no margin, and predicts +1 everywhere (sign(0) = +1).
    let zero = LinearModel::new(vec![0.0; 6], 0.0, Summation::Fast).unwrap();
    let score = zero.score(&data).unwrap();
    assert_eq!(score.margin, None);
    assert_eq!(
        score.confusion.true_negative + score.confusion.false_negative,
        0
    );
}

#[test]
fn a_model_that_names_its_classes_keeps_them_and_bad_names_are_refused() {
    let named = LinearModel::with_bias_weight(vec![0.5, -1.25], 2.0, 0.75, Summation::Fast)
        .unwrap()
        .with_classes("ham", "spam, \"canned\"")
        .unwrap();
    let text = ModelFile::new(Model::Linear(named.clone()), None)
        .to_json()
        .unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["model"]["classes"][1], "spam, \"canned\"");
    let again = ModelFile::from_json(&text, "m.json").unwrap();
    assert_eq!(again.model.linear(), Some(&named));
    assert_eq!(
        again.model.linear().unwrap().classes().unwrap(),
        &["ham".to_string(), "spam, \"canned\"".to_string()]
    );
    // A model without names writes no `classes` field, so files of earlier versions read the same.
    assert!(!valid_text().contains("classes"));

    for (replacement, expected) in [
        (r#"["ham", "ham"]"#, "the class `ham` is named twice"),
        (r#"["", "spam"]"#, "class 0 has an empty name"),
        (r#"["ham"]"#, "invalid length 1"),
        (r#"["a", "b", "c"]"#, "invalid length 3"),
        (r#"[0, 1]"#, "invalid type"),
    ] {
        value["model"]["classes"] = serde_json::from_str(replacement).unwrap();
        let message = refusal(&value.to_string());
        assert!(message.contains(expected), "{message} (wanted {expected})");
    }

    // The classes of a multi-class model are its own; a class's model may not name two more.
    let class = |w: f64| LinearModel::new(vec![w, 0.0], 0.0, Summation::Fast).unwrap();
    let error = novikoff::model::MulticlassModel::new(
        novikoff::multiclass::Method::OneVsRest,
        vec!["a".into(), "b".into(), "c".into()],
        vec![class(1.0), named.clone(), class(-1.0)],
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the model of class `b` names classes of its own"),
        "{error}"
    );
}
