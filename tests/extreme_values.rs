//! Issue #18, items 1–3: values near the ends of the `f64` range never give a silently wrong answer, and
//! never a false certificate. Each test reproduces a symptom of the issue.

mod common;

use ndarray::{Array1, Array2, array};
use novikoff::margin::{self, Bias, Certificate, MarginResult};
use novikoff::perceptron::{BiasRule, Fit, PerceptronParams, StopReason};
use novikoff::{Dataset, Error, generate};
use proptest::prelude::*;

/// `x·2^k`, exact for the values these tests use (two normal factors).
fn pow2(k: i32) -> f64 {
    2f64.powi(k)
}

fn scaled(data: &Dataset, factor: f64) -> Dataset {
    Dataset::new(data.x().mapv(|v| v * factor), data.y().to_owned()).unwrap()
}

/// A converged fit must classify every row correctly, which the scale-safe margins check.
fn assert_convergence_is_true(data: &Dataset, fit: &Fit) {
    if fit.converged {
        let m = margin::margins(data, fit.w.view(), fit.b).unwrap();
        assert!(
            m.iter().all(|&v| v > 0.0),
            "converged with a misclassified row"
        );
    } else {
        assert_eq!(fit.stop_reason, StopReason::NonFinite, "{fit:?}");
    }
}

/// Item 1: `generate separable --margin 5e198 --radius 1e200 --seed 3` then `train`.
fn big() -> generate::Generated {
    generate::separable(300, 6, 5e198, 1e200, 3).unwrap()
}

#[test]
fn radius_neither_overflows_nor_underflows() {
    let data = Dataset::new(array![[3e200, 4e200], [1.0, 0.0]], array![1.0, -1.0]).unwrap();
    assert!((data.radius() / 5e200 - 1.0).abs() < 1e-15);
    let data = Dataset::new(array![[3e-170, 4e-170]], array![1.0]).unwrap();
    assert!((data.radius() / 5e-170 - 1.0).abs() < 1e-15);
    assert!(big().data.radius().is_finite());
}

#[test]
fn training_on_huge_data_does_not_claim_convergence() {
    let g = big();
    let fit = PerceptronParams::new().fit(&g.data).unwrap();
    assert!(!fit.converged, "{fit:?}");
    assert_eq!(fit.stop_reason, StopReason::NonFinite);
}

#[test]
fn training_stops_on_an_underflowed_activation() {
    // w·x of two values near 1e-300 underflows to 0: no sign, so no mistake can be judged.
    let data = Dataset::new(array![[1e-300], [-1e-300]], array![1.0, -1.0]).unwrap();
    let fit = PerceptronParams::new().fit(&data).unwrap();
    assert!(!fit.converged, "{fit:?}");
    assert_eq!(fit.stop_reason, StopReason::Underflow);
    assert_eq!(fit.epochs, 1);
    // Scaled up by 2^600 (which changes no decision of the rule `none`), it converges after one mistake,
    // as (R/γ)² = 1 promises.
    let fit = PerceptronParams::new()
        .fit(&scaled(&data, pow2(600)))
        .unwrap();
    assert!(fit.converged && fit.mistakes == 1, "{fit:?}");
    // A zero row is an exact zero activation, not an underflow.
    let zero = Dataset::new(array![[0.0], [-2.0]], array![1.0, -1.0]).unwrap();
    let fit = PerceptronParams::new()
        .bias(BiasRule::Classic)
        .fit(&zero)
        .unwrap();
    assert_ne!(fit.stop_reason, StopReason::Underflow, "{fit:?}");
}

#[test]
fn online_learning_refuses_an_overflowing_activation() {
    let mut learner = PerceptronParams::new()
        .check()
        .unwrap()
        .online(2, None)
        .unwrap();
    // The first example is a mistake from w = 0, so w = (1e200, 1e200); the next activation overflows.
    learner.observe(&[1e200, 1e200], 1.0).unwrap();
    let err = learner.observe(&[1e200, -1e300], 1.0).unwrap_err();
    assert!(matches!(err, Error::Range { .. }), "{err}");
    assert!(err.to_string().contains("example 1"), "{err}");
    // Nothing was counted for the refused example.
    assert_eq!(learner.mistakes(), 1);
}

#[test]
fn huge_learning_rate_does_not_claim_convergence() {
    let g = generate::separable(200, 4, 1e4, 1e6, 5).unwrap();
    let fit = PerceptronParams::new().eta(1e300).fit(&g.data).unwrap();
    assert_convergence_is_true(&g.data, &fit);
}

#[test]
fn novikoff_rule_at_the_top_of_the_range() {
    let data = Dataset::new(array![[1e308], [-1e308]], array![1.0, -1.0]).unwrap();
    let fit = PerceptronParams::new()
        .bias(BiasRule::Novikoff)
        .fit(&data)
        .unwrap();
    assert_convergence_is_true(&data, &fit);
}

