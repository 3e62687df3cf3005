//! Mapping the labels found in a file to ±1, the same way for every format.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Location, Result};

/// The classes of a file read with [`open_multiclass`](super::open_multiclass): the
/// sorted class names, each row's class, and where each class first occurs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClassLabels {
    pub(crate) names: Vec<String>,
    pub(crate) ids: Vec<usize>,
    /// Where each class (by sorted index) first occurs, and the suffix a message adds.
    pub(crate) first: Vec<(Location, String)>,
}

/// Where a reader in class mode leaves the classes it found (the readers return a [`Dataset`](crate::Dataset), whose
/// labels are ±1): shared by the options and the reader, taken by [`super::open_multiclass`].
#[derive(Debug, Clone, Default)]
pub(crate) struct ClassSink(Option<Arc<Mutex<Option<ClassLabels>>>>);

impl ClassSink {
    pub(crate) fn active() -> Self {
        Self(Some(Arc::new(Mutex::new(None))))
    }

    pub(crate) fn is_active(&self) -> bool {
        self.0.is_some()
    }

    pub(crate) fn take(&self) -> Option<ClassLabels> {
        self.0
            .as_ref()
            .and_then(|slot| slot.lock().expect("no reader panics holding it").take())
    }

    fn put(&self, labels: ClassLabels) {
        if let Some(slot) = &self.0 {
            *slot.lock().expect("no reader panics holding it") = Some(labels);
        }
    }
}

/// Two option sets are equal whatever their sinks hold.
impl PartialEq for ClassSink {
    fn eq(&self, other: &Self) -> bool {
        self.is_active() == other.is_active()
    }
}

impl Eq for ClassSink {}

/// A class as a reader meets it: a number (compared by value, `1` and `1.0` alike) or a text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum ClassKey {
    Number(u64),
    Text(String),
}

/// The classes met so far, in order of first occurrence.
#[derive(Debug, Default)]
struct ClassCollector {
    keys: Vec<ClassKey>,
    index: HashMap<ClassKey, usize>,
    first_place: Vec<usize>,
    ids: Vec<usize>,
    sink: ClassSink,
}

impl ClassCollector {
    fn push(&mut self, key: ClassKey, place: usize) {
        let next = self.keys.len();
        let id = *self.index.entry(key.clone()).or_insert(next);
        if id == next {
            self.keys.push(key);
            self.first_place.push(place);
        }
        self.ids.push(id);
    }

    fn finish(self, locate: impl Fn(usize) -> (Location, String)) -> usize {
        // Sorted as np.unique sorts: numbers by value, then texts.
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by(|&a, &b| match (&self.keys[a], &self.keys[b]) {
            (ClassKey::Number(x), ClassKey::Number(y)) => {
                f64::from_bits(*x).total_cmp(&f64::from_bits(*y))
            }
            (ClassKey::Number(_), ClassKey::Text(_)) => std::cmp::Ordering::Less,
            (ClassKey::Text(_), ClassKey::Number(_)) => std::cmp::Ordering::Greater,
            (ClassKey::Text(x), ClassKey::Text(y)) => x.cmp(y),
        });
        let mut rank = vec![0; order.len()];
        for (position, &class) in order.iter().enumerate() {
            rank[class] = position;
        }
        let names = order
            .iter()
            .map(|&class| match &self.keys[class] {
                ClassKey::Number(bits) => f64::from_bits(*bits).to_string(),
                ClassKey::Text(text) => text.clone(),
            })
            .collect();
        let first = order
            .iter()
            .map(|&class| locate(self.first_place[class]))
            .collect();
        let rows = self.ids.len();
        self.sink.put(ClassLabels {
            names,
            ids: self.ids.iter().map(|&id| rank[id]).collect(),
            first,
        });
        rows
    }
}

