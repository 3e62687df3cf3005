//! The tightness table: on each dataset the spec asked the adversary about, how close the plain
//! perceptron comes to its bound in the cyclic order, in shuffled orders and in the adversary's worst
//! order. As far as we know no published study reports this measurement for real data.

use std::collections::BTreeMap;

use serde::Serialize;

use super::record::TaskRecord;
use crate::bounds::BoundKind;

/// One dataset and rule of the tightness table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TightnessRow {
    /// The dataset's key.
    pub dataset: String,
    /// The bias rule.
    pub rule: String,
    /// `R = max ‖x‖`.
    pub radius: Option<f64>,
    /// The certified maximum margin of the vectors the run sees (its lower end), when separable.
    pub gamma: Option<f64>,
    /// The tightest bound of the cyclic run, and its name.
    pub bound: Option<f64>,
    /// Its name.
    pub bound_name: Option<String>,
    /// Mistakes in the cyclic order.
    pub cyclic: Option<u64>,
    /// The most mistakes over the shuffled replicates.
    pub shuffled: Option<u64>,
    /// The most mistakes an adversary's order forced.
    pub adversary: Option<u64>,
    /// Whether that run stopped at the search's update cap (its count is then a lower bound).
    pub adversary_capped: bool,
    /// The highest mistakes/bound: each run against its own tightest bound (the bounds for any data
    /// depend on the run's sequence), the adversary's worst order against the cyclic run's bound when
    /// that bound depends on the data alone.
    pub ratio: Option<f64>,
}

/// The rows of the tightness table: every dataset and rule with an adversarial search, in order of
/// first appearance. Only the plain perceptron's tasks count (its variants make the same mistakes).
///
/// ```
/// use novikoff::experiment::{tightness, TaskRecord};
/// let cyclic = TaskRecord {
///     dataset: "iris".into(), rule: "none".into(), variant: "perceptron".into(), order: "cyclic".into(),
///     mistakes: Some(5), bound: Some(224.0), bound_name: Some("block_novikoff".into()),
///     ratio: Some(5.0 / 224.0), adversary_mistakes: Some(23), adversary_capped: Some(false),
///     ..Default::default()
/// };
/// let shuffled = TaskRecord {
///     order: "shuffle".into(), mistakes: Some(9), ratio: Some(9.0 / 224.0), ..cyclic.clone()
/// };
/// let rows = tightness(&[cyclic, shuffled]);
/// assert_eq!((rows[0].cyclic, rows[0].shuffled, rows[0].adversary), (Some(5), Some(9), Some(23)));
/// assert!((rows[0].ratio.unwrap() - 23.0 / 224.0).abs() < 1e-12);
/// ```
pub fn tightness(records: &[TaskRecord]) -> Vec<TightnessRow> {
    let plain = |r: &&TaskRecord| matches!(r.variant.as_str(), "" | "perceptron");
    let asked: std::collections::BTreeSet<&str> = records
        .iter()
        .filter(plain)
        .filter(|r| r.adversary_mistakes.is_some())
        .map(|r| r.dataset.as_str())
        .collect();
    let mut order: Vec<(String, String)> = Vec::new();
    let mut groups: BTreeMap<(String, String), Vec<&TaskRecord>> = BTreeMap::new();
    for r in records.iter().filter(plain) {
        if !asked.contains(r.dataset.as_str()) {
            continue;
        }
        let key = (r.dataset.clone(), r.rule.clone());
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(r);
    }
    order
        .into_iter()
        .map(|key| {
            let rows = &groups[&key];
            let cyclic = rows.iter().find(|r| r.order == "cyclic");
            let shuffled = rows
                .iter()
                .filter(|r| r.order == "shuffle")
                .filter_map(|r| r.mistakes)
                .max();
            let adversary = cyclic.and_then(|r| r.adversary_mistakes);
            let bound = cyclic.and_then(|r| r.bound);
            let about_data_alone = cyclic
                .and_then(|r| r.bound_name.as_deref())
                .and_then(|name| BoundKind::ALL.iter().find(|k| k.id() == name))
                .is_some_and(|kind| !kind.needs_run());
            let adversary_ratio = adversary
                .zip(bound)
                .filter(|_| about_data_alone)
                .map(|(m, b)| m as f64 / b);
            let ratio = rows
                .iter()
                .filter_map(|r| r.ratio)
                .chain(adversary_ratio)
                .fold(None, |worst: Option<f64>, r| {
                    Some(worst.map_or(r, |w| w.max(r)))
                });
            TightnessRow {
                radius: cyclic.and_then(|r| r.radius),
                gamma: cyclic.and_then(|r| r.gamma_lower),
                bound,
                bound_name: cyclic.and_then(|r| r.bound_name.clone()),
                cyclic: cyclic.and_then(|r| r.mistakes),
                shuffled,
                adversary,
                adversary_capped: cyclic.and_then(|r| r.adversary_capped).unwrap_or(false),
                ratio,
                dataset: key.0,
                rule: key.1,
            }
        })
        .collect()
}

/// The tightness table as aligned text.
///
/// ```
/// assert!(novikoff::experiment::tightness_table(&[]).starts_with("dataset"));
/// ```
pub fn tightness_table(rows: &[TightnessRow]) -> String {
    let number = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4e}"));
    let count = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    let mut table = vec![
        [
            "dataset",
            "rule",
            "R",
            "γ*",
            "bound",
            "cyclic",
            "shuffled",
            "adversary",
            "worst/bound",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for row in rows {
        table.push(vec![
            row.dataset.clone(),
            row.rule.clone(),
            number(row.radius),
            number(row.gamma),
            format!(
                "{} ({})",
                number(row.bound),
                row.bound_name.as_deref().unwrap_or("none")
            ),
            count(row.cyclic),
            count(row.shuffled),
            format!(
                "{}{}",
                if row.adversary_capped { "≥ " } else { "" },
                count(row.adversary)
            ),
            number(row.ratio),
        ]);
    }
    let widths: Vec<usize> = (0..table[0].len())
        .map(|j| {
            table
                .iter()
                .map(|r| r[j].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in table {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(j, (cell, w))| {
                let pad = w - cell.chars().count();
                if j < 2 {
                    format!("{cell}{}", " ".repeat(pad))
                } else {
                    format!("{}{cell}", " ".repeat(pad))
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}
