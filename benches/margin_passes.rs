//! What a certified maximum margin costs, in passes over the data: for each shape of issue #14, the
//! solve's seconds divided by one scan of the same data with the training kernel's SIMD scan
//! (`simd::scan` with the max-margin separator, which makes no mistake and so reads every row), both
//! timed in this process, the median of several runs each. The goal is a ratio of at most 50.
//!
//! `cargo bench --bench margin_passes` (the hard cases too with `NOVIKOFF_BENCH_HARD=1`). Generated data
//! (`generate::separable`, seeded), free bias. The scan is single-threaded; the solve's own passes run
//! over blocks of rows in parallel, so on k threads the ratio may fall below the number of passes.

use std::time::Instant;

use novikoff::generate::separable;
use novikoff::margin::{Bias, MarginResult, max_margin};
use novikoff::simd::{self, Rows, Summation};

fn median(mut seconds: Vec<f64>) -> f64 {
    seconds.sort_by(f64::total_cmp);
    seconds[seconds.len() / 2]
}

fn main() {
    let mut shapes = vec![
        (10_000, 100, 0.02),
        (100_000, 100, 0.001),
        (1_000_000, 10, 0.001),
        (20_000, 1000, 0.1),
    ];
    if std::env::var_os("NOVIKOFF_BENCH_HARD").is_some() {
        shapes.extend([(10_000, 1000, 0.001), (100_000, 100, 0.0001)]);
    }
    println!(
        "{:<14} {:>12} {:>9} {:>7} {:>8} {:>10} {:>10} {:>11}",
        "shape", "γ*", "rel width", "passes", "work set", "solve s", "scan s", "solve/scan"
    );
    for (k, &(n, d, margin)) in shapes.iter().enumerate() {
        let data = separable(n, d, margin, 1.0, 1 + k as u64)
            .expect("valid parameters")
            .data;
        let solves: Vec<(f64, MarginResult)> = (0..3)
            .map(|_| {
                let started = Instant::now();
                let result = max_margin(&data, Bias::Free).expect("two classes");
                (started.elapsed().as_secs_f64(), result)
            })
            .collect();
        let solve = median(solves.iter().map(|(s, _)| *s).collect());
        let MarginResult::Separable {
            gamma,
            bracket,
            w,
            b,
            stats,
            ..
        } = &solves[0].1
        else {
            println!("{n} × {d}: not certified separable: {:?}", solves[0].1);
            continue;
        };
        let x = data.x();
        let flat = x.as_slice().expect("generated data are row-major");
        let rows = Rows::contiguous(flat, data.labels(), d).expect("consistent shapes");
        let w = w.as_slice().expect("contiguous");
        let scans: Vec<f64> = (0..7)
            .map(|_| {
                let started = Instant::now();
                let mistake = simd::scan(w, *b, &rows, Summation::Fast).expect("finite");
                let seconds = started.elapsed().as_secs_f64();
                assert!(mistake.is_none(), "the max-margin separator separates");
                seconds
            })
            .collect();
        let scan = median(scans);
        println!(
            "{:<14} {:>12.6e} {:>9.1e} {:>7} {:>8} {:>10.4} {:>10.5} {:>11.1}",
            format!("{n} × {d}"),
            gamma,
            (bracket.1 - bracket.0) / gamma,
            stats.passes,
            stats.working_set,
            solve,
            scan,
            solve / scan
        );
    }
}
