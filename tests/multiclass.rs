//! Multi-class learning: the multi-class perceptron against its lifted bound, one-vs-rest, reading
//! classes, and the refusals.

mod common;

use ndarray::{Array1, Array2};
use novikoff::dataset::MulticlassDataset;
use novikoff::generate::MulticlassParams;
use novikoff::io::{ReadOptions, open_multiclass, open_multiclass_as};
use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams};
use novikoff::margin::{Bias, MarginResult, MaxMarginParams};
use novikoff::multiclass::{
    self, BinaryLearner, ClassVerdict, LiftedGeometry, MulticlassPerceptronParams, OneVsRest,
};
use novikoff::perceptron::{BiasRule, Order, PerceptronParams};
use novikoff::simd::Summation;
use novikoff::{Dataset, Error};

fn generated(n: usize, d: usize, k: usize, margin: f64, seed: u64) -> MulticlassDataset {
    MulticlassParams::new(n, d, k)
        .margin(margin)
        .radius(1.0)
        .seed(seed)
        .generate()
        .unwrap()
        .data
}

#[test]
fn the_multiclass_perceptron_stays_under_the_lifted_bound_with_the_proof_checked() {
    let data = generated(150, 3, 4, 0.1, 3);
    for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
        for order in [Order::Cyclic, Order::Shuffle { seed: 5 }] {
            let params = MulticlassPerceptronParams::new().bias(rule).order(order);
            let verdict = multiclass::verify(&data, &params).unwrap();
            assert!(verdict.converged, "{rule:?}");
            assert_eq!(verdict.holds, Some(true), "{rule:?}");
            assert_eq!(
                verdict.invariants.holds(),
                Some(true),
                "{:?}",
                verdict.invariants
            );
            assert_eq!(verdict.invariants.updates, verdict.mistakes);
            assert_eq!(verdict.train_accuracy, 1.0);
            let [lower, upper] = verdict.gamma_bracket.unwrap();
            assert!(upper - lower <= 1e-6 * upper);
            // Kesler's radius is √2·R̂, and the two forms agree to rounding.
            let kesler = verdict.bounds[0].value.unwrap();
            let collins = verdict.bounds[1].value.unwrap();
            assert!(
                (kesler / collins - 1.0).abs() < 1e-12,
                "{kesler} vs {collins}"
            );
        }
    }
    // Through the origin the generator's W proves γ_Φ* ≥ 0.1, so the bound is at most 2R²/0.1² = 200.
    let verdict = multiclass::verify(&data, &MulticlassPerceptronParams::new()).unwrap();
    assert!(verdict.gamma_bracket.unwrap()[1] >= 0.1);
    assert!(verdict.bound.unwrap() <= 200.0 * (1.0 + 1e-9));
}

#[test]
fn two_classes_make_the_binary_perceptrons_mistakes() {
    // Small integers: the sums are exact, so the runs are comparable update by update.
    let mut state = 17u64;
    let mut next = || {
        state = novikoff::rng::splitmix64(state);
        (state % 7) as f64 - 3.0
    };
    let x = Array2::from_shape_fn((30, 2), |_| next());
    let y: Vec<usize> = (0..30)
        .map(|i| usize::from(x[[i, 0]] - 2.0 * x[[i, 1]] + 0.5 > 0.0))
        .collect();
    let data = MulticlassDataset::new(x.clone(), vec!["a".into(), "b".into()], y.clone()).unwrap();
    let binary = Dataset::new(
        x,
        y.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect(),
    )
    .unwrap();
    for rule in [BiasRule::None, BiasRule::Classic] {
        let multi = MulticlassPerceptronParams::new()
            .bias(rule)
            .summation(Summation::Sequential)
            .check()
            .unwrap()
            .fit(&data)
            .unwrap();
        let fit = PerceptronParams::new()
            .bias(rule)
            .summation(Summation::Sequential)
            .fit(&binary)
            .unwrap();
        assert_eq!(
            (multi.mistakes, multi.epochs),
            (fit.mistakes, fit.epochs),
            "{rule:?}"
        );
        // w₁ − w₀ is twice the binary weights (each update moves both by η).
        let difference = &multi.w.row(1) - &multi.w.row(0);
        assert_eq!(difference, &fit.w * 2.0);
    }
}

