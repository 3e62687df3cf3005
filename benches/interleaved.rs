//! The epoch against its references with every entry interleaved: ratios that a shared machine's
//! background load cannot bias.
//!
//! criterion (`benches/epoch.rs`) measures one entry after another, seconds apart; on a shared machine
//! the load of the other core, and so the memory bandwidth left to this one, changes in between, and
//! the ratio of two entries moves with it (the same code has given 0.8 and 1.0 of `read_sum` in two
//! runs). Here every round runs each entry once, in a fresh seeded random order, and each ratio is taken
//! within a round, so both sides of it saw the same machine. The table gives, for each ratio, the
//! median over the rounds with the interquartile range, and the ratio of the two entries' best rounds.
//!
//! Entries (as in `epoch.rs`, on the same seeded problems): `fast` and `sequential` are one epoch of
//! `fit` in each summation order, `rowloop` the textbook loop, `read` the faster of `read_sum` and
//! `read_dot` in the round, `read_with_labels` the matrix and then the labels. Ratios are of
//! throughputs (the inverse of the times).
//!
//! A last table compares, for each matrix beyond the caches, the clean epoch and `read_sum` on the
//! matrix as the crate builds it (advised for transparent huge pages, see
//! `novikoff::simd::advise_huge_pages`) and on a copy in the OS's default 4 KiB pages.
//!
//! `cargo bench --bench interleaved` (all shapes of `epoch.rs`, 41 rounds; `NOVIKOFF_ROUNDS=N` and
//! `NOVIKOFF_EPOCH_SHAPES=10000x1000,...` change them). Times are the thread's CPU time, or wall time
//! with `NOVIKOFF_BENCH_CLOCK=wall`, as in every bench here.

use std::hint::black_box;

#[allow(dead_code)] // criterion's half of the clock module is not used here
mod common;

#[path = "common/epoch_data.rs"]
mod epoch_data;

use common::Clock;
use epoch_data::{Problem, one_epoch, problem, read_sum, rowloop, shapes};
use ndarray::{Array1, Array2};
use novikoff::simd::{self, Summation};
use novikoff::{Dataset, rng};

const DEFAULT_ROUNDS: usize = 41;
/// Matrices above this size (beyond the 1 MB L2 and the 32 MB L3) also get the huge-page comparison.
const OUT_OF_CACHE_BYTES: usize = 32 << 20;

/// What one round times.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    Fast,
    Sequential,
    Rowloop,
    ReadSum,
    ReadDot,
    ReadWithLabels,
}

const CLEAN: [Entry; 6] = [
    Entry::Fast,
    Entry::Sequential,
    Entry::Rowloop,
    Entry::ReadSum,
    Entry::ReadDot,
    Entry::ReadWithLabels,
];
const MISTAKES: [Entry; 3] = [Entry::Fast, Entry::Sequential, Entry::Rowloop];

/// The median, first and third quartiles of `values` (sorted in place; not empty).
fn quartiles(values: &mut [f64]) -> [f64; 3] {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    [at(0.5), at(0.25), at(0.75)]
}

/// The throughput ratio `faster / slower` (the inverse of their times), from per-round times.
fn ratio_cell(faster: &[f64], slower: &[f64]) -> String {
    let mut paired: Vec<f64> = slower.iter().zip(faster).map(|(s, f)| s / f).collect();
    let [median, low, high] = quartiles(&mut paired);
    let best = |t: &[f64]| t.iter().copied().fold(f64::INFINITY, f64::min);
    format!(
        "{median:.2} [{low:.2}–{high:.2}] / {:.2}",
        best(slower) / best(faster)
    )
}

