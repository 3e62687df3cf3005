//! The kernel maximum margin against the linear solver, known answers and certificates.

use ndarray::array;
use novikoff::Dataset;
use novikoff::generate::{Family, SeparableParams};
use novikoff::kernel::{self, Gamma, Kernel, KernelCertificate, KernelMarginParams, KernelParams};
use novikoff::margin::{self, Bias};

#[test]
fn the_linear_kernel_brackets_the_linear_margin() {
    for (seed, bias) in [(1, Bias::Free), (2, Bias::ThroughOrigin), (3, Bias::Free)] {
        let data = SeparableParams::new(120, 4)
            .margin(0.05)
            .radius(1.0)
            .offset(if bias == Bias::Free { 0.2 } else { 0.0 })
            .seed(seed)
            .check()
            .unwrap()
            .generate()
            .unwrap()
            .data;
        let linear = margin::max_margin(&data, bias).unwrap();
        let (lo, hi) = linear.bracket().unwrap();
        let result = kernel::max_margin(&data, &Kernel::linear(), bias).unwrap();
        let (klo, khi) = result.bracket().unwrap();
        assert!(result.is_separable(), "{result:?}");
        // Both brackets contain γ*, so they overlap.
        assert!(klo <= hi && lo <= khi, "[{klo}, {khi}] vs [{lo}, {hi}]");
        assert!((khi - klo) <= 1e-6 * khi, "[{klo}, {khi}]");
    }
}

#[test]
fn non_separable_data_get_a_certificate_that_checks_and_a_forgery_that_does_not() {
    let xor = Dataset::new(
        array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]],
        array![1., -1., -1., 1.],
    )
    .unwrap();
    let linear = Kernel::linear();
    let result = kernel::max_margin(&xor, &linear, Bias::Free).unwrap();
    let certificate = result.certificate().expect("XOR is not linearly separable");
    assert!(certificate.verify(&xor, &linear, 1e-6).unwrap());
    // Weights on one diagonal only: the classes' points (0, 0) and (0, 1) are 1 apart.
    let forged = KernelCertificate {
        weights: array![1.0, 1.0, 0.0, 0.0],
        ..certificate.clone()
    };
    assert!(!forged.verify(&xor, &linear, 1e-6).unwrap());
    // Weights that do not sum to one per class.
    let unnormalised = KernelCertificate {
        weights: array![1.0, 1.0, 1.0, 1.0],
        ..certificate.clone()
    };
    assert!(!unnormalised.verify(&xor, &linear, 1e-6).unwrap());
    // A certificate of the linear kernel says nothing of (x·z + 1)², which separates XOR.
    let poly = KernelParams::polynomial(2)
        .coef0(1.0)
        .gamma(Gamma::Value(1.0))
        .check()
        .unwrap();
    assert!(!certificate.verify(&xor, &poly, 1e-6).unwrap());
}

#[test]
fn the_gaussian_margin_brackets_agree_across_tolerances_and_cache_sizes() {
    let data = novikoff::generate::XorParams::new(80)
        .gap(0.05)
        .seed(3)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data;
    let rbf = KernelParams::rbf()
        .gamma(Gamma::Value(2.0))
        .check()
        .unwrap();
    let loose = KernelMarginParams::new(Bias::Free)
        .tolerance(1e-3)
        .check()
        .unwrap()
        .solve(&data, &rbf)
        .unwrap();
    let tight = KernelMarginParams::new(Bias::Free)
        .tolerance(1e-9)
        .cache_bytes(8 * 80 * 4)
        .check()
        .unwrap()
        .solve(&data, &rbf)
        .unwrap();
    let (a, b) = (loose.bracket().unwrap(), tight.bracket().unwrap());
    assert!(a.0 <= b.1 && b.0 <= a.1, "{a:?} {b:?}");
    assert!(b.1 - b.0 <= 1e-9 * b.1, "{b:?}");
    assert!(!tight.stats().full_gram && tight.stats().rows_computed > 80);
    // The separator's certified margins are at least the bracket's lower end.
    let separator = tight.separator().unwrap();
    assert!(separator.margins_lower.iter().all(|&m| m >= b.0));
}

/// Two short rows, `(10⁻¹⁵⁰, 10⁻¹⁵⁰)` and `(first, −10⁻¹⁵⁰)`, beside `(10¹⁵⁰, 5·10¹⁴⁹)`, every label
/// +1: with `first = 10⁻¹⁵⁰` the short rows do not cancel (and `w = (1, 0)` separates all three), with
/// `first = −10⁻¹⁵⁰` they do.
fn far_shorter_rows(first: f64) -> Dataset {
    Dataset::new(
        array![[1e-150, 1e-150], [first, -1e-150], [1e150, 5e149]],
        array![1.0, 1.0, 1.0],
    )
    .unwrap()
}

/// Two rows of length 10⁻¹⁵⁰ and one of 10¹⁵⁰, all separable through the origin by `w = (1, 0)`: the
/// short rows' combination is far below `10⁻⁹·R` but as long as they are, so it is no certificate,
/// under the linear kernel or a polynomial one (it once was, under both).
#[test]
fn rows_far_shorter_than_the_rest_are_no_certificate_in_the_feature_space() {
    let data = far_shorter_rows(1e-150);
    let poly = KernelParams::polynomial(3).check_for(&data).unwrap();
    for kernel in [Kernel::linear(), poly] {
        let result = kernel::max_margin(&data, &kernel, Bias::ThroughOrigin).unwrap();
        assert!(result.certificate().is_none(), "{kernel:?}: {result:?}");
    }
}

/// A handed-in certificate meets the solver's rule: two rows of 10⁻¹⁵⁰ mix to a point of 10⁻¹⁵⁰, far
/// below `10⁻⁶·R̂` beside a row of 10¹⁵⁰, but not below the rows they mix, and `w = (1, 0)` separates.
#[test]
fn a_forged_certificate_of_rows_far_shorter_than_the_rest_does_not_verify_in_the_feature_space() {
    let data = far_shorter_rows(1e-150);
    let forged = KernelCertificate {
        bias: Bias::ThroughOrigin,
        augment: 0.0,
        weights: array![0.5, 0.5, 0.0],
        residual: 0.0,
    };
    assert!(!forged.verify(&data, &Kernel::linear(), 1e-6).unwrap());
    let cancelling = far_shorter_rows(-1e-150);
    assert!(forged.verify(&cancelling, &Kernel::linear(), 1e-6).unwrap());
}

/// Random 0/1 rows with a row of zeros, under the linear kernel: never separable through the origin,
/// and always proved so, whatever rounding leaves on the other rows.
#[test]
fn zero_rows_among_binary_rows_are_proved_not_separable_in_the_feature_space() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
    for trial in 0..200 {
        let (n, d) = (rng.random_range(3..40), rng.random_range(2..10));
        let mut x =
            ndarray::Array2::from_shape_fn((n, d), |_| f64::from(rng.random::<f64>() < 0.2));
        x.row_mut(rng.random_range(0..n)).fill(0.0);
        let y =
            ndarray::Array1::from_shape_fn(n, |_| if rng.random::<bool>() { 1.0 } else { -1.0 });
        let data = Dataset::new(x, y).unwrap();
        let result = kernel::max_margin(&data, &Kernel::linear(), Bias::ThroughOrigin).unwrap();
        assert!(
            result.certificate().is_some(),
            "trial {trial} ({n} × {d}): {result:?}"
        );
    }
}
