//! One perceptron epoch over an n × d matrix, against what the memory system allows.
//!
//! * `epoch_clean`: the weights already separate the data (labels are the sign of u·x, the rows are kept
//!   at distance ≥ 0.1 from the plane, and training starts at w = u), so the epoch makes no mistake and
//!   is one pure pass over the data: the converged epoch every run ends with.
//! * `epoch_mistakes`: the same matrix with 10% of the labels flipped, training from w = 0: the first
//!   epoch of a run, with an update every few rows (the count is printed at setup).
//!
//! Each group compares, on the same matrix:
//!
//! * `fast`, `sequential`: `PerceptronParams::new().initial(w, 0).max_epochs(1)` in each summation order;
//! * `rowloop`: the textbook loop (one row at a time, left-to-right dot product, update on a mistake),
//!   the shape of sklearn's Cython `Perceptron` loop;
//! * `read_sum`, `read_dot`: bandwidth references that read the matrix once and do nothing else: a
//!   32-accumulator sum of all its values, and novikoff's Fast dot product of the matrix with itself;
//! * `read_with_labels`: `read_sum` of the matrix, then of the labels: the bytes an epoch must read.
//!
//! Throughput is the matrix's bytes (n·d·8) for every entry, so throughput ratios are time ratios.
//!
//! `cargo bench --bench epoch -- --warm-up-time 1 --measurement-time 3`
//!
//! Times are the benchmark thread's CPU time (see `common/mod.rs`; `NOVIKOFF_BENCH_CLOCK=wall` for
//! wall time). Results and the machine are in `benches/README.md`.

use std::hint::black_box;

mod common;

use common::Clock;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndarray::{Array1, Array2};
use novikoff::kernel::{self, Summation};
use novikoff::perceptron::{Perceptron, PerceptronParams};
use novikoff::{Dataset, rng};

/// (n, d): three 80 MB matrices (beyond every cache) and one of 800 KB (in L2).
const SHAPES: [(usize, usize); 4] = [
    (1_000_000, 10),
    (100_000, 100),
    (10_000, 1000),
    (1_000, 100),
];

/// Distance kept between every row and the separating plane u·x = 0 (|u| = 1).
const MARGIN: f64 = 0.1;
/// Fraction of labels flipped for the epoch with mistakes.
const FLIPPED: f64 = 0.1;

struct Problem {
    clean: Dataset,
    noisy: Dataset,
    u: Array1<f64>,
}

fn problem(n: usize, d: usize, seed: u64) -> Problem {
    let mut stream = rng::from_seed(seed);
    let mut u: Vec<f64> = (0..d).map(|_| rng::unit_f64(&mut stream) - 0.5).collect();
    let norm = u.iter().map(|v| v * v).sum::<f64>().sqrt();
    u.iter_mut().for_each(|v| *v /= norm);
    let mut x = Array2::from_shape_fn((n, d), |_| rng::unit_f64(&mut stream) * 2.0 - 1.0);
    let mut clean = Vec::with_capacity(n);
    for mut row in x.rows_mut() {
        let s: f64 = row.iter().zip(&u).map(|(a, b)| a * b).sum();
        let side = if s >= 0.0 { 1.0 } else { -1.0 };
        if s.abs() < MARGIN {
            // Push the row along u to distance MARGIN from the plane, on its own side.
            row.iter_mut()
                .zip(&u)
                .for_each(|(v, ui)| *v += (side * MARGIN - s) * ui);
        }
        clean.push(side);
    }
    let noisy: Vec<f64> = clean
        .iter()
        .map(|&y| {
            if rng::unit_f64(&mut stream) < FLIPPED {
                -y
            } else {
                y
            }
        })
        .collect();
    Problem {
        clean: Dataset::new(x.clone(), Array1::from_vec(clean)).unwrap(),
        noisy: Dataset::new(x, Array1::from_vec(noisy)).unwrap(),
        u: Array1::from_vec(u),
    }
}

fn one_epoch(w: &Array1<f64>, summation: Summation) -> Perceptron {
    PerceptronParams::new()
        .initial(w.clone(), 0.0)
        .max_epochs(1)
        .summation(summation)
        .check()
        .unwrap()
}

