//! The kernel perceptron: the primal perceptron's updates on the linear kernel, the bound in the feature
//! space on XOR and concentric data, the Gram cache, a user Gram matrix, and refused parameters.

use ndarray::{Array1, Array2, array};
use novikoff::generate::{ConcentricParams, Family, SeparableParams, XorParams};
use novikoff::kernel::{
    self, Gamma, GramCache, GramMatrix, Kernel, KernelParams, KernelPerceptronParams, KernelTrace,
    Representation,
};
use novikoff::margin::Bias;
use novikoff::perceptron::{BiasRule, Order, PerceptronParams, Trace};
use novikoff::simd::Summation;
use novikoff::{Dataset, Error};

const RULES: [BiasRule; 4] = [
    BiasRule::None,
    BiasRule::Classic,
    BiasRule::Novikoff,
    BiasRule::Constant(0.5),
];

fn orders() -> [Order; 2] {
    [Order::Cyclic, Order::Shuffle { seed: 11 }]
}

fn noisy_separable(n: usize, d: usize, seed: u64) -> Dataset {
    SeparableParams::new(n, d)
        .margin(0.02)
        .radius(3.0)
        .offset(0.3)
        .seed(seed)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data
}

/// Small integers: every sum the primal and the dual runs compute is exact.
fn integer_data() -> Dataset {
    let mut state = 5u64;
    let mut next = || {
        state = novikoff::rng::splitmix64(state);
        (state % 9) as f64 - 4.0
    };
    let n = 40;
    let x = Array2::from_shape_fn((n, 3), |_| next());
    // Labels from a fixed integer plane, with the points on it moved off.
    let y = Array1::from_shape_fn(n, |i| {
        let s = 2.0 * x[[i, 0]] - x[[i, 1]] + x[[i, 2]] + 0.5;
        if s > 0.0 { 1.0 } else { -1.0 }
    });
    // (3, 4, 0) makes R = 5 exactly, so that the Novikoff constant is an integer too.
    let mut x = x;
    x.row_mut(0).assign(&array![3.0, 4.0, 0.0]);
    Dataset::new(x, y).unwrap()
}

/// Every update of the dual run against the primal run: the same rows, activations and biases.
fn assert_same_updates(
    data: &Dataset,
    rule: BiasRule,
    order: Order,
    representation: Representation,
    exact: bool,
) {
    let params = PerceptronParams::new()
        .bias(rule)
        .order(order.clone())
        .summation(Summation::Sequential)
        .max_epochs(200);
    let mut primal_trace = Trace::default();
    let primal = params
        .check()
        .unwrap()
        .fit_with_trace(data, &mut primal_trace)
        .unwrap();
    let mut trace = KernelTrace::default();
    let dual = KernelPerceptronParams::new(Kernel::linear())
        .bias(rule)
        .order(order)
        .summation(Summation::Sequential)
        .max_epochs(200)
        .representation(representation)
        .check()
        .unwrap()
        .fit_with(data, &mut trace)
        .unwrap();
    assert_eq!(trace.events.len(), primal_trace.records.len(), "{rule:?}");
    for (event, record) in trace.events.iter().zip(&primal_trace.records) {
        assert_eq!(
            (event.update, event.epoch, event.row),
            (record.update, record.epoch, record.row)
        );
        if exact {
            assert_eq!(
                event.activation.to_bits(),
                record.activation.to_bits(),
                "update {}",
                event.update
            );
            assert_eq!(
                event.b.to_bits(),
                record.b.to_bits(),
                "update {}",
                event.update
            );
        } else {
            let scale = 1e-12 * (1.0 + record.activation.abs());
            assert!((event.activation - record.activation).abs() <= scale);
        }
    }
    assert_eq!(
        (dual.mistakes, dual.epochs, dual.converged),
        (primal.mistakes, primal.epochs, primal.converged)
    );
    assert_eq!(dual.alpha, primal.history.mistakes_per_row);
    // w = Σ αⱼηyⱼxⱼ, exactly on integer data.
    let mut w = vec![0.0; data.n_features()];
    for (j, &c) in dual.coef.iter().enumerate() {
        for (k, v) in w.iter_mut().enumerate() {
            *v += c * data.row(j)[k];
        }
    }
    match dual.primal_weights() {
        // The explicit representation keeps the primal weights themselves.
        Some(kept) => assert_eq!(kept, &primal.w),
        // The dual one adds the same terms in another order: equal when the sums are exact.
        None if exact => assert_eq!(w, primal.w.to_vec()),
        None => {
            for (a, b) in w.iter().zip(&primal.w) {
                assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()));
            }
        }
    }
}