#[test]
fn the_lifted_vectors_of_sparse_and_dense_features_agree() {
    let data = generated(40, 5, 3, 0.05, 8);
    let sparse = MulticlassDataset::from_features(
        data.features().to_sparse(),
        data.classes().to_vec(),
        data.labels().to_vec(),
    )
    .unwrap();
    for c in [0.0, 1.0] {
        let a = data.kesler(c).unwrap().to_dense().unwrap();
        let b = sparse.kesler(c).unwrap().to_dense().unwrap();
        assert_eq!(a, b);
        assert_eq!(a.n_samples(), 40 * 2);
    }
    let dense_fit = MulticlassPerceptronParams::new()
        .check()
        .unwrap()
        .fit(&data)
        .unwrap();
    let sparse_fit = MulticlassPerceptronParams::new()
        .check()
        .unwrap()
        .fit(&sparse)
        .unwrap();
    assert_eq!(dense_fit.mistakes, sparse_fit.mistakes);
    let lifted = LiftedGeometry::compute(&sparse, 0.0).unwrap();
    assert!(lifted.margin.is_separable());
}

#[test]
fn sparse_rows_train_the_weights_of_dense_ones_in_the_sequential_order() {
    // Sparse rows train on the weights stored column by column, dense ones class by class; in the
    // Sequential order both sum each score left to right, so the runs agree update by update (up to
    // the sign of zero, which a dense update writes into every weight and a sparse one does not).
    let mut data = generated(300, 40, 7, 0.02, 9);
    let mut features = data.features().x().to_owned();
    features.mapv_inplace(|v| if v.abs() < 0.2 { 0.0 } else { v });
    data =
        MulticlassDataset::new(features, data.classes().to_vec(), data.labels().to_vec()).unwrap();
    let sparse = MulticlassDataset::from_features(
        data.features().to_sparse(),
        data.classes().to_vec(),
        data.labels().to_vec(),
    )
    .unwrap();
    assert!(sparse.features().is_sparse() && sparse.features().nnz() < 300 * 40 / 2);
    for rule in [BiasRule::None, BiasRule::Classic] {
        for order in [Order::Cyclic, Order::Shuffle { seed: 2 }] {
            let params = MulticlassPerceptronParams::new()
                .bias(rule)
                .order(order.clone())
                .summation(Summation::Sequential)
                .max_epochs(30)
                .check()
                .unwrap();
            let (a, b) = (params.fit(&data).unwrap(), params.fit(&sparse).unwrap());
            assert!(a.mistakes > 50, "{rule:?} {order:?}: {}", a.mistakes);
            assert_eq!(
                (a.mistakes, a.epochs),
                (b.mistakes, b.epochs),
                "{rule:?} {order:?}"
            );
            assert_eq!(a.w, b.w, "{rule:?} {order:?}");
            assert_eq!(a.b, b.b, "{rule:?} {order:?}");
            assert_eq!(
                a.predict(data.features()).unwrap(),
                b.predict(sparse.features()).unwrap()
            );
        }
    }
}

