//! A corral set aside between the rounds of a solve.

use super::*;

/// A corral without its problem: what a solve keeps between rounds, while its working set (the problem)
/// grows. Points never move when others join (see [`Problem::in_place`]), so the factorisation stays
/// valid and the next round starts where the last one ended, without refactoring.
#[derive(Debug, Clone)]
pub(crate) struct CorralParts {
    weight: Vec<f64>,
    member: Vec<bool>,
    rows: Vec<usize>,
    base: Vec<Option<usize>>,
    columns: Vec<usize>,
    q: Vec<Vec<f64>>,
    implicit: bool,
    r: Vec<Vec<f64>>,
    accurate: bool,
    qtb: Vec<f64>,
    qtb_valid: bool,
    column_of: Vec<usize>,
}

impl CorralParts {
    /// The members and their weights.
    pub(crate) fn members(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.rows.iter().map(|&i| (i, self.weight[i]))
    }
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
            q,
            implicit,
            r,
            accurate,
            qtb,
            qtb_valid,
            mut column_of,
        } = parts;
        debug_assert!(weight.len() <= n);
        weight.resize(n, 0.0);
        member.resize(n, false);
        column_of.resize(n, usize::MAX);
        Corral {
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
            accurate,
            qtb,
            qtb_valid,
            column_of,
        }
    }
}
