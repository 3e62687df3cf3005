//! A stress test of `max_margin` against an independent decision of separability (issue #19).
//!
//! Every dataset here is shaped to reach the corners of the active-set code: duplicated rows, rows with
//! opposite labels, exact multiples of each other, many points exactly on the margin, tiny margins,
//! integer "pixel" data with more than 200 features (the path that skips the interior-point start), and
//! the raw and rescaled versions of each. For every dataset and both biases, `max_margin` must end in
//!
//! * a certified `Separable`, whose separator achieves the bracket's lower end, or
//! * a `NotSeparable` whose certificate verifies against the data, or
//! * an honest `Inaccurate` with an ordered bracket,
//!
//! never a panic, and never a disagreement on separability with the feasibility LP (`separable_lp`,
//! an interior-point LP with its own Farkas certificate). The full sweep over real data (scikit-learn's
//! digits and the MNIST subset, against scipy's HiGHS) is `notebooks/margin_stress.ipynb`.

use ndarray::{Array1, Array2};
use novikoff::Dataset;
use novikoff::margin::{self, Bias, MarginResult, Separability, max_margin, separable_lp};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What happened to one dataset and bias.
#[derive(Debug, Default)]
struct Tally {
    separable: usize,
    not_separable: usize,
    inaccurate: usize,
}

/// Solve, check the outcome on its own terms, and check it against the LP.
fn check(name: &str, data: &Dataset, bias: Bias, tally: &mut Tally) {
    let radius = data.radius();
    let result = max_margin(data, bias).unwrap_or_else(|e| panic!("{name} {bias:?}: {e}"));
    let reference = separable_lp(data, bias).unwrap_or_else(|e| panic!("{name} {bias:?}: {e}"));
    match &result {
        MarginResult::Separable {
            bracket: (lower, upper),
            w,
            b,
            ..
        } => {
            tally.separable += 1;
            assert!(
                0.0 < *lower && lower <= upper,
                "{name} {bias:?}: bracket {lower} {upper}"
            );
            let achieved = margin::margin(data, w.view(), *b).unwrap();
            assert!(
                achieved >= *lower,
                "{name} {bias:?}: the separator achieves {achieved} < lower {lower}"
            );
            assert!(
                !matches!(reference, Separability::NotSeparable { .. }),
                "{name} {bias:?}: certified separable, the LP proves the opposite"
            );
        }
        MarginResult::NotSeparable { certificate, .. } => {
            tally.not_separable += 1;
            assert!(
                certificate.verify(data, 1e-9 * radius),
                "{name} {bias:?}: the certificate does not verify (residual {})",
                certificate.residual
            );
            assert!(
                !reference.is_separable(),
                "{name} {bias:?}: certified not separable, the LP separates: {reference:?}"
            );
        }
        MarginResult::Inaccurate {
            bracket: (lower, upper),
            ..
        } => {
            tally.inaccurate += 1;
            assert!(lower <= upper, "{name} {bias:?}: bracket {lower} {upper}");
        }
        other => panic!("{name} {bias:?}: unexpected {other:?}"),
    }
}

fn both_biases(name: &str, data: &Dataset, tally: &mut Tally) {
    check(name, data, Bias::ThroughOrigin, tally);
    if data.labels().iter().any(|&y| y > 0.0) && data.labels().iter().any(|&y| y < 0.0) {
        check(name, data, Bias::Free, tally);
    }
}

/// The dataset and its copy scaled by `factor` (a power of two keeps every value exact, other factors
/// do not, as with real preprocessing).
fn with_scaled(x: &Array2<f64>, y: &Array1<f64>, factor: f64) -> [Dataset; 2] {
    [
        Dataset::new(x.clone(), y.clone()).unwrap(),
        Dataset::new(x.mapv(|v| v * factor), y.clone()).unwrap(),
    ]
}

fn gaussian(rng: &mut ChaCha8Rng, n: usize, d: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, d), |_| {
        // Box–Muller is enough here and keeps the test free of distribution crates.
        let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    })
}

