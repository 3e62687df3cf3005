//! The per-rule summary table of a results file.

use std::collections::BTreeMap;

use super::record::TaskRecord;

/// One rule's line of the summary.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RuleSummary {
    /// The bias rule, followed by the variant when it is not the plain perceptron (`classic/averaged`).
    pub rule: String,
    /// Tasks recorded.
    pub tasks: usize,
    /// Tasks that failed with an error.
    pub failed: usize,
    /// Tasks with at least one applicable bound.
    pub with_bound: usize,
    /// Of those, the tasks that passed every check ([`TaskRecord::passed`]: every applicable bound
    /// held, the proof's inequalities held, no overflow), the verdict `novikoff verify` gives.
    pub held: usize,
    /// Median of mistakes / primary bound.
    pub median_ratio: Option<f64>,
    /// Maximum of mistakes / primary bound.
    pub max_ratio: Option<f64>,
    /// Tasks whose data was found not separable (with a certificate).
    pub not_separable: usize,
    /// Tasks whose margin was solved but could not decide separability (an inaccurate solve, at a
    /// time or memory limit): counted neither as separable nor as not.
    pub separability_unknown: usize,
    /// Tasks whose run hit a cap.
    pub capped: usize,
    /// Tasks where a proof inequality was violated (should be 0).
    pub invariant_violations: usize,
}

/// Summarise records per rule (and variant), in order of first appearance.
///
/// ```
/// use novikoff::experiment::{summarize, TaskRecord};
/// let rows = vec![
///     TaskRecord { rule: "none".into(), holds: Some(true), ratio: Some(0.5), ..Default::default() },
///     TaskRecord { rule: "none".into(), holds: Some(true), ratio: Some(0.25), ..Default::default() },
/// ];
/// let summary = summarize(&rows);
/// assert_eq!(summary[0].held, 2);
/// assert_eq!(summary[0].max_ratio, Some(0.5));
/// ```
pub fn summarize(records: &[TaskRecord]) -> Vec<RuleSummary> {
    let mut order: Vec<String> = Vec::new();
    let mut groups: BTreeMap<String, Vec<&TaskRecord>> = BTreeMap::new();
    for r in records {
        let key = match r.variant.as_str() {
            "" | "perceptron" => r.rule.clone(),
            variant => format!("{}/{variant}", r.rule),
        };
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(r);
    }
    order
        .into_iter()
        .map(|rule| {
            let rows = &groups[&rule];
            let mut ratios: Vec<f64> = rows
                .iter()
                .filter_map(|r| r.ratio)
                .filter(|r| r.is_finite())
                .collect();
            ratios.sort_by(f64::total_cmp);
            let median_ratio = match ratios.len() {
                0 => None,
                k if k % 2 == 1 => Some(ratios[k / 2]),
                k => Some(0.5 * (ratios[k / 2 - 1] + ratios[k / 2])),
            };
            RuleSummary {
                tasks: rows.len(),
                failed: rows.iter().filter(|r| r.error.is_some()).count(),
                with_bound: rows.iter().filter(|r| r.holds.is_some()).count(),
                held: rows.iter().filter(|r| r.passed()).count(),
                median_ratio,
                max_ratio: ratios.last().copied(),
                not_separable: rows.iter().filter(|r| r.separable == Some(false)).count(),
                separability_unknown: rows
                    .iter()
                    .filter(|r| r.error.is_none() && r.margin_kind.is_some())
                    .filter(|r| r.separable.is_none())
                    .count(),
                capped: rows.iter().filter(|r| r.converged == Some(false)).count(),
                invariant_violations: rows
                    .iter()
                    .filter(|r| r.invariants_ok == Some(false))
                    .count(),
                rule,
            }
        })
        .collect()
}

/// The summary as an aligned text table.
///
/// ```
/// let text = novikoff::experiment::summary_table(&[]);
/// assert!(text.starts_with("rule"));
/// ```
pub fn summary_table(summary: &[RuleSummary]) -> String {
    let mut rows = vec![vec![
        "rule".to_string(),
        "tasks".into(),
        "bounds held".into(),
        "median mistakes/bound".into(),
        "max mistakes/bound".into(),
        "not separable".into(),
        "capped".into(),
        "failed".into(),
        "invariant violations".into(),
    ]];
    let fmt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}"));
    for s in summary {
        rows.push(vec![
            s.rule.clone(),
            s.tasks.to_string(),
            format!("{}/{}", s.held, s.with_bound),
            fmt(s.median_ratio),
            fmt(s.max_ratio),
            match s.separability_unknown {
                0 => s.not_separable.to_string(),
                unknown => format!("{} (+{unknown} unknown)", s.not_separable),
            },
            s.capped.to_string(),
            s.failed.to_string(),
            s.invariant_violations.to_string(),
        ]);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|j| rows.iter().map(|r| r[j].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(j, (cell, w))| {
                if j == 0 {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}
