//! The margin solver over many shapes and seeds, for comparing two builds of it.
//!
//! Wolfe's iteration counts are chaotic in their start: one build can be 1.3 × faster than another on one
//! seed of a shape and 0.9 × on the next. A change of the solver's path is judged by the geometric mean of
//! its speed-ups over many shapes, each timed alternately with the other build. `benches/compare_builds.py`
//! builds this file at a base revision and in the working tree and does that. The file uses only the
//! crate's public API, so that it compiles against older revisions unchanged.
//!
//! `cargo bench --bench margin_suite -- [--set NAMES] [--list] [--shape KEY]`, where `NAMES` is a comma-
//! separated list of the sets below (default `wide,narrow`). One line a shape: its key, the median solve
//! in milliseconds, the status, γ* and its bracket, the passes and the working set. Generated data
//! (`generate::separable`, or `generate::noisy` where the key says `flip=`), timed from the solve's start
//! to its answer; the data's generation is not timed.

use std::time::Instant;

use novikoff::Dataset;
use novikoff::generate::{noisy, separable};
use novikoff::margin::{Bias, MarginResult, max_margin};

/// One generated problem and how many times to solve it (the median is reported).
#[derive(Debug, Clone, Copy)]
struct Shape {
    n: usize,
    d: usize,
    margin: f64,
    seed: u64,
    solves: usize,
    through_origin: bool,
    flip: Option<f64>,
}

impl Shape {
    fn key(&self) -> String {
        let mut key = format!("{}x{} m={} seed={}", self.n, self.d, self.margin, self.seed);
        if self.through_origin {
            key.push_str(" origin");
        }
        if let Some(flip) = self.flip {
            key.push_str(&format!(" flip={flip}"));
        }
        key
    }

    fn data(&self) -> Dataset {
        let generated = match self.flip {
            Some(flip) => noisy(self.n, self.d, self.margin, 1.0, flip, self.seed),
            None => separable(self.n, self.d, self.margin, 1.0, self.seed),
        };
        generated.expect("the suite's parameters are valid").data
    }
}

const fn shape(n: usize, d: usize, margin: f64, seed: u64, solves: usize) -> Shape {
    Shape {
        n,
        d,
        margin,
        seed,
        solves,
        through_origin: false,
        flip: None,
    }
}

const fn origin(shape: Shape) -> Shape {
    Shape {
        through_origin: true,
        ..shape
    }
}

const fn flipped(flip: f64, shape: Shape) -> Shape {
    Shape {
        flip: Some(flip),
        ..shape
    }
}

/// The shapes of `wide`, and most of `wide-seeds`, with seeds from `seed` to `seed + 2`.
fn wide(seed: u64) -> Vec<Shape> {
    vec![
        shape(5000, 80, 0.02, seed, 20),
        shape(5000, 80, 0.02, seed + 1, 20),
        shape(10_000, 80, 0.02, seed, 10),
        shape(10_000, 100, 0.02, seed, 10),
        shape(10_000, 100, 0.02, seed + 1, 10),
        shape(10_000, 100, 0.02, seed + 2, 10),
        shape(5000, 100, 0.02, seed, 10),
        shape(3000, 120, 0.02, seed, 10),
        shape(20_000, 120, 0.02, seed, 4),
        shape(10_000, 150, 0.02, seed, 5),
        shape(20_000, 200, 0.02, seed, 3),
        shape(20_000, 200, 0.02, seed + 1, 3),
        shape(20_000, 90, 0.005, seed, 4),
        shape(50_000, 128, 0.002, seed, 2),
        shape(100_000, 100, 0.001, seed + 1, 2),
        origin(shape(10_000, 100, 0.02, seed, 5)),
        shape(10_000, 200, 0.02, seed, 3),
        shape(30_000, 100, 0.005, seed, 3),
        flipped(0.05, shape(20_000, 100, 0.02, seed, 3)),
        flipped(0.002, shape(20_000, 100, 0.02, seed, 3)),
        flipped(0.01, shape(10_000, 150, 0.02, seed, 3)),
    ]
}