fn main() {
    let rounds: usize = std::env::var("NOVIKOFF_ROUNDS")
        .ok()
        .map(|r| r.parse().expect("NOVIKOFF_ROUNDS: a number of rounds"))
        .unwrap_or(DEFAULT_ROUNDS);
    assert!(rounds > 0, "NOVIKOFF_ROUNDS: at least one round");
    let clock = Clock::from_env();
    println!(
        "simd path {}, clock {:?}, {rounds} rounds per shape",
        simd::active().name(),
        clock.source()
    );
    let mut order_stream = rng::from_seed(41);
    let mut clean_rows = Vec::new();
    let mut mistakes_rows = Vec::new();
    let mut pages_rows = Vec::new();
    for (k, &(n, d)) in shapes().iter().enumerate() {
        // The same seeds as epoch.rs, so the two benches time the same problems.
        let problem = problem(n, d, 100 + k as u64);
        let zero = Array1::zeros(d);
        for (clean, data, start) in [
            (true, &problem.clean, &problem.u),
            (false, &problem.noisy, &zero),
        ] {
            let entries: &[Entry] = if clean { &CLEAN } else { &MISTAKES };
            let x = data.as_flat_slice();
            let labels = data.labels();
            let fast = one_epoch(start, Summation::Fast);
            let sequential = one_epoch(start, Summation::Sequential);
            let start = start.to_vec();
            let mut w = start.clone();
            let mistakes = fast.fit(data).unwrap().mistakes;
            assert_eq!(sequential.fit(data).unwrap().mistakes, mistakes);
            assert_eq!(rowloop(x, labels, &mut w), mistakes);

            // Each task owns what it changes and holds references to the rest.
            let (fast, sequential, start) = (&fast, &sequential, &start);
            let mut tasks: Vec<Task<'_>> = entries
                .iter()
                .map(|entry| -> Task<'_> {
                    match entry {
                        Entry::Fast => Box::new(move || {
                            black_box(fast.fit(black_box(data)).unwrap().mistakes);
                        }),
                        Entry::Sequential => Box::new(move || {
                            black_box(sequential.fit(black_box(data)).unwrap().mistakes);
                        }),
                        Entry::Rowloop => {
                            let mut w = start.clone();
                            Box::new(move || {
                                w.copy_from_slice(start);
                                black_box(rowloop(black_box(x), black_box(labels), &mut w));
                            })
                        }
                        Entry::ReadSum => Box::new(move || {
                            black_box(read_sum(black_box(x)));
                        }),
                        Entry::ReadDot => Box::new(move || {
                            black_box(simd::dot_fast(black_box(x), black_box(x)));
                        }),
                        Entry::ReadWithLabels => Box::new(move || {
                            black_box(read_sum(black_box(x)) + read_sum(black_box(labels)));
                        }),
                    }
                })
                .collect();
            let times = interleave(&clock, &mut order_stream, rounds, &mut tasks);
            drop(tasks);
            let of = |entry: Entry| &times[entries.iter().position(|&e| e == entry).unwrap()];
            let gbps = |entry: Entry| {
                let mut t = of(entry).clone();
                let [median, ..] = quartiles(&mut t);
                (n * d * 8) as f64 / median
            };
            let shape = format!("{n} × {d}");
            let fast_t = of(Entry::Fast);
            if clean {
                let read: Vec<f64> = of(Entry::ReadSum)
                    .iter()
                    .zip(of(Entry::ReadDot))
                    .map(|(a, b)| a.min(*b))
                    .collect();
                clean_rows.push(format!(
                    "| {shape} | {:.1} | {:.1} | {:.1} | {} | {} | {} | {} |",
                    gbps(Entry::Fast),
                    gbps(Entry::ReadSum),
                    gbps(Entry::Rowloop),
                    ratio_cell(fast_t, &read),
                    ratio_cell(fast_t, of(Entry::ReadWithLabels)),
                    ratio_cell(fast_t, of(Entry::Rowloop)),
                    ratio_cell(fast_t, of(Entry::Sequential)),
                ));
            } else {
                mistakes_rows.push(format!(
                    "| {shape} | {mistakes} | {:.1} | {:.1} | {} | {} |",
                    gbps(Entry::Fast),
                    gbps(Entry::Rowloop),
                    ratio_cell(fast_t, of(Entry::Rowloop)),
                    ratio_cell(fast_t, of(Entry::Sequential)),
                ));
            }
        }
        if n * d * 8 > OUT_OF_CACHE_BYTES {
            pages_rows.push(pages_row(&clock, &mut order_stream, rounds, &problem));
        }
    }
    println!(
        "\nepoch_clean: GB/s (medians) and throughput ratios, paired median [quartiles] / best\n"
    );
    println!(
        "| n × d | fast | read_sum | rowloop | fast / read | fast / read_with_labels | fast / rowloop | fast / sequential |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    clean_rows.iter().for_each(|row| println!("{row}"));
    println!(
        "\nepoch_mistakes: GB/s (medians) and throughput ratios, paired median [quartiles] / best\n"
    );
    println!("| n × d | mistakes | fast | rowloop | fast / rowloop | fast / sequential |");
    println!("|---|---|---|---|---|---|");
    mistakes_rows.iter().for_each(|row| println!("{row}"));
    println!(
        "\nhuge pages: the clean epoch and read_sum on the matrix as the crate builds it (advised for \
         huge pages) and on a copy in 4 KiB pages; GB/s (medians) and throughput ratios, paired median \
         [quartiles] / best\n"
    );
    println!(
        "| n × d | fast, huge | fast, 4 KiB | read_sum, huge | read_sum, 4 KiB | fast: huge / 4 KiB | read_sum: huge / 4 KiB |"
    );
    println!("|---|---|---|---|---|---|---|");
    pages_rows.iter().for_each(|row| println!("{row}"));
}

