//! Margins and the certified maximum margin: closed forms, certificates, properties.

mod common;

use common::seed004;

use approx::assert_relative_eq;
use ndarray::{Array1, Array2, array};
use novikoff::margin::{
    self, Bias, Certificate, MarginResult, MaxMarginParams, Separability, max_margin, separable_lp,
};
use novikoff::{Dataset, Error, rng};
use proptest::prelude::*;

/// Check every promise of a separable result and return (lower, upper).
fn check_separable(data: &Dataset, result: &MarginResult, tol: f64) -> (f64, f64) {
    let MarginResult::Separable {
        gamma,
        bracket,
        w,
        b,
        support,
        ..
    } = result
    else {
        panic!("expected Separable, got {result:?}");
    };
    let (lower, upper) = *bracket;
    assert!(lower > 0.0 && lower <= upper, "{bracket:?}");
    assert!(lower <= *gamma && *gamma <= upper);
    assert!(
        (upper - lower) <= tol * upper,
        "width {}",
        (upper - lower) / upper
    );
    assert_relative_eq!(w.dot(w).sqrt(), 1.0, epsilon = 1e-14);
    // The returned separator achieves the lower end.
    let achieved = margin::margin(data, w.view(), *b).unwrap();
    assert!(
        achieved >= lower - 1e-15 * data.radius(),
        "{achieved} < {lower}"
    );
    assert!(achieved <= upper + 1e-15 * data.radius());
    assert!(!support.is_empty());
    assert_eq!(result.gamma_lower(), Some(lower));
    assert!(result.separator().is_some());
    (lower, upper)
}

#[test]
fn radius_and_margins_of_seed_004() {
    let data = seed004();
    assert_relative_eq!(margin::radius(&data), 5f64.sqrt());
    let m = margin::margins(&data, array![1.0, 0.0].view(), 0.0).unwrap();
    assert_eq!(m.to_vec(), vec![1.0; 6]);
    assert_relative_eq!(
        margin::margin(&data, array![3.0, 1.0].view(), 0.0).unwrap(),
        1.0 / 10f64.sqrt()
    );
    // A plane that misclassifies: signed margin negative, unsigned positive.
    let w = array![0.0, 1.0];
    assert_eq!(margin::margin(&data, w.view(), 0.5).unwrap(), -2.5);
    assert_eq!(margin::unsigned_margin(&data, w.view(), 0.5).unwrap(), 0.5);
}

#[test]
fn margin_rejects_bad_separators() {
    let data = seed004();
    assert!(matches!(
        margin::margin(&data, array![0.0, 0.0].view(), 0.0),
        Err(Error::Parameter { .. })
    ));
    assert!(matches!(
        margin::margin(&data, array![1.0].view(), 0.0),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        margin::margins(&data, array![f64::NAN, 1.0].view(), 0.0),
        Err(Error::Parameter { .. })
    ));
    assert!(margin::margin(&data, array![1.0, 0.0].view(), f64::INFINITY).is_err());
}

#[test]
fn seed_004_has_margin_one_with_and_without_bias() {
    let data = seed004();
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let result = max_margin(&data, bias).unwrap();
        let (lower, upper) = check_separable(&data, &result, 1e-9);
        assert!(lower <= 1.0 && 1.0 <= upper, "{bias:?}: {lower} {upper}");
        let (w, b) = result.separator().unwrap();
        assert_relative_eq!(w[0], 1.0, epsilon = 1e-9);
        assert!(w[1].abs() < 1e-9 && b.abs() < 1e-9);
    }
}

#[test]
fn two_points_have_half_their_distance() {
    let data = Dataset::new(array![[1.0, 2.0, 3.0], [4.0, 6.0, 3.0]], array![1.0, -1.0]).unwrap();
    let result = max_margin(&data, Bias::Free).unwrap();
    let (lower, upper) = check_separable(&data, &result, 1e-12);
    assert!(lower <= 2.5 && 2.5 <= upper);
    let (w, _) = result.separator().unwrap();
    assert_relative_eq!(w[0], -0.6, epsilon = 1e-12);
    assert_relative_eq!(w[1], -0.8, epsilon = 1e-12);
}

