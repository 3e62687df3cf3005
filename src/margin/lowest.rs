//! The few rows of smallest score among many, in one pass with a bounded heap (or, for many of them, by
//! selection): the first working set's choice and the violators a pass finds.

use std::collections::BinaryHeap;

/// The rows of the `count` smallest scores, smallest first (ties by row): one pass with a bounded heap,
/// so that choosing a few rows among millions costs no more than reading their scores.
pub(super) fn lowest(scored: impl Iterator<Item = (f64, usize)>, count: usize) -> Vec<usize> {
    let mut kept = Lowest::new(count);
    for (score, row) in scored {
        kept.offer(score, row);
    }
    kept.rows()
}

/// The rows of the `count` smallest scores among `scored`, smallest first (ties by row): [`lowest`]'s
/// answer by selection over all the scores held at once, for a `count` that is a sizeable part of
/// them, where most rows would pass through the heap.
pub(super) fn lowest_of(mut scored: Vec<(f64, usize)>, count: usize) -> Vec<usize> {
    let order = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if count < scored.len() {
        scored.select_nth_unstable_by(count, order);
        scored.truncate(count);
    }
    scored.sort_unstable_by(order);
    scored.into_iter().map(|(_, row)| row).collect()
}

/// A score and its row, ordered by score, then row.
#[derive(PartialEq)]
struct Scored(f64, usize);

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// The `count` lowest of the scored rows offered so far ([`lowest`], a row at a time).
pub(super) struct Lowest {
    /// A max-heap of the `count` best so far: a new row enters only below its top.
    heap: BinaryHeap<Scored>,
    count: usize,
}

impl Lowest {
    pub(super) fn new(count: usize) -> Lowest {
        Lowest {
            heap: BinaryHeap::with_capacity(count.saturating_add(1).min(1 << 20)),
            count,
        }
    }

    pub(super) fn offer(&mut self, score: f64, row: usize) {
        if self.count == 0 {
            return;
        }
        // Most rows score above the top: `>` rejects them without the total order, whose answer it
        // is for every pair but NaN and equal values, which take the total order.
        if self.heap.len() == self.count && self.heap.peek().is_some_and(|top| score > top.0) {
            return;
        }
        let item = Scored(score, row);
        if self.heap.len() < self.count {
            self.heap.push(item);
        } else if self.heap.peek().is_some_and(|top| item < *top) {
            self.heap.pop();
            self.heap.push(item);
        }
    }

    /// The rows kept, lowest first.
    pub(super) fn rows(self) -> Vec<usize> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|Scored(_, row)| row)
            .collect()
    }
}

/// [`lowest_per_group`] keeps a group's lowest rows by selecting among all its scores, not by a heap,
/// when it keeps at least one row in this many: rows at random enter a heap of `k` of `n` about
/// `k·ln(n/k)` times, and on the 10⁴ × 100 set of `benches/margin_passes` (808 of 10⁴ rows) the heap
/// took 0.23 of the solve's 6.3 ms (session 41, AMD Zen 4). The scores held cost `16n` bytes a group,
/// at most `32·16 = 512` bytes a kept row.
const SELECT_BELOW: usize = 32;

/// In each group (`0.0` stands for all rows, `±1.0` for a class), the `count` rows of smallest score,
/// among the rows `score` gives one.
pub(super) fn lowest_per_group(
    labels: &[f64],
    groups: &[f64],
    count: usize,
    score: impl Fn(usize) -> Option<f64>,
) -> Vec<usize> {
    let group_of = |y: f64| groups.iter().position(|&class| class == 0.0 || y == class);
    if count.saturating_mul(SELECT_BELOW) >= labels.len() {
        let mut scored: Vec<Vec<(f64, usize)>> = groups.iter().map(|_| Vec::new()).collect();
        for (i, &y) in labels.iter().enumerate() {
            if let (Some(g), Some(s)) = (group_of(y), score(i)) {
                scored[g].push((s, i));
            }
        }
        return scored
            .into_iter()
            .flat_map(|scored| lowest_of(scored, count))
            .collect();
    }
    // One pass for every group: each group's rows reach its own heap in the order they would alone.
    let mut kept: Vec<Lowest> = groups.iter().map(|_| Lowest::new(count)).collect();
    for (i, &y) in labels.iter().enumerate() {
        let Some(g) = group_of(y) else {
            continue;
        };
        if let Some(s) = score(i) {
            kept[g].offer(s, i);
        }
    }
    kept.into_iter().flat_map(Lowest::rows).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_rows_are_those_of_a_full_sort_in_the_total_order() {
        // Ties, signed zeros and NaN take the total order's answer (then the row), as a sort gives it.
        let values = [
            3.0,
            -0.0,
            0.0,
            1.0,
            f64::NAN,
            1.0,
            -2.0,
            0.0,
            7.0,
            -0.0,
            1.0,
            -f64::NAN,
            5.0,
        ];
        let scored = || (0..40).map(|i| (values[(i * 7) % values.len()], i));
        for count in 0..=41 {
            let mut sorted: Vec<(f64, usize)> = scored().collect();
            sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let expected: Vec<usize> = sorted.iter().take(count).map(|&(_, i)| i).collect();
            assert_eq!(lowest(scored(), count), expected, "count {count}");
            assert_eq!(
                lowest_of(scored().collect(), count),
                expected,
                "count {count}"
            );
        }
    }
}