/// Collects raw labels while a file is read, then maps them to ±1.
///
/// The rules (one meaning everywhere):
/// * with `positive = Some(v)`: a label equal to `v` is +1 and every other label is −1 (one-vs-rest, so
///   three or more classes work). Numbers compare as numbers (`1` equals `1.0`), anything else as text;
/// * without it: the distinct labels must be `{−1, +1}` or `{0, 1}` (0 becomes −1). Any other set, such as
///   a third class or two other values, is an error that suggests `--positive`.
///
/// A file with a single class is legitimate (the perceptron and the theorem apply through the origin;
/// only a free bias needs two classes, and what needs it checks). With `positive` its sign is whatever
/// the rule above gives; without it `1` (or `+1`, `1.0`) is +1 and `-1` or `0` is −1, and any other single
/// value is an error that asks for `--positive`, because it could be either class.
///
/// Each label is recorded with a `place` (a line for text formats, a row for binary ones) so that
/// [`LabelMapper::finish`] can point at the first occurrence of a class.
#[derive(Debug)]
pub(crate) struct LabelMapper {
    positive: Option<String>,
    positive_number: Option<f64>,
    /// Distinct labels seen (at most two without `positive`), with the place of their first occurrence.
    seen: Vec<(f64, usize)>,
    raw: Vec<f64>,
    /// Every class kept, for a multi-class read.
    classes: Option<ClassCollector>,
}

impl LabelMapper {
    pub(crate) fn new(positive: Option<&str>) -> Self {
        let positive = positive.map(|p| p.trim().to_string());
        let positive_number = positive.as_deref().and_then(parse_number);
        Self {
            positive,
            positive_number,
            seen: Vec::with_capacity(2),
            raw: Vec::new(),
            classes: None,
        }
    }

    /// The mapper the options ask for: ±1 labels, or every class kept ([`open_multiclass`](super::open_multiclass)).
    pub(crate) fn for_options(options: &super::ReadOptions) -> Self {
        let mut mapper = Self::new(options.positive.as_deref());
        if options.classes.is_active() {
            mapper.classes = Some(ClassCollector {
                sink: options.classes.clone(),
                ..ClassCollector::default()
            });
        }
        mapper
    }

    /// Reserve room for `rows` labels up front, so that the buffer never grows by doubling.
    pub(crate) fn reserve(&mut self, rows: usize, path: &Path) -> Result<()> {
        self.raw.try_reserve_exact(rows).map_err(|_| {
            Error::parse(
                Location::new(path),
                format!("cannot allocate memory for {rows} labels"),
            )
        })
    }

    /// Record one label as it appears in a text file. The error is the message only; the reader knows
    /// where it is.
    pub(crate) fn push_text(
        &mut self,
        text: &str,
        place: usize,
    ) -> std::result::Result<(), String> {
        let text = text.trim();
        let number = parse_number(text);
        if let Some(classes) = self.classes.as_mut() {
            let key = match number {
                Some(v) if v.is_finite() => ClassKey::Number((v + 0.0).to_bits()),
                _ => ClassKey::Text(text.to_string()),
            };
            classes.push(key, place);
            return Ok(());
        }
        if let Some(positive) = &self.positive {
            let is_positive = match (self.positive_number, number) {
                (Some(p), Some(v)) => p == v,
                _ => text == positive,
            };
            self.record_one_vs_rest(is_positive, place);
            return Ok(());
        }
        let Some(value) = number else {
            return Err(format!(
                "label `{text}` is not a number; name the positive class with --positive VALUE"
            ));
        };
        self.record_number(value, || text.to_string(), place)
    }

    /// Record one numeric label (binary formats).
    pub(crate) fn push_number(
        &mut self,
        value: f64,
        place: usize,
    ) -> std::result::Result<(), String> {
        if let Some(classes) = self.classes.as_mut() {
            if !value.is_finite() {
                return Err(format!("label `{value}` is not finite"));
            }
            classes.push(ClassKey::Number((value + 0.0).to_bits()), place);
            return Ok(());
        }
        if self.positive.is_some() {
            let is_positive = self.positive_number == Some(value);
            self.record_one_vs_rest(is_positive, place);
            return Ok(());
        }
        self.record_number(value, || value.to_string(), place)
    }

