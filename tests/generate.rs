//! The generators: prescribed margin and radius hold exactly, seeds reproduce bits, families keep their
//! promises (both classes, non-separability, the worst case).

use ndarray::Array1;
use novikoff::Dataset;
use novikoff::generate::{
    self, AnisotropicParams, BasisParams, BlobsParams, ConcentricParams, FAMILIES, Family,
    Generated, GeneratorSpec, NoisyParams, SeparableParams, XorParams,
};
use novikoff::perceptron::PerceptronParams;
use novikoff::simd::{Summation, dot};

/// `min yᵢ(u·xᵢ + b)` with the given summation order.
fn min_activation(data: &Dataset, u: &Array1<f64>, b: f64, summation: Summation) -> f64 {
    let u = u.as_slice().unwrap();
    (0..data.n_samples())
        .map(|i| data.labels()[i] * (dot(data.row(i), u, summation) + b))
        .fold(f64::INFINITY, f64::min)
}

/// The prescribed margin and radius hold for the returned u and b, in every summation order.
fn assert_prescription(g: &Generated) {
    let (u, b) = (g.u.as_ref().unwrap(), g.b.unwrap());
    let margin = g.margin.unwrap();
    for summation in [Summation::Sequential, Summation::Fast] {
        let min = min_activation(&g.data, u, b, summation);
        assert!(
            min >= margin,
            "{}: min activation {min} < γ = {margin}",
            g.description
        );
    }
    let by_ndarray = (0..g.data.n_samples())
        .map(|i| g.data.labels()[i] * (g.data.x().row(i).dot(u) + b))
        .fold(f64::INFINITY, f64::min);
    assert!(
        by_ndarray >= margin,
        "{}: ndarray dot {by_ndarray}",
        g.description
    );
    let radius = g.radius.unwrap();
    assert!(
        g.data.radius() <= radius,
        "{}: radius {} > R = {radius}",
        g.description,
        g.data.radius()
    );
    assert!((u.dot(u).sqrt() - 1.0).abs() < 1e-12, "u is a unit vector");
}

fn both_classes(g: &Generated) {
    let (p, n) = g.data.class_counts();
    assert!(
        p > 0 && n > 0,
        "{}: {p} positives, {n} negatives",
        g.description
    );
}