#[test]
fn the_explicit_linear_kernel_is_the_primal_run_bit_for_bit() {
    for seed in [1, 2] {
        let data = noisy_separable(150, 4, seed);
        for rule in RULES {
            for order in orders() {
                assert_same_updates(&data, rule, order, Representation::Explicit, true);
            }
        }
    }
}

#[test]
fn the_dual_linear_kernel_makes_the_primal_updates_at_every_update() {
    let data = integer_data();
    for rule in RULES {
        for order in orders() {
            assert_same_updates(&data, rule, order, Representation::Dual, true);
        }
    }
    // On real-valued data the two sums round differently; the updates still agree here.
    let data = noisy_separable(120, 3, 4);
    for rule in [BiasRule::None, BiasRule::Classic] {
        assert_same_updates(&data, rule, Order::Cyclic, Representation::Dual, false);
    }
}

fn poly2(coef0: f64) -> Kernel {
    KernelParams::polynomial(2)
        .coef0(coef0)
        .gamma(Gamma::Value(1.0))
        .check()
        .unwrap()
}

#[test]
fn xor_and_concentric_are_separable_under_a_degree_2_kernel_with_the_bound_checked() {
    let xor = XorParams::new(40)
        .gap(0.2)
        .seed(5)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data;
    let rings = ConcentricParams::new(40, 2)
        .inner(1.0)
        .outer(2.5)
        .width(0.3)
        .seed(6)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data;
    for (data, kernel, rule) in [
        (&xor, poly2(0.0), BiasRule::None),
        (&xor, poly2(1.0), BiasRule::Classic),
        (&rings, poly2(1.0), BiasRule::None),
        (&rings, poly2(0.0), BiasRule::Novikoff),
    ] {
        // Not linearly separable at all...
        assert!(
            !novikoff::margin::max_margin(data, Bias::Free)
                .unwrap()
                .is_separable()
        );
        let verdict = kernel::verify(
            data,
            &KernelPerceptronParams::new(kernel.clone()).bias(rule),
        )
        .unwrap();
        let (lower, upper) = {
            let b = verdict.gamma_bracket.unwrap();
            (b[0], b[1])
        };
        // ...but certified separable in the feature space, to a certificate-quality bracket.
        assert!(
            lower > 0.0 && upper - lower <= 1e-6 * upper,
            "[{lower}, {upper}]"
        );
        assert!(verdict.converged);
        assert_eq!(verdict.holds, Some(true));
        assert!(verdict.mistakes as f64 <= verdict.bound.unwrap());
        assert_eq!(
            verdict.invariants.holds(),
            Some(true),
            "{:?}",
            verdict.invariants
        );
        assert!(verdict.invariants.updates == verdict.mistakes);
    }
}

#[test]
fn the_rkhs_norm_kept_incrementally_is_the_quadratic_form() {
    let data = XorParams::new(30)
        .seed(2)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data;
    let rbf = KernelParams::rbf()
        .gamma(Gamma::Value(2.0))
        .check()
        .unwrap();
    let fit = KernelPerceptronParams::new(rbf.clone())
        .bias(BiasRule::Classic)
        .eta(0.5)
        .check()
        .unwrap()
        .fit(&data)
        .unwrap();
    let mut cache = GramCache::new(&rbf, &data, Summation::Fast, 1 << 20).unwrap();
    let mut quadratic = 0.0;
    for i in 0..data.n_samples() {
        let row = cache.row(i).to_vec();
        for (j, k_ij) in row.iter().enumerate() {
            // K̂ = K + c² with c = 1.
            quadratic += fit.coef[i] * fit.coef[j] * (k_ij + 1.0);
        }
    }
    assert!(
        (fit.norm_sq - quadratic).abs() <= 1e-12 * quadratic,
        "{} vs {quadratic}",
        fit.norm_sq
    );
    // b = c²·Σ coefⱼ.
    let sum: f64 = fit.coef.iter().sum();
    assert!((fit.b - sum).abs() <= 1e-12 * (1.0 + sum.abs()));
}

