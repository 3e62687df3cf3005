//! The JSON object of a [`Report`]: what `novikoff verify --format json` prints and what the Python
//! package's `verify` returns, written once here so that both say the same thing.

use serde_json::{Value, json};

use super::geometry::MarginSummary;
use super::report::Report;
use crate::dataset::Dataset;
use crate::error::{Error, Result};

impl Report {
    /// The report as one JSON object: the data's `n`, `d` and radius, separability, the four maximum
    /// margins' brackets, a certificate when the data cannot be separated, the whole geometry, one entry
    /// per rule (its run, every form of the theorem, the proof's inequalities), and the verdict:
    /// `passed` and the `failures` of [`Report::failures`] as sentences. `source` names the data (a
    /// path); `data` is the dataset the report was computed on.
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
        let geometry = &self.geometry;
        let failures = self.failures();
        // Each rule's verdict, with its supplied-separator bounds and adversarial search when asked.
        let rules = to_value(&self.rules)?;
        let bracket = |m: &MarginSummary| m.bracket.map(|b| json!(b)).unwrap_or(Value::Null);
        let certificate = geometry.margins.free_bias.certificate.as_ref().or(geometry
            .margins
            .augmented_one
            .certificate
            .as_ref());
        Ok(json!({
            "data": source,
            "n": data.n_samples(),
            "d": data.n_features(),
            "radius": geometry.radius,
            "separable": geometry.separable,
            "separable_through_origin": geometry.separable_through_origin,
            "gamma": {
                "through_origin": bracket(&geometry.margins.through_origin),
                "free_bias": bracket(&geometry.margins.free_bias),
                "augmented_one": bracket(&geometry.margins.augmented_one),
                "augmented_radius": bracket(&geometry.margins.augmented_radius),
            },
            "certificate": to_value(&certificate)?,
            "geometry": to_value(geometry)?,
            "rules": rules,
            "passed": failures.is_empty(),
            "failures": failures.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }))
    }
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| Error::io("<json>", std::io::Error::other(e)))
}