/// Timed work, run once per round.
type Task<'a> = Box<dyn FnMut() + 'a>;

/// Run every task once per round, in a fresh random order each round; the times of each, in round
/// order.
fn interleave(
    clock: &Clock,
    stream: &mut impl rand::RngCore,
    rounds: usize,
    tasks: &mut [Task<'_>],
) -> Vec<Vec<f64>> {
    let mut times = vec![Vec::with_capacity(rounds); tasks.len()];
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    for _ in 0..rounds {
        rng::shuffle(stream, &mut order);
        for &i in &order {
            let started = clock.now();
            tasks[i]();
            times[i].push(clock.now().saturating_sub(started).max(1) as f64);
        }
    }
    times
}

/// The clean epoch and `read_sum` on the problem's matrix (advised for huge pages, as the crate builds
/// its matrices) and on a copy of it in the OS's default 4 KiB pages, interleaved.
fn pages_row(
    clock: &Clock,
    stream: &mut impl rand::RngCore,
    rounds: usize,
    problem: &Problem,
) -> String {
    let huge = &problem.clean;
    // A plain Vec is not advised: with transparent huge pages in `madvise` mode it gets 4 KiB pages.
    let small = Dataset::new(
        Array2::from_shape_vec(huge.x().dim(), huge.as_flat_slice().to_vec()).unwrap(),
        huge.y().to_owned(),
    )
    .unwrap();
    let fast = one_epoch(&problem.u, Summation::Fast);
    let mut tasks: Vec<Task<'_>> = vec![
        Box::new(|| {
            black_box(fast.fit(black_box(huge)).unwrap().mistakes);
        }),
        Box::new(|| {
            black_box(fast.fit(black_box(&small)).unwrap().mistakes);
        }),
        Box::new(|| {
            black_box(read_sum(black_box(huge.as_flat_slice())));
        }),
        Box::new(|| {
            black_box(read_sum(black_box(small.as_flat_slice())));
        }),
    ];
    let mut times = interleave(clock, stream, rounds, &mut tasks);
    drop(tasks);
    let bytes = (huge.x().len() * 8) as f64;
    let gbps: Vec<f64> = times
        .iter_mut()
        .map(|t| bytes / quartiles(&mut t.clone())[0])
        .collect();
    let (n, d) = huge.x().dim();
    format!(
        "| {n} × {d} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} |",
        gbps[0],
        gbps[1],
        gbps[2],
        gbps[3],
        ratio_cell(&times[0], &times[1]),
        ratio_cell(&times[2], &times[3]),
    )
}