fn random_labels(rng: &mut ChaCha8Rng, n: usize) -> Array1<f64> {
    Array1::from_shape_fn(n, |_| if rng.random::<bool>() { 1.0 } else { -1.0 })
}

/// Labels of a random plane, with the points inside a slab of half-width `gap` pushed out to it, so the
/// maximum margin is at least `gap` and many points sit close to it.
fn planted(rng: &mut ChaCha8Rng, x: &mut Array2<f64>, gap: f64, bias: f64) -> Array1<f64> {
    let d = x.ncols();
    let w = gaussian(rng, 1, d).row(0).to_owned();
    let w = &w / w.dot(&w).sqrt();
    let mut y = Array1::zeros(x.nrows());
    for (mut row, label) in x.outer_iter_mut().zip(y.iter_mut()) {
        let a = row.dot(&w) + bias;
        *label = if a >= 0.0 { 1.0 } else { -1.0 };
        if a.abs() < gap {
            row.scaled_add(*label * gap - a, &w);
        }
    }
    y
}

#[test]
fn random_labels_in_few_and_many_dimensions() {
    let mut tally = Tally::default();
    for seed in 0..12u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (n, d) = [(40, 3), (30, 12), (24, 30), (60, 8)][seed as usize % 4];
        let x = gaussian(&mut rng, n, d);
        let y = random_labels(&mut rng, n);
        for data in with_scaled(&x, &y, 1e3) {
            both_biases(&format!("gaussian seed {seed} {n}x{d}"), &data, &mut tally);
        }
    }
    assert!(tally.not_separable > 0 && tally.separable > 0, "{tally:?}");
}

#[test]
fn duplicated_rows_with_opposite_labels() {
    let mut tally = Tally::default();
    for seed in 0..8u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(100 + seed);
        let (n, d) = (30, 2 + seed as usize % 4);
        let mut x = gaussian(&mut rng, n, d);
        let mut y = planted(&mut rng, &mut x, 0.1, 0.3);
        // Copy a few rows with the other label: the two hulls now share those points.
        let copies = 1 + seed as usize % 3;
        let extra = x.slice(ndarray::s![..copies, ..]).to_owned();
        let flipped = y.slice(ndarray::s![..copies]).mapv(|v| -v);
        x = ndarray::concatenate![ndarray::Axis(0), x, extra];
        y = ndarray::concatenate![ndarray::Axis(0), y, flipped];
        for data in with_scaled(&x, &y, 0.37) {
            both_biases(
                &format!("opposite duplicates seed {seed}"),
                &data,
                &mut tally,
            );
        }
    }
    assert_eq!(tally.separable, 0, "{tally:?}");
}

#[test]
fn exact_multiples_repeated_rows_and_points_on_the_margin() {
    let mut tally = Tally::default();
    for seed in 0..8u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(200 + seed);
        let d = 2 + seed as usize % 3;
        let mut x = gaussian(&mut rng, 16, d);
        let y0 = planted(&mut rng, &mut x, 0.5, 0.0);
        // Each row again, doubled and halved (same label), and every row once more as is: many rows on
        // the margin and a support that is far from unique.
        let rows: Vec<Array1<f64>> = x
            .outer_iter()
            .flat_map(|r| [r.to_owned(), &r * 2.0, &r * 0.5, r.to_owned()])
            .collect();
        let labels: Vec<f64> = y0.iter().flat_map(|&l| [l; 4]).collect();
        let views: Vec<_> = rows.iter().map(|r| r.view()).collect();
        let x = ndarray::stack(ndarray::Axis(0), &views).unwrap();
        let y = Array1::from(labels);
        for data in with_scaled(&x, &y, 3.0) {
            both_biases(&format!("multiples seed {seed}"), &data, &mut tally);
        }
        // Through the origin, a row and its negative multiple with the same label cannot be separated.
        let mut x2 = x.clone();
        x2.row_mut(0).mapv_inplace(|v| -3.0 * v);
        let data = Dataset::new(x2, y.clone()).unwrap();
        let mut local = Tally::default();
        check(
            &format!("negative multiple seed {seed}"),
            &data,
            Bias::ThroughOrigin,
            &mut local,
        );
        assert_eq!(local.not_separable, 1, "seed {seed}: {local:?}");
    }
}

