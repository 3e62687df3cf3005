//! The convergence theorem, checked: the seeds' examples, the tight case, hypotheses that fail, data that
//! cannot be separated, and every form of the bound on a thousand random separable datasets.

mod common;

use common::seed004;

use ndarray::{Array1, Array2, array};
use novikoff::Dataset;
use novikoff::bounds::{
    AdversaryParams, BoundKind, Geometry, Inequality, InvariantCheck, InvariantStatus, Strategy,
    Verdict, VerifyOptions, bounds, bounds_for_separator, search, tight_basis, verify, verify_with,
    verify_with_options,
};
use novikoff::perceptron::{BiasRule, Order, PerceptronParams};
use novikoff::rng::{self, ChaCha8Rng};

fn xor() -> Dataset {
    Dataset::new(
        array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]],
        array![1., -1., -1., 1.],
    )
    .unwrap()
}

fn bound(verdict: &Verdict, kind: BoundKind) -> &novikoff::bounds::Bound {
    &verdict
        .bounds
        .iter()
        .find(|b| b.bound.kind == kind)
        .expect("every kind is listed")
        .bound
}

#[test]
fn seed004_rule_none_makes_3_mistakes_against_a_bound_of_5() {
    let data = seed004();
    let geometry = Geometry::compute(&data).unwrap();
    let options = VerifyOptions {
        record_steps: true,
        ..Default::default()
    };
    let verdict = verify_with_options(&geometry, &PerceptronParams::new(), &options).unwrap();

    assert_eq!(
        (
            verdict.fit.mistakes,
            verdict.fit.epochs,
            verdict.fit.converged
        ),
        (3, 2, true)
    );
    let block = bound(&verdict, BoundKind::BlockNovikoff);
    assert!(block.applies, "{:?}", block.reason);
    let value = block.value.unwrap();
    assert!((value - 5.0).abs() < 1e-6, "(R/γ)² = {value}");
    assert!(
        value >= 5.0 * (1.0 - 1e-12),
        "computed from the lower end of γ, so ≥ 5: {value}"
    );
    assert!((block.gamma.unwrap() - 1.0).abs() < 1e-6);
    assert!((block.radius.unwrap().powi(2) - 5.0).abs() < 1e-12);
    assert_eq!(verdict.holds, Some(true));
    // The tightest form is at most (R/γ)² = 5: the bounds for any u can only do better.
    assert!(verdict.bound.unwrap() <= value && verdict.ratio.unwrap() >= 0.6 - 1e-6);
    let haykin = bound(&verdict, BoundKind::Haykin);
    assert!(haykin.applies);
    assert!((haykin.value.unwrap() - value).abs() < 1e-12);

    // The invariants at each of the three updates: w = (1,-2), (2,-1), (3,1) and u ≈ (1, 0).
    let invariants = &verdict.invariants;
    assert_eq!(invariants.status, InvariantStatus::Checked);
    assert_eq!((invariants.updates, invariants.violations), (3, 0));
    assert_eq!(invariants.steps.len(), 3);
    let dots = [1.0, 2.0, 3.0];
    let norms = [5.0, 5.0, 10.0];
    for (k, step) in invariants.steps.iter().enumerate() {
        let k1 = (k + 1) as f64;
        assert_eq!(step.update, k as u64 + 1);
        assert!(
            (step.dot - dots[k]).abs() < 1e-6,
            "u·w_{} = {}",
            k + 1,
            step.dot
        );
        assert_eq!(step.norm_sq, norms[k]);
        assert!((step.dot_bound - k1).abs() < 1e-6);
        assert!((step.norm_sq_bound - 5.0 * k1).abs() < 1e-9);
        assert!(step.dot >= step.dot_bound - 1e-12, "{step:?}");
        assert!(step.norm_sq <= step.norm_sq_bound + 1e-12, "{step:?}");
        assert!(step.cos >= step.cos_bound - 1e-12, "{step:?}");
    }
    // The dot-product lemma is tight here: u·w_k = k·γ at every update.
    assert!(invariants.min_dot_slack.unwrap().abs() < 1e-6);
    assert!((invariants.min_norm_slack.unwrap() - 0.0).abs() < 1e-12); // ‖w₁‖² = R²
}

