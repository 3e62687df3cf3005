//! The factorisation of a sparse working set's members built straight from their coordinates in the
//! span, without passes through the points.
//!
//! A working set in its span ([`Problem::in_span`]) holds each row as its coordinates in an
//! orthonormal basis of the rows that came before it and itself: row `k` has coordinates only up to
//! the dimensions open when it arrived, so the rows, taken in the order they arrived, form a lower
//! staircase. With each group's base taken as its first member in that order, the column
//! `eₖ = zₖ − z_b` of a later member ends where `zₖ` ends, and the matrix `E` of the columns is an
//! upper staircase: column `j` reaches below its diagonal only by the rows opened by rows that are
//! not among its columns (the bases, and the working set's rows outside the corral before it). Its
//! `QR` factorisation is then Householder's, each reflection as short as that overhang: a few
//! values a column where the members are most of the working set, against the `O(|S|·ℓ)` products
//! a column of the implicit Gram–Schmidt of `refactor` takes (half of the rcv1-shaped solve of the
//! README went there).
//!
//! Householder's factorisation is backward stable whatever the conditioning, so `R` is at least as
//! accurate as the one Gram–Schmidt with reorthogonalisation gives; its diagonal is made positive,
//! as Gram–Schmidt's is. `Q` is never formed: the corral is implicit whenever this path is taken.

use super::*;

/// The most values the reflections may hold together, as a share of the values of `R`: beyond it
/// the overhangs are long enough (many rows outside the corral opened dimensions among its members)
/// that the passes of `refactor` are as cheap, and this path would only add memory.
const OVERHANG_SHARE: usize = 8;

/// One Householder reflection `I − β·v·vᵀ` acting on rows `first..first + v.len()`.
struct Reflection {
    first: usize,
    v: Vec<f64>,
    beta: f64,
}

impl Reflection {
    /// Apply the reflection to `column` (long enough to hold its rows).
    fn apply(&self, column: &mut [f64]) {
        let rows = &mut column[self.first..self.first + self.v.len()];
        let scale = self.beta * dot(&self.v, rows, Summation::Fast);
        if scale != 0.0 {
            axpy(-scale, &self.v, rows);
        }
    }

    /// The reflection that maps `x` to `‖x‖·e₀`, with `‖x‖`, or `None` when `x` is already a
    /// non-negative multiple of `e₀` (then with `x₀`).
    fn onto_first(first: usize, x: &[f64]) -> (Option<Reflection>, f64) {
        let tail = dot(&x[1..], &x[1..], Summation::Fast);
        let head = x[0];
        if tail == 0.0 && head >= 0.0 {
            return (None, head);
        }
        let norm = (head * head + tail).sqrt();
        // `x₀ − ‖x‖` without cancellation when `x₀ > 0` (Parlett's form), so that the image is
        // `+‖x‖·e₀` in either case.
        let v0 = if head <= 0.0 {
            head - norm
        } else {
            -tail / (head + norm)
        };
        let mut v = x.to_vec();
        v[0] = v0;
        let beta = 2.0 / (v0 * v0 + tail);
        (Some(Reflection { first, v, beta }), norm)
    }
}

