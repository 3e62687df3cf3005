//! The corral's products with `Q` and the support's points shared among the threads by rows: each
//! thread takes a range of coordinates and meets every column there, so each entry sees the same
//! operations in the same order as on one thread, and the bits do not depend on the number of threads.
//!
//! A major iteration of the polish on 2·10⁴ × 1000 (`benches/margin_passes`) reads `Q` (900 columns of
//! 1000 values) and the support's points several times between its parallel steps (the pricing and a
//! batch's projection): the queued rotations, the normal's projection and the point `v`, a fifth of its
//! time on one core. The affine minimiser's back substitutions stay on one: shared in blocks of 64 to
//! 320 columns of `R`, each block's wait for the threads cost more than its rows gained.

use rayon::prelude::*;

use super::PARALLEL_PASS;
use crate::margin::accurate::CompensatedVector;
use crate::margin::problem::Problem;
use crate::simd::{axpy, rot};

/// Rows of a part when a vector is shared among threads: at least a few kilobytes of every column,
/// so that a part pays for its task.
const PART_ROWS: usize = 256;

/// Whether a product reading `values` values is shared among the threads.
pub(super) fn on_threads(values: usize) -> bool {
    values >= PARALLEL_PASS && rayon::current_num_threads() > 1
}

/// Rows of each part of `length` rows shared among the threads, a multiple of `align`.
fn part_rows(length: usize, align: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    length
        .div_ceil(threads)
        .max(PART_ROWS)
        .next_multiple_of(align.max(1))
}

/// Each column of `columns` cut at the same rows: part `t` holds rows `t·rows..(t + 1)·rows` of every
/// column.
fn row_parts<Q: AsMut<[f64]>>(columns: &mut [Q], rows: usize) -> Vec<Vec<&mut [f64]>> {
    let length = columns
        .first_mut()
        .map_or(0, |column| column.as_mut().len());
    let mut parts: Vec<Vec<&mut [f64]>> = (0..length.div_ceil(rows.max(1)))
        .map(|_| Vec::with_capacity(columns.len()))
        .collect();
    for column in columns.iter_mut() {
        for (part, slice) in parts
            .iter_mut()
            .zip(column.as_mut().chunks_mut(rows.max(1)))
        {
            part.push(slice);
        }
    }
    parts
}

/// Apply the rotations `(i, c, s)` of columns `i, i + 1`, in order, to the columns `q` (all of one
/// length), `block` rows at a time so that the rows of the columns they touch stay in cache; shared
/// among the threads by rows when `threads`.
pub(super) fn rotate_columns<Q: AsMut<[f64]>>(
    q: &mut [Q],
    rotations: &[(usize, f64, f64)],
    block: usize,
    threads: bool,
) {
    let apply = |part: &mut [&mut [f64]]| {
        let length = part.first().map_or(0, |column| column.len());
        for start in (0..length).step_by(block.max(1)) {
            let end = (start + block).min(length);
            for &(i, c, s) in rotations {
                let (left, right) = part.split_at_mut(i + 1);
                rot(c, s, &mut left[i][start..end], &mut right[0][start..end]);
            }
        }
    };
    let length = q.first_mut().map_or(0, |column| column.as_mut().len());
    if threads {
        row_parts(q, part_rows(length, block))
            .into_par_iter()
            .for_each(|mut part| apply(&mut part));
    } else {
        let mut whole: Vec<&mut [f64]> = q.iter_mut().map(AsMut::as_mut).collect();
        apply(&mut whole);
    }
}

/// `f(start, part)` on consecutive parts of `x` (rows `start..start + part.len()`): on the threads,
/// a part each, when `threads`, else on the whole of `x` at once.
fn in_parts(x: &mut [f64], threads: bool, f: impl Fn(usize, &mut [f64]) + Sync) {
    if threads {
        let rows = part_rows(x.len(), 8);
        x.par_chunks_mut(rows)
            .enumerate()
            .for_each(|(k, part)| f(k * rows, part));
    } else {
        f(0, x);
    }
}

/// Rows `start..start + length` of `column`, or those of them it has.
fn rows_of(column: &[f64], start: usize, length: usize) -> &[f64] {
    let end = (start + length).min(column.len());
    &column[start.min(end)..end]
}

/// `x ← x − Σₖ cₖ·qₖ`, the columns taken in order; shared among the threads by rows when `threads`.
pub(super) fn subtract_combination<Q: AsRef<[f64]> + Sync>(
    q: &[Q],
    c: &[f64],
    x: &mut [f64],
    threads: bool,
) {
    in_parts(x, threads, |start, part| {
        for (qk, &ck) in q.iter().zip(c) {
            let rows = rows_of(qk.as_ref(), start, part.len());
            axpy(-ck, rows, &mut part[..rows.len()]);
        }
    });
}

/// `x − Σₖ cₖ·qₖ` compensated ([`CompensatedVector`]: `x` as a term, then each product, the columns
/// in order), each component as one accumulator would sum it; shared among the threads by rows when
/// `threads`.
pub(super) fn subtract_combination_compensated<Q: AsRef<[f64]> + Sync>(
    q: &[Q],
    c: &[f64],
    x: &[f64],
    threads: bool,
) -> Vec<f64> {
    let mut out = x.to_vec();
    in_parts(&mut out, threads, |start, part| {
        let mut acc = CompensatedVector::zeros(part.len());
        acc.add(part);
        for (qk, &ck) in q.iter().zip(c) {
            acc.add_scaled(-ck, rows_of(qk.as_ref(), start, part.len()));
        }
        part.copy_from_slice(&acc.values());
    });
    out
}

