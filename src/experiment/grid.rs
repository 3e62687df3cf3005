//! The parameter grids of generator entries: one value or a list per parameter, expanded into their
//! cartesian product, and each point resolved to its generator.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// The generator behind a `family` entry, validated (`None` for a built-in example of the source
/// documents, which takes no parameters).
pub(crate) fn generator(
    family: &str,
    params: &BTreeMap<String, Scalar>,
    seed: u64,
) -> Result<Option<crate::generate::GeneratorSpec>> {
    let params = params
        .iter()
        .map(|(key, value)| {
            let value = match value {
                // Whole numbers become integers so that counts such as `n` deserialise.
                Scalar::Number(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => {
                    serde_json::json!(*v as i64)
                }
                Scalar::Number(v) => serde_json::json!(v),
                Scalar::Text(s) => serde_json::json!(s),
            };
            (key.clone(), value)
        })
        .collect();
    crate::generate::resolve(family, params, seed)
}

/// The cartesian product of the parameter grids, in key order then value order.
pub(crate) fn grid(params: &BTreeMap<String, ParamValue>) -> Vec<BTreeMap<String, Scalar>> {
    let mut points = vec![BTreeMap::new()];
    for (key, value) in params {
        let mut next = Vec::new();
        for point in &points {
            for v in value.values() {
                let mut p = point.clone();
                p.insert(key.clone(), v);
                next.push(p);
            }
        }
        points = next;
    }
    points
}

/// A generator parameter: one value or a grid of values.
///
/// ```
/// use novikoff::experiment::ParamValue;
/// let v: ParamValue = toml::from_str::<std::collections::BTreeMap<String, ParamValue>>("x = [1, 2]")
///     .unwrap()
///     .remove("x")
///     .unwrap();
/// assert_eq!(v.values().len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// One number.
    Number(f64),
    /// One string.
    Text(String),
    /// A grid.
    List(Vec<Scalar>),
}

/// One value of a parameter grid.
///
/// ```
/// assert_eq!(novikoff::experiment::Scalar::Number(2.0).to_string(), "2");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    /// A number.
    Number(f64),
    /// A string.
    Text(String),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Number(v) => write!(f, "{v}"),
            Scalar::Text(s) => write!(f, "{s}"),
        }
    }
}

impl ParamValue {
    /// The grid's values (one for a scalar).
    ///
    /// ```
    /// assert_eq!(novikoff::experiment::ParamValue::Number(1.0).values().len(), 1);
    /// ```
    pub fn values(&self) -> Vec<Scalar> {
        match self {
            ParamValue::Number(v) => vec![Scalar::Number(*v)],
            ParamValue::Text(s) => vec![Scalar::Text(s.clone())],
            ParamValue::List(list) => list.clone(),
        }
    }
}
