//! The kernel options of `train`, `margin` and `verify`, read into a [`Kernel`].

use std::path::PathBuf;

use clap::Args;
use novikoff::kernel::{Gamma, GramMatrix, Kernel, KernelKind, KernelParams};
use novikoff::{Dataset, Error, Location, Result};

/// The kernel options of `train`, `margin` and `verify`.
#[derive(Debug, Clone, Args)]
pub struct KernelArgs {
    /// Learn in the feature space of a kernel: linear, poly, rbf, or precomputed (with --gram).
    #[arg(long, value_name = "KERNEL")]
    pub kernel: Option<String>,
    /// The polynomial kernel's degree (default 3).
    #[arg(long, value_name = "D")]
    pub degree: Option<u32>,
    /// The polynomial kernel's constant c₀ ≥ 0 (default 0).
    #[arg(long, value_name = "C")]
    pub coef0: Option<f64>,
    /// γ of the poly and rbf kernels: a positive number, scale (1/(d·Var X), the default) or auto (1/d).
    #[arg(long, value_name = "G")]
    pub kernel_gamma: Option<String>,
    /// The rbf kernel's bandwidth σ, γ = 1/(2σ²) (instead of --kernel-gamma).
    #[arg(long, value_name = "SIGMA", conflicts_with = "kernel_gamma")]
    pub bandwidth: Option<f64>,
    /// The Gram matrix of --kernel precomputed: .npy, or text without a header (n × n; the data file
    /// gives the labels).
    #[arg(long, value_name = "FILE")]
    pub gram: Option<PathBuf>,
    /// The Gram-row cache's memory budget, in MiB (200 by default).
    #[arg(long, value_name = "MIB")]
    pub cache_mb: Option<usize>,
}

/// The Gram-row cache's budget without `--cache-mb`, in MiB.
const DEFAULT_CACHE_MB: usize = 200;

impl KernelArgs {
    /// The kernel asked for, with γ chosen on the training data; `None` without `--kernel`.
    pub fn kernel(&self, data: &Dataset) -> Result<Option<Kernel>> {
        let Some(name) = &self.kernel else {
            for (flag, given) in [
                ("--degree", self.degree.is_some()),
                ("--coef0", self.coef0.is_some()),
                ("--kernel-gamma", self.kernel_gamma.is_some()),
                ("--bandwidth", self.bandwidth.is_some()),
                ("--gram", self.gram.is_some()),
                ("--cache-mb", self.cache_mb.is_some()),
            ] {
                if given {
                    return Err(Error::parameter(
                        "--kernel",
                        format!("{flag} describes a kernel: name one with --kernel"),
                    ));
                }
            }
            return Ok(None);
        };
        let kind = KernelKind::parse(name).map_err(|e| rename(e, "--kernel"))?;
        let poly = kind == KernelKind::Polynomial;
        let rbf = kind == KernelKind::Rbf;
        for (flag, given, allowed, which) in [
            ("--degree", self.degree.is_some(), poly, "--kernel poly"),
            ("--coef0", self.coef0.is_some(), poly, "--kernel poly"),
            (
                "--kernel-gamma",
                self.kernel_gamma.is_some(),
                poly || rbf,
                "--kernel poly and rbf",
            ),
            ("--bandwidth", self.bandwidth.is_some(), rbf, "--kernel rbf"),
            (
                "--gram",
                self.gram.is_some(),
                kind == KernelKind::Precomputed,
                "--kernel precomputed",
            ),
        ] {
            if given && !allowed {
                return Err(Error::parameter(
                    "--kernel",
                    format!(
                        "{flag} applies to {which} only, not to --kernel {}",
                        kind.name()
                    ),
                ));
            }
        }
        let mut params = match kind {
            KernelKind::Precomputed => {
                let path = self.gram.as_ref().ok_or_else(|| {
                    Error::parameter(
                        "--gram",
                        "--kernel precomputed reads its Gram matrix from --gram FILE",
                    )
                })?;
                let matrix = novikoff::io::read_matrix(path)?;
                let gram = GramMatrix::new(matrix).map_err(|e| in_file(e, path))?;
                KernelParams::precomputed(gram)
            }
            other => KernelParams::new(other),
        };
        if let Some(degree) = self.degree {
            params = params.degree(degree);
        }
        if let Some(coef0) = self.coef0 {
            params = params.coef0(coef0);
        }
        if let Some(gamma) = &self.kernel_gamma {
            params = params.gamma(Gamma::parse(gamma).map_err(|e| rename(e, "--kernel-gamma"))?);
        }
        if let Some(sigma) = self.bandwidth {
            if !(sigma.is_finite() && sigma > 0.0) {
                return Err(Error::parameter(
                    "--bandwidth",
                    format!("the bandwidth σ must be a finite positive number, got {sigma}"),
                ));
            }
            params = params.bandwidth(sigma);
        }
        let kernel = params.check_for(data).map_err(|e| match e {
            Error::Parameter { name, reason } => Error::parameter(flag_of(name), reason),
            Error::Shape {
                expected, found, ..
            } => Error::parse(
                Location::new(self.gram.clone().unwrap_or_default()),
                format!(
                    "the Gram matrix is {found} × {found}, but the data have {expected} examples"
                ),
            ),
            other => other,
        })?;
        Ok(Some(kernel))
    }

    /// The cache budget in bytes.
    pub fn cache_bytes(&self) -> usize {
        self.cache_mb
            .unwrap_or(DEFAULT_CACHE_MB)
            .saturating_mul(1 << 20)
    }
}

fn flag_of(name: &'static str) -> &'static str {
    match name {
        "kernel_gamma" => "--kernel-gamma",
        "degree" => "--degree",
        "coef0" => "--coef0",
        "gram" => "--gram",
        other => other,
    }
}

fn rename(error: Error, flag: &'static str) -> Error {
    match error {
        Error::Parameter { reason, .. } => Error::parameter(flag, reason),
        other => other,
    }
}

/// A refusal of the Gram matrix, at its file.
fn in_file(error: Error, path: &std::path::Path) -> Error {
    match error {
        Error::Parameter { reason, .. } => Error::parse(Location::new(path), reason),
        other => other,
    }
}