#[test]
fn invariant_check_reports_a_violation_when_gamma_is_overstated() {
    // With γ = 1.5 claimed for u = (1, 0), u·w₁ = 1 < 1.5: the check must say so.
    let data = seed004();
    let mut check = InvariantCheck::new(array![1.0, 0.0].view(), 0.0, 1.5, 5.0).unwrap();
    PerceptronParams::new()
        .check()
        .unwrap()
        .fit_with_trace(&data, &mut check)
        .unwrap();
    let report = check.report();
    assert_eq!(report.holds(), Some(false));
    let first = report.first_violation.unwrap();
    assert_eq!((first.update, first.inequality), (1, Inequality::Dot));
    // And an understated radius breaks the norm lemma: ‖w₁‖² = 5 > 1·4.
    let mut check = InvariantCheck::new(array![1.0, 0.0].view(), 0.0, 1.0, 4.0).unwrap();
    PerceptronParams::new()
        .check()
        .unwrap()
        .fit_with_trace(&data, &mut check)
        .unwrap();
    let first = check.report().first_violation.unwrap();
    assert_eq!((first.update, first.inequality), (1, Inequality::Norm));
}

#[test]
fn invariants_do_not_apply_from_a_non_zero_start() {
    let data = seed004();
    let params = PerceptronParams::new().initial(array![0.5, 0.5], 0.0);
    let verdict = verify(&data, &params).unwrap();
    assert_eq!(verdict.invariants.status, InvariantStatus::NotApplicable);
    assert!(
        verdict
            .invariants
            .reason
            .as_deref()
            .unwrap()
            .contains("non-zero")
    );
    assert!(verdict.bounds.iter().all(|b| !b.bound.applies));
    assert_eq!(verdict.holds, None);
    // The sink alone also notices a non-zero start from the first update.
    let mut check = InvariantCheck::new(array![1.0, 0.0].view(), 0.0, 1.0, 5.0).unwrap();
    params
        .clone()
        .check()
        .unwrap()
        .fit_with_trace(&data, &mut check)
        .unwrap();
    assert_eq!(check.report().status, InvariantStatus::NotApplicable);
}

#[test]
fn basis_vectors_make_exactly_m_mistakes_for_m_up_to_64() {
    for m in 1..=64usize {
        let data = tight_basis(m).unwrap();
        for order in [Order::Cyclic, Order::Shuffle { seed: m as u64 }] {
            let fit = PerceptronParams::new().order(order).fit(&data).unwrap();
            assert_eq!(fit.mistakes, m as u64, "m = {m}");
        }
        let verdict = verify(&data, &PerceptronParams::new()).unwrap();
        assert_eq!(verdict.fit.mistakes, m as u64);
        let block = bound(&verdict, BoundKind::BlockNovikoff);
        let value = block.value.unwrap();
        // γ = 1/√m and R = 1, so (R/γ)² = m: the bound is attained.
        assert!(
            (block.gamma.unwrap() - 1.0 / (m as f64).sqrt()).abs() < 1e-9,
            "m = {m}"
        );
        assert!(
            (value - m as f64).abs() < 1e-6 * m as f64,
            "m = {m}: {value}"
        );
        assert_eq!(verdict.holds, Some(true), "m = {m}");
        assert!((verdict.ratio.unwrap() - 1.0).abs() < 1e-6);
        assert_eq!(verdict.invariants.violations, 0);
        // Unit-norm data: Helmbold's 1/δ² applies and is attained too.
        let helmbold = bound(&verdict, BoundKind::Helmbold);
        assert!(helmbold.applies, "{:?}", helmbold.reason);
        assert!((helmbold.value.unwrap() - m as f64).abs() < 1e-6 * m as f64);
    }
}

#[test]
fn cs536_does_not_apply_to_data_that_are_not_unit_norm() {
    let data = seed004();
    let verdict = verify(&data, &PerceptronParams::new().bias(BiasRule::Classic)).unwrap();
    let cs536 = bound(&verdict, BoundKind::Cs536);
    assert!(!cs536.applies);
    assert_eq!(cs536.value, None);
    let reason = cs536.reason.as_deref().unwrap();
    assert!(reason.contains("‖xᵢ‖ = 1"), "{reason}");
    assert!(
        reason.contains("2.236"),
        "the measured norms are shown: {reason}"
    );
    // Augmented vectors (x, 1) does apply to the same run.
    assert!(bound(&verdict, BoundKind::Augmented).applies);

    // After Helmbold's Simplification 3 (unit length) CS 536 applies and holds.
    let unit = data.unit_normalize().unwrap();
    let verdict = verify(&unit, &PerceptronParams::new().bias(BiasRule::Classic)).unwrap();
    let cs536 = bound(&verdict, BoundKind::Cs536);
    assert!(cs536.applies, "{:?}", cs536.reason);
    assert_eq!(
        bound(&verdict, BoundKind::Cs536).holds_for(verdict.fit.mistakes),
        Some(true)
    );
}

