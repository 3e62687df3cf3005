//! The perceptron engine against the source documents' worked examples and against reference loops.

mod common;

use common::seed004;

use ndarray::{Array1, Array2, array};
use novikoff::perceptron::{BiasRule, NoTrace, Order, PerceptronParams, StopReason, Trace};
use novikoff::simd::Summation;
use novikoff::{Dataset, rng};

fn xor() -> Dataset {
    Dataset::new(
        array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]],
        array![1., -1., -1., 1.],
    )
    .unwrap()
}

fn one_d() -> Dataset {
    Dataset::new(array![[-1.0], [0.0], [1.0]], array![-1.0, 1.0, -1.0]).unwrap()
}

/// Random data: `n` rows, `d` columns, values of varied magnitude, labels from a random hyperplane.
fn random_data(n: usize, d: usize, seed: u64) -> Dataset {
    let mut stream = rng::from_seed(seed);
    let x = Array2::from_shape_fn((n, d), |_| {
        (rng::unit_f64(&mut stream) - 0.5) * 10f64.powi(rng::below(&mut stream, 5) as i32 - 2)
    });
    let u: Vec<f64> = (0..d).map(|_| rng::unit_f64(&mut stream) - 0.5).collect();
    let y = Array1::from_shape_fn(n, |i| {
        let s: f64 = x.row(i).iter().zip(&u).map(|(a, b)| a * b).sum();
        if s >= 0.0 { 1.0 } else { -1.0 }
    });
    Dataset::new(x, y).unwrap()
}

#[test]
fn seed004_worked_example_is_reproduced_exactly() {
    for summation in [Summation::Sequential, Summation::Fast] {
        let mut trace = Trace::default();
        let fit = PerceptronParams::new()
            .summation(summation)
            .check()
            .unwrap()
            .fit_with_trace(&seed004(), &mut trace)
            .unwrap();
        let weights: Vec<Vec<f64>> = trace.records.iter().map(|r| r.w.clone()).collect();
        assert_eq!(
            weights,
            vec![vec![1.0, -2.0], vec![2.0, -1.0], vec![3.0, 1.0]]
        );
        let rows: Vec<usize> = trace.records.iter().map(|r| r.row).collect();
        assert_eq!(rows, vec![0, 2, 4], "the ✗ marks of the slide");
        let activations: Vec<f64> = trace.records.iter().map(|r| r.activation).collect();
        assert_eq!(activations, vec![0.0, -1.0, 0.0]);
        assert_eq!(fit.mistakes, 3);
        assert_eq!(fit.epochs, 2);
        assert!(fit.converged);
        assert_eq!(fit.stop_reason, StopReason::Converged);
        assert_eq!(fit.b, 0.0);
    }
}

#[test]
fn online_learner_follows_the_same_updates() {
    let data = seed004();
    let mut learner = PerceptronParams::new()
        .check()
        .unwrap()
        .online(2, None)
        .unwrap();
    let mut mistakes = Vec::new();
    for i in 0..data.n_samples() {
        mistakes.push(
            learner
                .observe(data.row(i), data.labels()[i])
                .unwrap()
                .mistake,
        );
    }
    assert_eq!(mistakes, vec![true, false, true, false, true, false]);
    assert_eq!(learner.w().to_vec(), vec![3.0, 1.0]);
    assert_eq!(learner.mistakes(), 3);
}

#[test]
fn non_separable_examples_stop_at_the_epoch_cap() {
    for data in [xor(), one_d()] {
        for rule in [
            BiasRule::None,
            BiasRule::Classic,
            BiasRule::Novikoff,
            BiasRule::Constant(3.0),
        ] {
            for order in [Order::Cyclic, Order::Shuffle { seed: 5 }] {
                let fit = PerceptronParams::new()
                    .bias(rule)
                    .order(order)
                    .max_epochs(200)
                    .fit(&data)
                    .unwrap();
                assert!(!fit.converged, "{rule:?}");
                assert_eq!(fit.stop_reason, StopReason::EpochCap);
                assert_eq!(fit.epochs, 200);
                assert!(fit.mistakes >= 200, "at least one mistake per epoch");
            }
        }
    }
}

#[test]
fn update_cap_stops_mid_epoch() {
    let fit = PerceptronParams::new()
        .max_updates(Some(7))
        .fit(&xor())
        .unwrap();
    assert_eq!(fit.mistakes, 7);
    assert_eq!(fit.stop_reason, StopReason::UpdateCap);
    assert!(!fit.converged);
}

