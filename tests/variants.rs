//! The perceptron's family against independent brute-force implementations written from each paper's
//! pseudo-code: one plain loop per variant, in `Summation::Sequential` (the left-to-right sum), with every
//! weight vector kept explicitly.

use ndarray::{Array1, Array2};
use novikoff::perceptron::{
    BiasRule, Order, PerceptronParams, Predictor, StopReason, Trace, Variant,
};
use novikoff::simd::Summation;
use novikoff::{Dataset, rng};

/// Random data with a planted separator and `flips` labels flipped, values of varied size.
fn random_data(seed: u64, n: usize, d: usize, flips: usize) -> Dataset {
    let mut stream = rng::from_seed(seed);
    let x = Array2::from_shape_fn((n, d), |_| (rng::unit_f64(&mut stream) - 0.5) * 4.0);
    let u: Vec<f64> = (0..d).map(|_| rng::unit_f64(&mut stream) - 0.5).collect();
    let offset = rng::unit_f64(&mut stream) - 0.5;
    let mut y = Array1::from_shape_fn(n, |i| {
        let s: f64 = x.row(i).iter().zip(&u).map(|(a, b)| a * b).sum::<f64>() + offset;
        if s >= 0.0 { 1.0 } else { -1.0 }
    });
    for k in 0..flips {
        let i = rng::below(&mut stream, n);
        y[i] = -y[i];
        let _ = k;
    }
    Dataset::new(x, y).unwrap()
}

/// The left-to-right `w·x`, then `+ c·v`: the crate's Sequential activation.
fn activation(w: &[f64], v: f64, c: f64, x: &[f64]) -> f64 {
    w.iter().zip(x).fold(0.0, |acc, (w, x)| acc + w * x) + c * v
}

/// What a reference run produced.
#[derive(Debug, Default)]
struct Reference {
    w: Vec<f64>,
    v: f64,
    mistakes: u64,
    updates: u64,
    epochs: usize,
    converged: bool,
    /// Every weight vector `(w, v)` after each presentation, in order.
    after_each: Vec<(Vec<f64>, f64)>,
    /// Freund & Schapire's list `(v_k, c_k)`.
    votes: Vec<((Vec<f64>, f64), u64)>,
    squared_loss: f64,
    /// Gallant's pocket `(W, v_W, num_ok_W, run_W)`.
    pocket: Option<(Vec<f64>, f64, u64, u64)>,
}

/// One textbook loop for every variant, written from the papers' pseudo-code rather than from the
/// crate: a step function decides each update.
fn reference(
    data: &Dataset,
    variant: Variant,
    c: f64,
    eta: f64,
    order: &Order,
    max_epochs: usize,
) -> Reference {
    let (n, d) = (data.n_samples(), data.n_features());
    let rows: Vec<Vec<f64>> = (0..n).map(|i| data.row(i).to_vec()).collect();
    let y = data.labels();
    let mut r = Reference {
        w: vec![0.0; d],
        ..Default::default()
    };
    let mut shuffler = match order {
        Order::Shuffle { seed } => Some(rng::from_seed(*seed)),
        _ => None,
    };
    let mut visit: Vec<usize> = (0..n).collect();
    // Freund & Schapire: k := 0, v₁ := 0, c₁ := 0.
    let mut current_vote = (r.w.clone(), r.v);
    let mut current_count = 0u64;
    // Gallant: π := 0, W := π, run_π = run_W = 0, num_ok_W of the start.
    let num_ok = |w: &[f64], v: f64| -> u64 {
        (0..n)
            .filter(|&i| y[i] * activation(w, v, c, &rows[i]) > 0.0)
            .count() as u64
    };
    let mut pocket = (r.w.clone(), r.v, num_ok(&r.w, r.v), 0u64);
    let mut run_pi = 0u64;
    for epoch in 1..=max_epochs {
        r.epochs = epoch;
        if let Some(stream) = shuffler.as_mut() {
            rng::shuffle(stream, &mut visit);
        }
        let mut updated = false;
        for &i in &visit {
            let x = &rows[i];
            let a = activation(&r.w, r.v, c, x);
            let m = y[i] * a;
            if m <= 0.0 {
                r.mistakes += 1;
            }
            let sq = x.iter().fold(c * c, |acc, v| acc + v * v);
            let step = match variant {
                Variant::Margin { beta } => (m <= beta).then_some(eta),
                Variant::PassiveAggressive => (m < 1.0).then(|| (1.0 - m) / sq),
                Variant::PassiveAggressiveI { c: cap } => {
                    (m < 1.0).then(|| ((1.0 - m) / sq).min(cap))
                }
                Variant::PassiveAggressiveII { c: agg } => {
                    (m < 1.0).then(|| (1.0 - m) / (sq + 1.0 / (2.0 * agg)))
                }
                _ => (m <= 0.0).then_some(eta),
            };
            if m < 1.0 {
                r.squared_loss += (1.0 - m) * (1.0 - m);
            }
            match step {
                Some(s) => {
                    updated = true;
                    r.updates += 1;
                    for (w, x) in r.w.iter_mut().zip(x) {
                        *w += s * y[i] * x;
                    }
                    r.v += s * y[i] * c;
                    r.votes.push((current_vote.clone(), current_count));
                    current_vote = (r.w.clone(), r.v);
                    current_count = 1;
                    run_pi = 0;
                }
                None => {
                    current_count += 1;
                    run_pi += 1;
                    if run_pi > pocket.3 {
                        let ok = num_ok(&r.w, r.v);
                        if ok > pocket.2 {
                            pocket = (r.w.clone(), r.v, ok, run_pi);
                        }
                    }
                }
            }
            r.after_each.push((r.w.clone(), r.v));
        }
        if !updated {
            r.converged = true;
            break;
        }
    }
    r.votes.push((current_vote, current_count));
    r.pocket = Some(pocket);
    r
}