#[test]
fn a_bound_for_another_rule_does_not_apply() {
    let data = seed004();
    let verdict = verify(&data, &PerceptronParams::new().bias(BiasRule::Novikoff)).unwrap();
    let block = bound(&verdict, BoundKind::BlockNovikoff);
    assert!(!block.applies);
    assert!(block.reason.as_deref().unwrap().contains("no bias"));
    let novikoff = bound(&verdict, BoundKind::NovikoffBias);
    assert!(novikoff.applies, "{:?}", novikoff.reason);
    let tight = bound(&verdict, BoundKind::NovikoffBiasTight);
    assert!(tight.value.unwrap() <= novikoff.value.unwrap());
}

#[test]
fn xor_is_not_separable_and_only_the_bounds_for_any_data_apply() {
    let data = xor();
    let verdict = verify(&data, &PerceptronParams::new().bias(BiasRule::Classic)).unwrap();
    assert!(!verdict.fit.converged);
    assert_eq!(verdict.fit.epochs, 1000);
    for checked in &verdict.bounds {
        let b = &checked.bound;
        let any_data = matches!(
            b.kind,
            BoundKind::FreundSchapire | BoundKind::ShalevShwartzSinger
        );
        assert_eq!(b.applies, any_data, "{:?}", b.kind);
        assert_eq!(b.value.is_some(), any_data, "{:?}", b.kind);
        if any_data {
            assert_eq!(checked.holds, Some(true), "{:?}", b.kind);
        }
    }
    assert_eq!(verdict.holds, Some(true));
    assert!(verdict.ratio.unwrap() <= 1.0);
    assert_eq!(verdict.invariants.status, InvariantStatus::NotApplicable);
    assert_eq!(verdict.geometry.separable, Some(false));
    let certificate = verdict
        .geometry
        .margins
        .free_bias
        .certificate
        .as_ref()
        .unwrap();
    assert_eq!(certificate.verified, Some(true));
    let reason = bound(&verdict, BoundKind::Augmented)
        .reason
        .clone()
        .unwrap();
    assert!(
        reason.contains("separable") && reason.contains("certificate"),
        "{reason}"
    );
}

#[test]
fn a_supplied_separator_gives_a_weaker_but_valid_bound() {
    let data = seed004();
    let params = PerceptronParams::new();
    let optimal = bounds(&Geometry::compute(&data).unwrap(), &params).unwrap();
    let supplied = bounds_for_separator(&data, &params, array![2.0, 0.5].view(), 0.0).unwrap();
    let find = |all: &[novikoff::bounds::Bound]| {
        all.iter()
            .find(|b| b.kind == BoundKind::BlockNovikoff)
            .unwrap()
            .value
            .unwrap()
    };
    assert!((find(&supplied) - 21.25).abs() < 1e-9);
    assert!(find(&supplied) >= find(&optimal));
    // A vector that does not separate earns no value.
    let wrong = bounds_for_separator(&data, &params, array![0.0, 1.0].view(), 0.0).unwrap();
    let block = wrong
        .iter()
        .find(|b| b.kind == BoundKind::BlockNovikoff)
        .unwrap();
    assert!(!block.applies);
    assert!(
        block
            .reason
            .as_deref()
            .unwrap()
            .contains("does not separate")
    );
    // A separator with a bias cannot serve the forms through the origin.
    let biased = bounds_for_separator(&data, &params, array![1.0, 0.0].view(), 0.1).unwrap();
    assert!(
        !biased
            .iter()
            .find(|b| b.kind == BoundKind::Haykin)
            .unwrap()
            .applies
    );
}

#[test]
fn the_mistakes_of_a_run_from_zero_do_not_depend_on_eta() {
    // Powers of two scale every float exactly, so the runs must coincide bit for bit.
    let data = seed004();
    for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
        let base = PerceptronParams::new().bias(rule).fit(&data).unwrap();
        for eta in [0.25, 0.5, 2.0, 8.0] {
            let fit = PerceptronParams::new()
                .bias(rule)
                .eta(eta)
                .fit(&data)
                .unwrap();
            assert_eq!(fit.mistakes, base.mistakes, "{rule:?}, η = {eta}");
            assert_eq!(fit.w, base.w.mapv(|w| w * eta));
        }
    }
}

