//! The perceptron's family on one run with few mistakes: what each variant's bookkeeping costs over the
//! plain perceptron's epoch.
//!
//! The data are `epoch_data`'s separable 80 MB matrix (10⁵ × 100, every row at distance ≥ 0.1 from the
//! plane `u·x = 0`), and every run starts from `u` plus a small seeded perturbation, so that its first
//! epoch makes a few updates (printed at setup) and the runs converge within three epochs. On the same
//! matrix and start:
//!
//! * `perceptron`: the plain run;
//! * `averaged`, `voted`: the same updates (the same bits), plus the average (O(stored entries) per
//!   update) or the vote (the updated rows' entries and 12 bytes per update);
//! * `pocket`: the same updates, plus a pass over the data for every weight vector the ratchet examines;
//! * `margin`: the perceptron with margin β = 0.01, which runs the one-row-at-a-time pass;
//! * `pa`: Passive–Aggressive, also one row at a time, with its step.
//!
//! The target is `averaged ≤ 1.3 × perceptron`. Throughput is the bytes of one epoch.
//!
//! `cargo bench --bench variants -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

mod common;

// Only the problem is used here; the rest serves the epoch benches.
#[allow(dead_code)]
#[path = "common/epoch_data.rs"]
mod epoch_data;

use common::Clock;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use epoch_data::problem;
use novikoff::perceptron::{PerceptronParams, Variant};
use novikoff::rng;

fn variants(c: &mut Criterion<Clock>) {
    let (n, d) = (100_000, 100);
    let problem = problem(n, d, 7);
    let data = &problem.clean;
    // A start a little off the separator: a few rows on the wrong side.
    let mut stream = rng::from_seed(3);
    let start = problem
        .u
        .mapv(|u| u + 0.02 * (rng::unit_f64(&mut stream) - 0.5));
    let mut group = c.benchmark_group("variants");
    group.throughput(Throughput::Bytes((n * d * 8) as u64));
    group.sample_size(10);
    for variant in [
        Variant::Perceptron,
        Variant::Averaged,
        Variant::Voted,
        Variant::Pocket,
        Variant::Margin { beta: 0.01 },
        Variant::PassiveAggressive,
    ] {
        let learner = PerceptronParams::new()
            .variant(variant)
            .initial(start.clone(), 0.0)
            .max_epochs(3)
            .check()
            .expect("valid parameters");
        let fit = learner.fit(data).expect("a run");
        eprintln!(
            "{}: {} updates, {} mistakes, {} epochs",
            variant.name(),
            fit.updates,
            fit.mistakes,
            fit.epochs
        );
        group.bench_with_input(
            BenchmarkId::new(variant.name(), format!("{n}x{d}")),
            data,
            |b, data| b.iter(|| black_box(learner.fit(data).expect("a run"))),
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = variants
}
criterion_main!(benches);