/// `v ← v + Σₖ aₖ·z_{rows[k]}` over the points of `problem` (their stored coordinates,
/// [`Problem::stored_part`]), the points taken in order; shared among the threads by coordinates when
/// `threads`, each forming its part of every point.
pub(super) fn add_points(
    problem: &Problem<'_>,
    rows: &[usize],
    coefficients: &[f64],
    v: &mut [f64],
    threads: bool,
) {
    in_parts(v, threads, |start, part| {
        let mut buffer = Vec::new();
        for (&i, &a) in rows.iter().zip(coefficients) {
            problem.add_part_to(i, a, start..start + part.len(), part, &mut buffer);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dataset;
    use crate::margin::Bias;
    use crate::margin::points::Points;
    use crate::margin::problem::{bits, scattered_rows};
    use ndarray::{Array1, Array2};

    #[test]
    fn points_added_on_threads_have_the_bits_of_one_thread() {
        // Rows of 1000 values read in place, translated and scaled as they are read.
        let (n, d) = (30, 1000);
        let x = Array2::from_shape_vec((n, d), scattered_rows(n, d).concat()).unwrap();
        let labels = Array1::from_iter((0..n).map(|i| if i % 3 == 0 { -1.0 } else { 1.0 }));
        let data = Dataset::new(x, labels).unwrap();
        let centre: Vec<f64> = (0..d).map(|j| 0.01 * (j % 7) as f64 - 0.03).collect();
        let mut problem = Problem::in_place(Points::from(&data), Bias::Free, centre, 0.5, 0);
        let rows: Vec<usize> = (0..n).collect();
        problem.push_rows(&rows);
        let coefficients: Vec<f64> = (0..n).map(|k| (k as f64 + 0.5) / n as f64).collect();
        let mut alone = vec![0.0; d];
        add_points(&problem, &rows, &coefficients, &mut alone, false);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut shared = vec![0.0; d];
        pool.install(|| add_points(&problem, &rows, &coefficients, &mut shared, true));
        assert_eq!(bits(&[shared]), bits(std::slice::from_ref(&alone)));
        // And it is the sum of the points, formed and added in turn, to the bit (the points are
        // translated and scaled inside the axpy, as each would be formed).
        let mut buffer = Vec::new();
        for j in [0, 511, 999] {
            let sum: f64 = (0..n)
                .map(|k| coefficients[k] * problem.point(k, &mut buffer)[j])
                .fold(0.0, |sum, term| sum + term);
            assert_eq!(alone[j].to_bits(), sum.to_bits(), "coordinate {j}");
        }
    }

    #[test]
    fn rotations_and_combinations_on_threads_have_the_bits_of_one_thread() {
        let q: Vec<Vec<f64>> = scattered_rows(40, 1000);
        let rotations: Vec<(usize, f64, f64)> = (0..60)
            .map(|k| {
                let angle = 0.1 * k as f64 + 0.05;
                ((k * 7) % 39, angle.cos(), angle.sin())
            })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut alone = q.clone();
        rotate_columns(&mut alone, &rotations, 64, false);
        assert_ne!(bits(&alone), bits(&q), "the rotations moved the columns");
        for block in [8, 64, 1000] {
            let mut shared = q.clone();
            pool.install(|| rotate_columns(&mut shared, &rotations, block, true));
            assert_eq!(bits(&shared), bits(&alone), "blocks of {block} rows");
        }
        let c: Vec<f64> = (0..40).map(|k| 0.25 - 0.01 * k as f64).collect();
        let x = scattered_rows(1, 1000).pop().unwrap();
        let mut alone = x.clone();
        subtract_combination(&q, &c, &mut alone, false);
        let mut shared = x.clone();
        pool.install(|| subtract_combination(&q, &c, &mut shared, true));
        assert_eq!(bits(&[shared]), bits(std::slice::from_ref(&alone)));
        // Compensated: the bits of one accumulator a component, on any number of threads.
        let compensated = subtract_combination_compensated(&q, &c, &x, false);
        let on_threads = pool.install(|| subtract_combination_compensated(&q, &c, &x, true));
        assert_eq!(
            bits(&[on_threads]),
            bits(std::slice::from_ref(&compensated))
        );
        for (i, value) in compensated.iter().enumerate() {
            let mut acc = CompensatedVector::zeros(1);
            acc.add(&x[i..=i]);
            for k in 0..40 {
                acc.add_scaled(-c[k], &q[k][i..=i]);
            }
            assert_eq!(value.to_bits(), acc.values()[0].to_bits(), "row {i}");
        }
        let expected: Vec<f64> = (0..1000)
            .map(|i| x[i] - (0..40).map(|k| c[k] * q[k][i]).sum::<f64>())
            .collect();
        for (a, e) in alone.iter().zip(&expected) {
            assert!((a - e).abs() < 1e-12);
        }
    }
}
