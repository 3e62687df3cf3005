//! The kernel axes of the training grid: the kernels and their parameters, expanded into the kernel of
//! each task.

use serde::{Deserialize, Serialize};

use super::grid::Scalar;
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::kernel::{Gamma, Kernel, KernelKind, KernelParams};

/// One kernel of the grid, its γ possibly still to be chosen on the data (`scale`, `auto`).
///
/// ```
/// use novikoff::experiment::KernelChoice;
/// use novikoff::kernel::{Gamma, KernelKind};
/// let rbf = KernelChoice { kind: KernelKind::Rbf, degree: None, coef0: None, gamma: Some(Gamma::Value(0.5)) };
/// assert_eq!(rbf.name(), "rbf(gamma=0.5)");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelChoice {
    /// The kernel.
    pub kind: KernelKind,
    /// The polynomial degree.
    pub degree: Option<u32>,
    /// The polynomial constant.
    pub coef0: Option<f64>,
    /// γ of the poly and rbf kernels.
    pub gamma: Option<Gamma>,
}

impl KernelChoice {
    /// The name in task keys and result rows, e.g. `poly(degree=2,coef0=1,gamma=scale)`.
    pub fn name(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.degree {
            parts.push(format!("degree={d}"));
        }
        if let Some(c) = self.coef0 {
            parts.push(format!("coef0={c}"));
        }
        if let Some(g) = self.gamma {
            parts.push(format!("gamma={}", g.name()));
        }
        if parts.is_empty() {
            self.kind.name().to_string()
        } else {
            format!("{}({})", self.kind.name(), parts.join(","))
        }
    }

    /// The kernel on a dataset (γ chosen on it for `scale` and `auto`).
    ///
    /// # Errors
    /// [`Error::Parameter`] for a parameter the kernel refuses.
    pub fn kernel(&self, data: &Dataset) -> Result<Kernel> {
        let mut params = KernelParams::new(self.kind);
        if let Some(d) = self.degree {
            params = params.degree(d);
        }
        if let Some(c) = self.coef0 {
            params = params.coef0(c);
        }
        if let Some(g) = self.gamma {
            params = params.gamma(g);
        }
        params.check_for(data)
    }
}

fn gamma_of(value: &Scalar) -> Result<Gamma> {
    match value {
        Scalar::Number(v) => Gamma::parse(&v.to_string()),
        Scalar::Text(text) => Gamma::parse(text),
    }
}

/// Every kernel of the grid: `none` (the primal perceptron) once, `linear` once, `poly` once per
/// degree × coef0 × γ, `rbf` once per γ. `None` stands for `none`.
pub(crate) fn kernel_choices(
    kernels: &[String],
    degrees: &[u32],
    coef0s: &[f64],
    gammas: &[Scalar],
) -> Result<Vec<Option<KernelChoice>>> {
    let gammas = gammas.iter().map(gamma_of).collect::<Result<Vec<_>>>()?;
    let mut choices = Vec::new();
    for name in kernels {
        if name.trim() == "none" {
            choices.push(None);
            continue;
        }
        let kind = KernelKind::parse(name)?;
        match kind {
            KernelKind::Linear => choices.push(Some(KernelChoice {
                kind,
                degree: None,
                coef0: None,
                gamma: None,
            })),
            KernelKind::Rbf => {
                for &gamma in &gammas {
                    choices.push(Some(KernelChoice {
                        kind,
                        degree: None,
                        coef0: None,
                        gamma: Some(gamma),
                    }));
                }
            }
            KernelKind::Polynomial => {
                for &degree in degrees {
                    for &coef0 in coef0s {
                        for &gamma in &gammas {
                            choices.push(Some(KernelChoice {
                                kind,
                                degree: Some(degree),
                                coef0: Some(coef0),
                                gamma: Some(gamma),
                            }));
                        }
                    }
                }
            }
            KernelKind::Precomputed => {
                return Err(Error::parameter(
                    "kernel",
                    "a precomputed Gram matrix belongs to one dataset: it is not an axis of the grid",
                ));
            }
        }
    }
    // Each choice validated once, without data (γ = scale and auto are checked on the data).
    for choice in choices.iter().flatten() {
        let mut params = KernelParams::new(choice.kind);
        if let Some(d) = choice.degree {
            params = params.degree(d);
        }
        if let Some(c) = choice.coef0 {
            params = params.coef0(c);
        }
        params = params.gamma(match choice.gamma {
            Some(Gamma::Value(g)) => Gamma::Value(g),
            _ => Gamma::Value(1.0),
        });
        params.check()?;
    }
    Ok(choices)
}

/// The kernel axes' defaults.
pub(super) fn default_kernels() -> Vec<String> {
    vec!["none".into()]
}
pub(super) fn default_degrees() -> Vec<u32> {
    vec![3]
}
pub(super) fn default_coef0s() -> Vec<f64> {
    vec![0.0]
}
pub(super) fn default_gammas() -> Vec<Scalar> {
    vec![Scalar::Text("scale".into())]
}

/// The multi-class method of the grid, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GridMulticlass {
    /// One-vs-rest.
    Ovr,
    /// The multi-class perceptron.
    Kesler,
}

impl GridMulticlass {
    /// The library's method.
    pub fn method(self) -> crate::multiclass::Method {
        match self {
            GridMulticlass::Ovr => crate::multiclass::Method::OneVsRest,
            GridMulticlass::Kesler => crate::multiclass::Method::Kesler,
        }
    }
}

/// The `multiclass` family's parameters at one grid point, as the generator reads them.
pub(crate) fn multiclass_family(
    point: &std::collections::BTreeMap<String, Scalar>,
    seed: u64,
) -> Result<crate::generate::MulticlassParams> {
    let object: serde_json::Map<String, serde_json::Value> = point
        .iter()
        .map(|(k, v)| {
            let value = match v {
                Scalar::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => {
                    serde_json::json!(*x as i64)
                }
                Scalar::Number(x) => serde_json::json!(x),
                Scalar::Text(t) => serde_json::json!(t),
            };
            (k.clone(), value)
        })
        .collect();
    let mut params: crate::generate::MulticlassParams =
        serde_json::from_value(serde_json::Value::Object(object))
            .map_err(|e| Error::parameter("family", format!("family `multiclass`: {e}")))?;
    params.seed = seed;
    Ok(params)
}

/// Validate the `multiclass` family's parameters at one grid point.
pub(crate) fn check_multiclass_family(
    point: &std::collections::BTreeMap<String, Scalar>,
) -> Result<()> {
    multiclass_family(point, 0)?.check()
}