#[test]
fn xor_and_the_1d_set_are_not_separable() {
    let xor = Dataset::new(
        array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
        array![1.0, -1.0, -1.0, 1.0],
    )
    .unwrap();
    let line = Dataset::new(array![[-1.0], [0.0], [1.0]], array![-1.0, 1.0, -1.0]).unwrap();
    for data in [&xor, &line] {
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let result = max_margin(data, bias).unwrap();
            let certificate = result.certificate().unwrap_or_else(|| panic!("{result:?}"));
            assert_eq!(certificate.bias, bias);
            assert!(certificate.residual <= 1e-9 * data.radius());
            assert!(certificate.verify(data, 1e-9 * data.radius()));
            assert!(!result.is_separable() && result.separator().is_none());
        }
    }
}

#[test]
fn single_class_needs_a_bias_free_answer() {
    let data = Dataset::new(array![[1.0, 1.0], [2.0, 0.5]], array![1.0, 1.0]).unwrap();
    assert!(matches!(
        max_margin(&data, Bias::Free),
        Err(Error::SingleClass { .. })
    ));
    let result = max_margin(&data, Bias::ThroughOrigin).unwrap();
    check_separable(&data, &result, 1e-9);
}

fn gauss(r: &mut rand_chacha::ChaCha8Rng) -> f64 {
    use rand_distr::Distribution;
    rand_distr::StandardNormal.sample(r)
}

fn unit_vector(r: &mut rand_chacha::ChaCha8Rng, d: usize) -> Array1<f64> {
    let v: Array1<f64> = (0..d).map(|_| gauss(r)).collect();
    let norm = v.dot(&v).sqrt();
    v / norm
}

/// A dataset whose maximum margin is `gamma0` (to the rounding of the construction): features on scales
/// from `1e-3` to `1e3` with positive offsets (like the breast-cancer data), labelled by a random plane
/// through their centre. The `pairs` points nearest the plane are projected onto it and become mirror
/// pairs `p ± gamma0·w` (one of each class; the partner overwrites one of the farthest points), so some
/// pair of hull points is exactly `2·gamma0` apart; every other point is pushed out to distance `gamma0`.
fn tiny_margin_data(
    seed: u64,
    n: usize,
    d: usize,
    pairs: usize,
    gamma0: f64,
) -> (Dataset, Array1<f64>) {
    let mut r = rng::from_seed(seed);
    let scales: Vec<f64> = (0..d)
        .map(|j| 10f64.powf(-3.0 + 6.0 * j as f64 / (d - 1) as f64))
        .collect();
    let mut x = Array2::from_shape_fn((n, d), |(_, j)| scales[j] * (3.0 + gauss(&mut r)));
    let w = unit_vector(&mut r, d);
    let centre = x.mean_axis(ndarray::Axis(0)).unwrap();
    let b = -w.dot(&centre);
    let mut order: Vec<(f64, usize)> = (0..n).map(|i| (x.row(i).dot(&w) + b, i)).collect();
    order.sort_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
    let mut y = Array1::zeros(n);
    for (k, &(s, i)) in order.iter().enumerate() {
        if k < pairs {
            let foot = &x.row(i) - &(&w * s);
            x.row_mut(i).assign(&(&foot + &(&w * gamma0)));
            y[i] = 1.0;
            let partner = order[n - 1 - k].1;
            x.row_mut(partner).assign(&(&foot - &(&w * gamma0)));
            y[partner] = -1.0;
        } else if k < n - pairs {
            let label = if s >= 0.0 { 1.0 } else { -1.0 };
            y[i] = label;
            if s.abs() < gamma0 {
                x.row_mut(i).scaled_add(label * gamma0 - s, &w);
            }
        }
    }
    (Dataset::new(x, y).unwrap(), w)
}

