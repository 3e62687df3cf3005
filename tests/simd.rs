//! The kernels against references written from their documentation: every SIMD path against the
//! portable one bit for bit, and the blocked training loop against a one-row-at-a-time loop.

use std::ops::ControlFlow;

use ndarray::{Array1, Array2, array};
use novikoff::perceptron::{BiasRule, Fit, Order, PerceptronParams, Trace};
use novikoff::simd::{self, Learner, Mistake, Rows, Summation, Update, paths};
use novikoff::{Dataset, rng};
use rand_chacha::ChaCha8Rng;

const LENGTHS: [usize; 20] = [
    0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 1000, 1001,
];

/// Values of random sign spanning eight orders of magnitude, so that different summation orders round
/// differently (checked below: the tests would notice a path that used another order).
fn wild(stream: &mut ChaCha8Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let magnitude = 10f64.powi(rng::below(stream, 9) as i32 - 4);
            (rng::unit_f64(stream) - 0.5) * magnitude
        })
        .collect()
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The Fast order as the `kernel` module documentation states it.
fn documented_fast(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 32];
    for i in 0..a.len() {
        acc[i % 32] += a[i] * b[i];
    }
    for h in [16, 8, 4, 2, 1] {
        for l in 0..h {
            acc[l] += acc[l + h];
        }
    }
    acc[0]
}

/// The Sequential order as documented: the textbook loop.
fn documented_sequential(a: &[f64], b: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..a.len() {
        sum += a[i] * b[i];
    }
    sum
}

fn documented_dot(a: &[f64], b: &[f64], summation: Summation) -> f64 {
    match summation {
        Summation::Sequential => documented_sequential(a, b),
        Summation::Fast => documented_fast(a, b),
    }
}

#[test]
fn the_paths_include_what_this_cpu_offers() {
    let names: Vec<&str> = paths().iter().map(|p| p.name()).collect();
    assert_eq!(names[0], "portable");
    #[cfg(target_arch = "x86_64")]
    {
        assert!(names.contains(&"sse2"));
        assert_eq!(
            names.contains(&"avx2"),
            is_x86_feature_detected!("avx2"),
            "{names:?}"
        );
        assert_eq!(
            names.contains(&"avx512f"),
            is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx2"),
            "{names:?}"
        );
    }
    #[cfg(target_arch = "aarch64")]
    assert_eq!(names, ["portable", "neon"]);
    assert_eq!(simd::active().name(), *names.last().unwrap());
}

#[test]
fn the_test_data_tells_the_two_orders_apart() {
    // If the data could not tell one order from another, the bit-for-bit checks below would prove little.
    let mut stream = rng::from_seed(5);
    let mut differ = 0;
    for _ in 0..20 {
        let a = wild(&mut stream, 100);
        let b = wild(&mut stream, 100);
        if documented_fast(&a, &b) != documented_sequential(&a, &b) {
            differ += 1;
        }
    }
    assert!(differ >= 10, "only {differ} of 20 dot products differ");
}

#[test]
fn every_path_computes_the_documented_fast_dot_bit_for_bit() {
    let mut stream = rng::from_seed(1);
    for n in LENGTHS {
        for trial in 0..4 {
            let a = wild(&mut stream, n);
            let mut b = wild(&mut stream, n);
            if trial == 3 {
                // Negative zeros and exact cancellations: the result must be +0.0 where it is zero.
                b = a.iter().map(|v| -0.0 * v.signum()).collect();
            }
            let expected = documented_fast(&a, &b);
            let public = simd::dot(&a, &b, Summation::Fast);
            assert_eq!(
                public.to_bits(),
                expected.to_bits(),
                "dot n={n} trial={trial}"
            );
            for path in paths() {
                let got = path.dot(&a, &b, Summation::Fast);
                assert_eq!(
                    got.to_bits(),
                    expected.to_bits(),
                    "{} n={n} trial={trial}: {got} vs {expected}",
                    path.name()
                );
                let got = path.dot(&a, &b, Summation::Sequential);
                assert_eq!(got.to_bits(), documented_sequential(&a, &b).to_bits());
            }
        }
    }
}