#[test]
fn the_margin_solvers_limits_reach_the_lifted_and_the_per_class_solves() {
    let data = generated(300, 40, 5, 0.02, 6);
    let default = MaxMarginParams::new(Bias::Free);
    let tiny = default.clone().working_set_memory(1024);
    let lifted = LiftedGeometry::compute_with(&data, 0.0, &default).unwrap();
    assert!(lifted.margin.is_separable());
    assert_eq!(
        LiftedGeometry::compute(&data, 0.0)
            .unwrap()
            .margin
            .bracket(),
        lifted.margin.bracket()
    );
    // One KiB holds no factorisation of the lifted support: the answer is inaccurate and names the
    // budget, never a false "not separable".
    let starved = LiftedGeometry::compute_with(&data, 0.0, &tiny).unwrap();
    match &starved.margin {
        MarginResult::Inaccurate { reason, .. } => assert!(reason.contains("budget"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert!(LiftedGeometry::compute_with(&data, 0.0, &tiny.clone().working_set_memory(0)).is_err());
    // One against the rest: each class's geometry under the same limits.
    let learner = BinaryLearner::Linear(PerceptronParams::new().bias(BiasRule::Classic));
    let gammas = |ovr: &OneVsRest| -> Vec<Option<f64>> {
        ovr.classes
            .iter()
            .map(|class| match &class.verdict {
                ClassVerdict::Linear(verdict) => verdict.gamma,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let checked = OneVsRest::verify_with(&data, &learner, &default).unwrap();
    let plain = OneVsRest::verify(&data, &learner).unwrap();
    assert_eq!(
        (checked.mistakes, checked.holds),
        (plain.mistakes, plain.holds)
    );
    assert_eq!(gammas(&checked), gammas(&plain));
    assert!(
        gammas(&checked).iter().all(Option::is_some),
        "{:?}",
        gammas(&checked)
    );
    let starved = OneVsRest::verify_with(&data, &learner, &tiny).unwrap();
    assert!(
        gammas(&starved).iter().any(Option::is_none),
        "{:?}",
        gammas(&starved)
    );
    assert_ne!(starved.holds, Some(false));
}

#[test]
fn one_vs_rest_checks_every_class_and_does_not_depend_on_the_thread_count() {
    let data = generated(120, 2, 3, 0.05, 4);
    let learner = BinaryLearner::Linear(PerceptronParams::new().bias(BiasRule::Classic));
    let parallel = OneVsRest::verify(&data, &learner).unwrap();
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| OneVsRest::verify(&data, &learner).unwrap());
    // The same runs (the wall-clock timings aside).
    assert_eq!(parallel.confusion, single.confusion);
    for (a, b) in parallel.classes.iter().zip(&single.classes) {
        let (ClassVerdict::Linear(a), ClassVerdict::Linear(b)) = (&a.verdict, &b.verdict) else {
            panic!("linear runs");
        };
        assert_eq!(
            (&a.fit.w, a.fit.b, a.fit.mistakes),
            (&b.fit.w, b.fit.b, b.fit.mistakes)
        );
        assert_eq!(a.bounds, b.bounds);
    }
    assert_eq!(parallel.classes.len(), 3);
    for class in &parallel.classes {
        assert!(class.verdict.holds() != Some(false));
    }
    assert_eq!(parallel.confusion.total(), 120);
    // The kernel perceptron as the binary learner.
    let rbf = KernelParams::rbf()
        .gamma(Gamma::Value(4.0))
        .check()
        .unwrap();
    let kernel = OneVsRest::verify(
        &data,
        &BinaryLearner::Kernel(KernelPerceptronParams::new(rbf)),
    )
    .unwrap();
    assert_eq!(kernel.holds, Some(true));
    assert_eq!(kernel.train_accuracy, 1.0);
}

#[test]
fn classes_are_read_sorted_and_a_test_file_is_mapped_onto_them() {
    let dir = tempfile::tempdir().unwrap();
    let train = common::write(
        &dir,
        "train.csv",
        "a,b,label\n1,0,10\n0,1,2\n1,1,10.0\n-1,0,x\n",
    );
    let test = common::write(&dir, "test.csv", "a,b,label\n1,0,x\n0,1,10\n");
    let data = open_multiclass(&train, &ReadOptions::default()).unwrap();
    assert_eq!(data.classes(), &["2", "10", "x"]);
    assert_eq!(data.labels(), &[1, 0, 1, 2]);
    let held_out = open_multiclass_as(&test, &ReadOptions::default(), data.classes()).unwrap();
    assert_eq!(held_out.labels(), &[2, 1]);
    let fit = MulticlassPerceptronParams::new()
        .check()
        .unwrap()
        .fit(&data)
        .unwrap();
    let confusion = fit.confusion(&held_out).unwrap();
    assert_eq!(confusion.total(), 2);
    // LIBSVM, with the same classes.
    let svm = common::write(&dir, "d.svm", "3 1:1\n1 2:1\n2 1:1 2:1\n3 1:-1\n");
    assert_eq!(
        open_multiclass(&svm, &ReadOptions::default())
            .unwrap()
            .classes(),
        &["1", "2", "3"]
    );
}

#[test]
fn one_class_and_unseen_classes_are_refused_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let one = common::write(&dir, "one.csv", "a,label\n1,cat\n2,cat\n");
    let err = open_multiclass(&one, &ReadOptions::default()).unwrap_err();
    assert!(err.is_input());
    assert!(
        err.to_string().contains("one.csv:2: every label is `cat`"),
        "{err}"
    );
    let train = common::write(&dir, "train.csv", "a,label\n1,cat\n2,dog\n");
    let test = common::write(&dir, "test.csv", "a,label\n1,cat\n2,dog\n3,emu\n");
    let data = open_multiclass(&train, &ReadOptions::default()).unwrap();
    let err = open_multiclass_as(&test, &ReadOptions::default(), data.classes()).unwrap_err();
    assert!(err.is_input());
    assert!(
        err.to_string().contains("test.csv:4: the class `emu`"),
        "{err}"
    );
    let err =
        open_multiclass(&train, &ReadOptions::default().positive(Some("cat".into()))).unwrap_err();
    assert!(matches!(
        err,
        Error::Parameter {
            name: "positive",
            ..
        }
    ));
    // The generator refuses one class; the dataset refuses one class.
    assert!(MulticlassParams::new(10, 2, 1).generate().is_err());
    let features = Dataset::new(Array2::zeros((2, 1)), Array1::ones(2)).unwrap();
    assert!(MulticlassDataset::from_features(features, vec!["a".into()], vec![0, 0]).is_err());
}

#[test]
fn a_multiclass_run_resumed_from_its_weights_is_the_longer_run_on_either_storage() {
    let dense = generated(300, 6, 5, 0.001, 9);
    let sparse = MulticlassDataset::from_features(
        dense.features().to_sparse(),
        dense.classes().to_vec(),
        dense.labels().to_vec(),
    )
    .unwrap();
    for data in [&dense, &sparse] {
        for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Constant(0.5)] {
            let params = MulticlassPerceptronParams::new()
                .bias(rule)
                .summation(Summation::Sequential);
            let fit = |epochs, initial: Option<(Array2<f64>, Array1<f64>)>| {
                let mut p = params.clone().max_epochs(epochs);
                if let Some((w, b)) = initial {
                    p = p.initial(w, b);
                }
                p.check().unwrap().fit(data).unwrap()
            };
            let (first, whole) = (fit(2, None), fit(5, None));
            assert!(!whole.converged, "the test needs a run that goes on");
            let resumed = fit(3, Some((first.w.clone(), first.b.clone())));
            assert_eq!(resumed.w, whole.w, "{rule:?}");
            // b = c·(b/c) may round: the constant coordinate's weight is resumed from the bias.
            for (r, w) in resumed.b.iter().zip(&whole.b) {
                assert!((r - w).abs() <= 1e-15 * w.abs().max(1.0), "{r} vs {w}");
            }
            assert_eq!(first.mistakes + resumed.mistakes, whole.mistakes);
        }
    }
}

#[test]
fn initial_multiclass_weights_are_checked_and_verify_refuses_them() {
    let data = generated(40, 3, 4, 0.1, 2);
    let run = |w: Array2<f64>, b: Array1<f64>, rule| {
        MulticlassPerceptronParams::new()
            .bias(rule)
            .initial(w, b)
            .check()
            .unwrap()
            .fit(&data)
    };
    let shape = |e: Error| match e {
        Error::Shape {
            what,
            expected,
            found,
        } => (what, expected, found),
        other => panic!("{other}"),
    };
    let (what, expected, found) =
        shape(run(Array2::zeros((3, 3)), Array1::zeros(3), BiasRule::None).unwrap_err());
    assert!(
        what.contains("rows") && (expected, found) == (4, 3),
        "{what}"
    );
    let (what, _, found) =
        shape(run(Array2::zeros((4, 2)), Array1::zeros(4), BiasRule::None).unwrap_err());
    assert!(what.contains("columns") && found == 2, "{what}");
    let (what, _, _) =
        shape(run(Array2::zeros((4, 3)), Array1::zeros(5), BiasRule::None).unwrap_err());
    assert!(what.contains("biases"), "{what}");
    let mut w = Array2::zeros((4, 3));
    w[[2, 1]] = f64::NAN;
    let err = run(w, Array1::zeros(4), BiasRule::None).unwrap_err();
    assert!(
        err.to_string()
            .contains("weight 1 of class 2 is not finite"),
        "{err}"
    );
    let err = run(Array2::zeros((4, 3)), Array1::ones(4), BiasRule::None).unwrap_err();
    assert!(err.to_string().contains("needs a bias rule"), "{err}");
    assert!(run(Array2::zeros((4, 3)), Array1::ones(4), BiasRule::Classic).is_ok());
    let params = MulticlassPerceptronParams::new().initial(Array2::zeros((4, 3)), Array1::zeros(4));
    let err = multiclass::verify(&data, &params).unwrap_err();
    assert!(err.to_string().contains("starts from W = 0"), "{err}");
}

#[test]
fn the_multiclass_runs_of_verify_are_each_methods_checked_runs() {
    let data = generated(90, 3, 3, 0.1, 6);
    let rules = [
        PerceptronParams::new(),
        PerceptronParams::new().bias(BiasRule::Novikoff),
    ];
    let solver = MaxMarginParams::new(Bias::Free);
    let ovr =
        multiclass::MulticlassRuns::verify(&data, multiclass::Method::OneVsRest, &rules, &solver)
            .unwrap();
    let multiclass::MulticlassRuns::OneVsRest(runs) = &ovr else {
        panic!("{ovr:?}")
    };
    for ((rule, run), params) in runs.iter().zip(&rules) {
        assert_eq!(*rule, params.bias_rule());
        let alone =
            OneVsRest::verify_with(&data, &BinaryLearner::Linear(params.clone()), &solver).unwrap();
        // The same runs and checks (their timings aside).
        assert_eq!(
            (run.mistakes, run.holds, &run.confusion),
            (alone.mistakes, alone.holds, &alone.confusion)
        );
        let bounds = |o: &OneVsRest| {
            o.classes
                .iter()
                .map(|c| c.verdict.bound())
                .collect::<Vec<_>>()
        };
        assert_eq!(bounds(run), bounds(&alone));
    }
    let json = ovr.to_json("gen", &data, None);
    assert_eq!(json["multiclass"], "ovr");
    assert_eq!(json["rules"][1]["rule"], "novikoff");
    assert!(json["kernel"].is_null() && json["passed"] == true);
    let kesler =
        multiclass::MulticlassRuns::verify(&data, multiclass::Method::Kesler, &rules, &solver)
            .unwrap();
    assert_eq!(kesler.method(), multiclass::Method::Kesler);
    assert!(kesler.failures().is_empty());
    let averaged = [PerceptronParams::new().variant(novikoff::perceptron::Variant::Averaged)];
    let err =
        multiclass::MulticlassRuns::verify(&data, multiclass::Method::Kesler, &averaged, &solver)
            .unwrap_err();
    assert!(err.to_string().contains("plain perceptron"), "{err}");
}