#[test]
fn adversarial_orders_stay_within_the_bound() {
    let data = tight_basis(6).unwrap();
    let geometry = Geometry::compute(&data).unwrap();
    let perceptron = PerceptronParams::new().check().unwrap();
    let report = search(
        &geometry,
        &perceptron,
        &AdversaryParams::new().restarts(3).check().unwrap(),
    )
    .unwrap();
    assert_eq!(report.runs.len(), 1 + 3 + 3);
    assert!(report.runs.iter().all(|r| r.mistakes == 6 && r.converged));
    assert!(
        report
            .runs
            .iter()
            .all(|r| r.invariants.holds() == Some(true))
    );

    // Random separable data with every rule: no adversary beats the bound, and the search reports its
    // best run consistently.
    let mut stream = rng::from_seed(404);
    let mut beat_cyclic = 0;
    for trial in 0..40 {
        let data = random_separable(&mut stream, trial % 3 == 0);
        let geometry = Geometry::compute(&data).unwrap();
        for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
            let perceptron = PerceptronParams::new().bias(rule).check().unwrap();
            // A cap keeps the debug-profile runtime small: badly scaled data (R = 0.01 with b += ηy) can
            // need 10⁵ updates and more.
            let cap = 20_000;
            let adversary = AdversaryParams::new()
                .restarts(2)
                .max_updates(Some(cap))
                .check()
                .unwrap();
            let report = search(&geometry, &perceptron, &adversary).unwrap();
            let best = &report.runs[report.best];
            assert!(report.runs.iter().all(|r| r.mistakes <= best.mistakes));
            if let Some(bound) = report.bound {
                for run in &report.runs {
                    assert!(
                        run.converged || run.mistakes == cap,
                        "trial {trial} {rule:?} {:?}",
                        run.strategy
                    );
                    assert!(run.mistakes as f64 <= bound * (1.0 + 1e-9));
                    assert_eq!(run.invariants.holds(), Some(true), "{:?}", run.invariants);
                }
            }
            if best.mistakes > report.runs[0].mistakes {
                beat_cyclic += 1;
            }
        }
    }
    assert!(
        beat_cyclic > 0,
        "some adversary should beat the cyclic pass somewhere"
    );
    assert_eq!(Strategy::Cyclic, report.runs[0].strategy);
}

