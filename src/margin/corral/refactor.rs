//! The factorisation rebuilt from the members' weights (a solve that starts from weights, not from
//! the last round's factorisation), with Carathéodory's reduction of a dependent set.

use super::*;

/// Members projected together when the factorisation is rebuilt: the projection reads `Q`, or without
/// it the support's points, once a batch instead of once a member.
const REFACTOR_BATCH: usize = 16;

impl Corral<'_> {
    /// Rebuild the factorisation from the members, reducing a dependent set.
    pub(super) fn refactor(&mut self) {
        self.qtb_valid = false;
        'restart: loop {
            for &c in &self.columns {
                self.column_of[c] = usize::MAX;
            }
            self.columns.clear();
            self.q.clear();
            self.pending.clear();
            self.r.clear();
            self.measure_columns();
            self.base.iter_mut().for_each(|b| *b = None);
            let mut order = self.rows.clone();
            order.sort_by(|&a, &b| self.weight[b].total_cmp(&self.weight[a]).then(a.cmp(&b)));
            for &i in &order {
                let g = self.problem.group(i);
                if self.base[g].is_none() {
                    self.base[g] = Some(i);
                }
            }
            let rest: Vec<usize> = order
                .into_iter()
                .filter(|&i| !self.base.contains(&Some(i)))
                .collect();
            let mut next = 0;
            while next < rest.len() {
                // A batch no larger than the room left, so that no column of it finds the space full.
                let room = self.problem.dim().saturating_sub(self.columns.len());
                let size = REFACTOR_BATCH.min(room);
                if size == 0 {
                    let first = self.append(rest[next]);
                    if self.reduce(rest[next], first) {
                        continue 'restart;
                    }
                    next += 1;
                    continue;
                }
                let chunk = &rest[next..(next + size).min(rest.len())];
                self.apply_rotations();
                let mut batch = self.project(chunk);
                for (k, &i) in chunk.iter().enumerate() {
                    next += 1;
                    let first = self.append_projected(&mut batch, k);
                    if first.is_err() {
                        // The reduction changes the factorisation: the rest of the batch is projected
                        // again, in the next one.
                        if self.reduce(i, first) {
                            continue 'restart;
                        }
                        break;
                    }
                }
            }
            return;
        }
    }

    /// Finish joining member `i`, whose first try to append gave `first`: while its column depends on
    /// the columns there, reduce the set along the dependence (Carathéodory) and try again, until it
    /// joins or is the row that leaves. Returns whether a base left, so that the factorisation must
    /// be rebuilt.
    fn reduce(&mut self, i: usize, first: Result<(), Vec<f64>>) -> bool {
        let mut result = first;
        while let Err(coefficients) = result {
            // eᵢ = E·μ: move the weights along the null direction until one reaches 0.
            let mu = self.back_substitute(&coefficients);
            let gone = self.caratheodory(i, &mu);
            self.remove_member(gone);
            if self.base.contains(&Some(gone)) {
                return true;
            }
            if gone == i {
                return false;
            }
            // Invariant: every member other than the bases was appended as a column (`gone` is
            // neither a base, checked above, nor `i`, which failed to append).
            let position = self
                .columns
                .iter()
                .position(|&c| c == gone)
                .expect("a member that is not a base has a column");
            self.delete_column(position);
            result = self.append(i);
        }
        false
    }

    /// Move the weights along the null direction (+1 on `row`, −μ on the columns, the balance on the bases)
    /// as far as they stay non-negative, and return the row whose weight reaches zero.
    fn caratheodory(&mut self, row: usize, mu: &[f64]) -> usize {
        let groups = self.problem.groups();
        let mut direction: Vec<(usize, f64)> = Vec::with_capacity(mu.len() + 1 + groups);
        let mut balance = vec![0.0; groups];
        direction.push((row, 1.0));
        balance[self.problem.group(row)] -= 1.0;
        for (&c, &m) in self.columns.iter().zip(mu) {
            direction.push((c, -m));
            balance[self.problem.group(c)] += m;
        }
        for (g, b) in self.base.iter().enumerate() {
            if let Some(b) = *b {
                direction.push((b, balance[g]));
            }
        }
        let mut theta = f64::INFINITY;
        let mut gone = row;
        for &(i, d) in &direction {
            if d > 0.0 {
                let step = self.weight[i] / d;
                if step < theta {
                    theta = step;
                    gone = i;
                }
            }
        }
        for &(i, d) in &direction {
            self.weight[i] = (self.weight[i] - theta * d).max(0.0);
        }
        self.weight[gone] = 0.0;
        gone
    }
}
