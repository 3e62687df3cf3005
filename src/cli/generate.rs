//! `novikoff generate FAMILY …`: write a seeded synthetic dataset and say what was written.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use novikoff::Result;
use novikoff::generate::{
    AnisotropicParams, BasisParams, BlobsParams, ConcentricParams, Generated, GeneratorSpec,
    MulticlassParams, NoisyParams, SeparableParams, SparseParams, XorParams,
};
use novikoff::io::Format;
use serde_json::json;

use super::OutputFormat;
use super::output::{print_json, print_pairs, round_trip, summarise_vector};

#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    family: FamilyArgs,
}

/// Where and how to report.
#[derive(Debug, Clone, Args)]
struct OutArgs {
    /// The output file; the format follows the extension (.csv .tsv .txt .svm .libsvm .npy .npz).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// How to print the summary.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
}

/// The separable family's geometry, shared by `separable`, `noisy` and `anisotropic`.
#[derive(Debug, Clone, Args)]
struct Geometry {
    /// Number of examples.
    #[arg(long)]
    n: usize,
    /// Dimension.
    #[arg(long)]
    d: usize,
    /// The prescribed margin γ ≥ 0.
    #[arg(long, default_value_t = 0.1)]
    margin: f64,
    /// The radius R of the ball.
    #[arg(long, default_value_t = 1.0)]
    radius: f64,
    /// The offset b of the hyperplane u·x + b = 0.
    #[arg(long, default_value_t = 0.0)]
    offset: f64,
    /// The seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

#[derive(Debug, Subcommand)]
enum FamilyArgs {
    /// Uniform in the ball of radius R, labelled by a random hyperplane, margin ≥ γ by construction.
    Separable {
        #[command(flatten)]
        geometry: Geometry,
        #[command(flatten)]
        out: OutArgs,
    },
    /// `separable`, then a fraction of the labels flipped (not separable).
    Noisy {
        #[command(flatten)]
        geometry: Geometry,
        /// The fraction of labels flipped, in [0, 0.5).
        #[arg(long, default_value_t = 0.1)]
        flip: f64,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Two Gaussian blobs at a chosen centre distance.
    Blobs {
        /// Number of examples.
        #[arg(long)]
        n: usize,
        /// Dimension.
        #[arg(long)]
        d: usize,
        /// The distance between the two centres.
        #[arg(long, default_value_t = 4.0)]
        distance: f64,
        /// The standard deviation of each blob.
        #[arg(long, default_value_t = 1.0)]
        spread: f64,
        /// The seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        out: OutArgs,
    },
    /// The four quadrants of XOR in antipodal pairs (never linearly separable).
    Xor {
        /// Number of examples (≥ 4).
        #[arg(long)]
        n: usize,
        /// Dimension (≥ 2; coordinates beyond the second are uniform noise).
        #[arg(long, default_value_t = 2)]
        d: usize,
        /// The empty band around each axis.
        #[arg(long, default_value_t = 0.1)]
        gap: f64,
        /// The half width of the square.
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// The seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        out: OutArgs,
    },
    /// A ball inside a shell, rings in 2-D (never linearly separable).
    Concentric {
        /// Number of examples (≥ 4).
        #[arg(long)]
        n: usize,
        /// Dimension.
        #[arg(long, default_value_t = 2)]
        d: usize,
        /// The radius of the positive class.
        #[arg(long, default_value_t = 1.0)]
        inner: f64,
        /// The radius of the negative class.
        #[arg(long, default_value_t = 2.0)]
        outer: f64,
        /// The half thickness of each band.
        #[arg(long, default_value_t = 0.1)]
        width: f64,
        /// The seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        out: OutArgs,
    },
    /// The worst case x_i = e_i in R^m, every label +1: the bound (R/γ)² = m is attained.
    Basis {
        /// The dimension m (also the number of examples).
        #[arg(long)]
        m: usize,
        #[command(flatten)]
        out: OutArgs,
    },
    /// `separable` with feature j scaled by ratio^(j/(d−1)): raw feature scale inflates R/γ.
    Anisotropic {
        #[command(flatten)]
        geometry: Geometry,
        /// The largest scale factor (the smallest is 1).
        #[arg(long, default_value_t = 100.0)]
        ratio: f64,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Sparse rows (CSR) of NNZ values in dimension d: one signal column of a sparse u, the rest noise;
    /// margin ≥ γ by construction. Write it as LIBSVM (.svm) or scipy sparse .npz.
    Sparse {
        /// Number of examples.
        #[arg(long)]
        n: usize,
        /// Dimension.
        #[arg(long)]
        d: usize,
        /// Stored values per row.
        #[arg(long, default_value_t = 50)]
        nnz: usize,
        /// The size of the separator's support (2·margin·√support < radius).
        #[arg(long, default_value_t = 16)]
        support: usize,
        /// The prescribed margin γ.
        #[arg(long, default_value_t = 0.01)]
        margin: f64,
        /// The radius R.
        #[arg(long, default_value_t = 1.0)]
        radius: f64,
        /// The seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        out: OutArgs,
    },
    /// K classes in the ball of radius R, labelled by a random W of unit Frobenius norm, multi-class
    /// margin ≥ γ by construction; the labels are the class numbers 0…K−1. Write it as .csv, .tsv or .svm.
    Multiclass {
        /// Number of examples.
        #[arg(long)]
        n: usize,
        /// Dimension.
        #[arg(long)]
        d: usize,
        /// Number of classes (≥ 2).
        #[arg(long, default_value_t = 3)]
        classes: usize,
        /// The prescribed multi-class margin min (w_y − w_r)·x.
        #[arg(long, default_value_t = 0.05)]
        margin: f64,
        /// The radius R of the ball.
        #[arg(long, default_value_t = 1.0)]
        radius: f64,
        /// The seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        out: OutArgs,
    },
}

impl FamilyArgs {
    fn spec(&self) -> (GeneratorSpec, &OutArgs) {
        let separable = |g: &Geometry| {
            SeparableParams::new(g.n, g.d)
                .margin(g.margin)
                .radius(g.radius)
                .offset(g.offset)
                .seed(g.seed)
        };
        match self {
            FamilyArgs::Separable { geometry, out } => {
                (GeneratorSpec::Separable(separable(geometry)), out)
            }
            FamilyArgs::Noisy {
                geometry: g,
                flip,
                out,
            } => (
                GeneratorSpec::Noisy(
                    NoisyParams::new(g.n, g.d)
                        .margin(g.margin)
                        .radius(g.radius)
                        .offset(g.offset)
                        .flip(*flip)
                        .seed(g.seed),
                ),
                out,
            ),
            FamilyArgs::Blobs {
                n,
                d,
                distance,
                spread,
                seed,
                out,
            } => (
                GeneratorSpec::Blobs(
                    BlobsParams::new(*n, *d)
                        .distance(*distance)
                        .spread(*spread)
                        .seed(*seed),
                ),
                out,
            ),
            FamilyArgs::Xor {
                n,
                d,
                gap,
                scale,
                seed,
                out,
            } => (
                GeneratorSpec::Xor(
                    XorParams::new(*n)
                        .dim(*d)
                        .gap(*gap)
                        .scale(*scale)
                        .seed(*seed),
                ),
                out,
            ),
            FamilyArgs::Concentric {
                n,
                d,
                inner,
                outer,
                width,
                seed,
                out,
            } => (
                GeneratorSpec::Concentric(
                    ConcentricParams::new(*n, *d)
                        .inner(*inner)
                        .outer(*outer)
                        .width(*width)
                        .seed(*seed),
                ),
                out,
            ),
            FamilyArgs::Basis { m, out } => (GeneratorSpec::Basis(BasisParams::new(*m)), out),
            FamilyArgs::Anisotropic {
                geometry: g,
                ratio,
                out,
            } => (
                GeneratorSpec::Anisotropic(
                    AnisotropicParams::new(g.n, g.d)
                        .margin(g.margin)
                        .radius(g.radius)
                        .offset(g.offset)
                        .ratio(*ratio)
                        .seed(g.seed),
                ),
                out,
            ),
            FamilyArgs::Multiclass { .. } => {
                unreachable!("the multi-class family is written by run_multiclass")
            }
            FamilyArgs::Sparse {
                n,
                d,
                nnz,
                support,
                margin,
                radius,
                seed,
                out,
            } => (
                GeneratorSpec::Sparse(
                    SparseParams::new(*n, *d)
                        .nnz(*nnz)
                        .support(*support)
                        .margin(*margin)
                        .radius(*radius)
                        .seed(*seed),
                ),
                out,
            ),
        }
    }
}

pub fn run(args: &GenerateArgs) -> Result<()> {
    if let FamilyArgs::Multiclass {
        n,
        d,
        classes,
        margin,
        radius,
        seed,
        out,
    } = &args.family
    {
        let params = MulticlassParams::new(*n, *d, *classes)
            .margin(*margin)
            .radius(*radius)
            .seed(*seed);
        return super::generate_classes::run(&params, &out.out, out.format);
    }
    let (spec, out) = args.family.spec();
    // Check the extension before generating anything.
    let format = Format::from_path(&out.out)?;
    let generated = spec.generate()?;
    novikoff::io::save(&out.out, &generated.data)?;
    report(&spec, &generated, format, out)
}

/// `min yᵢ(u·xᵢ + b)` for the returned separator: the measured margin of (u, b).
fn measured_margin(generated: &Generated) -> Option<f64> {
    let (u, b) = (generated.u.as_ref()?, generated.b?);
    let data = &generated.data;
    let u = u.as_slice()?;
    Some(
        (0..data.n_samples())
            .map(|i| {
                data.labels()[i]
                    * (data
                        .row_view(i)
                        .dot(u, novikoff::simd::Summation::Sequential)
                        + b)
            })
            .fold(f64::INFINITY, f64::min),
    )
}

fn report(
    spec: &GeneratorSpec,
    generated: &Generated,
    format: Format,
    out: &OutArgs,
) -> Result<()> {
    let data = &generated.data;
    let (positives, negatives) = data.class_counts();
    let u = generated.u.as_ref().map(|u| u.to_vec());
    let measured = measured_margin(generated);
    match out.format {
        super::OutputFormat::Json => print_json(&json!({
            "family": spec.family(),
            "out": out.out.display().to_string(),
            "file_format": format.name(),
            "n": data.n_samples(),
            "d": data.n_features(),
            "positives": positives,
            "negatives": negatives,
            "seed": spec.seed(),
            "margin": generated.margin,
            "radius": generated.radius,
            "u": u,
            "b": generated.b,
            "margin_of_u": measured,
            "radius_measured": data.radius(),
            "params": spec,
            "description": generated.description,
        })),
        super::OutputFormat::Table => {
            let optional = |v: Option<f64>| v.map_or("-".to_string(), round_trip);
            print_pairs(&[
                ("family", spec.family().to_string()),
                (
                    "wrote",
                    format!("{} ({})", out.out.display(), format.name()),
                ),
                (
                    "n × d",
                    format!("{} × {}", data.n_samples(), data.n_features()),
                ),
                (
                    "classes",
                    format!("{positives} positive, {negatives} negative"),
                ),
                ("seed", spec.seed().map_or("-".into(), |s| s.to_string())),
                ("prescribed margin γ", optional(generated.margin)),
                ("prescribed radius R", optional(generated.radius)),
                ("u", u.as_deref().map_or("-".into(), summarise_vector)),
                ("b", optional(generated.b)),
                ("min y(u·x + b)", optional(measured)),
                ("measured radius", round_trip(data.radius())),
                ("description", generated.description.clone()),
            ])
        }
    }
}