/// The textbook loop over a row-major matrix; returns the number of mistakes.
fn rowloop(x: &[f64], labels: &[f64], w: &mut [f64]) -> u64 {
    let mut mistakes = 0;
    for (row, &y) in x.chunks_exact(w.len()).zip(labels) {
        let mut activation = 0.0;
        for (wi, xi) in w.iter().zip(row) {
            activation += wi * xi;
        }
        if y * activation <= 0.0 {
            for (wi, xi) in w.iter_mut().zip(row) {
                *wi += y * xi;
            }
            mistakes += 1;
        }
    }
    mistakes
}

/// The sum of all values with 32 independent accumulators: a pure read of the matrix.
fn read_sum(x: &[f64]) -> f64 {
    let mut acc = [0.0f64; 32];
    let mut chunks = x.chunks_exact(32);
    for chunk in &mut chunks {
        for (a, v) in acc.iter_mut().zip(chunk) {
            *a += v;
        }
    }
    acc.iter().sum::<f64>() + chunks.remainder().iter().sum::<f64>()
}

/// [`SHAPES`], or the shapes in `NOVIKOFF_EPOCH_SHAPES` (e.g. `10000x10,1000x16`) for exploring.
fn shapes() -> Vec<(usize, usize)> {
    let Ok(list) = std::env::var("NOVIKOFF_EPOCH_SHAPES") else {
        return SHAPES.to_vec();
    };
    list.split(',')
        .map(|shape| {
            let (n, d) = shape
                .trim()
                .split_once('x')
                .expect("NOVIKOFF_EPOCH_SHAPES: shapes are NxD, comma-separated");
            (
                n.parse().expect("NOVIKOFF_EPOCH_SHAPES: N is a number"),
                d.parse().expect("NOVIKOFF_EPOCH_SHAPES: D is a number"),
            )
        })
        .collect()
}

fn epoch(c: &mut Criterion<Clock>) {
    eprintln!("kernel path: {}", kernel::active().name());
    for (k, &(n, d)) in shapes().iter().enumerate() {
        let problem = problem(n, d, 100 + k as u64);
        let shape = format!("{n}x{d}");
        let zero = Array1::zeros(d);
        for (group_name, data, start) in [
            ("epoch_clean", &problem.clean, &problem.u),
            ("epoch_mistakes", &problem.noisy, &zero),
        ] {
            let x = data.as_flat_slice();
            let labels = data.labels();
            let fast = one_epoch(start, Summation::Fast);
            let sequential = one_epoch(start, Summation::Sequential);
            let fit = fast.fit(data).unwrap();
            let expected_mistakes = fit.mistakes;
            assert_eq!(sequential.fit(data).unwrap().mistakes, expected_mistakes);
            let start = start.to_vec();
            let mut w = start.clone();
            assert_eq!(rowloop(x, labels, &mut w), expected_mistakes);
            eprintln!("{group_name} {shape}: {expected_mistakes} mistakes in the epoch");
            if group_name == "epoch_clean" {
                assert_eq!(expected_mistakes, 0);
            }

            let mut group = c.benchmark_group(group_name);
            group.throughput(Throughput::Bytes((n * d * 8) as u64));
            if n * d * 8 > 4 << 20 {
                group.sample_size(10);
            }
            group.bench_function(BenchmarkId::new("fast", &shape), |b| {
                b.iter(|| fast.fit(black_box(data)).unwrap().mistakes)
            });
            group.bench_function(BenchmarkId::new("sequential", &shape), |b| {
                b.iter(|| sequential.fit(black_box(data)).unwrap().mistakes)
            });
            group.bench_function(BenchmarkId::new("rowloop", &shape), |b| {
                b.iter(|| {
                    w.copy_from_slice(&start);
                    rowloop(black_box(x), black_box(labels), &mut w)
                })
            });
            if group_name == "epoch_clean" {
                // The clean epoch is one scan that finds no mistake; here on every code path.
                let rows = data.rows();
                for path in kernel::paths() {
                    group.bench_function(
                        BenchmarkId::new(format!("scan_{}", path.name()), &shape),
                        |b| b.iter(|| path.scan(&start, 0.0, black_box(&rows), Summation::Fast)),
                    );
                }
            }
            group.bench_function(BenchmarkId::new("read_sum", &shape), |b| {
                b.iter(|| read_sum(black_box(x)))
            });
            group.bench_function(BenchmarkId::new("read_dot", &shape), |b| {
                b.iter(|| kernel::dot_fast(black_box(x), black_box(x)))
            });
            group.bench_function(BenchmarkId::new("read_with_labels", &shape), |b| {
                b.iter(|| read_sum(black_box(x)) + read_sum(black_box(labels)))
            });
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = epoch
}
criterion_main!(benches);