#[test]
fn tiny_margins_and_degenerate_small_cases() {
    let mut tally = Tally::default();
    for (seed, gap) in [(0u64, 1e-4), (1, 1e-5), (2, 1e-6), (3, 3e-6)] {
        let mut rng = ChaCha8Rng::seed_from_u64(300 + seed);
        let mut x = gaussian(&mut rng, 80, 5);
        let y = planted(&mut rng, &mut x, gap, 0.2);
        for data in with_scaled(&x, &y, 1.0 / 1024.0) {
            both_biases(&format!("gap {gap:e}"), &data, &mut tally);
        }
    }
    // All rows equal, a single row, one feature, and a row of zeros.
    let cases: Vec<(&str, Array2<f64>, Array1<f64>)> = vec![
        (
            "all rows equal",
            Array2::from_elem((5, 3), 1.5),
            Array1::from(vec![1.0, -1.0, 1.0, -1.0, 1.0]),
        ),
        (
            "single row",
            Array2::from_elem((1, 4), 2.0),
            Array1::from(vec![1.0]),
        ),
        (
            "d = 1",
            Array2::from_shape_vec((4, 1), vec![-2.0, -1.0, 1.0, 3.0]).unwrap(),
            Array1::from(vec![-1.0, 1.0, -1.0, 1.0]),
        ),
        (
            "zero row",
            Array2::from_shape_vec((3, 2), vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0]).unwrap(),
            Array1::from(vec![1.0, 1.0, -1.0]),
        ),
    ];
    for (name, x, y) in cases {
        both_biases(name, &Dataset::new(x, y).unwrap(), &mut tally);
    }
}

/// Integer pixels in 0..=255, mostly zero, with more than 200 features: the regime of the MNIST subset
/// that once panicked, where the polish starts without the interior-point solve.
#[test]
fn sparse_pixel_data_in_many_dimensions() {
    let mut tally = Tally::default();
    for seed in 0..3u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(400 + seed);
        let (n, d) = (260, 210);
        let prototypes = [gaussian(&mut rng, 1, d), gaussian(&mut rng, 1, d)];
        let mut x = Array2::zeros((n, d));
        let mut y = Array1::zeros(n);
        for i in 0..n {
            let class = rng.random_range(0..2);
            y[i] = if class == 0 { 1.0 } else { -1.0 };
            for j in 0..d {
                let ink = prototypes[class][(0, j)] + 0.8 * rng.random::<f64>();
                if ink > 0.9 {
                    x[(i, j)] = (ink * 120.0).clamp(0.0, 255.0).round();
                }
            }
        }
        for data in with_scaled(&x, &y, 1.0 / 255.0) {
            both_biases(&format!("pixels seed {seed}"), &data, &mut tally);
        }
    }
    assert!(tally.separable + tally.not_separable > 0, "{tally:?}");
}

/// Small half-integer data: many ties, repeated rows and exactly dependent differences. Such data once
/// drove the active set's minor cycle to a target weight negative by less than a rounding error, whose
/// step then rounded to a full step, so no row was chosen to leave and a sentinel index escaped.
#[test]
fn half_integer_grids_with_ties() {
    let mut tally = Tally::default();
    for seed in 0..400u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(500 + seed);
        let n = rng.random_range(2..=8);
        let d = rng.random_range(1..=3);
        let x = Array2::from_shape_fn((n, d), |_| f64::from(rng.random_range(-4..=4)) * 0.5);
        let y = random_labels(&mut rng, n);
        both_biases(
            &format!("half-integers seed {seed}"),
            &Dataset::new(x, y).unwrap(),
            &mut tally,
        );
    }
    assert!(tally.not_separable > 0 && tally.separable > 0, "{tally:?}");
}