#[test]
fn a_margin_of_1e_minus_8_radius_is_resolved_to_1e_minus_6() {
    let gamma0 = 4e-5;
    let (data, w0) = tiny_margin_data(2024, 600, 30, 40, gamma0);
    let radius = data.radius();
    assert!((2e3..1e4).contains(&radius), "R = {radius}");
    assert!(gamma0 / radius < 2e-8);
    let result = max_margin(&data, Bias::Free).unwrap();
    let (lower, upper) = match &result {
        MarginResult::Separable { bracket, .. } => *bracket,
        MarginResult::Inaccurate {
            bracket, reason, ..
        } => panic!("{bracket:?}: {reason}"),
        other => panic!("{other:?}"),
    };
    assert!(
        (upper - lower) / upper <= 1e-6,
        "relative width {}",
        (upper - lower) / upper
    );
    assert!(
        (lower - gamma0).abs() / gamma0 < 1e-6,
        "{lower} vs {gamma0}"
    );
    // The separator is the planted one.
    let (w, _) = result.separator().unwrap();
    assert!((w.dot(&w0) - 1.0).abs() < 1e-9);
    let achieved = margin::margin(&data, w, result.separator().unwrap().1).unwrap();
    assert!(achieved >= lower * (1.0 - 1e-12));
}

#[test]
fn symmetric_clouds_have_the_mirror_plane_as_separator() {
    // Each positive point (γ₀ + e, u) has the mirror image (−γ₀ − e, u); one pair has e = 0. By symmetry
    // and by that pair, w* = e₁, b* = 0 and γ* = γ₀, with and without a bias.
    let mut r = rng::from_seed(5);
    let (pairs, d, gamma0) = (40, 4, 0.25);
    let mut x = Array2::zeros((2 * pairs, d));
    let mut y = Array1::zeros(2 * pairs);
    for k in 0..pairs {
        let extra = if k == 7 {
            0.0
        } else {
            rng::unit_f64(&mut r) * 2.0
        };
        for j in 1..d {
            let u = gauss(&mut r) * 3.0;
            x[[2 * k, j]] = u;
            x[[2 * k + 1, j]] = u;
        }
        x[[2 * k, 0]] = gamma0 + extra;
        x[[2 * k + 1, 0]] = -(gamma0 + extra);
        y[2 * k] = 1.0;
        y[2 * k + 1] = -1.0;
    }
    let data = Dataset::new(x, y).unwrap();
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let result = max_margin(&data, bias).unwrap();
        let (lower, upper) = check_separable(&data, &result, 1e-9);
        assert!(
            lower <= gamma0 && gamma0 <= upper,
            "{bias:?} {lower} {upper}"
        );
        let (w, b) = result.separator().unwrap();
        assert_relative_eq!(w[0], 1.0, epsilon = 1e-9);
        assert!(b.abs() < 1e-9);
        let MarginResult::Separable { support, .. } = &result else {
            unreachable!()
        };
        assert_eq!(support, &vec![14, 15]);
    }
}

#[test]
fn through_the_origin_the_margin_can_be_strictly_smaller() {
    // Free bias: w = (1, 0), b = −2, γ* = 1. Through the origin the best plane is w ∝ (1, −2), γ* = 1/√5.
    let data = Dataset::new(array![[3.0, 1.0], [1.0, 1.0]], array![1.0, -1.0]).unwrap();
    let free = max_margin(&data, Bias::Free).unwrap();
    let (lf, uf) = check_separable(&data, &free, 1e-9);
    assert!(lf <= 1.0 && 1.0 <= uf);
    let origin = max_margin(&data, Bias::ThroughOrigin).unwrap();
    let (lo, uo) = check_separable(&data, &origin, 1e-9);
    let expected = 1.0 / 5f64.sqrt();
    assert!(lo <= expected && expected <= uo, "{lo} {uo}");
    assert!(uo < lf);
    let (w, b) = origin.separator().unwrap();
    assert_eq!(b, 0.0);
    assert_relative_eq!(w[1] / w[0], -2.0, epsilon = 1e-9);
}