#[test]
fn a_small_gram_cache_gives_the_same_run_as_the_whole_matrix() {
    let data = ConcentricParams::new(60, 2)
        .inner(1.0)
        .outer(1.6)
        .width(0.25)
        .seed(9)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data;
    let rbf = KernelParams::rbf()
        .gamma(Gamma::Value(1.0))
        .check()
        .unwrap();
    let run = |bytes: usize| {
        KernelPerceptronParams::new(rbf.clone())
            .cache_bytes(bytes)
            .order(Order::Shuffle { seed: 3 })
            .check()
            .unwrap()
            .fit(&data)
            .unwrap()
    };
    let whole = run(8 * 60 * 60);
    let small = run(8 * 60 * 3);
    assert!(whole.support.len() > 3, "{:?}", whole.support);
    assert_eq!(whole.alpha, small.alpha);
    assert_eq!(whole.coef, small.coef);
    assert_eq!(whole.norm_sq.to_bits(), small.norm_sq.to_bits());
    assert!(small.cache.peak_bytes <= 8 * 60 * 3);
    assert!(
        small.cache.misses > whole.cache.misses,
        "{:?} {:?}",
        small.cache,
        whole.cache
    );
}

#[test]
fn a_user_gram_matrix_runs_like_the_kernel_it_came_from() {
    let data = XorParams::new(24)
        .seed(1)
        .check()
        .unwrap()
        .generate()
        .unwrap()
        .data;
    let rbf = KernelParams::rbf()
        .gamma(Gamma::Value(1.5))
        .check()
        .unwrap();
    let mut cache = GramCache::new(&rbf, &data, Summation::Fast, 1 << 20).unwrap();
    let n = data.n_samples();
    let gram = Array2::from_shape_fn((n, n), |(i, j)| cache.row(i)[j]);
    let precomputed = KernelParams::precomputed(GramMatrix::new(gram.clone()).unwrap())
        .check_for(&data)
        .unwrap();
    let a = KernelPerceptronParams::new(rbf)
        .check()
        .unwrap()
        .fit(&data)
        .unwrap();
    let b = KernelPerceptronParams::new(precomputed.clone())
        .check()
        .unwrap()
        .fit(&data)
        .unwrap();
    assert_eq!(a.alpha, b.alpha);
    assert_eq!(
        a.decision_function(&data).unwrap(),
        b.decision_function_gram(gram.view()).unwrap()
    );
    let verdict = kernel::verify(&data, &KernelPerceptronParams::new(precomputed)).unwrap();
    assert_eq!(verdict.holds, Some(true));
}

#[test]
fn bad_kernel_parameters_are_refused_by_the_parameter_check() {
    let parameter = |result: Result<Kernel, Error>| match result {
        Err(Error::Parameter { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    for bad in [f64::NAN, -1.0, 0.0, f64::INFINITY] {
        assert_eq!(
            parameter(KernelParams::rbf().gamma(Gamma::Value(bad)).check()),
            "kernel_gamma"
        );
        assert_eq!(
            parameter(KernelParams::rbf().bandwidth(bad).check()),
            "kernel_gamma"
        );
    }
    assert_eq!(
        parameter(KernelParams::polynomial(0).gamma(Gamma::Value(1.0)).check()),
        "degree"
    );
    for bad in [f64::NAN, -0.5] {
        assert_eq!(
            parameter(
                KernelParams::polynomial(2)
                    .coef0(bad)
                    .gamma(Gamma::Value(1.0))
                    .check()
            ),
            "coef0"
        );
    }
    // A Gram matrix of the wrong size for the data.
    let data = Dataset::new(array![[1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0]).unwrap();
    let gram = GramMatrix::new(Array2::eye(2)).unwrap();
    assert!(matches!(
        KernelParams::precomputed(gram).check_for(&data),
        Err(Error::Shape { .. })
    ));
    // Not positive semi-definite, although symmetric with a non-negative diagonal and within
    // Cauchy–Schwarz: found by the margin solver and refused as an input error.
    let bad = GramMatrix::new(array![
        [1.0, -1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-1.0, -1.0, 1.0]
    ])
    .unwrap();
    let kernel = KernelParams::precomputed(bad).check_for(&data).unwrap();
    let all_positive = Dataset::new(array![[1.0], [2.0], [3.0]], array![1.0, 1.0, 1.0]).unwrap();
    let err = kernel::max_margin(&all_positive, &kernel, Bias::ThroughOrigin).unwrap_err();
    assert!(
        err.is_input() && err.to_string().contains("not positive semi-definite"),
        "{err}"
    );
}