#[test]
fn bias_rules_equal_the_no_bias_perceptron_on_augmented_vectors() {
    // Integer-valued data keeps every sum exact, so both summation orders must agree bit for bit; with
    // Sequential the equality holds for any data (checked on random floats below).
    let mut stream = rng::from_seed(99);
    let x = Array2::from_shape_fn((40, 3), |_| (rng::below(&mut stream, 21) as f64) - 10.0);
    let y = Array1::from_shape_fn(40, |i| {
        if x[[i, 0]] + 2.0 * x[[i, 1]] - x[[i, 2]] + 3.5 > 0.0 {
            1.0
        } else {
            -1.0
        }
    });
    let integer = Dataset::new(x, y).unwrap();
    let cases = [
        (integer, vec![Summation::Sequential, Summation::Fast]),
        (random_data(60, 5, 3), vec![Summation::Sequential]),
    ];
    for (data, summations) in cases {
        let radius = data.radius();
        for summation in summations {
            for (rule, c) in [
                (BiasRule::Classic, 1.0),
                (BiasRule::Novikoff, radius),
                (BiasRule::Constant(0.25), 0.25),
            ] {
                for eta in [1.0, 0.3] {
                    let params = PerceptronParams::new()
                        .eta(eta)
                        .summation(summation)
                        .max_epochs(500);
                    let biased = params.clone().bias(rule).fit(&data).unwrap();
                    let plain = params.bias(BiasRule::None).fit(&data.augment(c)).unwrap();
                    let d = data.n_features();
                    assert_eq!(
                        biased.w.to_vec(),
                        plain.w.slice(ndarray::s![..d]).to_vec(),
                        "{rule:?} η={eta}"
                    );
                    assert_eq!(
                        biased.b.to_bits(),
                        (c * plain.w[d]).to_bits(),
                        "{rule:?} η={eta}"
                    );
                    assert_eq!(
                        (biased.mistakes, biased.epochs),
                        (plain.mistakes, plain.epochs)
                    );
                }
            }
        }
    }
}

#[test]
fn classic_rule_updates_b_by_eta_y() {
    let mut trace = Trace::default();
    PerceptronParams::new()
        .bias(BiasRule::Classic)
        .eta(0.5)
        .check()
        .unwrap()
        .fit_with_trace(&seed004(), &mut trace)
        .unwrap();
    let data = seed004();
    let mut b = 0.0;
    for record in &trace.records {
        b += 0.5 * data.labels()[record.row];
        assert_eq!(record.b, b);
    }
}

#[test]
fn novikoff_rule_updates_b_by_eta_y_r_squared() {
    let data = seed004();
    let r2 = data.radius().powi(2);
    let mut trace = Trace::default();
    PerceptronParams::new()
        .bias(BiasRule::Novikoff)
        .check()
        .unwrap()
        .fit_with_trace(&data, &mut trace)
        .unwrap();
    let mut b = 0.0;
    for record in &trace.records {
        b += data.labels()[record.row] * r2;
        assert!((record.b - b).abs() <= 1e-12 * r2 * record.update as f64);
    }
}

/// The textbook loop, written out in full with no shared code.
fn naive_perceptron(data: &Dataset, eta: f64, max_epochs: usize) -> (Vec<f64>, u64, usize) {
    let (n, d) = (data.n_samples(), data.n_features());
    let x = data.x();
    let mut w = vec![0.0f64; d];
    let mut mistakes = 0;
    for epoch in 1..=max_epochs {
        let mut clean = true;
        for i in 0..n {
            let mut a = 0.0;
            for j in 0..d {
                a += w[j] * x[[i, j]];
            }
            let y = data.labels()[i];
            if y * a <= 0.0 {
                for j in 0..d {
                    w[j] += (eta * y) * x[[i, j]];
                }
                mistakes += 1;
                clean = false;
            }
        }
        if clean {
            return (w, mistakes, epoch);
        }
    }
    (w, mistakes, max_epochs)
}

#[test]
fn sequential_summation_matches_a_naive_loop_bit_for_bit() {
    for (k, (n, d)) in [(50, 3), (200, 17), (80, 64), (30, 101)]
        .into_iter()
        .enumerate()
    {
        let data = random_data(n, d, 1000 + k as u64);
        for eta in [1.0, 0.1] {
            let fit = PerceptronParams::new()
                .summation(Summation::Sequential)
                .eta(eta)
                .max_epochs(300)
                .fit(&data)
                .unwrap();
            let (w, mistakes, epochs) = naive_perceptron(&data, eta, 300);
            assert!(epochs > 2, "the check should span several epochs");
            assert_eq!((fit.mistakes, fit.epochs), (mistakes, epochs));
            let bits: Vec<u64> = fit.w.iter().map(|v| v.to_bits()).collect();
            let expected: Vec<u64> = w.iter().map(|v| v.to_bits()).collect();
            assert_eq!(bits, expected);
        }
    }
}