#[test]
fn separable_with_a_bias_but_not_through_the_origin() {
    let data = Dataset::new(array![[1.0], [2.0]], array![-1.0, 1.0]).unwrap();
    let (lower, upper) = check_separable(&data, &max_margin(&data, Bias::Free).unwrap(), 1e-9);
    assert!(lower <= 0.5 && 0.5 <= upper);
    let result = max_margin(&data, Bias::ThroughOrigin).unwrap();
    let certificate = result
        .certificate()
        .expect("not separable through the origin");
    assert!(certificate.verify(&data, 1e-12));
    // Gordan: ⅔·(−1)·1 + ⅓·(+1)·2 = 0.
    assert_relative_eq!(certificate.weights[0], 2.0 / 3.0, epsilon = 1e-12);
    assert_relative_eq!(certificate.weights[1], 1.0 / 3.0, epsilon = 1e-12);
}

#[test]
fn well_conditioned_data_give_a_bracket_of_1e_minus_9() {
    for (seed, n, d) in [(1u64, 200usize, 5usize), (2, 500, 20), (3, 40, 60)] {
        let data = planted(seed, n, d, 1.0, 0.1, 0, true);
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let data = if bias == Bias::ThroughOrigin {
                planted(seed, n, d, 1.0, 0.1, 0, false)
            } else {
                data.clone()
            };
            check_separable(&data, &max_margin(&data, bias).unwrap(), 1e-9);
        }
    }
}

#[test]
fn wide_data_are_solved_in_the_row_space() {
    // d > n: the problem is reduced to the span of the rows and mapped back.
    let mut r = rng::from_seed(9);
    let (n, d) = (12, 80);
    let x = Array2::from_shape_fn((n, d), |_| gauss(&mut r));
    let y: Array1<f64> = (0..n)
        .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
        .collect();
    let data = Dataset::new(x, y).unwrap();
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        let result = max_margin(&data, bias).unwrap();
        check_separable(&data, &result, 1e-9);
        // The separator lies in the span of the rows (of their differences with a free bias).
        let (w, _) = result.separator().unwrap();
        let space = margin::svd::row_space(data.x()).unwrap();
        let inside = space.basis.dot(&space.basis.t().dot(&w));
        assert!((&inside - &w).iter().all(|e| e.abs() < 1e-12));
    }
}