/// `(x, 1)` with `x = ±10⁻³⁰⁰`, the augmented vectors the classic bias rule sees: separable through the
/// origin by `w = (1, 0)` with margin 10⁻³⁰⁰. A hull point of length 10⁻³⁰ is tiny against the radius 1
/// but not against the first feature, so it is no certificate (it once was reported as one).
#[test]
fn a_feature_far_below_the_radius_gets_no_false_certificate() {
    let x = Array2::from_shape_vec((2, 2), vec![1e-300, 1.0, -1e-300, 1.0]).unwrap();
    let data = Dataset::new(x, Array1::from(vec![1.0, -1.0])).unwrap();
    let result = max_margin(&data, Bias::ThroughOrigin).unwrap();
    assert!(result.certificate().is_none(), "{result:?}");
    let reference = separable_lp(&data, Bias::ThroughOrigin).unwrap();
    assert!(
        !matches!(reference, Separability::NotSeparable { .. }),
        "{reference:?}"
    );
}

/// Rows that all lie at the origin, stored densely, sparsely with nothing stored, and sparsely with
/// stored zeros: no plane separates them, with a free bias or through the origin, and the certificate
/// proves it with a residual of exactly zero, which verifies even against a tolerance of zero. (Its
/// bound once kept the accumulators' underflow floor, above the threshold `10⁻⁹·R = 0`, and the
/// answer was `Inaccurate`.)
#[test]
fn rows_all_at_the_origin_are_proved_not_separable() {
    let labels = Array1::from(vec![1.0, -1.0, 1.0]);
    let stored_zeros = novikoff::dataset::CsrMatrix::new(
        (3, 4),
        vec![0, 1, 1, 3],
        vec![2, 0, 3],
        vec![0.0, 0.0, -0.0],
    );
    let empty = novikoff::dataset::CsrMatrix::new((3, 4), vec![0, 0, 0, 0], vec![], vec![]);
    let datasets = [
        Dataset::new(Array2::zeros((3, 4)), labels.clone()).unwrap(),
        Dataset::from_csr(empty, labels.clone()).unwrap(),
        Dataset::from_csr(stored_zeros, labels).unwrap(),
    ];
    for data in &datasets {
        assert_eq!(data.radius(), 0.0);
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let result = max_margin(data, bias).unwrap();
            let MarginResult::NotSeparable { certificate, .. } = &result else {
                panic!("{bias:?}: {result:?}");
            };
            assert_eq!(certificate.residual, 0.0, "{bias:?}");
            assert!(certificate.verify(data, 0.0), "{bias:?}");
            let reference = separable_lp(data, bias).unwrap();
            assert!(
                matches!(reference, Separability::NotSeparable { .. }),
                "{bias:?}: {reference:?}"
            );
        }
    }
}

/// Six rows whose features live on scales 10⁻⁴ and 10³ (the smallest, the third, 1.15·10⁻⁴), not
/// separable through the origin: the best hull point's residual, about `10⁻¹⁶·R`, is rounding in the
/// large features, far below `10⁻⁹·R` but above `10⁻⁹` times the smallest feature's scale, so until
/// session 32 the answer was `Inaccurate`. With every feature brought to one scale by a power of two
/// (exact, and separability does not change) the same mix is a certificate by the same rule, stored
/// dense or sparse.
#[test]
fn a_certificate_refused_against_the_smallest_feature_is_measured_with_the_features_normalised() {
    let x = Array2::from_shape_vec(
        (6, 3),
        vec![
            0.000124, -1700.0, -0.000115, -7e-6, -490.0, 3.4e-5, 1.6e-5, 1740.0, -3e-6, 2e-5,
            100.0, 0.00011, -0.000105, 400.0, -7.2e-5, -0.000135, 1180.0, 5.4e-5,
        ],
    )
    .unwrap();
    let y = Array1::from(vec![1.0, 1.0, 1.0, -1.0, 1.0, -1.0]);
    let dense = Dataset::new(x, y).unwrap();
    for data in [&dense, &dense.to_sparse()] {
        let result = max_margin(data, Bias::ThroughOrigin).unwrap();
        let Some(certificate) = result.certificate() else {
            panic!("{result:?}");
        };
        assert!(certificate.verify(data, 1e-9 * data.radius()));
        let reference = separable_lp(data, Bias::ThroughOrigin).unwrap();
        assert!(
            !matches!(reference, Separability::Separable { .. }),
            "{reference:?}"
        );
    }
}