#[test]
fn fast_summation_is_deterministic_and_differs_only_by_rounding() {
    let data = random_data(300, 33, 7);
    let params = PerceptronParams::new().max_epochs(50).max_updates(Some(40));
    let a = params.clone().fit(&data).unwrap();
    let b = params.clone().fit(&data).unwrap();
    assert_eq!(
        a.w.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        b.w.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(a.mistakes, b.mistakes);
    let s = params.summation(Summation::Sequential).fit(&data).unwrap();
    // Same decisions on this data (no activation lies within rounding of zero), so the weights are the
    // same sums of the same rows and agree exactly.
    assert_eq!(a.mistakes, s.mistakes);
    for (fast, seq) in a.w.iter().zip(s.w.iter()) {
        assert!((fast - seq).abs() <= 1e-9 * (1.0 + seq.abs()));
    }
    // The two orders do round differently: one dot product shows it.
    let u: Vec<f64> = (0..1000).map(|i| 1.0 / (1.0 + i as f64)).collect();
    let v: Vec<f64> = (0..1000)
        .map(|i| (-1.0f64).powi(i) * (i as f64).sqrt())
        .collect();
    let fast = novikoff::simd::dot_fast(&u, &v);
    let seq = novikoff::simd::dot_sequential(&u, &v);
    assert!((fast - seq).abs() <= 1e-12 * (1.0 + seq.abs()));
}

#[test]
fn shuffled_order_is_reproducible_from_its_seed() {
    let data = random_data(100, 4, 11);
    let run = |seed| {
        let mut trace = Trace::default();
        let fit = PerceptronParams::new()
            .order(Order::Shuffle { seed })
            .check()
            .unwrap()
            .fit_with_trace(&data, &mut trace)
            .unwrap();
        (fit, trace.records.iter().map(|r| r.row).collect::<Vec<_>>())
    };
    let (mut a, rows_a) = run(1);
    let (b, rows_b) = run(1);
    let (_, rows_c) = run(2);
    a.train_seconds = b.train_seconds; // the only field allowed to differ
    assert_eq!(a, b);
    assert_eq!(rows_a, rows_b);
    assert_ne!(rows_a, rows_c);
}

#[test]
fn a_fixed_permutation_is_followed() {
    let data = seed004();
    let mut trace = Trace::default();
    let perm = vec![5, 4, 3, 2, 1, 0];
    PerceptronParams::new()
        .order(Order::Permutation(perm))
        .check()
        .unwrap()
        .fit_with_trace(&data, &mut trace)
        .unwrap();
    // Row 5 is visited first, with w = 0: a mistake.
    assert_eq!(trace.records[0].row, 5);
    let bad = PerceptronParams::new()
        .order(Order::Permutation(vec![0, 0, 1]))
        .check();
    assert!(bad.is_err());
    let short = PerceptronParams::new()
        .order(Order::Permutation(vec![0, 1]))
        .fit(&data);
    assert!(short.is_err());
}

#[test]
fn initial_weights_are_used_and_checked() {
    let data = seed004();
    let fit = PerceptronParams::new()
        .initial(array![3.0, 1.0], 0.0)
        .fit(&data)
        .unwrap();
    assert_eq!((fit.mistakes, fit.epochs), (0, 1));
    assert!(
        PerceptronParams::new()
            .initial(array![1.0], 0.0)
            .fit(&data)
            .is_err()
    );
    assert!(
        PerceptronParams::new()
            .initial(array![1.0, 1.0], 2.0)
            .check()
            .is_err()
    );
    let fit = PerceptronParams::new()
        .bias(BiasRule::Classic)
        .initial(array![3.0, 1.0], 0.5)
        .fit(&data)
        .unwrap();
    assert_eq!(fit.b, 0.5);
}

#[test]
fn overflowing_weights_stop_with_a_reason() {
    let data = Dataset::new(array![[1e308, 1e308], [1e308, -1e308]], array![1.0, -1.0]).unwrap();
    let fit = PerceptronParams::new().eta(1e10).fit(&data).unwrap();
    assert_eq!(fit.stop_reason, StopReason::NonFinite);
    assert!(!fit.converged);
}

#[test]
fn predictions_use_sign_zero_is_plus_one() {
    let fit = PerceptronParams::new().fit(&seed004()).unwrap();
    let p = fit
        .predict(array![[1.0, -3.0], [-1.0, 0.0]].view())
        .unwrap();
    assert_eq!(p.to_vec(), vec![1.0, -1.0]);
    assert_eq!(fit.accuracy(&seed004()).unwrap(), 1.0);
    assert!(fit.predict(array![[1.0]].view()).is_err());
}

/// Online learning over the rows again and again is `fit` with the cyclic order: the same updates, with
/// the same bits, for every bias rule and both summation orders (both run the kernel's training pass).
#[test]
fn online_passes_equal_fit_bit_for_bit() {
    for (seed, d) in [(1, 3), (2, 10), (3, 40)] {
        let data = random_data(60, d, seed);
        let radius = data.radius();
        for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
            for summation in [Summation::Fast, Summation::Sequential] {
                let params = PerceptronParams::new()
                    .bias(rule)
                    .eta(0.7)
                    .summation(summation)
                    .max_epochs(4)
                    .check()
                    .unwrap();
                let mut fit_trace = Trace::default();
                let fit = params.fit_with_trace(&data, &mut fit_trace).unwrap();
                let mut learner = params.online(d, Some(radius)).unwrap();
                let mut online_trace = Trace::default();
                for _ in 0..fit.epochs {
                    for i in 0..data.n_samples() {
                        learner
                            .observe_with_trace(data.row(i), data.labels()[i], &mut online_trace)
                            .unwrap();
                    }
                }
                let context = format!("seed {seed}, {rule:?}, {summation:?}");
                assert!(fit.mistakes > 0, "{context}");
                assert_eq!(learner.mistakes(), fit.mistakes, "{context}");
                let bits = |w: &[f64]| w.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(learner.w().as_slice().unwrap()),
                    bits(fit.w.as_slice().unwrap()),
                    "{context}"
                );
                assert_eq!(learner.b().to_bits(), fit.b.to_bits(), "{context}");
                // The online learner numbers examples as they come: pass p's row i is p·n + i.
                let activations = |t: &Trace| {
                    t.records
                        .iter()
                        .map(|r| (r.row % data.n_samples(), r.activation.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    activations(&online_trace),
                    activations(&fit_trace),
                    "{context}"
                );
            }
        }
    }
}

/// `fit` skips assembling events for a sink that records nothing, so a sink that does record must get
/// every update, alone or paired with one that does not.
#[test]
fn a_recording_sink_sees_every_update_beside_one_that_does_not() {
    let data = random_data(300, 5, 41);
    let params = PerceptronParams::new().max_epochs(3).check().unwrap();
    let mut alone = Trace::default();
    let fit = params.fit_with_trace(&data, &mut alone).unwrap();
    assert!(fit.mistakes > 10, "the data should take some updates");
    let mut pair = (Trace::default(), NoTrace);
    let paired = params.fit_with_trace(&data, &mut pair).unwrap();
    assert_eq!((&paired.w, paired.mistakes), (&fit.w, fit.mistakes));
    assert_eq!(pair.0, alone);
    let mut reversed = (NoTrace, Trace::default());
    params.fit_with_trace(&data, &mut reversed).unwrap();
    assert_eq!(reversed.1, alone);
}

/// Labels sliced with a step keep their owned array but are not contiguous; the dataset stores them
/// contiguously, with sign bits that match, so training sees the labels that were given.
#[test]
fn strided_labels_are_stored_contiguously_and_train_as_given() {
    let x = array![[1.0, 0.5], [-1.0, 0.25], [2.0, -1.0], [-0.5, -2.0]];
    let mut y = array![1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0];
    y.slice_collapse(ndarray::s![..;2]);
    assert!(!y.is_standard_layout());
    let data = Dataset::new(x.clone(), y).unwrap();
    assert_eq!(data.labels(), &[1.0, -1.0, 1.0, -1.0]);
    let plain = Dataset::new(x, array![1.0, -1.0, 1.0, -1.0]).unwrap();
    assert_eq!(data, plain);
    let params = PerceptronParams::new().max_epochs(5).check().unwrap();
    let (strided, contiguous) = (params.fit(&data).unwrap(), params.fit(&plain).unwrap());
    assert_eq!(
        (strided.w, strided.mistakes),
        (contiguous.w, contiguous.mistakes)
    );
}
