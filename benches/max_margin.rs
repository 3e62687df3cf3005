//! The certified maximum margin at N ∈ {10², 10³, 10⁴} and d ∈ {2, 20, 100, 1000}, separable and not,
//! with a free bias.
//!
//! Run with short settings, e.g. `cargo bench --bench max_margin -- --warm-up-time 1 --measurement-time 3`.
//! The largest cell, N = 10⁴ with d = 1000, takes tens of seconds per solve and so runs only with
//! `NOVIKOFF_BENCH_HUGE=1`; its single-solve times are recorded in the README.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ndarray::{Array1, Array2};
use novikoff::margin::{Bias, MarginResult, max_margin};
use novikoff::{Dataset, rng};
use rand_distr::{Distribution, StandardNormal};

/// Gaussian points, labels alternating, each pushed to at least `0.05` from a random plane on the side of
/// its label (so the data are separable with margin ≥ 0.05); then `flips` labels flipped.
fn planted(seed: u64, n: usize, d: usize, flips: usize) -> Dataset {
    let mut r = rng::from_seed(seed);
    let mut gauss = || -> f64 { StandardNormal.sample(&mut r) };
    let w: Array1<f64> = (0..d).map(|_| gauss()).collect();
    let w = &w / w.dot(&w).sqrt();
    let b = 0.3 * gauss();
    let mut x = Array2::zeros((n, d));
    let mut y = Array1::zeros(n);
    for i in 0..n {
        let mut row: Array1<f64> = (0..d).map(|_| gauss()).collect();
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        let s = w.dot(&row) + b;
        if label * s < 0.05 {
            row.scaled_add(label * (0.05 + gauss().abs()) - s, &w);
        }
        x.row_mut(i).assign(&row);
        y[i] = label;
    }
    for i in 0..flips.min(n) {
        // Flip spread-out rows so that the noise is not all in one corner.
        let k = (i * 7919) % n;
        y[k] = -y[k];
    }
    Dataset::new(x, y).expect("finite data")
}

fn bench_max_margin(c: &mut Criterion) {
    for separable in [true, false] {
        // "noisy" flips 5% of the labels: not separable once N is well above d.
        let name = if separable {
            "max_margin/separable"
        } else {
            "max_margin/noisy"
        };
        let huge = std::env::var_os("NOVIKOFF_BENCH_HUGE").is_some();
        let mut group = c.benchmark_group(name);
        for &n in &[100usize, 1_000, 10_000] {
            for &d in &[2usize, 20, 100, 1000] {
                if n * d > 1_000_000 && !huge {
                    continue;
                }
                let flips = if separable { 0 } else { (n / 20).max(2) };
                let data = planted(7 + n as u64 + d as u64, n, d, flips);
                let outcome = max_margin(&data, Bias::Free).expect("two classes");
                if separable {
                    assert!(matches!(outcome, MarginResult::Separable { .. }), "{n}×{d}");
                }
                // Large cases take seconds per solve: the fewest samples criterion allows.
                group.sample_size(if n * d >= 100_000 { 10 } else { 20 });
                group.bench_with_input(BenchmarkId::new(format!("d={d}"), n), &data, |b, data| {
                    b.iter(|| max_margin(data, Bias::Free).expect("two classes"))
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench_max_margin);
criterion_main!(benches);