#[test]
fn every_path_computes_the_same_axpy() {
    let mut stream = rng::from_seed(2);
    for n in LENGTHS {
        let x = wild(&mut stream, n);
        let y0 = wild(&mut stream, n);
        let alpha = wild(&mut stream, 1)[0];
        let expected: Vec<f64> = y0.iter().zip(&x).map(|(y, x)| y + alpha * x).collect();
        for path in paths() {
            let mut y = y0.clone();
            path.axpy(alpha, &x, &mut y);
            assert_eq!(bits(&y), bits(&expected), "{} n={n}", path.name());
        }
    }
}

/// A block of `n` rows of `d` values and the weights to scan it with.
struct Block {
    x: Vec<f64>,
    w: Vec<f64>,
    d: usize,
}

fn block(stream: &mut ChaCha8Rng, n: usize, d: usize) -> Block {
    let mut x = wild(stream, n * d);
    // Some exact zeros and negative zeros, and a row that is all zero.
    for v in x.iter_mut().step_by(7) {
        *v = -0.0;
    }
    if n > 3 {
        x[3 * d..4 * d].fill(0.0);
    }
    Block {
        x,
        w: wild(stream, d),
        d,
    }
}

#[test]
fn every_path_scans_with_the_documented_activations() {
    // Labels of 0 make a row a mistake whatever its activation, and NaN labels make it never one, so
    // putting the single 0 at each position in turn reads every row's activation out of the scan, in
    // every lane of every SIMD group.
    let mut stream = rng::from_seed(3);
    for d in [
        1, 2, 3, 5, 7, 8, 9, 10, 16, 17, 31, 32, 33, 64, 100, 128, 129, 257,
    ] {
        for n in [1, 7, 8, 9, 16, 19, 40] {
            let data = block(&mut stream, n, d);
            for b in [0.0, -0.0, 0.25, -3.5] {
                for summation in [Summation::Fast, Summation::Sequential] {
                    for k in 0..n {
                        let mut labels = vec![f64::NAN; n];
                        labels[k] = 0.0;
                        let rows = Rows::contiguous(&data.x, &labels, d).unwrap();
                        let expected =
                            documented_dot(&data.w, &data.x[k * d..(k + 1) * d], summation) + b;
                        for path in paths() {
                            let found = path.scan(&data.w, b, &rows, summation).unwrap();
                            assert_eq!(
                                found.map(|m| (m.offset, m.activation.to_bits())),
                                Some((k, expected.to_bits())),
                                "{} {summation:?} n={n} d={d} k={k} b={b}",
                                path.name()
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn every_path_finds_the_same_first_mistake() {
    let mut stream = rng::from_seed(4);
    for d in [
        1, 2, 4, 8, 10, 13, 16, 24, 32, 33, 50, 100, 128, 129, 256, 257,
    ] {
        for n in [0, 1, 5, 8, 12, 33, 100] {
            let data = block(&mut stream, n, d);
            // Labels that agree with the weights except at a few places, including exact zero activations.
            for mistakes_wanted in [0, 1, 3] {
                let mut labels: Vec<f64> = (0..n)
                    .map(|k| {
                        let a = documented_fast(&data.w, &data.x[k * data.d..(k + 1) * data.d]);
                        if a > 0.0 { 1.0 } else { -1.0 }
                    })
                    .collect();
                for _ in 0..mistakes_wanted.min(n) {
                    let k = rng::below(&mut stream, n);
                    labels[k] = -labels[k];
                }
                let mut index: Vec<usize> = (0..n).collect();
                rng::shuffle(&mut stream, &mut index);
                index.extend_from_slice(&index.clone()[..n / 3]);
                let blocks = [
                    (Rows::contiguous(&data.x, &labels, d).unwrap(), None),
                    (
                        Rows::indexed(&data.x, &labels, d, &index).unwrap(),
                        Some(&index[..]),
                    ),
                ];
                for (rows, index) in blocks {
                    for summation in [Summation::Fast, Summation::Sequential] {
                        for b in [0.0, 1e-3] {
                            let expected = first_mistake(&data, &labels, index, b, summation);
                            for path in paths() {
                                let found = path.scan(&data.w, b, &rows, summation).unwrap();
                                assert_eq!(
                                    found.map(|m| (m.offset, m.activation.to_bits())),
                                    expected.map(|m| (m.offset, m.activation.to_bits())),
                                    "{} {summation:?} n={n} d={d} indexed={}",
                                    path.name(),
                                    index.is_some()
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The first mistake by the definition, row by row; `index` lists the rows of an indexed block.
fn first_mistake(
    data: &Block,
    labels: &[f64],
    index: Option<&[usize]>,
    b: f64,
    summation: Summation,
) -> Option<Mistake> {
    let d = data.d;
    let rows: Vec<usize> = match index {
        Some(index) => index.to_vec(),
        None => (0..labels.len()).collect(),
    };
    rows.iter().enumerate().find_map(|(k, &row)| {
        let activation = documented_dot(&data.w, &data.x[row * d..(row + 1) * d], summation) + b;
        (labels[row] * activation <= 0.0).then_some(Mistake {
            offset: k,
            activation,
        })
    })
}

#[test]
fn a_zero_activation_is_positive_zero_on_every_path() {
    // Every product −0.0 (negative weights times +0.0): the documented sums start from +0.0, so the dot
    // product is +0.0, and so is +0.0 + (−0.0) with a bias of −0.0. A path that skipped the +0.0 start
    // without making up for it would report −0.0.
    for d in [1, 2, 5, 8, 9, 24, 40, 100, 129, 300] {
        let x = vec![0.0; 3 * d];
        let w = vec![-1.5; d];
        let labels = [0.0; 3];
        let rows = Rows::contiguous(&x, &labels, d).unwrap();
        for summation in [Summation::Fast, Summation::Sequential] {
            for b in [-0.0, 0.0] {
                for path in paths() {
                    let found = path.scan(&w, b, &rows, summation).unwrap().unwrap();
                    assert_eq!(
                        found.activation.to_bits(),
                        0,
                        "{} d={d} {summation:?} b={b}",
                        path.name()
                    );
                }
            }
        }
    }
}

/// One update of a training pass, every float as bits.
#[derive(Debug, PartialEq)]
struct PassStep {
    offset: usize,
    activation: u64,
    w: Vec<u64>,
    b: u64,
}

/// A training pass as `simd::train` documents it, on the rows `order` of a row-major matrix.
#[allow(clippy::too_many_arguments)]
fn textbook_pass(
    x: &[f64],
    labels: &[f64],
    order: &[usize],
    w: &mut [f64],
    v: &mut f64,
    c: f64,
    eta: f64,
    summation: Summation,
    stop_after: usize,
) -> (Vec<PassStep>, Option<usize>) {
    let d = w.len();
    let mut steps = Vec::new();
    for (k, &row) in order.iter().enumerate() {
        let xr = &x[row * d..(row + 1) * d];
        let y = labels[row];
        let activation = documented_dot(w, xr, summation) + c * *v;
        if y * activation <= 0.0 {
            let step = eta * y;
            for j in 0..d {
                w[j] += step * xr[j];
            }
            *v += step * c;
            steps.push(PassStep {
                offset: k,
                activation: activation.to_bits(),
                w: bits(w),
                b: (c * *v).to_bits(),
            });
            if steps.len() == stop_after {
                return (steps, Some(k));
            }
        }
    }
    (steps, None)
}

#[test]
fn every_path_trains_like_the_textbook_pass() {
    let mut stream = rng::from_seed(9);
    let mut updates_seen = 0;
    for d in [
        1, 2, 3, 5, 8, 9, 16, 17, 31, 32, 33, 40, 64, 100, 127, 128, 129, 200, 256, 257, 300,
    ] {
        for n in [0, 1, 5, 8, 9, 17, 50] {
            let data = block(&mut stream, n, d);
            // Labels from a random plane, so that a pass makes many updates early and fewer later.
            let u = wild(&mut stream, d);
            let labels: Vec<f64> = (0..n)
                .map(|k| {
                    if documented_fast(&u, &data.x[k * d..(k + 1) * d]) >= 0.0 {
                        1.0
                    } else {
                        -1.0
                    }
                })
                .collect();
            let mut shuffled: Vec<usize> = (0..n).collect();
            rng::shuffle(&mut stream, &mut shuffled);
            let orders: [(Rows<'_>, Vec<usize>); 2] = [
                (
                    Rows::contiguous(&data.x, &labels, d).unwrap(),
                    (0..n).collect(),
                ),
                (
                    Rows::indexed(&data.x, &labels, d, &shuffled).unwrap(),
                    shuffled.clone(),
                ),
            ];
            for (rows, order) in &orders {
                for summation in [Summation::Fast, Summation::Sequential] {
                    for (c, eta, stop_after) in [(0.0, 1.0, 0), (1.0, 0.37, 3), (0.3, 1.0, 1)] {
                        let w0 = wild(&mut stream, d);
                        let v0 = 0.25;
                        let (mut w, mut v) = (w0.clone(), v0);
                        let (expected, expected_stop) = textbook_pass(
                            &data.x, &labels, order, &mut w, &mut v, c, eta, summation, stop_after,
                        );
                        updates_seen += expected.len();
                        for path in paths() {
                            let mut got_w = w0.clone();
                            let mut learner = Learner {
                                w: &mut got_w,
                                v: v0,
                                c,
                                eta,
                            };
                            let mut steps = Vec::new();
                            let stopped = path
                                .train(&mut learner, rows, summation, &mut |u: &Update<'_>| {
                                    steps.push(PassStep {
                                        offset: u.offset,
                                        activation: u.activation.to_bits(),
                                        w: bits(u.w),
                                        b: u.b.to_bits(),
                                    });
                                    if steps.len() == stop_after {
                                        ControlFlow::Break(())
                                    } else {
                                        ControlFlow::Continue(())
                                    }
                                })
                                .unwrap();
                            let got_v = learner.v;
                            let context = format!(
                                "{} {summation:?} n={n} d={d} c={c} indexed={}",
                                path.name(),
                                !rows.is_empty() && order[0] != 0
                            );
                            assert_eq!(steps, expected, "{context}");
                            assert_eq!(stopped, expected_stop, "{context}");
                            assert_eq!(bits(&got_w), bits(&w), "{context}");
                            assert_eq!(got_v.to_bits(), v.to_bits(), "{context}");
                        }
                    }
                }
            }
        }
    }
    assert!(updates_seen > 1000, "{updates_seen}");
}

#[test]
fn rows_reject_inconsistent_shapes() {
    assert!(Rows::contiguous(&[1.0, 2.0, 3.0], &[1.0, 1.0], 2).is_err());
    assert!(Rows::contiguous(&[], &[], 0).is_err());
    assert!(Rows::indexed(&[1.0, 2.0], &[1.0, 1.0], 1, &[0, 2]).is_err());
    let rows = Rows::contiguous(&[1.0, 2.0], &[1.0, 1.0], 1).unwrap();
    assert!(simd::scan(&[1.0, 1.0], 0.0, &rows, Summation::Fast).is_err());
}

// ---------------------------------------------------------------------------------------------------
// The training loop: blocked scanning against a textbook loop written out here in full.

/// One update as the reference loop records it, every float as bits.
#[derive(Debug, PartialEq)]
struct Step {
    update: u64,
    epoch: usize,
    row: usize,
    activation: u64,
    w: Vec<u64>,
    b: u64,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    w: Vec<u64>,
    b: u64,
    bias_weight: u64,
    mistakes: u64,
    epochs: usize,
    converged: bool,
    stop_reason: String,
    steps: Vec<Step>,
}

struct Setting {
    bias: BiasRule,
    eta: f64,
    order: Order,
    max_epochs: usize,
    max_updates: Option<u64>,
    summation: Summation,
}

/// The perceptron on `(x, c)`, one row at a time, as the `perceptron` module documents it.
fn textbook(data: &Dataset, s: &Setting) -> Outcome {
    let (n, d) = (data.n_samples(), data.n_features());
    let c = s.bias.constant(data.radius());
    let (mut w, mut v) = (vec![0.0f64; d], 0.0f64);
    let mut b = c * v;
    let mut visit: Vec<usize> = match &s.order {
        Order::Permutation(p) => p.clone(),
        _ => (0..n).collect(),
    };
    let mut shuffler = match s.order {
        Order::Shuffle { seed } => Some(rng::from_seed(seed)),
        _ => None,
    };
    let (mut mistakes, mut epochs, mut steps) = (0u64, 0, Vec::new());
    let mut stop = "epoch_cap";
    'epochs: for epoch in 1..=s.max_epochs {
        epochs = epoch;
        if let Some(stream) = shuffler.as_mut() {
            rng::shuffle(stream, &mut visit);
        }
        let before = mistakes;
        for &i in &visit {
            let x = data.row(i);
            let y = data.labels()[i];
            let activation = documented_dot(&w, x, s.summation) + b;
            if y * activation <= 0.0 {
                for j in 0..d {
                    w[j] += (s.eta * y) * x[j];
                }
                v += (s.eta * y) * c;
                b = c * v;
                mistakes += 1;
                steps.push(Step {
                    update: mistakes,
                    epoch,
                    row: i,
                    activation: activation.to_bits(),
                    w: bits(&w),
                    b: b.to_bits(),
                });
                if !(b.is_finite() && w.iter().all(|w| w.is_finite())) {
                    stop = "non_finite";
                    break 'epochs;
                }
                if s.max_updates.is_some_and(|cap| mistakes >= cap) {
                    stop = "update_cap";
                    break 'epochs;
                }
            }
        }
        if mistakes == before {
            stop = "converged";
            break;
        }
    }
    Outcome {
        w: bits(&w),
        b: b.to_bits(),
        bias_weight: v.to_bits(),
        mistakes,
        epochs,
        converged: stop == "converged",
        stop_reason: stop.to_string(),
        steps,
    }
}

fn engine(data: &Dataset, s: &Setting) -> Outcome {
    let mut trace = Trace::default();
    let fit: Fit = PerceptronParams::new()
        .bias(s.bias)
        .eta(s.eta)
        .order(s.order.clone())
        .max_epochs(s.max_epochs)
        .max_updates(s.max_updates)
        .summation(s.summation)
        .check()
        .unwrap()
        .fit_with_trace(data, &mut trace)
        .unwrap();
    Outcome {
        w: fit.w.iter().map(|v| v.to_bits()).collect(),
        b: fit.b.to_bits(),
        bias_weight: fit.bias_weight.to_bits(),
        mistakes: fit.mistakes,
        epochs: fit.epochs,
        converged: fit.converged,
        stop_reason: fit.stop_reason.name().to_string(),
        steps: trace
            .records
            .iter()
            .map(|r| Step {
                update: r.update,
                epoch: r.epoch,
                row: r.row,
                activation: r.activation.to_bits(),
                w: bits(&r.w),
                b: r.b.to_bits(),
            })
            .collect(),
    }
}

/// Random data: values of varied magnitude, labels from a random hyperplane through a random offset,
/// a fraction of them flipped (so that some runs never converge).
fn random_data(stream: &mut ChaCha8Rng, n: usize, d: usize, flipped: f64) -> Dataset {
    let scale = 10f64.powi(rng::below(stream, 5) as i32 - 2);
    let x = Array2::from_shape_fn((n, d), |_| (rng::unit_f64(stream) - 0.5) * scale);
    let u = wild(stream, d);
    let offset = (rng::unit_f64(stream) - 0.5) * scale;
    let y = Array1::from_shape_fn(n, |i| {
        let s: f64 = x.row(i).iter().zip(&u).map(|(a, b)| a * b).sum::<f64>() + offset;
        let label = if s >= 0.0 { 1.0 } else { -1.0 };
        if rng::unit_f64(stream) < flipped {
            -label
        } else {
            label
        }
    });
    Dataset::new(x, y).unwrap()
}

fn settings(n: usize, seed: u64) -> Vec<Setting> {
    let mut all = Vec::new();
    let mut permutation: Vec<usize> = (0..n).collect();
    rng::shuffle(&mut rng::from_seed(seed), &mut permutation);
    for summation in [Summation::Fast, Summation::Sequential] {
        for bias in [
            BiasRule::None,
            BiasRule::Classic,
            BiasRule::Novikoff,
            BiasRule::Constant(0.3),
        ] {
            for order in [
                Order::Cyclic,
                Order::Shuffle { seed },
                Order::Permutation(permutation.clone()),
            ] {
                all.push(Setting {
                    bias,
                    eta: if seed.is_multiple_of(2) { 1.0 } else { 0.37 },
                    order,
                    max_epochs: 12,
                    max_updates: seed.is_multiple_of(3).then_some(25),
                    summation,
                });
            }
        }
    }
    all
}

#[test]
fn blocked_fits_equal_the_textbook_loop_on_random_data() {
    let mut stream = rng::from_seed(6);
    let shapes = [
        (1, 1),
        (9, 1),
        (40, 2),
        (300, 2),
        (50, 3),
        (200, 8),
        (150, 10),
        (500, 10),
        (64, 16),
        (100, 17),
        (90, 31),
        (90, 32),
        (70, 33),
        (60, 64),
        (50, 100),
        (40, 128),
        (30, 129),
        (20, 257),
        (20, 300),
    ];
    let mut converged = 0;
    let mut capped = 0;
    for (k, &(n, d)) in shapes.iter().enumerate() {
        for flipped in [0.0, 0.05] {
            let data = random_data(&mut stream, n, d, flipped);
            for setting in settings(n, k as u64) {
                let expected = textbook(&data, &setting);
                let got = engine(&data, &setting);
                assert_eq!(
                    got,
                    expected,
                    "n={n} d={d} flipped={flipped} {:?} {:?} {:?}",
                    setting.bias,
                    setting.order.name(),
                    setting.summation
                );
                if expected.converged {
                    converged += 1;
                } else {
                    capped += 1;
                }
            }
        }
    }
    // Both endings were exercised.
    assert!(converged > 50 && capped > 50, "{converged} {capped}");
}

#[test]
fn blocked_fits_equal_the_textbook_loop_on_the_seed_examples() {
    let seed004 = Dataset::new(
        array![
            [-1.0, 2.0],
            [1.0, 0.0],
            [1.0, 1.0],
            [-1.0, 0.0],
            [-1.0, -2.0],
            [1.0, -1.0]
        ],
        array![-1.0, 1.0, 1.0, -1.0, -1.0, 1.0],
    )
    .unwrap();
    let xor = Dataset::new(
        array![[0., 0.], [0., 1.], [1., 0.], [1., 1.]],
        array![1., -1., -1., 1.],
    )
    .unwrap();
    let one_d = Dataset::new(array![[-1.0], [0.0], [1.0]], array![-1.0, 1.0, -1.0]).unwrap();
    for data in [seed004, xor, one_d] {
        for setting in settings(data.n_samples(), 3) {
            assert_eq!(engine(&data, &setting), textbook(&data, &setting));
        }
    }
}

#[test]
fn sequential_fits_equal_a_naive_loop_at_scanning_shapes() {
    // Long runs at shapes where the scan works across rows (d ≤ 32) and along them, from a start far
    // from the answer, with the plain loop of `tests/perceptron.rs` as the reference.
    let mut stream = rng::from_seed(8);
    for (n, d) in [(2000, 3), (1000, 10), (500, 40), (200, 130)] {
        let data = random_data(&mut stream, n, d, 0.0);
        let setting = Setting {
            bias: BiasRule::None,
            eta: 1.0,
            order: Order::Cyclic,
            max_epochs: 40,
            max_updates: None,
            summation: Summation::Sequential,
        };
        let got = engine(&data, &setting);
        let expected = textbook(&data, &setting);
        assert!(expected.epochs > 2);
        assert_eq!(got, expected, "n={n} d={d}");
    }
}

/// Once a pass has seen a calm stretch it checks several rows at once (the AVX-512F path takes four);
/// their decisions must rest on exactly the documented activations. With `b = −a_k`, row `k`'s activation
/// is exactly zero, a mistake whatever its label; an activation off by one unit in the last place would
/// be ±tiny instead, which one of the two labels tried turns into a missed mistake. With `b = 0` and the
/// label opposite to the sign of `a_k`, row `k` is a plain mistake of one class or the other, which a
/// block that confused the classes (the sign bits of a dataset's rows) would miss; and with `b = ±far`,
/// beyond every activation, the target is the one row of its class. Every other row is labelled with the
/// sign of its documented activation, so that it is right unless that is zero.
#[test]
fn rows_checked_together_decide_on_the_documented_activations() {
    let mut stream = rng::from_seed(12);
    for d in [1, 2, 3, 5, 8, 9, 10, 15, 16, 17, 32, 33, 64, 100, 128] {
        let n = 40;
        let data = block(&mut stream, n, d);
        let activations: Vec<f64> = (0..n)
            .map(|k| documented_fast(&data.w, &data.x[k * d..(k + 1) * d]))
            .collect();
        let backwards: Vec<usize> = (0..n).rev().collect();
        for target in 8..n {
            // (b, the target's label): a zero activation labelled either way, and the activation
            // without bias under the label opposite to its sign, a clear mistake of either class.
            let zero = -activations[target];
            let opposite = if activations[target] >= 0.0 {
                -1.0
            } else {
                1.0
            };
            // And a bias that puts every row on one side, so that only the target has the other label.
            let far = activations
                .iter()
                .fold(1.0, |m: f64, a| m.max(a.abs() + 1.0));
            for (b, target_label) in [
                (zero, 1.0),
                (zero, -1.0),
                (0.0, opposite),
                (far, -1.0),
                (-far, 1.0),
            ] {
                let labels: Vec<f64> = (0..n)
                    .map(|j| match j {
                        _ if j == target => target_label,
                        _ if activations[j] + b >= 0.0 => 1.0,
                        _ => -1.0,
                    })
                    .collect();
                let first = |order: &mut dyn Iterator<Item = usize>| {
                    order.enumerate().find_map(|(position, j)| {
                        let activation = activations[j] + b;
                        (labels[j] * activation <= 0.0).then_some((position, activation.to_bits()))
                    })
                };
                let contiguous = Rows::contiguous(&data.x, &labels, d).unwrap();
                let indexed = Rows::indexed(&data.x, &labels, d, &backwards).unwrap();
                // A dataset's rows carry the labels' sign bits, which the 4-row blocks read instead.
                let dataset = Dataset::new(
                    Array2::from_shape_vec((n, d), data.x.clone()).unwrap(),
                    Array1::from(labels.clone()),
                )
                .unwrap();
                for (rows, expected) in [
                    (contiguous, first(&mut (0..n))),
                    (indexed, first(&mut backwards.iter().copied())),
                    (dataset.rows(), first(&mut (0..n))),
                ] {
                    for path in paths() {
                        let found = path.scan(&data.w, b, &rows, Summation::Fast).unwrap();
                        assert_eq!(
                            found.map(|m| (m.offset, m.activation.to_bits())),
                            expected,
                            "{} d={d} target={target} label={target_label}",
                            path.name()
                        );
                    }
                }
            }
        }
    }
}