/// Fourteen rows of two values each, features on scales 7·10⁻⁵ to 1.2·10³ (from a random set of the
/// session 32 checker, reduced), no separator through the origin found: the best hull point's residual
/// is above `10⁻⁹` times the smallest feature's scale, and, found in the unnormalised geometry, not
/// short enough with the features normalised either, so the answer is an honest `Inaccurate`. Its
/// reason gives the threshold that was applied (it once said "above the tolerance 1e-9·R", which the
/// residual it printed was not).
#[test]
fn a_certificate_refused_against_a_small_feature_says_which_threshold_refused_it() {
    let mut x = Array2::<f64>::zeros((14, 14));
    for (i, &(a, u, b, v)) in [
        (2, -473.7906677819794, 10, 0.000586026298738685),
        (5, -0.021887914602073417, 8, 0.026848739465290285),
        (5, 0.4989184807376034, 7, -0.0008651603283097174),
        (2, 1167.7718324079794, 10, 0.0010583092175393517),
        (4, 0.12329558973110107, 9, -0.16531489895414966),
        (11, -0.002799037665790324, 13, -0.021764972736768015),
        (1, -0.0013809235963855224, 11, 0.0031630099288230532),
        (3, -0.00025297225346424364, 12, -0.006905525975547712),
        (1, 0.018344697536580655, 10, -0.0014746347345921643),
        (0, -0.019563462273616192, 6, 0.005477591372957839),
        (8, -0.005425068568066152, 13, 0.01604845569082862),
        (4, -0.03850498750482062, 6, -0.012568893042606766),
        (9, 0.1012039159669085, 12, 0.0005196728620477703),
        (0, 6.580930956017267e-05, 7, 0.0027869712714217515),
    ]
    .iter()
    .enumerate()
    {
        x[[i, a]] = u;
        x[[i, b]] = v;
    }
    let smallest_scale = x
        .columns()
        .into_iter()
        .map(|column| column.iter().fold(0.0f64, |m, &v: &f64| m.max(v.abs())))
        .fold(f64::INFINITY, f64::min);
    let data = Dataset::new(x, Array1::from(vec![-1.0; 14])).unwrap();
    let result = max_margin(&data, Bias::ThroughOrigin).unwrap();
    let MarginResult::Inaccurate { reason, .. } = &result else {
        panic!("{result:?}");
    };
    // "…its residual, Ae-xx·R, must be at most Be-yy·R (…) and at most the tolerance times the mean
    // length of the rows it mixes, Ce-zz·R": A > B, and B is 10⁻⁹ times the smallest feature's scale
    // over R, not 10⁻⁹.
    let ratios: Vec<f64> = reason
        .split("·R")
        .filter_map(|part| part.rsplit(' ').next()?.parse().ok())
        .collect();
    assert_eq!(ratios.len(), 3, "{reason}");
    assert!(ratios[0] > ratios[1], "{reason}");
    assert!(
        (ratios[1] / (1e-9 * smallest_scale / data.radius()) - 1.0).abs() < 1e-3,
        "{reason}"
    );
    assert!(reason.contains("smallest scale"), "{reason}");
}