fn normal(stream: &mut ChaCha8Rng) -> f64 {
    // Box–Muller from two seeded uniforms.
    let u1 = 1.0 - rng::unit_f64(stream);
    let u2 = rng::unit_f64(stream);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn unit_vector(stream: &mut ChaCha8Rng, d: usize) -> Array1<f64> {
    loop {
        let v: Array1<f64> = (0..d).map(|_| normal(stream)).collect();
        let norm = v.dot(&v).sqrt();
        if norm > 1e-3 {
            return v / norm;
        }
    }
}

/// Points in a ball of radius R (or on the unit sphere), labelled by a random hyperplane `(u*, b*)` and
/// kept only at distance ≥ gap from it, so that the data are separable with margin ≥ gap.
fn random_separable(stream: &mut ChaCha8Rng, unit_norm: bool) -> Dataset {
    let d = 1 + rng::below(stream, 5);
    let n = 2 + rng::below(stream, 24);
    let radius = if unit_norm {
        1.0
    } else {
        [0.01, 1.0, 3.0, 100.0][rng::below(stream, 4)]
    };
    let u = unit_vector(stream, d);
    let through_origin = rng::below(stream, 2) == 0;
    let b = if through_origin {
        0.0
    } else {
        (rng::unit_f64(stream) - 0.5) * radius
    };
    let gap = radius * (0.03 + 0.25 * rng::unit_f64(stream));
    let mut x = Array2::zeros((n, d));
    let mut y = Array1::zeros(n);
    let mut i = 0;
    let mut attempts = 0;
    while i < n {
        attempts += 1;
        let direction = unit_vector(stream, d);
        let length = if unit_norm {
            1.0
        } else {
            radius * rng::unit_f64(stream).powf(1.0 / d as f64)
        };
        let point = direction * length;
        let activation = u.dot(&point) + b;
        if activation.abs() < gap && attempts < 10_000 {
            continue;
        }
        if activation.abs() < gap {
            // A hyperplane far outside the ball: move the point across instead of looping forever.
            break;
        }
        y[i] = if activation > 0.0 { 1.0 } else { -1.0 };
        x.row_mut(i).assign(&point);
        i += 1;
    }
    let x = x.slice(ndarray::s![..i.max(1), ..]).to_owned();
    let mut y = y.slice(ndarray::s![..i.max(1)]).to_owned();
    if i == 0 {
        y[0] = 1.0;
    }
    Dataset::new(x, y).unwrap()
}

#[test]
fn every_applicable_bound_holds_on_a_thousand_random_separable_datasets() {
    let mut stream = rng::from_seed(2024);
    let mut verdicts = 0;
    let mut applied = std::collections::HashMap::new();
    for trial in 0..1000 {
        let data = &random_separable(&mut stream, trial % 4 == 0);
        let geometry = Geometry::compute(data).unwrap();
        let summary = geometry.summary();
        let mut rules = vec![BiasRule::None, BiasRule::Classic, BiasRule::Novikoff];
        if trial % 5 == 0 {
            rules.push(BiasRule::Constant(0.1 + 3.0 * rng::unit_f64(&mut stream)));
        }
        for rule in rules {
            let eta = [1.0, 0.1, 3.7, 0.5 + rng::unit_f64(&mut stream)][rng::below(&mut stream, 4)];
            let order = if rng::below(&mut stream, 2) == 0 {
                Order::Cyclic
            } else {
                Order::Shuffle {
                    seed: rng::below(&mut stream, 1 << 30) as u64,
                }
            };
            let separable_for_rule = match rule {
                BiasRule::None => summary.separable_through_origin,
                _ => summary.separable,
            } == Some(true);
            let params = PerceptronParams::new()
                .bias(rule)
                .eta(eta)
                .order(order)
                .max_epochs(if separable_for_rule { 1_000_000 } else { 20 });
            let verdict = verify_with(&geometry, &params).unwrap();
            verdicts += 1;
            let context = format!(
                "trial {trial}, {rule:?}, η = {eta}, n × d = {} × {}",
                data.n_samples(),
                data.n_features()
            );

            if separable_for_rule {
                assert!(verdict.fit.converged, "{context}");
                assert_eq!(
                    verdict.invariants.status,
                    InvariantStatus::Checked,
                    "{context}: {:?}",
                    verdict.invariants.reason
                );
                assert!(
                    verdict.bounds.iter().any(|b| b.bound.applies),
                    "{context}: no form applies"
                );
            }
            assert_eq!(
                verdict.invariants.violations, 0,
                "{context}: {:?}",
                verdict.invariants.first_violation
            );
            for checked in &verdict.bounds {
                let b = &checked.bound;
                assert_eq!(b.applies, b.value.is_some(), "{context}: {:?}", b.kind);
                if b.applies {
                    *applied.entry(b.kind).or_insert(0) += 1;
                    assert_eq!(
                        checked.holds,
                        Some(true),
                        "{context}: {:?} = {:?} < {} mistakes",
                        b.kind,
                        b.value,
                        verdict.fit.mistakes
                    );
                    if !b.kind.needs_run() {
                        let [low, high] = b.gamma_bracket.unwrap();
                        assert!(low <= high, "{context}");
                        let [v_low, v_high] = b.value_bracket.unwrap();
                        assert!(v_low <= v_high, "{context}");
                    } else {
                        assert!(b.comparator.is_some(), "{context}");
                    }
                }
            }
            let tight = bound(&verdict, BoundKind::NovikoffBiasTight).value;
            let plain = bound(&verdict, BoundKind::NovikoffBias).value;
            if let (Some(tight), Some(plain)) = (tight, plain) {
                assert!(
                    tight <= plain * (1.0 + 1e-9),
                    "{context}: {tight} > {plain}"
                );
            }
        }
    }
    assert!(verdicts >= 3000);
    // Every form about the plain perceptron was exercised many times (the variants' forms are checked
    // in tests/variants.rs).
    for kind in BoundKind::ALL
        .into_iter()
        .filter(|k| k.speaks_of(novikoff::perceptron::Variant::Perceptron))
    {
        let count = applied.get(&kind).copied().unwrap_or(0);
        assert!(count >= 50, "{kind:?} applied only {count} times");
    }
}

/// The proof's inequalities are homogeneous in η. With η a power of two every update is an exact scaling
/// of the η = 1 run, so the check must report the same slacks, bit for bit, even where ‖ŵ‖² itself does
/// not fit in a double (η = 2⁶⁰⁰: ‖ŵ‖² ≈ 2¹²⁰⁰) or would be subnormal (η = 2⁻⁶⁰⁰).
#[test]
fn invariant_slacks_do_not_depend_on_the_scale_of_eta() {
    let data = seed004();
    let report = |eta: f64| {
        let mut check = InvariantCheck::new(array![1.0, 0.0].view(), 0.0, 1.0, 5.0).unwrap();
        let fit = PerceptronParams::new()
            .eta(eta)
            .check()
            .unwrap()
            .fit_with_trace(&data, &mut check)
            .unwrap();
        assert!(fit.converged, "η = {eta}");
        check.report()
    };
    let reference = report(1.0);
    assert_eq!(reference.holds(), Some(true));
    for eta in [
        2f64.powi(600),
        2f64.powi(-600),
        2f64.powi(-1000) * 2f64.powi(-60),
    ] {
        let scaled = report(eta);
        assert_eq!(scaled.holds(), Some(true), "η = {eta:e}");
        for (a, b) in [
            (scaled.min_dot_slack, reference.min_dot_slack),
            (scaled.min_norm_slack, reference.min_norm_slack),
            (scaled.min_cos_slack, reference.min_cos_slack),
        ] {
            assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "η = {eta:e}");
        }
    }
}