    /// Record a run of numeric labels, the first at `first_place` and the rest at the places after it
    /// (binary formats, a block of rows at a time).
    ///
    /// Once both classes have been seen (without `positive`), a block made only of them is checked and
    /// copied without a branch per label; anything else goes through [`LabelMapper::push_number`] one by
    /// one, which reports the first offending label.
    pub(crate) fn push_numbers(
        &mut self,
        values: &[f64],
        first_place: usize,
    ) -> std::result::Result<(), (usize, String)> {
        if let (None, None, &[(a, _), (b, _)]) =
            (&self.positive, &self.classes, self.seen.as_slice())
        {
            let foreign = values
                .iter()
                .fold(false, |acc, &v| acc | ((v != a) & (v != b)));
            if !foreign {
                // `+ 0.0` turns −0 into +0 (the key 0 is stored as +0) and leaves every other value as is.
                self.raw.extend(values.iter().map(|&v| v + 0.0));
                return Ok(());
            }
        }
        for (place, &value) in (first_place..).zip(values) {
            self.push_number(value, place).map_err(|m| (place, m))?;
        }
        Ok(())
    }

    /// The sign of a file's only class, or `None` when it cannot be told. With `positive` the mapping
    /// already gave ±1; without it `1` is +1, and `-1` or `0` (the negative class of the 0/1 convention) is
    /// −1. Any other single value could be either class, so it is refused rather than guessed.
    fn single_class_sign(&self, only: f64) -> Option<f64> {
        if self.positive.is_some() {
            return Some(only);
        }
        match only {
            1.0 => Some(1.0),
            -1.0 | 0.0 => Some(-1.0),
            _ => None,
        }
    }

    fn record_one_vs_rest(&mut self, is_positive: bool, place: usize) {
        let label: f64 = if is_positive { 1.0 } else { -1.0 };
        if !self.seen.iter().any(|&(v, _)| v == label) {
            self.seen.push((label, place));
        }
        self.raw.push(label);
    }

    /// `text` spells the label for messages; it is only called on an error.
    fn record_number(
        &mut self,
        value: f64,
        text: impl Fn() -> String,
        place: usize,
    ) -> std::result::Result<(), String> {
        if !value.is_finite() {
            return Err(format!("label `{}` is not finite", text()));
        }
        // -0.0 and 0.0 are the same class.
        let key = if value == 0.0 { 0.0f64 } else { value };
        if !self.seen.iter().any(|&(v, _)| v == key) {
            if self.seen.len() == 2 {
                let known: Vec<String> = self.seen.iter().map(|(v, _)| v.to_string()).collect();
                return Err(format!(
                    "a third class `{}` (after {}); choose the positive class with --positive VALUE",
                    text(),
                    known.join(" and ")
                ));
            }
            self.seen.push((key, place));
        }
        self.raw.push(key);
        Ok(())
    }