fn rules() -> [BiasRule; 3] {
    [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff]
}

fn orders() -> [Order; 2] {
    [Order::Cyclic, Order::Shuffle { seed: 11 }]
}

#[test]
fn the_margin_rule_with_beta_zero_makes_the_simd_pass_updates_bit_for_bit() {
    // β = 0 runs the one-row-at-a-time pass with the plain test: it must be the SIMD pass exactly.
    for (seed, flips) in [(1, 0), (2, 3)] {
        let data = random_data(seed, 60, 7, flips);
        for storage in [data.clone(), data.to_sparse()] {
            for rule in rules() {
                for order in orders() {
                    for summation in [Summation::Sequential, Summation::Fast] {
                        let params = PerceptronParams::new()
                            .bias(rule)
                            .order(order.clone())
                            .summation(summation)
                            .max_epochs(20);
                        let run = |variant| {
                            let mut trace = Trace::default();
                            let fit = params
                                .clone()
                                .variant(variant)
                                .check()
                                .unwrap()
                                .fit_with_trace(&storage, &mut trace)
                                .unwrap();
                            (fit, trace)
                        };
                        let (plain, plain_trace) = run(Variant::Perceptron);
                        let (margin, margin_trace) = run(Variant::Margin { beta: 0.0 });
                        assert!(plain.mistakes > 0);
                        assert_eq!(
                            plain_trace, margin_trace,
                            "{rule:?} {order:?} {summation:?}"
                        );
                        assert_eq!(plain.w, margin.w);
                        assert_eq!(plain.b.to_bits(), margin.b.to_bits());
                        assert_eq!(
                            (
                                plain.mistakes,
                                plain.updates,
                                plain.epochs,
                                plain.stop_reason
                            ),
                            (
                                margin.mistakes,
                                margin.updates,
                                margin.epochs,
                                margin.stop_reason
                            )
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn every_variant_matches_its_reference_loop() {
    let variants = [
        Variant::Perceptron,
        Variant::Margin { beta: 0.7 },
        Variant::PassiveAggressive,
        Variant::PassiveAggressiveI { c: 0.3 },
        Variant::PassiveAggressiveII { c: 0.5 },
    ];
    for (seed, flips) in [(3, 0), (4, 4)] {
        let data = random_data(seed, 40, 5, flips);
        for variant in variants {
            for rule in rules() {
                for order in orders() {
                    let eta = if variant.is_passive_aggressive() {
                        1.0
                    } else {
                        0.5
                    };
                    let fit = PerceptronParams::new()
                        .variant(variant)
                        .bias(rule)
                        .eta(eta)
                        .order(order.clone())
                        .summation(Summation::Sequential)
                        .max_epochs(15)
                        .fit(&data)
                        .unwrap();
                    let c = fit.bias_constant;
                    let r = reference(&data, variant, c, eta, &order, 15);
                    let context = format!("{variant:?} {rule:?} {order:?} seed {seed}");
                    assert_eq!(fit.w.to_vec(), r.w, "{context}");
                    assert_eq!(fit.bias_weight.to_bits(), r.v.to_bits(), "{context}");
                    assert_eq!(
                        (fit.mistakes, fit.updates, fit.epochs, fit.converged),
                        (r.mistakes, r.updates, r.epochs, r.converged),
                        "{context}"
                    );
                    if variant.is_passive_aggressive() {
                        let sum = fit.history.squared_loss.unwrap();
                        assert!((sum - r.squared_loss).abs() <= 1e-12 * r.squared_loss.max(1.0));
                    } else {
                        assert_eq!(fit.history.squared_loss, None);
                    }
                    if matches!(variant, Variant::Margin { .. }) {
                        assert!(fit.updates >= fit.mistakes);
                    }
                }
            }
        }
    }
}

#[test]
fn the_averaged_weights_are_the_mean_of_the_weights_after_each_presentation() {
    for (seed, flips) in [(5, 0), (6, 5)] {
        let data = random_data(seed, 50, 6, flips);
        for rule in rules() {
            for order in orders() {
                let fit = PerceptronParams::new()
                    .variant(Variant::Averaged)
                    .bias(rule)
                    .order(order.clone())
                    .summation(Summation::Sequential)
                    .max_epochs(12)
                    .fit(&data)
                    .unwrap();
                let r = reference(
                    &data,
                    Variant::Perceptron,
                    fit.bias_constant,
                    1.0,
                    &order,
                    12,
                );
                let t = r.after_each.len() as f64;
                let scale = r
                    .after_each
                    .iter()
                    .flat_map(|(w, _)| w.iter())
                    .fold(1.0f64, |m, w| m.max(w.abs()));
                for j in 0..data.n_features() {
                    let mean = r.after_each.iter().map(|(w, _)| w[j]).sum::<f64>() / t;
                    assert!(
                        (fit.averaged.w[j] - mean).abs() <= 1e-11 * scale,
                        "{rule:?} {order:?} w[{j}]: {} vs {mean}",
                        fit.averaged.w[j]
                    );
                }
                let mean_b = r
                    .after_each
                    .iter()
                    .map(|(_, v)| fit.bias_constant * v)
                    .sum::<f64>()
                    / t;
                assert!(
                    (fit.averaged.b - mean_b).abs() <= 1e-11 * scale.max(fit.bias_constant.powi(2))
                );
                // The averaged perceptron's updates are the plain ones.
                assert_eq!(fit.w.to_vec(), r.w);
                assert_eq!(fit.mistakes, r.mistakes);
            }
        }
    }
}

#[test]
fn the_vote_is_freund_and_schapire_list_of_survivors() {
    for (seed, flips) in [(7, 0), (8, 6)] {
        let data = random_data(seed, 50, 4, flips);
        let test = random_data(seed + 100, 80, 4, 0);
        for rule in rules() {
            for order in orders() {
                let fit = PerceptronParams::new()
                    .variant(Variant::Voted)
                    .bias(rule)
                    .order(order.clone())
                    .summation(Summation::Sequential)
                    .max_epochs(10)
                    .fit(&data)
                    .unwrap();
                let c = fit.bias_constant;
                let r = reference(&data, Variant::Perceptron, c, 1.0, &order, 10);
                let voted = fit.voted.as_ref().unwrap();
                let counts: Vec<u64> = r.votes.iter().map(|(_, k)| *k).collect();
                assert_eq!(voted.survival(), counts.as_slice(), "{rule:?} {order:?}");
                let votes = voted.vote_dataset(&test).unwrap();
                for i in 0..test.n_samples() {
                    let x = test.row(i);
                    let expected: f64 = r
                        .votes
                        .iter()
                        .map(|((w, v), k)| {
                            let a = activation(w, *v, c, x);
                            *k as f64 * if a >= 0.0 { 1.0 } else { -1.0 }
                        })
                        .sum();
                    assert_eq!(votes[i], expected, "{rule:?} {order:?} point {i}");
                }
                // Sparse test data vote the same.
                assert_eq!(voted.vote_dataset(&test.to_sparse()).unwrap(), votes);
            }
        }
    }
}

#[test]
fn the_pocket_is_gallants_with_ratchet() {
    for (seed, flips) in [(9, 4), (10, 8), (11, 0)] {
        let data = random_data(seed, 40, 3, flips);
        for rule in rules() {
            for order in orders() {
                let fit = PerceptronParams::new()
                    .variant(Variant::Pocket)
                    .bias(rule)
                    .order(order.clone())
                    .summation(Summation::Sequential)
                    .max_epochs(25)
                    .fit(&data)
                    .unwrap();
                let r = reference(
                    &data,
                    Variant::Perceptron,
                    fit.bias_constant,
                    1.0,
                    &order,
                    25,
                );
                let (w, v, ok, run) = r.pocket.unwrap();
                let pocket = fit.pocket.as_ref().unwrap();
                let context = format!("{rule:?} {order:?} seed {seed}");
                assert_eq!(pocket.predictor.w.to_vec(), w, "{context}");
                assert_eq!(
                    pocket.predictor.b.to_bits(),
                    (fit.bias_constant * v).to_bits()
                );
                assert_eq!(
                    pocket.training_errors,
                    data.n_samples() as u64 - ok,
                    "{context}"
                );
                assert_eq!(pocket.run, run, "{context}");
                let accuracy = fit
                    .accuracy_with(Predictor::Pocket, &data)
                    .unwrap()
                    .unwrap();
                assert_eq!(accuracy, ok as f64 / data.n_samples() as f64);
                if fit.converged {
                    assert_eq!(pocket.training_errors, 0);
                }
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_bits_for_every_variant() {
    let data = random_data(12, 80, 5, 6);
    for variant in [
        Variant::Averaged,
        Variant::Voted,
        Variant::Pocket,
        Variant::Margin { beta: 0.2 },
        Variant::PassiveAggressiveII { c: 2.0 },
    ] {
        let params = PerceptronParams::new()
            .variant(variant)
            .bias(BiasRule::Classic)
            .order(Order::Shuffle { seed: 3 })
            .max_epochs(30);
        let (a, b) = (params.fit(&data).unwrap(), params.fit(&data).unwrap());
        assert_eq!(
            a,
            novikoff::perceptron::Fit {
                train_seconds: a.train_seconds,
                ..b
            },
            "{variant:?}"
        );
    }
}

#[test]
fn passive_aggressive_refuses_a_learning_rate_and_the_vote_needs_plain_updates() {
    let err = PerceptronParams::new()
        .variant(Variant::PassiveAggressive)
        .eta(0.5)
        .check()
        .unwrap_err();
    assert!(err.to_string().contains("η must be 1"), "{err}");
    let err = PerceptronParams::new()
        .variant(Variant::Margin { beta: 1.0 })
        .record_votes(true)
        .check()
        .unwrap_err();
    assert!(err.to_string().contains("record_votes"), "{err}");
    for bad in ["margin:-0.1", "pa1:0", "pa2:-3", "margin:nan", "pa1:inf"] {
        let parsed = Variant::parse(bad).and_then(Variant::check);
        assert!(parsed.is_err(), "{bad}");
    }
}

#[test]
fn a_zero_example_without_bias_is_a_mistake_passive_aggressive_cannot_update_on() {
    let data = Dataset::new(
        ndarray::array![[0.0, 0.0], [1.0, 0.0]],
        ndarray::array![1.0, -1.0],
    )
    .unwrap();
    let fit = PerceptronParams::new()
        .variant(Variant::PassiveAggressive)
        .max_epochs(3)
        .fit(&data)
        .unwrap();
    // Row 0 is a mistake in every epoch (activation 0) and is never updated on: after the epoch with
    // no update the weights can never change, and the run says so rather than converge.
    assert_eq!(fit.history.mistakes_per_row[0], 2);
    assert_eq!((fit.epochs, fit.stop_reason), (2, StopReason::Stalled));
    assert!(!fit.converged);
    assert!(fit.w.iter().all(|v| v.is_finite()));
}