/// The comparator a Freund–Schapire bound reports is the one its value was computed for: a unit vector in
/// the coordinates of `(x, c)` whose deviation `D`, recomputed here from the reported direction, `γ` and the
/// run's presentation counts, is the reported one (rounded up, never down), on dense and on CSR storage.
/// The soft-margin directions are kept as their duals and rebuilt when a bound chooses one.
#[test]
fn the_reported_comparator_reproduces_its_deviation() {
    let mut stream = rng::from_seed(77);
    let (n, d) = (60, 5);
    let x = Array2::from_shape_fn((n, d), |_| rng::unit_f64(&mut stream) * 2.0 - 1.0);
    // Labels from a plane, a sixth of them flipped: not separable, so only the any-u forms apply.
    let y = Array1::from_shape_fn(n, |i| {
        let side = if x[[i, 0]] + 0.5 * x[[i, 1]] > 0.1 {
            1.0
        } else {
            -1.0
        };
        if i % 6 == 0 { -side } else { side }
    });
    let dense = Dataset::new(x, y).unwrap();
    for data in [dense.clone(), dense.to_sparse()] {
        for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
            let params = PerceptronParams::new().bias(rule).max_epochs(7);
            let verdict = verify(&data, &params).unwrap();
            let fs = bound(&verdict, BoundKind::FreundSchapire);
            let u = fs
                .comparator
                .as_ref()
                .expect("Freund–Schapire always has a comparator");
            // Not separable: every candidate is a soft-margin direction, rebuilt from its dual.
            assert!(u.origin.contains("soft margin"), "{rule:?}: {}", u.origin);
            let c = verdict.bias_constant;
            assert_eq!(u.direction.len(), d + usize::from(c != 0.0), "{rule:?}");
            let length: f64 = u.direction.iter().map(|v| v * v).sum::<f64>().sqrt();
            assert!((length - 1.0).abs() < 1e-12, "{rule:?}: ‖û‖ = {length}");
            let gamma = u.gamma.unwrap();
            let counts = verdict.fit.history.presentations.counts(n);
            let labels = data.labels();
            let squared: f64 = (0..n)
                .map(|i| {
                    let row = data.row_view(i);
                    let mut m: f64 = row.entries().map(|(j, v)| u.direction[j] * v).sum();
                    if c != 0.0 {
                        m += u.direction[d] * c;
                    }
                    counts[i] as f64 * (gamma - labels[i] * m).max(0.0).powi(2)
                })
                .sum();
            let reported = u.deviation.unwrap();
            let recomputed = squared.sqrt();
            assert!(
                reported >= recomputed * (1.0 - 1e-12) && reported <= recomputed * (1.0 + 1e-9),
                "{rule:?}: reported D = {reported}, recomputed {recomputed}"
            );
        }
    }
}