/// Two rows of length 10⁻¹⁵⁰ and one of 10¹⁵⁰, through the origin: every `yᵢxᵢ` has a positive first
/// coordinate, so `w = (1, 0)` separates them. The short rows' mean, `(10⁻¹⁵⁰, 0)`, is far below any
/// threshold in `R` or in the features' scales, and was once accepted as a certificate that no
/// separator exists. Against the rows it mixes it is no smaller than they are, so it proves nothing.
#[test]
fn rows_far_shorter_than_the_rest_are_no_certificate() {
    let x = Array2::from_shape_vec((3, 2), vec![1e-150, 1e-150, 1e-150, -1e-150, 1e150, 5e149])
        .unwrap();
    let data = Dataset::new(x, Array1::from(vec![1.0, 1.0, 1.0])).unwrap();
    let result = max_margin(&data, Bias::ThroughOrigin).unwrap();
    assert!(result.certificate().is_none(), "{result:?}");
    let achieved = margin::margin(&data, ndarray::array![1.0, 0.0].view(), 0.0).unwrap();
    assert!(achieved > 0.0);
    let reference = separable_lp(&data, Bias::ThroughOrigin).unwrap();
    assert!(
        !matches!(reference, Separability::NotSeparable { .. }),
        "{reference:?}"
    );
}

/// A certificate anyone hands in is checked by the same rule the solver certifies by: a mix of two rows
/// of 10⁻¹⁰⁰ has a residual of 10⁻¹⁰⁰, far below `10⁻⁹·R` beside a row of 10¹⁰⁰, yet `w = (1, 0)`
/// separates all three. Two short rows that cancel exactly still prove what they prove.
#[test]
fn a_forged_certificate_of_rows_far_shorter_than_the_rest_does_not_verify() {
    let x =
        Array2::from_shape_vec((3, 2), vec![1e-100, 1e-100, 1e-100, -1e-100, 1e100, 5e99]).unwrap();
    let data = Dataset::new(x, Array1::from(vec![1.0, 1.0, 1.0])).unwrap();
    let forged =
        margin::Certificate::new(&data, Bias::ThroughOrigin, ndarray::array![1.0, 1.0, 0.0])
            .unwrap();
    assert!(forged.residual > 0.0 && forged.residual < 1e-9 * data.radius());
    assert!(!forged.verify(&data, 1e-9 * data.radius()), "{forged:?}");
    let x = Array2::from_shape_vec((3, 2), vec![1e-100, 1e-100, -1e-100, -1e-100, 1e100, 5e99])
        .unwrap();
    let cancelling = Dataset::new(x, Array1::from(vec![1.0, 1.0, 1.0])).unwrap();
    let genuine = margin::Certificate::new(
        &cancelling,
        Bias::ThroughOrigin,
        ndarray::array![1.0, 1.0, 0.0],
    )
    .unwrap();
    assert!(
        genuine.verify(&cancelling, 1e-9 * cancelling.radius()),
        "{genuine:?}"
    );
}

/// Random 0/1 rows with at least one row of zeros: never separable through the origin (the zero row
/// is on every plane through it), and every one of them must be proved so. The exact solve can leave
/// weights of 10⁻¹⁵ on non-zero rows beside the zero ones, which alone would make the certificate
/// as long as the rows it mixes; without that dust it is exactly zero.
#[test]
fn zero_rows_among_binary_rows_are_always_proved_not_separable() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for trial in 0..400 {
        let (n, d) = (rng.random_range(3..60), rng.random_range(2..12));
        let mut x = Array2::from_shape_fn((n, d), |_| f64::from(rng.random::<f64>() < 0.2));
        x.row_mut(rng.random_range(0..n)).fill(0.0);
        let data = Dataset::new(x, random_labels(&mut rng, n)).unwrap();
        let result = max_margin(&data, Bias::ThroughOrigin).unwrap();
        let Some(certificate) = result.certificate() else {
            panic!("trial {trial} ({n} × {d}): {result:?}");
        };
        assert!(
            certificate.verify(&data, 1e-9 * data.radius()),
            "trial {trial}"
        );
    }
}
