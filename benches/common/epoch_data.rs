//! What the epoch benches share: the shapes, the seeded problems, the textbook loop and the bandwidth
//! references (`epoch.rs` under criterion, `interleaved.rs` with paired ratios). The matrices are built
//! like the crate's own ([`simd::advise_huge_pages`]), so the benches time what a loaded or generated
//! dataset gives.

use ndarray::Array1;
use novikoff::perceptron::{Perceptron, PerceptronParams};
use novikoff::simd::{self, Summation};
use novikoff::{Dataset, rng};

/// (n, d): three 80 MB matrices (beyond every cache) and one of 800 KB (in L2).
pub const SHAPES: [(usize, usize); 4] = [
    (1_000_000, 10),
    (100_000, 100),
    (10_000, 1000),
    (1_000, 100),
];

/// Distance kept between every row and the separating plane u·x = 0 (|u| = 1).
pub const MARGIN: f64 = 0.1;
/// Fraction of labels flipped for the epoch with mistakes.
pub const FLIPPED: f64 = 0.1;

/// A matrix's buffer, filled by `fill`, as the crate's loaders and generators make it: advised for huge
/// pages before it is written ([`simd::advise_huge_pages`]). `NOVIKOFF_PAGES=4k` leaves the advice
/// out, for measuring what the OS's default 4 KiB pages give.
fn matrix(len: usize, fill: impl FnOnce(&mut Vec<f64>)) -> Array1<f64> {
    let mut values = Vec::with_capacity(len);
    if std::env::var("NOVIKOFF_PAGES").is_ok_and(|pages| pages == "4k") {
        eprintln!("NOVIKOFF_PAGES=4k: the matrices are not advised for huge pages");
    } else {
        simd::advise_huge_pages(&mut values);
    }
    fill(&mut values);
    assert_eq!(values.len(), len);
    Array1::from_vec(values)
}

pub struct Problem {
    pub clean: Dataset,
    pub noisy: Dataset,
    pub u: Array1<f64>,
}

pub fn problem(n: usize, d: usize, seed: u64) -> Problem {
    let mut stream = rng::from_seed(seed);
    let mut u: Vec<f64> = (0..d).map(|_| rng::unit_f64(&mut stream) - 0.5).collect();
    let norm = u.iter().map(|v| v * v).sum::<f64>().sqrt();
    u.iter_mut().for_each(|v| *v /= norm);
    let mut x = matrix(n * d, |values| {
        values.extend((0..n * d).map(|_| rng::unit_f64(&mut stream) * 2.0 - 1.0))
    })
    .into_shape_with_order((n, d))
    .unwrap();
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
        clean: Dataset::new(
            matrix(n * d, |values| values.extend(x.iter().copied()))
                .into_shape_with_order((n, d))
                .unwrap(),
            Array1::from_vec(clean),
        )
        .unwrap(),
        noisy: Dataset::new(x, Array1::from_vec(noisy)).unwrap(),
        u: Array1::from_vec(u),
    }
}

pub fn one_epoch(w: &Array1<f64>, summation: Summation) -> Perceptron {
    PerceptronParams::new()
        .initial(w.clone(), 0.0)
        .max_epochs(1)
        .summation(summation)
        .check()
        .unwrap()
}

/// The textbook loop over a row-major matrix; returns the number of mistakes.
pub fn rowloop(x: &[f64], labels: &[f64], w: &mut [f64]) -> u64 {
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
pub fn read_sum(x: &[f64]) -> f64 {
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
pub fn shapes() -> Vec<(usize, usize)> {
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