#[test]
fn margin_of_huge_data_is_a_bracket_around_the_truth() {
    let g = big();
    // The generator's separator has margin at least the prescribed one, so γ* ≥ 5e198.
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let result = margin::max_margin(&g.data, bias).unwrap();
        assert!(result.is_separable(), "{bias:?}: {result:?}");
        let (lower, upper) = result.bracket().unwrap();
        assert!(lower > 0.0 && lower <= upper && upper.is_finite());
        assert!(upper >= 5e198 * (1.0 - 1e-12), "{bias:?}: upper {upper}");
    }
}

#[test]
fn tiny_data_get_an_ordered_bracket_that_scales() {
    let g = generate::separable(50, 3, 0.05, 1.0, 3).unwrap();
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let unscaled = margin::max_margin(&g.data, bias).unwrap();
        let Some((lo, hi)) = unscaled.bracket() else {
            continue;
        };
        for k in [-530, -540, -700, -1000, 500, 1000] {
            let result = margin::max_margin(&scaled(&g.data, pow2(k)), bias).unwrap();
            let (lower, upper) = result.bracket().unwrap();
            assert!(lower <= upper, "{bias:?} 2^{k}: [{lower}, {upper}]");
            // Both brackets contain γ*, so they overlap once scaled.
            assert!(
                lower <= hi * pow2(k) && lo * pow2(k) <= upper,
                "{bias:?} 2^{k}"
            );
            assert!(
                ((lower / pow2(k)) / lo - 1.0).abs() < 1e-9,
                "{bias:?} 2^{k}"
            );
        }
    }
}

#[test]
fn a_subnormal_margin_is_inaccurate_with_a_rigorous_bracket_and_says_why() {
    // Two rows at ±10⁻³²⁰ (subnormal): γ* = 10⁻³²⁰ for both biases.
    let data = Dataset::new(array![[1e-320], [-1e-320]], array![1.0, -1.0]).unwrap();
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let result = margin::max_margin(&data, bias).unwrap();
        let MarginResult::Inaccurate {
            bracket, reason, ..
        } = &result
        else {
            panic!("{bias:?}: {result:?}");
        };
        assert!(
            bracket.0 <= 1e-320 && 1e-320 <= bracket.1,
            "{bias:?}: {bracket:?}"
        );
        assert!(
            reason.contains("below the smallest normal f64"),
            "{bias:?}: {reason}"
        );
    }
}

#[test]
fn no_false_certificate_through_the_origin_for_tiny_data() {
    let data = Dataset::new(
        array![[3e-170, 1e-170], [-2e-170, 5e-171]],
        array![1.0, -1.0],
    )
    .unwrap();
    let result = margin::max_margin(&data, Bias::ThroughOrigin).unwrap();
    assert!(result.is_separable(), "{result:?}");
    assert!(result.certificate().is_none());
    let forged = Certificate {
        bias: Bias::ThroughOrigin,
        weights: array![1.0, 0.0],
        residual: 0.0,
    };
    assert!(!forged.verify(&data, 1e-9 * data.radius()));
    let rebuilt = Certificate::new(&data, Bias::ThroughOrigin, array![1.0, 0.0]).unwrap();
    assert!(rebuilt.residual >= 3e-170, "{}", rebuilt.residual);
}

#[test]
fn a_certificate_needs_a_finite_tolerance() {
    let data = Dataset::new(array![[1.0], [2.0]], array![1.0, -1.0]).unwrap();
    let certificate = Certificate::new(&data, Bias::Free, array![1.0, 1.0]).unwrap();
    assert!(!certificate.verify(&data, 1e-9));
    assert!(!certificate.verify(&data, f64::INFINITY));
}

#[test]
fn the_proof_inequalities_hold_near_the_top_of_the_range() {
    for radius in [3e153, 5e153, 7e153] {
        let g = generate::separable(60, 3, radius / 50.0, radius, 11).unwrap();
        let verdict = novikoff::bounds::verify(&g.data, &PerceptronParams::new()).unwrap();
        assert_eq!(verdict.invariants.violations, 0, "R = {radius:e}");
    }
}

#[test]
fn data_no_scaling_can_fix_are_refused() {
    let data = Dataset::new(array![[1e300, 1e-300], [-1e300, 0.0]], array![1.0, -1.0]).unwrap();
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let err = margin::max_margin(&data, bias).unwrap_err();
        assert!(matches!(err, Error::Range { .. }), "{err}");
        assert_eq!(err.exit_code(), 2);
        assert!(matches!(
            margin::separable_lp(&data, bias),
            Err(Error::Range { .. })
        ));
    }
}

#[test]
fn margins_of_a_given_separator_at_any_scale() {
    let data = Dataset::new(array![[3e-170, 4e-170], [-1e-170, 0.0]], array![1.0, -1.0]).unwrap();
    let m = margin::margins(&data, array![1e-200, 0.0].view(), 0.0).unwrap();
    assert!((m[0] / 3e-170 - 1.0).abs() < 1e-15 && (m[1] / 1e-170 - 1.0).abs() < 1e-15);
}