    /// Map everything recorded to ±1. `locate(place)` gives the location of a recorded place and a suffix
    /// for the message (empty for text formats, e.g. " (row 7)" for binary ones).
    pub(crate) fn finish(
        self,
        path: &Path,
        locate: impl Fn(usize) -> (Location, String),
    ) -> Result<Vec<f64>> {
        if let Some(classes) = self.classes {
            if classes.ids.is_empty() {
                return Err(Error::parse(
                    Location::new(path),
                    "no examples: the file holds no data rows",
                ));
            }
            // The classes go to the sink; the dataset's ±1 labels are placeholders.
            let rows = classes.finish(locate);
            return Ok(vec![1.0; rows]);
        }
        let mut classes = self.seen.clone();
        classes.sort_by(|a, b| a.0.total_cmp(&b.0));
        match classes.as_slice() {
            [] => Err(Error::parse(
                Location::new(path),
                "no examples: the file holds no data rows",
            )),
            [(only, place)] => {
                let sign = self.single_class_sign(*only).ok_or_else(|| {
                    let (at, suffix) = locate(*place);
                    Error::parse(
                        at,
                        format!(
                            "every label is {only}{suffix}: a single class must be +1, -1 or 0 to know its sign; \
                             name the positive class with --positive VALUE"
                        ),
                    )
                })?;
                Ok(vec![sign; self.raw.len()])
            }
            _ if self.positive.is_some() => Ok(self.raw),
            [(lo, _), (hi, _)] => {
                if (*lo, *hi) == (-1.0, 1.0) {
                    Ok(self.raw)
                } else if (*lo, *hi) == (0.0, 1.0) {
                    let mut raw = self.raw;
                    for v in raw.iter_mut() {
                        *v = if *v == 0.0 { -1.0 } else { 1.0 };
                    }
                    Ok(raw)
                } else {
                    // Point at the first occurrence of whichever class came second.
                    let second = self.seen[1].1;
                    let (at, suffix) = locate(second);
                    Err(Error::parse(
                        at,
                        format!(
                            "labels {lo} and {hi} are neither ±1 nor 0/1{suffix}; choose the positive class with --positive VALUE"
                        ),
                    ))
                }
            }
            _ => Err(Error::parse(
                Location::new(path),
                "more than two classes without --positive",
            )),
        }
    }
}

pub(crate) fn parse_number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(labels: &[&str], positive: Option<&str>) -> Result<Vec<f64>> {
        let mut m = LabelMapper::new(positive);
        for (i, l) in labels.iter().enumerate() {
            m.push_text(l, i + 1)
                .map_err(|msg| Error::parse(Location::new("t").line(i + 1), msg))?;
        }
        m.finish(Path::new("t"), |line| {
            (Location::new("t").line(line), String::new())
        })
    }

    #[test]
    fn the_rules() {
        assert_eq!(map(&["0", "1", "0"], None).unwrap(), vec![-1.0, 1.0, -1.0]);
        assert_eq!(map(&["+1", "-1"], None).unwrap(), vec![1.0, -1.0]);
        assert_eq!(
            map(&["a", "b", "c"], Some("b")).unwrap(),
            vec![-1.0, 1.0, -1.0]
        );
        assert_eq!(
            map(&["2.0", "3", "1"], Some("2")).unwrap(),
            vec![1.0, -1.0, -1.0]
        );
        let err = map(&["2", "4"], None).unwrap_err().to_string();
        assert_eq!(
            err,
            "t:2: labels 2 and 4 are neither ±1 nor 0/1; choose the positive class with --positive VALUE"
        );
        let err = map(&["1", "-1", "5"], None).unwrap_err().to_string();
        assert!(
            err.starts_with("t:3: a third class `5` (after 1 and -1)"),
            "{err}"
        );
    }

    /// One class maps to its sign: the reader cannot know whether a free bias will be wanted, so it
    /// must not refuse what the origin-through perceptron accepts.
    #[test]
    fn a_single_class_maps_to_its_sign() {
        assert_eq!(map(&["1", "+1", "1.0"], None).unwrap(), vec![1.0; 3]);
        assert_eq!(map(&["-1", "-1"], None).unwrap(), vec![-1.0; 2]);
        assert_eq!(map(&["0", "-0", "0.0"], None).unwrap(), vec![-1.0; 3]);
        assert_eq!(map(&["cat", "cat"], Some("cat")).unwrap(), vec![1.0; 2]);
        assert_eq!(map(&["7", "7.0"], Some("3")).unwrap(), vec![-1.0; 2]);
    }

    #[test]
    fn a_single_class_of_unknown_sign_is_refused_at_its_first_line() {
        let err = map(&["2", "2"], None).unwrap_err().to_string();
        assert_eq!(
            err,
            "t:1: every label is 2: a single class must be +1, -1 or 0 to know its sign; name the \
             positive class with --positive VALUE"
        );
        assert!(map(&["dog"], None).is_err());
    }
}
