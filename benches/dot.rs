//! One dot product of two vectors of length d: a naive iterator sum, ndarray's `.dot()`, novikoff's
//! Sequential order and its Fast order (the active code path, and every other path this CPU can run).
//!
//! `cargo bench --bench dot -- --warm-up-time 1 --measurement-time 2`
//!
//! Times are the benchmark thread's CPU time (see `common/mod.rs`; `NOVIKOFF_BENCH_CLOCK=wall` for
//! wall time). Results and the machine are in `benches/README.md`.

use std::hint::black_box;

mod common;

use common::Clock;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndarray::Array1;
use novikoff::rng;
use novikoff::simd::{self, Summation};

const LENGTHS: [usize; 8] = [2, 8, 10, 16, 64, 100, 1000, 10_000];

fn vector(n: usize, seed: u64) -> Vec<f64> {
    let mut stream = rng::from_seed(seed);
    (0..n)
        .map(|_| rng::unit_f64(&mut stream) * 2.0 - 1.0)
        .collect()
}

fn dot(c: &mut Criterion<Clock>) {
    let mut group = c.benchmark_group("dot");
    for d in LENGTHS {
        let (a, b) = (vector(d, 1), vector(d, 2));
        let (a_nd, b_nd) = (Array1::from_vec(a.clone()), Array1::from_vec(b.clone()));
        group.throughput(Throughput::Elements(d as u64));
        group.bench_with_input(BenchmarkId::new("naive_iter", d), &d, |bench, _| {
            bench.iter(|| {
                black_box(&a)
                    .iter()
                    .zip(black_box(&b))
                    .map(|(x, y)| x * y)
                    .sum::<f64>()
            })
        });
        group.bench_with_input(BenchmarkId::new("ndarray", d), &d, |bench, _| {
            bench.iter(|| black_box(&a_nd).dot(black_box(&b_nd)))
        });
        group.bench_with_input(BenchmarkId::new("sequential", d), &d, |bench, _| {
            bench.iter(|| simd::dot_sequential(black_box(&a), black_box(&b)))
        });
        group.bench_with_input(BenchmarkId::new("fast", d), &d, |bench, _| {
            bench.iter(|| simd::dot_fast(black_box(&a), black_box(&b)))
        });
        for path in simd::paths() {
            if path.name() == simd::active().name() {
                continue;
            }
            group.bench_with_input(
                BenchmarkId::new(format!("fast_{}", path.name()), d),
                &d,
                |bench, _| bench.iter(|| path.dot(black_box(&a), black_box(&b), Summation::Fast)),
            );
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = dot
}
criterion_main!(benches);
