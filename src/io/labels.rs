//! Mapping the labels found in a file to ±1, the same way for every format.

use std::collections::BTreeMap;

use crate::error::{Error, Location, Result};

/// Collects raw labels while a file is read, then maps them to ±1.
///
/// The rules (one meaning everywhere):
/// * with `positive = Some(v)`: a label equal to `v` is +1 and every other label is −1 (one-vs-rest, so
///   three or more classes work). Numbers compare as numbers (`1` equals `1.0`), anything else as text;
/// * without it: the distinct labels must be `{−1, +1}` or `{0, 1}` (0 becomes −1). Any other set, such as
///   a third class or two other values, is an error that suggests `--positive`.
///
/// A file with a single class is an error in both cases.
#[derive(Debug)]
pub(crate) struct LabelMapper {
    positive: Option<String>,
    positive_number: Option<f64>,
    /// Distinct numeric labels seen, with the 1-based line of their first occurrence.
    seen: BTreeMap<u64, (f64, usize)>,
    raw: Vec<f64>,
}

impl LabelMapper {
    pub(crate) fn new(positive: Option<&str>) -> Self {
        let positive = positive.map(|p| p.trim().to_string());
        let positive_number = positive.as_deref().and_then(parse_number);
        Self {
            positive,
            positive_number,
            seen: BTreeMap::new(),
            raw: Vec::new(),
        }
    }

    /// Record one label as it appears in the file at `at` (line and column).
    pub(crate) fn push(&mut self, text: &str, at: &Location) -> Result<()> {
        let text = text.trim();
        if let Some(positive) = &self.positive {
            let is_positive = match (self.positive_number, parse_number(text)) {
                (Some(p), Some(v)) => p == v,
                _ => text == positive,
            };
            let label: f64 = if is_positive { 1.0 } else { -1.0 };
            self.seen.entry(label.to_bits()).or_insert((label, at.line));
            self.raw.push(label);
            return Ok(());
        }
        let Some(value) = parse_number(text) else {
            return Err(Error::parse(
                at.clone(),
                format!(
                    "label `{text}` is not a number; name the positive class with --positive VALUE"
                ),
            ));
        };
        if !value.is_finite() {
            return Err(Error::parse(
                at.clone(),
                format!("label `{text}` is not finite"),
            ));
        }
        // -0.0 and 0.0 are the same class.
        let key = if value == 0.0 { 0.0f64 } else { value };
        if !self.seen.contains_key(&key.to_bits()) {
            if self.seen.len() == 2 {
                let known: Vec<String> = self.seen.values().map(|(v, _)| v.to_string()).collect();
                return Err(Error::parse(
                    at.clone(),
                    format!(
                        "a third class `{text}` (after {}); choose the positive class with --positive VALUE",
                        known.join(" and ")
                    ),
                ));
            }
            self.seen.insert(key.to_bits(), (key, at.line));
        }
        self.raw.push(key);
        Ok(())
    }

    /// Map everything recorded to ±1.
    pub(crate) fn finish(self, file: &Location) -> Result<Vec<f64>> {
        let classes: Vec<(f64, usize)> = self.seen.values().copied().collect();
        match classes.as_slice() {
            [] => Err(Error::parse(
                file.clone(),
                "no examples: the file holds no data rows",
            )),
            [(only, _)] => Err(Error::SingleClass {
                label: if self.positive.is_some() {
                    *only
                } else if *only > 0.0 {
                    1.0
                } else {
                    -1.0
                },
                context: format!(
                    " in {} (every label is {})",
                    file.path.display(),
                    if self.positive.is_some() {
                        if *only > 0.0 {
                            "the positive class".to_string()
                        } else {
                            "not the positive class".to_string()
                        }
                    } else {
                        only.to_string()
                    }
                ),
            }),
            _ if self.positive.is_some() => Ok(self.raw),
            [(a, _), (b, line_b)] => {
                let (lo, hi) = if a < b { (*a, *b) } else { (*b, *a) };
                if (lo, hi) == (-1.0, 1.0) {
                    Ok(self.raw)
                } else if (lo, hi) == (0.0, 1.0) {
                    Ok(self
                        .raw
                        .into_iter()
                        .map(|v| if v == 0.0 { -1.0 } else { 1.0 })
                        .collect())
                } else {
                    Err(Error::parse(
                        Location::new(file.path.clone()).line(*line_b),
                        format!(
                            "labels {lo} and {hi} are neither ±1 nor 0/1; choose the positive class with --positive VALUE"
                        ),
                    ))
                }
            }
            _ => unreachable!("at most two classes are recorded without --positive"),
        }
    }
}

fn parse_number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok()
}
