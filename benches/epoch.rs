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
//! * `fast_shuffled`: `fast` in a seeded shuffled order (`Order::Shuffle`), whose rows are read in no
//!   order the hardware prefetchers can follow;
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

#[path = "common/epoch_data.rs"]
mod epoch_data;

use common::Clock;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use epoch_data::{one_epoch, problem, read_sum, rowloop, shapes};
use ndarray::Array1;
use novikoff::perceptron::{Order, Perceptron, PerceptronParams};
use novikoff::simd::{self, Summation};

fn epoch(c: &mut Criterion<Clock>) {
    eprintln!("simd path: {}", simd::active().name());
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
            let shuffled = one_shuffled_epoch(start);
            let fit = fast.fit(data).unwrap();
            let expected_mistakes = fit.mistakes;
            assert_eq!(sequential.fit(data).unwrap().mistakes, expected_mistakes);
            let start = start.to_vec();
            let mut w = start.clone();
            assert_eq!(rowloop(x, labels, &mut w), expected_mistakes);
            eprintln!("{group_name} {shape}: {expected_mistakes} mistakes in the epoch");
            if group_name == "epoch_clean" {
                assert_eq!(expected_mistakes, 0);
                assert_eq!(shuffled.fit(data).unwrap().mistakes, 0);
            }

            let mut group = c.benchmark_group(group_name);
            group.throughput(Throughput::Bytes((n * d * 8) as u64));
            if n * d * 8 > 4 << 20 {
                group.sample_size(10);
            }
            group.bench_function(BenchmarkId::new("fast", &shape), |b| {
                b.iter(|| fast.fit(black_box(data)).unwrap().mistakes)
            });
            group.bench_function(BenchmarkId::new("fast_shuffled", &shape), |b| {
                b.iter(|| shuffled.fit(black_box(data)).unwrap().mistakes)
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
                for path in simd::paths() {
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
                b.iter(|| simd::dot_fast(black_box(x), black_box(x)))
            });
            group.bench_function(BenchmarkId::new("read_with_labels", &shape), |b| {
                b.iter(|| read_sum(black_box(x)) + read_sum(black_box(labels)))
            });
            group.finish();
        }
    }
}

/// `epoch_data::one_epoch` in the Fast order over the rows in a seeded shuffled order.
fn one_shuffled_epoch(w: &Array1<f64>) -> Perceptron {
    PerceptronParams::new()
        .initial(w.clone(), 0.0)
        .max_epochs(1)
        .order(Order::Shuffle { seed: 1 })
        .check()
        .unwrap()
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = epoch
}
criterion_main!(benches);