#[test]
fn cli_train_reports_a_non_finite_stop_and_margin_refuses_wide_data() {
    let dir = tempfile::tempdir().unwrap();
    let g = big();
    let mut csv = String::from("a,b,c,d,e,f,y\n");
    for (row, y) in g.data.x().rows().into_iter().zip(g.data.labels()) {
        let fields: Vec<String> = row.iter().map(|v| format!("{v:e}")).collect();
        csv.push_str(&format!("{},{}\n", fields.join(","), y));
    }
    let path = common::write(&dir, "big.csv", csv);
    let out = common::novikoff(&["train", path.to_str().unwrap(), "--format", "json"]);
    let out = common::json(&out);
    assert_eq!(out["converged"], false);
    assert_eq!(out["stop_reason"], "non_finite");

    let path = common::write(&dir, "wide.csv", "a,b,y\n1e300,1e-300,1\n-1e300,0,-1\n");
    let out = common::novikoff(&["margin", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("out of range"));
}

#[test]
fn cli_tables_write_huge_and_tiny_numbers_in_scientific_notation() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::write(&dir, "huge.csv", "a,b,y\n1e200,2,1\n-1e200,1,-1\n");
    let out = common::novikoff(&["margin", path.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8_lossy(&out.stdout);
    let line = |key: &str| {
        table
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no `{key}` in\n{table}"))
            .to_string()
    };
    assert!(line("radius R").ends_with(" 1e200"), "{table}");
    assert!(line("max margin γ*").ends_with(" 1e200"), "{table}");
    // The separator's second weight is about 5·10⁻²⁰¹: a few characters, not 200 zeros.
    let w = line("w (unit)");
    assert!(w.contains("e-201") && w.len() < 80, "{w}");
    // Every number still reads back as the JSON output's value.
    let json = common::json(&common::novikoff(&[
        "margin",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]));
    let w1: f64 = w
        .trim_end_matches(']')
        .rsplit(", ")
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(w1, json["w"][1].as_f64().unwrap());
}

/// Random small datasets, separable or not.
fn small_dataset() -> impl Strategy<Value = Dataset> {
    (2usize..9, 1usize..4).prop_flat_map(|(n, d)| {
        (
            proptest::collection::vec(-4.0f64..4.0, n * d),
            proptest::collection::vec(any::<bool>(), n),
        )
            .prop_map(move |(values, labels)| {
                let x = Array2::from_shape_vec((n, d), values).unwrap();
                let mut y: Array1<f64> =
                    labels.iter().map(|&p| if p { 1.0 } else { -1.0 }).collect();
                y[0] = 1.0;
                y[n - 1] = -1.0;
                Dataset::new(x, y).unwrap()
            })
    })
}

proptest! {
    // 48 cases: each solves two problems (unscaled and scaled) with both biases, well under 10 s in debug.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Item 3: at every scale 2^k, k in -1000..1000, the answer is an error, an honest `Inaccurate`, or
    /// the unscaled answer times 2^k; a certificate verifies and appears only for non-separable data.
    #[test]
    fn answers_scale_exactly_and_are_never_falsely_certified(data in small_dataset(), k in -1000i32..1000) {
        let big = scaled(&data, pow2(k));
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let reference = margin::max_margin(&data, bias).unwrap();
            let Ok(result) = margin::max_margin(&big, bias) else { continue };
            match (&result, &reference) {
                (MarginResult::NotSeparable { certificate, .. }, _) => {
                    // Upper bounds that fall below the normal range are rounded up to the smallest
                    // normal number (`unscale_up`), so at R near 10⁻²⁹⁹ the relative tolerance has that
                    // floor, as the solver's own acceptance test has.
                    prop_assert!(certificate.verify(&big, (1e-9 * big.radius()).max(f64::MIN_POSITIVE)));
                    prop_assert!(!reference.is_separable(), "{bias:?}: certified at 2^{k} only");
                }
                (_, MarginResult::NotSeparable { .. }) => {
                    prop_assert!(!result.is_separable(), "{bias:?}: separable at 2^{k} only");
                }
                _ => {
                    let (lower, upper) = result.bracket().unwrap();
                    let (lo, hi) = reference.bracket().unwrap();
                    prop_assert!(lower <= upper);
                    if matches!(result, MarginResult::Separable { .. }) {
                        prop_assert!(lower.is_finite() && upper.is_finite());
                    }
                    // Both contain γ*·2^k (0 for non-separable data).
                    let (lo, hi) = (lo.max(0.0) * pow2(k), hi * pow2(k));
                    prop_assert!(lower <= hi * (1.0 + 1e-12) && lo <= upper * (1.0 + 1e-12),
                        "{bias:?} 2^{k}: [{lower:e}, {upper:e}] vs [{lo:e}, {hi:e}]");
                }
            }
        }
    }
}
