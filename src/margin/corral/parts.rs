//! A corral set aside between the rounds of a solve.

use super::*;

/// A corral without its problem: what a solve keeps between rounds, while its working set (the problem)
/// grows. Points never move when others join (see [`Problem::in_place`]; a sparse set's points only
/// gain zero coordinates, see [`Problem::in_span`]), so the factorisation stays valid and the next
/// round starts where the last one ended, without refactoring.
#[derive(Debug, Clone)]
pub(crate) struct CorralParts {
    weight: Vec<f64>,
    member: Vec<bool>,
    rows: Vec<usize>,
    base: Vec<Option<usize>>,
    columns: Vec<usize>,
    q: Vec<Aligned>,
    implicit: bool,
    r: Vec<Vec<f64>>,
    accurate: bool,
    qtb: Vec<f64>,
    qtb_valid: bool,
    column_of: Vec<usize>,
}

impl<'a> Corral<'a> {
    /// Set the problem aside and keep the rest.
    pub(crate) fn into_parts(mut self) -> CorralParts {
        self.apply_rotations();
        CorralParts {
            weight: self.weight,
            member: self.member,
            rows: self.rows,
            base: self.base,
            columns: self.columns,
            q: self.q,
            implicit: self.implicit,
            r: self.r,
            accurate: self.accurate,
            qtb: self.qtb,
            qtb_valid: self.qtb_valid,
            column_of: self.column_of,
        }
    }

    /// Continue from `parts` on `problem`, which holds the same points as before and possibly more.
    pub(crate) fn resume(problem: &'a Problem<'a>, parts: CorralParts) -> Self {
        let n = problem.n();
        let CorralParts {
            mut weight,
            mut member,
            rows,
            base,
            columns,
            mut q,
            implicit,
            r,
            accurate,
            qtb,
            qtb_valid,
            mut column_of,
        } = parts;
        debug_assert!(weight.len() <= n);
        // A sparse working set's coordinates (its span's) gain dimensions as rows join, while the
        // points already there keep theirs, with zeros in the new ones: Q's columns gain zeros, and
        // R and Qᵀ·z_B stay as they are.
        for column in &mut q {
            debug_assert!(column.len() <= problem.dim());
            column.resize(problem.dim(), 0.0);
        }
        weight.resize(n, 0.0);
        member.resize(n, false);
        column_of.resize(n, usize::MAX);
        let mut corral = Corral {
            problem,
            weight,
            member,
            rows,
            base,
            columns,
            q,
            implicit,
            explicit_values: Self::explicit_values_for(problem.data_values()),
            pending: Vec::new(),
            r,
            longest_column: NO_COLUMN,
            accurate,
            qtb,
            qtb_valid,
            column_of,
            #[cfg(test)]
            implicit_passes: std::sync::atomic::AtomicUsize::new(0),
            #[cfg(test)]
            refinements: 0,
        };
        corral.measure_columns();
        corral
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;
    use crate::margin::Bias;
    use crate::margin::points::Points;
    use crate::margin::span::Span;

    /// A sparse working set's points gain zero coordinates as rows join (its span's new dimensions): a
    /// corral set aside and resumed on the larger problem, with or without `Q`, goes on as one rebuilt
    /// there from the same members: the same affine minimiser, and the same columns for rows that
    /// join afterwards, which use the new dimensions.
    #[test]
    fn a_corral_resumes_on_a_span_that_gained_dimensions() {
        // 24 rows in 60 columns, four values a row: nearly orthogonal, so every row opens a dimension.
        let x = ndarray::Array2::from_shape_fn((24, 60), |(i, j)| {
            if (j + 7 * i) % 15 == 0 {
                ((i * 5 + j) % 11) as f64 / 11.0 + 0.25
            } else {
                0.0
            }
        });
        let labels = ndarray::Array1::from_shape_fn(24, |i| if i % 2 == 0 { 1.0 } else { -1.0 });
        let data = Dataset::new(x, labels).unwrap().to_sparse();
        let points = Points::from(&data);
        let start = [
            (0, 0.5),
            (1, 0.5),
            (2, 0.25),
            (3, 0.25),
            (4, 0.25),
            (5, 0.25),
        ];
        for drop_q in [false, true] {
            let mut span = Span::new(points);
            span.extend(points, &(0..8).collect::<Vec<_>>());
            let small = span.problem(points, Bias::Free);
            let mut corral = Corral::new(&small);
            corral.reset(&start);
            if drop_q {
                corral.drop_q();
            }
            let parts = corral.into_parts();
            let small_dim = small.dim();
            drop(small);
            span.extend(points, &(8..24).collect::<Vec<_>>());
            let large = span.problem(points, Bias::Free);
            assert!(large.dim() > small_dim + 8, "{} {small_dim}", large.dim());
            let mut resumed = Corral::resume(&large, parts);
            let mut fresh = Corral::new(&large);
            fresh.reset(&start);
            if drop_q {
                fresh.drop_q();
            }
            for corral in [&mut resumed, &mut fresh] {
                assert_eq!(
                    corral.add_batch(&[8, 9, 10, 11], 4, usize::MAX).rows.len(),
                    4
                );
                assert!(corral.add(12) && corral.add(13));
            }
            assert_eq!(resumed.columns, fresh.columns);
            for (a, b) in resumed.r.iter().zip(&fresh.r) {
                let gap = a
                    .iter()
                    .zip(b)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                assert!(gap < 1e-13, "R: {a:?} against {b:?}");
            }
            let (a, b) = (resumed.affine_minimiser(), fresh.affine_minimiser());
            for (&(i, s), &(j, t)) in a.iter().zip(&b) {
                assert!(i == j && (s - t).abs() < 1e-12, "{a:?} against {b:?}");
            }
        }
    }
}
