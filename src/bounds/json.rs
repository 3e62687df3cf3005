//! The JSON object of a [`Report`]: what `novikoff verify --format json` prints and what the Python
//! package's `verify` returns, written once here so that both say the same thing.
//!
//! [`ReportJson`] borrows the report and serialises straight to a writer. On data of a million
//! dimensions the report holds a dozen vectors of a million numbers each (the four maximum-margin
//! separators, each rule's weights, the comparators the bounds chose); a `serde_json::Value` tree of them
//! took 32 bytes a number, 1.3 GB on a news20-shaped set, where writing them as they are read takes none.

use serde::Serialize;
use serde_json::Value;

use super::geometry::MarginSummary;
use super::report::{Report, RuleReport};
use super::summary::{CertificateSummary, GeometrySummary};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::perceptron::TestAccuracy;

/// A report as the JSON object of `novikoff verify --format json`, borrowed from it: the data's `n`, `d`
/// and radius, separability, the four maximum margins' brackets, a certificate when the data cannot be
/// separated, the whole geometry, one entry per rule (its run, every form of the theorem, the proof's
/// inequalities), and the verdict: `passed` and the `failures` of [`Report::failures`] as sentences.
///
/// Serialise it with `serde_json::to_writer` to write it without a second copy of the report.
///
/// ```
/// use novikoff::bounds::{report, Geometry, ReportOptions};
/// use novikoff::{perceptron::PerceptronParams, textbook};
/// let data = textbook::example("seed004").unwrap();
/// let geometry = Geometry::compute(&data)?;
/// let report = report(&geometry, &[PerceptronParams::new()], &ReportOptions::default())?;
/// let mut out = Vec::new();
/// serde_json::to_writer(&mut out, &report.json_view("seed004", &data)).unwrap();
/// let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
/// assert_eq!(json["rules"][0]["mistakes"].as_u64(), Some(3));
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Serialize)]
pub struct ReportJson<'a> {
    data: &'a str,
    n: usize,
    d: usize,
    radius: f64,
    /// `null` when the solver could not tell (see [`GeometrySummary::separable`]).
    separable: Option<bool>,
    separable_through_origin: Option<bool>,
    gamma: Brackets,
    certificate: Option<&'a CertificateSummary>,
    geometry: &'a GeometrySummary,
    rules: Vec<RuleJson<'a>>,
    passed: bool,
    failures: Vec<String>,
}

/// The four maximum margins' brackets (`null` where there is none).
#[derive(Debug, Serialize)]
struct Brackets {
    through_origin: Option<[f64; 2]>,
    free_bias: Option<[f64; 2]>,
    augmented_one: Option<[f64; 2]>,
    augmented_radius: Option<[f64; 2]>,
}

/// One rule's entry: its report's fields, and its accuracy on a test set when the caller measured one.
#[derive(Debug, Serialize)]
struct RuleJson<'a> {
    #[serde(flatten)]
    rule: &'a RuleReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<&'a TestAccuracy>,
}

impl<'a> ReportJson<'a> {
    /// Each rule's accuracy on a held-out set (`novikoff verify --test FILE`), as the field `test` of its
    /// entry; `None` leaves an entry without one. One element per rule.
    ///
    /// ```
    /// use novikoff::bounds::{report, Geometry, ReportOptions};
    /// use novikoff::{perceptron::PerceptronParams, textbook};
    /// let data = textbook::example("seed004").unwrap();
    /// let geometry = Geometry::compute(&data)?;
    /// let report = report(&geometry, &[PerceptronParams::new()], &ReportOptions::default())?;
    /// let accuracy = report.rules[0].verdict.fit.test_accuracy(&data)?;
    /// let tests = [Some(accuracy)];
    /// let view = report.json_view("seed004", &data).with_test_accuracy(&tests)?;
    /// let json = serde_json::to_value(&view).unwrap();
    /// assert_eq!(json["rules"][0]["test"]["last"], 1.0);
    /// assert!(report.json_view("seed004", &data).with_test_accuracy(&[]).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`] unless there is one element per rule.
    pub fn with_test_accuracy(mut self, tests: &'a [Option<TestAccuracy>]) -> Result<Self> {
        if tests.len() != self.rules.len() {
            return Err(Error::Shape {
                what: "test accuracies against the report's rules",
                expected: self.rules.len(),
                found: tests.len(),
            });
        }
        for (rule, test) in self.rules.iter_mut().zip(tests) {
            rule.test = test.as_ref();
        }
        Ok(self)
    }
}

impl Report {
    /// The report as the JSON object of [`ReportJson`], borrowed: `source` names the data (a path);
    /// `data` is the dataset the report was computed on.
    ///
    /// ```
    /// use novikoff::bounds::{report, Geometry, ReportOptions};
    /// use novikoff::{perceptron::PerceptronParams, textbook};
    /// let data = textbook::example("seed004").unwrap();
    /// let geometry = Geometry::compute(&data)?;
    /// let report = report(&geometry, &[PerceptronParams::new()], &ReportOptions::default())?;
    /// let text = serde_json::to_string(&report.json_view("seed004", &data)).unwrap();
    /// assert!(text.starts_with(r#"{"data":"seed004","n":6,"d":2,"#));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn json_view<'a>(&'a self, source: &'a str, data: &Dataset) -> ReportJson<'a> {
        let geometry = &self.geometry;
        let margins = &geometry.margins;
        let bracket = |m: &MarginSummary| m.bracket;
        let failures = self.failures();
        ReportJson {
            data: source,
            n: data.n_samples(),
            d: data.n_features(),
            radius: geometry.radius,
            separable: geometry.separable,
            separable_through_origin: geometry.separable_through_origin,
            gamma: Brackets {
                through_origin: bracket(&margins.through_origin),
                free_bias: bracket(&margins.free_bias),
                augmented_one: bracket(&margins.augmented_one),
                augmented_radius: bracket(&margins.augmented_radius),
            },
            certificate: margins
                .free_bias
                .certificate
                .as_ref()
                .or(margins.augmented_one.certificate.as_ref()),
            geometry,
            rules: self
                .rules
                .iter()
                .map(|rule| RuleJson { rule, test: None })
                .collect(),
            passed: failures.is_empty(),
            failures: failures.iter().map(ToString::to_string).collect(),
        }
    }

    /// The report as one JSON value ([`ReportJson`] as a tree; for a large report, serialise
    /// [`Report::json_view`] to a writer instead).
    ///
    /// ```
    /// use novikoff::bounds::{report, Geometry, ReportOptions};
    /// use novikoff::{perceptron::PerceptronParams, textbook};
    /// let data = textbook::example("seed004").unwrap();
    /// let geometry = Geometry::compute(&data)?;
    /// let report = report(&geometry, &[PerceptronParams::new()], &ReportOptions::default())?;
    /// let json = report.to_json("seed004", &data)?;
    /// assert_eq!((json["n"].as_u64(), json["passed"].as_bool()), (Some(6), Some(true)));
    /// assert_eq!(json["rules"][0]["mistakes"].as_u64(), Some(3));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn to_json(&self, source: &str, data: &Dataset) -> Result<Value> {
        serde_json::to_value(self.json_view(source, data))
            .map_err(|e| Error::io("<json>", std::io::Error::other(e)))
    }
}