/// The sets: `wide` and `wide-seeds` in 80–250 dimensions (seeds 1–3 and 4–6), `narrow` in 20–75, where
/// dense data take Newton's steps, and `high` in 300–1000, where they take the descent's own weights
/// (a second or so a shape, so not in the default); each holds a set or more with flipped labels,
/// which are proved inseparable.
fn set(name: &str) -> Option<Vec<Shape>> {
    Some(match name {
        "wide" => wide(1),
        "wide-seeds" => {
            let mut shapes = wide(4);
            shapes.extend([shape(8000, 250, 0.02, 4, 3), shape(4000, 160, 0.02, 4, 5)]);
            shapes
        }
        "narrow" => vec![
            shape(10_000, 64, 0.02, 1, 10),
            shape(10_000, 64, 0.02, 2, 10),
            shape(20_000, 70, 0.02, 1, 5),
            shape(20_000, 70, 0.005, 2, 5),
            shape(50_000, 64, 0.002, 1, 3),
            shape(5000, 72, 0.02, 1, 20),
            shape(10_000, 75, 0.02, 3, 10),
            origin(shape(10_000, 70, 0.02, 5, 10)),
            shape(3000, 64, 0.02, 6, 20),
            shape(10_000, 32, 0.02, 1, 10),
            shape(10_000, 48, 0.02, 2, 10),
            shape(20_000, 56, 0.02, 1, 5),
            shape(50_000, 48, 0.002, 1, 3),
            shape(5000, 40, 0.02, 2, 20),
            shape(10_000, 60, 0.02, 3, 10),
            origin(shape(10_000, 50, 0.02, 5, 10)),
            shape(100_000, 32, 0.001, 1, 2),
            shape(10_000, 20, 0.02, 1, 10),
            flipped(0.01, shape(10_000, 70, 0.02, 1, 5)),
            flipped(0.01, shape(10_000, 50, 0.02, 1, 5)),
        ],
        "high" => vec![
            shape(20_000, 1000, 0.1, 4, 2),
            shape(10_000, 1000, 0.001, 5, 1),
            shape(10_000, 500, 0.02, 1, 2),
            shape(10_000, 300, 0.02, 1, 3),
            origin(shape(5000, 400, 0.02, 2, 3)),
            flipped(0.01, shape(10_000, 300, 0.02, 1, 3)),
        ],
        _ => return None,
    })
}

fn run(shape: &Shape) -> String {
    let data = shape.data();
    let bias = if shape.through_origin {
        Bias::ThroughOrigin
    } else {
        Bias::Free
    };
    let mut seconds = Vec::with_capacity(shape.solves);
    let mut answer = None;
    for _ in 0..shape.solves.max(1) {
        let started = Instant::now();
        let result = max_margin(&data, bias).expect("both classes occur");
        seconds.push(started.elapsed().as_secs_f64());
        answer = Some(result);
    }
    seconds.sort_by(f64::total_cmp);
    let median_ms = seconds[seconds.len() / 2] * 1e3;
    let summary = match answer.expect("at least one solve") {
        MarginResult::Separable {
            gamma,
            bracket,
            stats,
            ..
        } => format!(
            "separable gamma={gamma:e} lower={:e} upper={:e} passes={} working_set={}",
            bracket.0, bracket.1, stats.passes, stats.working_set
        ),
        MarginResult::NotSeparable { stats, .. } => format!(
            "not_separable passes={} working_set={}",
            stats.passes, stats.working_set
        ),
        MarginResult::Inaccurate { reason, .. } => format!("inaccurate ({reason})"),
        other => format!("{other:?}"),
    };
    format!("{}\t{median_ms:.4}\t{summary}", shape.key())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let names = value("--set").unwrap_or_else(|| "wide,narrow".into());
    let mut shapes = Vec::new();
    for name in names.split(',') {
        match set(name) {
            Some(found) => shapes.extend(found),
            None => {
                eprintln!("margin_suite: no set named `{name}` (wide, wide-seeds, narrow, high)");
                std::process::exit(2);
            }
        }
    }
    if args.iter().any(|a| a == "--list") {
        for shape in &shapes {
            println!("{}", shape.key());
        }
        return;
    }
    let wanted = value("--shape");
    for shape in &shapes {
        if wanted.as_ref().is_none_or(|key| *key == shape.key()) {
            println!("{}", run(shape));
        }
    }
}
