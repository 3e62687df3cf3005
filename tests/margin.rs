//! Margins and the certified maximum margin: closed forms, certificates, properties.

use approx::assert_relative_eq;
use ndarray::{array, Array1, Array2};
use novikoff::margin::{self, max_margin, Bias, Certificate, MarginResult, MaxMarginParams};
use novikoff::{rng, Dataset, Error};

fn seed004() -> Dataset {
    let x = array![[-1.0, 2.0], [1.0, 0.0], [1.0, 1.0], [-1.0, 0.0], [-1.0, -2.0], [1.0, -1.0]];
    Dataset::new(x, array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0]).unwrap()
}

/// Check every promise of a separable result and return (lower, upper).
fn check_separable(data: &Dataset, result: &MarginResult, tol: f64) -> (f64, f64) {
    let MarginResult::Separable { gamma, bracket, w, b, support } = result else {
        panic!("expected Separable, got {result:?}");
    };
    let (lower, upper) = *bracket;
    assert!(lower > 0.0 && lower <= upper, "{bracket:?}");
    assert!(lower <= *gamma && *gamma <= upper);
    assert!((upper - lower) <= tol * upper, "width {}", (upper - lower) / upper);
    assert_relative_eq!(w.dot(w).sqrt(), 1.0, epsilon = 1e-14);
    // The returned separator achieves the lower end.
    let achieved = margin::margin(data, w.view(), *b).unwrap();
    assert!(achieved >= lower - 1e-15 * data.radius(), "{achieved} < {lower}");
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
    assert_relative_eq!(margin::margin(&data, array![3.0, 1.0].view(), 0.0).unwrap(), 1.0 / 10f64.sqrt());
    // A plane that misclassifies: signed margin negative, unsigned positive.
    let w = array![0.0, 1.0];
    assert_eq!(margin::margin(&data, w.view(), 0.5).unwrap(), -2.5);
    assert_eq!(margin::unsigned_margin(&data, w.view(), 0.5).unwrap(), 0.5);
}

#[test]
fn margin_rejects_bad_separators() {
    let data = seed004();
    assert!(matches!(margin::margin(&data, array![0.0, 0.0].view(), 0.0), Err(Error::Parameter { .. })));
    assert!(matches!(margin::margin(&data, array![1.0].view(), 0.0), Err(Error::Shape { .. })));
    assert!(matches!(margin::margins(&data, array![f64::NAN, 1.0].view(), 0.0), Err(Error::Parameter { .. })));
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
    let xor = Dataset::new(array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], array![1.0, -1.0, -1.0, 1.0])
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
    assert!(matches!(max_margin(&data, Bias::Free), Err(Error::SingleClass { .. })));
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
fn tiny_margin_data(seed: u64, n: usize, d: usize, pairs: usize, gamma0: f64) -> (Dataset, Array1<f64>) {
    let mut r = rng::from_seed(seed);
    let scales: Vec<f64> = (0..d).map(|j| 10f64.powf(-3.0 + 6.0 * j as f64 / (d - 1) as f64)).collect();
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
        MarginResult::Inaccurate { bracket, reason, .. } => panic!("{bracket:?}: {reason}"),
        other => panic!("{other:?}"),
    };
    assert!((upper - lower) / upper <= 1e-6, "relative width {}", (upper - lower) / upper);
    assert!((lower - gamma0).abs() / gamma0 < 1e-6, "{lower} vs {gamma0}");
    // The separator is the planted one.
    let (w, _) = result.separator().unwrap();
    assert!((w.dot(&w0) - 1.0).abs() < 1e-9);
    let achieved = margin::margin(&data, w, result.separator().unwrap().1).unwrap();
    assert!(achieved >= lower * (1.0 - 1e-12));
}