fn fingerprint(data: &Dataset) -> u64 {
    data.as_flat_slice()
        .iter()
        .chain(data.labels())
        .fold(0xcbf2_9ce4_8422_2325u64, |h, v| {
            (h ^ v.to_bits()).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

#[test]
fn separable_margin_and_radius_hold_across_parameters() {
    let cases = [
        // (n, d, γ, R, b)
        (500, 2, 0.1, 1.0, 0.0),
        (300, 1, 0.2, 1.0, 0.3),
        (300, 5, 0.0, 2.0, -0.5),
        (400, 10, 0.3, 5.0, 1.0),
        (200, 3, 0.89, 1.0, 0.1),
        (300, 50, 0.05, 1.0, 0.0),
    ];
    for (k, &(n, d, margin, radius, offset)) in cases.iter().enumerate() {
        let g = SeparableParams::new(n, d)
            .margin(margin)
            .radius(radius)
            .offset(offset)
            .seed(k as u64)
            .check()
            .unwrap()
            .generate()
            .unwrap();
        assert_eq!((g.data.n_samples(), g.data.n_features()), (n, d));
        assert_prescription(&g);
        both_classes(&g);
    }
}

/// γ·√d/R = 35: uniform points in the ball almost never fall outside this slab (the tail beyond it has
/// probability far below 10⁻²⁰⁰), so naive rejection would never finish.
#[test]
fn separable_reaches_large_margins_in_high_dimension() {
    let g = generate::separable(100, 5000, 0.5, 1.0, 3).unwrap();
    assert_prescription(&g);
    both_classes(&g);
    // Offset slab, all in the tails on both sides.
    let g = SeparableParams::new(100, 2000)
        .margin(0.3)
        .offset(0.2)
        .seed(4)
        .check()
        .unwrap()
        .generate()
        .unwrap();
    assert_prescription(&g);
    both_classes(&g);
}

#[test]
fn separable_points_are_uniform_in_the_ball() {
    // Without a slab, E‖x‖² = R²·d/(d + 2) for the uniform distribution in the ball (0.6 R² for d = 3),
    // against R² on the sphere and R²/… for a Gaussian.
    let g = SeparableParams::new(40_000, 3)
        .margin(0.0)
        .radius(2.0)
        .seed(8)
        .check()
        .unwrap()
        .generate()
        .unwrap();
    let mean_square = (0..40_000)
        .map(|i| g.data.row(i).iter().map(|v| v * v).sum::<f64>())
        .sum::<f64>()
        / 40_000.0;
    assert!((mean_square / 4.0 - 0.6).abs() < 0.01, "{mean_square}");
    // And the labels split evenly through the origin.
    let (p, _) = g.data.class_counts();
    assert!((19_000..21_000).contains(&p), "{p}");
}

#[test]
fn the_gap_is_actually_empty_and_reaches_the_margin() {
    // The slab |u·x| < γ is empty but points come close to it: the prescription is tight.
    let g = generate::separable(5000, 2, 0.2, 1.0, 12).unwrap();
    let min = min_activation(&g.data, g.u.as_ref().unwrap(), 0.0, Summation::Sequential);
    assert!((0.2..0.21).contains(&min), "{min}");
}

#[test]
fn the_same_seed_gives_the_same_bits_and_other_seeds_differ() {
    let specs = [
        GeneratorSpec::Separable(
            SeparableParams::new(200, 7)
                .margin(0.2)
                .offset(0.1)
                .seed(42),
        ),
        GeneratorSpec::Noisy(NoisyParams::new(200, 3).seed(42)),
        GeneratorSpec::Blobs(BlobsParams::new(200, 3).seed(42)),
        GeneratorSpec::Xor(XorParams::new(200).dim(4).seed(42)),
        GeneratorSpec::Concentric(ConcentricParams::new(200, 3).seed(42)),
        GeneratorSpec::Anisotropic(AnisotropicParams::new(200, 5).seed(42)),
    ];
    for spec in specs {
        let a = spec.generate().unwrap();
        let b = spec.generate().unwrap();
        assert_eq!(
            fingerprint(&a.data),
            fingerprint(&b.data),
            "{}",
            spec.family()
        );
        assert_eq!(a, b);
        let c = spec.clone().with_seed(43).generate().unwrap();
        assert_ne!(
            fingerprint(&a.data),
            fingerprint(&c.data),
            "{}",
            spec.family()
        );
    }
}

/// Pinned fingerprints: these change only if the generators or the random stream change, which would
/// silently change every dataset generated from a seed in the wild.
#[test]
fn fingerprints_are_pinned() {
    let pinned = [
        (
            GeneratorSpec::Separable(SeparableParams::new(50, 4).margin(0.1).seed(42)),
            PINNED_SEPARABLE,
        ),
        (
            GeneratorSpec::Separable(
                SeparableParams::new(20, 300)
                    .margin(0.4)
                    .offset(0.1)
                    .seed(7),
            ),
            PINNED_TAIL,
        ),
        (
            GeneratorSpec::Blobs(BlobsParams::new(30, 3).seed(1)),
            PINNED_BLOBS,
        ),
    ];
    for (spec, expected) in pinned {
        let got = fingerprint(&spec.generate().unwrap().data);
        assert_eq!(got, expected, "{}: fingerprint {got:#x}", spec.family());
    }
}

const PINNED_SEPARABLE: u64 = 0x87ce_ab5f_7de1_6a6b;
const PINNED_TAIL: u64 = 0x747d_fe2c_fd06_e0be;
const PINNED_BLOBS: u64 = 0xc3e7_f96f_3fa2_9e03;

#[test]
fn noisy_flips_exactly_the_requested_fraction_of_the_separable_data() {
    let clean = generate::separable(400, 4, 0.1, 1.0, 5).unwrap();
    let noisy = generate::noisy(400, 4, 0.1, 1.0, 0.05, 5).unwrap();
    assert_eq!(noisy.data.x(), clean.data.x());
    let flipped: Vec<usize> = (0..400)
        .filter(|&i| noisy.data.labels()[i] != clean.data.labels()[i])
        .collect();
    assert_eq!(flipped.len(), 20);
    assert_eq!(noisy.margin, None);
    // Each flipped point sits at least γ on the wrong side of u's hyperplane.
    let u = noisy.u.clone().unwrap();
    for &i in &flipped {
        let activation = noisy.data.labels()[i] * noisy.data.x().row(i).dot(&u);
        assert!(activation <= -0.1);
    }
    both_classes(&noisy);
    // A non-separable dataset: the perceptron does not converge on it.
    let fit = PerceptronParams::new()
        .max_epochs(200)
        .check()
        .unwrap()
        .fit(&noisy.data)
        .unwrap();
    assert!(!fit.converged);
}

#[test]
fn blobs_are_balanced_and_centred_on_plus_and_minus_half_the_distance() {
    let g = BlobsParams::new(20_000, 2)
        .distance(6.0)
        .spread(0.5)
        .seed(2)
        .check()
        .unwrap()
        .generate()
        .unwrap();
    assert_eq!(g.data.class_counts(), (10_000, 10_000));
    let u = g.u.unwrap();
    let mean_projection = |label: f64| {
        let rows: Vec<f64> = (0..20_000)
            .filter(|&i| g.data.labels()[i] == label)
            .map(|i| g.data.x().row(i).dot(&u))
            .collect();
        rows.iter().sum::<f64>() / rows.len() as f64
    };
    assert!((mean_projection(1.0) - 3.0).abs() < 0.02);
    assert!((mean_projection(-1.0) + 3.0).abs() < 0.02);
}

/// Each class of `xor` and `concentric` holds an antipodal pair (x, −x), so its convex hull contains the
/// origin and no hyperplane separates the classes.
fn assert_antipodal_pairs(g: &Generated) {
    let data = &g.data;
    for label in [1.0, -1.0] {
        let rows: Vec<Vec<f64>> = (0..data.n_samples())
            .filter(|&i| data.labels()[i] == label)
            .map(|i| data.row(i).to_vec())
            .collect();
        let has_pair = rows.iter().any(|r| {
            let negated: Vec<f64> = r.iter().map(|v| -v).collect();
            rows.contains(&negated)
        });
        assert!(
            has_pair,
            "{}: class {label} has no antipodal pair",
            g.description
        );
    }
}

#[test]
fn xor_and_concentric_are_never_separable() {
    for seed in 0..5 {
        let xor = XorParams::new(4 + seed as usize)
            .dim(2 + seed as usize)
            .seed(seed)
            .check()
            .unwrap()
            .generate()
            .unwrap();
        assert_antipodal_pairs(&xor);
        both_classes(&xor);
        let rings = ConcentricParams::new(5 + seed as usize, 1 + seed as usize)
            .seed(seed)
            .check()
            .unwrap()
            .generate()
            .unwrap();
        assert_antipodal_pairs(&rings);
        both_classes(&rings);
        for g in [&xor, &rings] {
            let fit = PerceptronParams::new()
                .max_epochs(300)
                .check()
                .unwrap()
                .fit(&g.data)
                .unwrap();
            assert!(!fit.converged, "{}", g.description);
        }
    }
}

#[test]
fn basis_attains_the_bound_exactly() {
    for m in [1usize, 2, 7, 30] {
        let g = BasisParams::new(m).check().unwrap().generate().unwrap();
        assert_prescription(&g);
        let (r, gamma) = (g.radius.unwrap(), g.margin.unwrap());
        assert!(((r / gamma).powi(2) - m as f64).abs() < 1e-9);
        let fit = PerceptronParams::new()
            .check()
            .unwrap()
            .fit(&g.data)
            .unwrap();
        assert_eq!(
            fit.mistakes, m as u64,
            "m = {m}: one mistake per basis vector"
        );
        assert!(fit.converged);
    }
}

#[test]
fn anisotropic_keeps_separability_and_inflates_r_over_gamma() {
    let base = SeparableParams::new(500, 6)
        .margin(0.1)
        .seed(3)
        .check()
        .unwrap()
        .generate()
        .unwrap();
    let g = AnisotropicParams::new(500, 6)
        .margin(0.1)
        .ratio(1000.0)
        .seed(3)
        .check()
        .unwrap()
        .generate()
        .unwrap();
    assert_prescription(&g);
    both_classes(&g);
    assert_eq!(g.data.labels(), base.data.labels());
    let before = base.radius.unwrap() / base.margin.unwrap();
    let after = g.radius.unwrap() / g.margin.unwrap();
    assert!(after > 10.0 * before, "R/γ {before} → {after}");
    // Feature j is base feature j times 1000^(j/5).
    let ratio = g.data.x()[[0, 5]] / base.data.x()[[0, 5]];
    assert!((ratio - 1000.0).abs() < 1e-9);
}

#[test]
fn invalid_parameters_are_refused_with_their_name() {
    let message = |r: novikoff::Result<_>| match r {
        Err(e) => e.to_string(),
        Ok::<generate::Checked<_>, _>(_) => String::new(),
    };
    assert!(
        message(SeparableParams::new(10, 2).margin(0.5).offset(0.5).check())
            .contains("need margin + |offset| < radius")
    );
    assert!(message(SeparableParams::new(1, 2).check()).contains("`n`"));
    assert!(message(SeparableParams::new(10, 0).check()).contains("`d`"));
    assert!(
        message(SeparableParams::new(10, 2).margin(f64::NAN).check())
            .contains("`margin`: must be finite")
    );
    assert!(
        message(SeparableParams::new(10, 2).radius(-1.0).check()).contains("`radius`: must be > 0")
    );
    assert!(SeparableParams::new(usize::MAX, 2).check().is_err());
    assert!(NoisyParams::new(10, 2).flip(0.5).check().is_err());
    assert!(BlobsParams::new(10, 2).spread(-1.0).check().is_err());
    assert!(XorParams::new(3).check().is_err());
    assert!(XorParams::new(8).gap(1.0).check().is_err());
    assert!(
        ConcentricParams::new(8, 2)
            .inner(1.0)
            .outer(1.1)
            .width(0.1)
            .check()
            .is_err()
    );
    assert!(BasisParams::new(0).check().is_err());
    assert!(AnisotropicParams::new(10, 2).ratio(0.5).check().is_err());
}

#[test]
fn specs_deserialise_by_family_name_with_defaults() {
    for family in FAMILIES {
        let text = match family {
            "basis" => r#"family = "basis"
m = 3"#
                .to_string(),
            "xor" => "family = \"xor\"\nn = 8\nseed = 2".to_string(),
            // 50 values a row by default, drawn outside a support of 16 columns.
            "sparse" => "family = \"sparse\"\nn = 12\nd = 200\nseed = 2".to_string(),
            other => format!("family = \"{other}\"\nn = 12\nd = 3\nseed = 2"),
        };
        let spec: GeneratorSpec = toml::from_str(&text).unwrap_or_else(|e| panic!("{family}: {e}"));
        assert_eq!(spec.family(), family);
        let g = spec.generate().unwrap();
        assert!(g.description.starts_with(family));
        if family != "basis" {
            both_classes(&g);
        }
        // Serialise and read back.
        let json = serde_json::to_string(&spec).unwrap();
        let back: GeneratorSpec = serde_json::from_str(&json).unwrap();
        assert_eq!(back, spec);
    }
    let unknown: Result<GeneratorSpec, _> =
        serde_json::from_str(r#"{"family": "separable", "n": 5, "d": 2, "gama": 0.1}"#);
    assert!(unknown.unwrap_err().to_string().contains("gama"));
    let family: Result<GeneratorSpec, _> = serde_json::from_str(r#"{"family": "spiral", "n": 5}"#);
    assert!(family.is_err());
    assert_eq!(SeparableParams::NAME, "separable");
}
