//! `novikoff experiment --kernel … --multiclass …`: the kernel and multi-class axes of a spec set from
//! the command line. The effective spec is written out whole (its TOML is what the results record and
//! what a resumed run must match), so that `out/spec.toml` reproduces the run without the flags.

use std::path::Path;

use clap::Args;
use novikoff::experiment::{GridMulticlass, Scalar, Spec};
use novikoff::{Error, Result};

/// Axes that replace the spec's `train.kernel`, `train.degree`, `train.coef0`, `train.kernel_gamma`
/// and `train.multiclass`.
#[derive(Debug, Clone, Default, Args)]
pub struct AxesArgs {
    /// Kernels, comma-separated: none (the primal perceptron), linear, poly, rbf.
    #[arg(long, value_name = "K1,K2", value_delimiter = ',')]
    pub kernel: Option<Vec<String>>,
    /// Degrees of the poly kernel, comma-separated.
    #[arg(long, value_name = "D1,D2", value_delimiter = ',')]
    pub degree: Option<Vec<u32>>,
    /// Constants c₀ of the poly kernel, comma-separated.
    #[arg(long, value_name = "C1,C2", value_delimiter = ',')]
    pub coef0: Option<Vec<f64>>,
    /// γ of the poly and rbf kernels, comma-separated: numbers, scale or auto.
    #[arg(long, value_name = "G1,G2", value_delimiter = ',')]
    pub kernel_gamma: Option<Vec<String>>,
    /// Learn the datasets' classes with these methods, comma-separated: ovr, kesler.
    #[arg(long, value_name = "METHODS", value_delimiter = ',')]
    pub multiclass: Option<Vec<String>>,
}

impl AxesArgs {
    fn any(&self) -> bool {
        self.kernel.is_some()
            || self.degree.is_some()
            || self.coef0.is_some()
            || self.kernel_gamma.is_some()
            || self.multiclass.is_some()
    }

    /// The spec with the axes replaced, and the text of the effective spec.
    pub fn apply(&self, spec: Spec, text: String, path: &Path) -> Result<(Spec, String)> {
        if !self.any() {
            return Ok((spec, text));
        }
        let mut spec = spec;
        if let Some(kernels) = &self.kernel {
            spec.train.kernel = kernels.clone();
        }
        if let Some(degrees) = &self.degree {
            spec.train.degree = degrees.clone();
        }
        if let Some(coef0s) = &self.coef0 {
            spec.train.coef0 = coef0s.clone();
        }
        if let Some(gammas) = &self.kernel_gamma {
            spec.train.kernel_gamma = gammas
                .iter()
                .map(|g| match g.trim().parse::<f64>() {
                    Ok(v) => Scalar::Number(v),
                    Err(_) => Scalar::Text(g.trim().to_string()),
                })
                .collect();
        }
        if let Some(methods) = &self.multiclass {
            spec.train.multiclass = methods
                .iter()
                .map(|m| match m.trim() {
                    "ovr" => Ok(GridMulticlass::Ovr),
                    "kesler" => Ok(GridMulticlass::Kesler),
                    other => Err(Error::parameter(
                        "--multiclass",
                        format!("unknown multi-class method `{other}`: expected ovr or kesler"),
                    )),
                })
                .collect::<Result<_>>()?;
        }
        let text = toml::to_string(&spec).map_err(|e| {
            Error::parameter("--kernel", format!("the spec cannot be written: {e}"))
        })?;
        // Parsed again: the axes are validated as a spec's are, with the lines of the effective text.
        let spec = Spec::parse(&text, path)?;
        Ok((spec, text))
    }
}