impl Corral<'_> {
    /// Build the factorisation of the members from their coordinates in the span, the bases being each
    /// group's first member and the columns the others in the order of the working set. Returns false,
    /// with nothing changed, when this path does not apply (the points are not in a span, `Q` is
    /// explicit, the overhangs are long) or a member's column depends on the others' (Carathéodory's
    /// reduction is `refactor`'s).
    pub(super) fn factor_staircase(&mut self) -> bool {
        if !self.implicit || !self.problem.in_implicit_basis() {
            return false;
        }
        let mut order = self.rows.clone();
        order.sort_unstable();
        let mut base: Vec<Option<usize>> = vec![None; self.problem.groups()];
        let mut columns = Vec::with_capacity(order.len());
        for &i in &order {
            let g = self.problem.group(i);
            if base[g].is_none() {
                base[g] = Some(i);
            } else {
                columns.push(i);
            }
        }
        if columns.len() > self.problem.dim() {
            return false;
        }
        let mut buffer = Vec::new();
        let length = |i: usize, buffer: &mut Vec<f64>| self.problem.stored(i, buffer).len();
        let column_length = |i: usize, buffer: &mut Vec<f64>| {
            let b = base[self.problem.group(i)].unwrap_or(i);
            length(i, buffer).max(length(b, buffer))
        };
        let overhang: usize = columns
            .iter()
            .enumerate()
            .map(|(j, &i)| column_length(i, &mut buffer).saturating_sub(j + 1))
            .sum();
        if overhang > Self::implicit_values_for(columns.len()) / OVERHANG_SHARE {
            return false;
        }
        let mut reflections: Vec<Reflection> = Vec::with_capacity(columns.len());
        let mut r: Vec<Vec<f64>> = Vec::with_capacity(columns.len());
        let (mut point, mut base_point, mut e) = (Vec::new(), Vec::new(), Vec::new());
        let mut reach = 0;
        for (j, &i) in columns.iter().enumerate() {
            let b = base[self.problem.group(i)].unwrap_or(i);
            let (y, y_base) = (self.problem.labels[i], self.problem.labels[b]);
            let p = self.problem.stored(i, &mut point);
            let q = self.problem.stored(b, &mut base_point);
            // Earlier reflections may have reached below this column's own end.
            reach = reach.max(p.len()).max(q.len()).max(j + 1);
            e.clear();
            e.resize(reach, 0.0);
            e.iter_mut().zip(p).for_each(|(e, &x)| *e = y * x);
            e.iter_mut().zip(q).for_each(|(e, &x)| *e -= y_base * x);
            let size = dot(&e, &e, Summation::Fast).sqrt();
            for h in &reflections {
                h.apply(&mut e);
            }
            let (reflection, diagonal) = Reflection::onto_first(j, &e[j..]);
            // A NaN (a column whose squares underflow) also leaves the factorisation to `refactor`.
            if diagonal <= DEPENDENT * size.max(f64::MIN_POSITIVE) || !diagonal.is_finite() {
                return false;
            }
            let mut column = Vec::with_capacity(j + 2);
            column.extend_from_slice(&e[..j]);
            column.push(diagonal);
            column.push(0.0);
            r.push(column);
            reflections.extend(reflection);
        }
        for &c in &self.columns {
            self.column_of[c] = usize::MAX;
        }
        for (k, &c) in columns.iter().enumerate() {
            self.column_of[c] = k;
        }
        self.columns = columns;
        self.base = base;
        self.r = r;
        self.measure_columns();
        self.q.clear();
        self.pending.clear();
        self.qtb_valid = false;
        true
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::margin::Bias;
    use crate::margin::packed::PackedRows;

    /// A working set in its span: `n` rows whose lengths grow by one except at the rows in
    /// `no_pivot`, which open no dimension, labels alternating in pairs.
    fn in_span(n: usize, no_pivot: &[usize], bias: Bias) -> Problem<'static> {
        let scattered = crate::margin::problem::scattered_rows(n, n);
        let mut packed = PackedRows::new();
        let mut rank = 0;
        for (k, row) in scattered.iter().enumerate() {
            if no_pivot.contains(&k) {
                packed.push(&row[..rank.max(1)]);
            } else {
                let mut row = row[..=rank].to_vec();
                // Gram–Schmidt's coordinates end with a positive entry where a row opens a dimension.
                row[rank] = row[rank].abs() + 0.25;
                packed.push(&row);
                rank += 1;
            }
        }
        let labels = (0..n).map(|i| if i % 4 < 2 { 1.0 } else { -1.0 }).collect();
        Problem::in_span(Arc::new(packed), rank, labels, bias, n * n)
    }

    /// A corral without `Q` on `problem`, from weights on `members`.
    fn corral<'a>(problem: &'a Problem<'a>, members: &[usize]) -> Corral<'a> {
        let mut corral = Corral::new(problem);
        corral.limit_values(0);
        let start: Vec<(usize, f64)> = members.iter().map(|&i| (i, 1.0 + (i % 5) as f64)).collect();
        corral.reset(&start);
        assert!(corral.implicit);
        corral
    }

    /// The largest entry of `RᵀR − EᵀE` (with `E` formed from the points), against the largest of `EᵀE`.
    fn gram_error(corral: &Corral<'_>) -> (f64, f64) {
        let columns: Vec<Aligned> = corral
            .columns
            .iter()
            .map(|&c| corral.column_of(c))
            .collect();
        let (mut error, mut scale) = (0.0f64, 0.0f64);
        for (a, ea) in columns.iter().enumerate() {
            for (b, eb) in columns.iter().enumerate() {
                let gram: f64 = ea.iter().zip(eb.iter()).map(|(x, y)| x * y).sum();
                let rr: f64 = (0..=a.min(b))
                    .map(|i| corral.r[a][i] * corral.r[b][i])
                    .sum();
                error = error.max((gram - rr).abs());
                scale = scale.max(gram.abs());
            }
        }
        (error, scale)
    }

    #[test]
    fn the_staircase_factor_is_the_qr_of_the_members_columns() {
        // Rows outside the corral (3, 8, 9, 20) opened dimensions among its members, and two rows (12,
        // 25) opened none, so the columns overhang their diagonal by up to six rows.
        for bias in [Bias::Free, Bias::ThroughOrigin] {
            let problem = in_span(128, &[12, 25], bias);
            let members: Vec<usize> = (0..128).filter(|i| ![3, 8, 9, 20].contains(i)).collect();
            let mut staircase = corral(&problem, &members);
            // The bases are each group's first member, the columns the rest in order.
            let bases: Vec<usize> = match bias {
                Bias::Free => vec![0, 2],
                Bias::ThroughOrigin => vec![0],
            };
            assert_eq!(
                staircase.base,
                bases.iter().map(|&b| Some(b)).collect::<Vec<_>>()
            );
            let columns: Vec<usize> = members
                .iter()
                .copied()
                .filter(|i| !bases.contains(i))
                .collect();
            assert_eq!(staircase.columns, columns);
            for (j, column) in staircase.r.iter().enumerate() {
                assert_eq!(column.len(), j + 2);
                assert!(column[j] > 0.0, "diagonal {j}: {}", column[j]);
                assert_eq!(column[j + 1], 0.0);
                assert_eq!(staircase.column_of[staircase.columns[j]], j);
            }
            let (error, scale) = gram_error(&staircase);
            assert!(error <= 1e-14 * scale, "RᵀR − EᵀE: {error:e} of {scale:e}");
            // The affine minimiser does not depend on the bases: the passes of `refactor` (the heaviest
            // members as bases) find the same weights.
            let mut passes = corral(&problem, &members);
            passes.refactor();
            assert_ne!(passes.base, staircase.base);
            let (error, scale) = gram_error(&passes);
            // Gram–Schmidt through `R` is the less accurate of the two (5·10⁻¹³ here).
            assert!(error <= 1e-12 * scale, "refactor: {error:e} of {scale:e}");
            let sorted = |mut pairs: Vec<(usize, f64)>| {
                pairs.sort_by_key(|&(i, _)| i);
                pairs
            };
            let (a, b) = (
                sorted(staircase.affine_minimiser()),
                sorted(passes.affine_minimiser()),
            );
            assert_eq!(a.len(), b.len());
            for ((i, x), (k, z)) in a.into_iter().zip(b) {
                assert_eq!(i, k);
                assert!((x - z).abs() <= 1e-10, "row {i}: {x} against {z}");
            }
        }
    }

    #[test]
    fn a_dependent_member_or_a_long_overhang_is_left_to_refactor() {
        // Row 70 repeats row 60 (same point, same label): its column depends on the others', which only
        // Carathéodory's reduction in `refactor` can resolve.
        let problem = in_span(128, &[], Bias::Free);
        let source = |i: usize| if i == 70 { 60 } else { i };
        let mut packed = PackedRows::new();
        let mut buffer = Vec::new();
        for i in 0..128 {
            packed.push(problem.stored(source(i), &mut buffer));
        }
        let labels: Vec<f64> = (0..128).map(|i| problem.labels[source(i)]).collect();
        let repeated = Problem::in_span(Arc::new(packed), 128, labels, Bias::Free, 128 * 128);
        let reduced = corral(&repeated, &(0..128).collect::<Vec<_>>());
        // `reset` fell back: one of the two copies left (the staircase never drops a member), and the
        // rest is a factorisation, to the accuracy of Gram–Schmidt through `R` (10⁻¹¹ here).
        assert!(!(reduced.is_member(60) && reduced.is_member(70)));
        let (error, scale) = gram_error(&reduced);
        assert!(error <= 1e-10 * scale, "{error:e} of {scale:e}");
        // Without the copy, the same members take the staircase.
        assert!(corral(&problem, &(0..128).collect::<Vec<_>>()).factor_staircase());
        // Every other row of a long working set outside the corral: each column overhangs by half its
        // index, more reflection than the passes would cost.
        let problem = in_span(64, &[], Bias::Free);
        let members: Vec<usize> = (0..4).chain((4..64).step_by(2)).collect();
        let mut sparse_members = corral(&problem, &members);
        assert!(!sparse_members.factor_staircase());
        let (error, scale) = gram_error(&sparse_members);
        assert!(error <= 1e-12 * scale, "{error:e} of {scale:e}");
        // Half as many rows outside: the overhang is within its share.
        let members: Vec<usize> = (0..48).chain((48..64).step_by(2)).collect();
        assert!(corral(&problem, &members).factor_staircase());
    }
}