#[test]
fn many_dimensions_use_the_polish_alone() {
    // More than 200 reduced dimensions: the interior-point stage is skipped.
    let data = planted(21, 260, 230, 1.0, 0.02, 0, true);
    let result = max_margin(&data, Bias::Free).unwrap();
    check_separable(&data, &result, 1e-9);
    let noisy = planted(22, 600, 230, 1.0, 0.02, 40, true);
    match max_margin(&noisy, Bias::Free).unwrap() {
        MarginResult::NotSeparable { certificate, .. } => {
            assert!(certificate.verify(&noisy, 1e-9 * noisy.radius()))
        }
        MarginResult::Separable { .. } => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn scaling_the_data_scales_gamma_and_radius_alike() {
    let data = planted(4, 150, 6, 1.0, 0.2, 0, true);
    let base = max_margin(&data, Bias::Free).unwrap();
    let gamma = base.gamma().unwrap();
    let radius = data.radius();
    for s in [1e-3, 0.37, 1e4] {
        let scaled = Dataset::new(data.x().mapv(|v| v * s), data.y().to_owned()).unwrap();
        let result = max_margin(&scaled, Bias::Free).unwrap();
        let (lower, upper) = check_separable(&scaled, &result, 1e-9);
        assert_relative_eq!(result.gamma().unwrap(), gamma * s, max_relative = 1e-9);
        assert!(lower <= gamma * s * (1.0 + 1e-9) && gamma * s * (1.0 - 1e-9) <= upper);
        assert_relative_eq!(scaled.radius(), radius * s, max_relative = 1e-14);
        assert_relative_eq!(
            (scaled.radius() / result.gamma().unwrap()).powi(2),
            (radius / gamma).powi(2),
            max_relative = 1e-8
        );
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    assert!(matches!(
        Dataset::new(array![[1.0, f64::NAN]], array![1.0]),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        Dataset::new(Array2::zeros((0, 2)), Array1::zeros(0)),
        Err(Error::Empty)
    ));
    let single = Dataset::new(array![[1.0], [2.0]], array![-1.0, -1.0]).unwrap();
    assert!(matches!(
        max_margin(&single, Bias::Free),
        Err(Error::SingleClass { .. })
    ));
    assert!(matches!(
        separable_lp(&single, Bias::Free),
        Err(Error::SingleClass { .. })
    ));
    assert!(
        MaxMarginParams::new(Bias::Free)
            .tolerance(1.5)
            .check()
            .is_err()
    );
    assert!(
        MaxMarginParams::new(Bias::Free)
            .certificate_tolerance(-1.0)
            .check()
            .is_err()
    );
    let data = seed004();
    assert!(matches!(
        Certificate::new(&data, Bias::Free, array![1.0]),
        Err(Error::Shape { .. })
    ));
    assert!(Certificate::new(&data, Bias::Free, Array1::from_elem(6, -1.0)).is_err());
    assert!(Certificate::new(&data, Bias::Free, array![0.0, 1.0, 0.0, 0.0, 0.0, 0.0]).is_err());
}

#[test]
fn degenerate_data_all_points_identical_or_zero() {
    // Both classes at the same point: the hulls meet there.
    let same = Dataset::new(array![[1.0, 2.0], [1.0, 2.0]], array![1.0, -1.0]).unwrap();
    let certificate = max_margin(&same, Bias::Free)
        .unwrap()
        .certificate()
        .cloned()
        .unwrap();
    // The residual is a rounding-error bound, a few ulps of R even when p − q is exactly zero.
    assert!(certificate.verify(&same, 1e-14 * same.radius()));
    // A zero row cannot be separated through the origin.
    let zero = Dataset::new(array![[0.0, 0.0], [1.0, 1.0]], array![1.0, -1.0]).unwrap();
    let certificate = max_margin(&zero, Bias::ThroughOrigin)
        .unwrap()
        .certificate()
        .cloned()
        .unwrap();
    assert!(certificate.verify(&zero, 1e-15));
    assert_eq!(certificate.rows_by_weight(), vec![0]);
}

#[test]
fn forged_certificates_do_not_verify() {
    let data = seed004(); // separable
    let weights = Array1::from_elem(6, 1.0 / 3.0);
    let forged = Certificate::new(&data, Bias::Free, weights).unwrap();
    assert!(forged.residual > 0.1);
    assert!(!forged.verify(&data, 1e-9));
    let wrong_length = Certificate {
        weights: Array1::from_elem(5, 0.2),
        ..forged.clone()
    };
    assert!(!wrong_length.verify(&data, 1.0));
}

#[test]
fn the_lp_agrees_on_the_textbook_sets() {
    assert!(separable_lp(&seed004(), Bias::Free).unwrap().is_separable());
    assert!(
        separable_lp(&seed004(), Bias::ThroughOrigin)
            .unwrap()
            .is_separable()
    );
    let xor = Dataset::new(
        array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
        array![1.0, -1.0, -1.0, 1.0],
    )
    .unwrap();
    match separable_lp(&xor, Bias::Free).unwrap() {
        Separability::NotSeparable { certificate, .. } => assert!(certificate.verify(&xor, 1e-9)),
        other => panic!("{other:?}"),
    }
}

/// Points `N(0, scale²)` labelled by a random plane (through the origin unless `with_bias`), those within
/// `gamma0·scale` of it pushed out to that distance, so that γ* ≥ gamma0·scale; then `flips` labels flipped.
fn planted(
    seed: u64,
    n: usize,
    d: usize,
    scale: f64,
    gamma0: f64,
    flips: usize,
    with_bias: bool,
) -> Dataset {
    let mut r = rng::from_seed(seed);
    let w = unit_vector(&mut r, d);
    let b = if with_bias {
        gauss(&mut r) * 0.5 * scale
    } else {
        0.0
    };
    let margin = gamma0 * scale;
    let mut x = Array2::zeros((n, d));
    let mut y = Array1::zeros(n);
    for i in 0..n {
        let mut row: Array1<f64> = (0..d).map(|_| gauss(&mut r) * scale).collect();
        let s = w.dot(&row) + b;
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        // Put the point on the side of its (alternating) label, at least `margin` away.
        let shift = if label * s < margin {
            label * (margin + rng::unit_f64(&mut r) * scale) - s
        } else {
            0.0
        };
        row.scaled_add(shift, &w);
        x.row_mut(i).assign(&row);
        y[i] = label;
    }
    for i in 0..flips.min(n) {
        y[i] = -y[i];
    }
    Dataset::new(x, y).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn brackets_hold_on_random_data(
        seed in 0u64..1_000_000,
        n in 2usize..60,
        d in 1usize..8,
        log_scale in -3.0f64..4.0,
        through_origin in any::<bool>(),
    ) {
        let scale = 10f64.powf(log_scale);
        let gamma0 = 0.05;
        let data = planted(seed, n, d, scale, gamma0, 0, !through_origin);
        let bias = if through_origin { Bias::ThroughOrigin } else { Bias::Free };
        let result = max_margin(&data, bias).unwrap();
        let (lower, upper) = result.bracket().expect("planted data are separable");
        prop_assert!(lower > 0.0 && lower <= upper, "{result:?}");
        prop_assert!((upper - lower) <= 1e-6 * upper, "{result:?}");
        // On data built with margin ≥ γ₀·scale, the upper end is at least that.
        prop_assert!(upper >= gamma0 * scale * (1.0 - 1e-12), "{upper} < {}", gamma0 * scale);
        let (w, b) = result.separator().unwrap();
        let achieved = margin::margin(&data, w, b).unwrap();
        prop_assert!(achieved >= lower - 1e-15 * data.radius(), "{achieved} < {lower}");
        // The LP agrees.
        prop_assert!(separable_lp(&data, bias).unwrap().is_separable() || upper < 1e-6 * data.radius());
    }

    #[test]
    fn label_noise_gives_a_certificate_or_a_correct_separator(
        seed in 0u64..1_000_000,
        n in 4usize..80,
        d in 1usize..6,
        flips in 1usize..6,
        log_scale in -3.0f64..4.0,
        through_origin in any::<bool>(),
    ) {
        let scale = 10f64.powf(log_scale);
        let data = planted(seed, n, d, scale, 0.05, flips, !through_origin);
        let bias = if through_origin { Bias::ThroughOrigin } else { Bias::Free };
        if bias == Bias::Free && data.require_both_classes().is_err() {
            return Ok(());
        }
        match max_margin(&data, bias).unwrap() {
            MarginResult::NotSeparable { certificate, .. } => {
                prop_assert!(certificate.verify(&data, 1e-9 * data.radius()), "{certificate:?}");
            }
            MarginResult::Separable { w, b, bracket, .. } => {
                let m = margin::margins(&data, w.view(), b).unwrap();
                prop_assert!(m.iter().all(|&v| v > 0.0));
                prop_assert!(bracket.0 > 0.0);
            }
            other => prop_assert!(false, "{other:?}"),
        }
    }
}
