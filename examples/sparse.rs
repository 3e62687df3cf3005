//! Sparse data end to end: a bag-of-words-like set in a million dimensions, never made dense.
//!
//! Generates compressed sparse rows with a prescribed margin (the `sparse` family), trains the
//! perceptron over the stored entries only, certifies the maximum margin through subsets of the rows,
//! and checks the theorem on the run. The same data as a dense matrix would take 16 GB.
//!
//! Run it with `cargo run --release --example sparse`.

use novikoff::bounds::{Geometry, verify_with};
use novikoff::generate::{Family, SparseParams};
use novikoff::margin::{self, Bias, MarginResult};
use novikoff::perceptron::PerceptronParams;

fn main() -> Result<(), novikoff::Error> {
    let generated = SparseParams::new(2000, 1_000_000)
        .nnz(20)
        .support(4)
        .margin(0.1)
        .seed(7)
        .check()?
        .generate()?;
    let data = &generated.data;
    println!(
        "{} × {} with {} stored values ({:.1e} of the matrix), R = {:.4}",
        data.n_samples(),
        data.n_features(),
        data.nnz(),
        data.nnz() as f64 / (data.n_samples() as f64 * data.n_features() as f64),
        data.radius()
    );

    let fit = PerceptronParams::new().fit(data)?;
    println!(
        "perceptron: {} mistakes in {} epochs, converged: {}",
        fit.mistakes, fit.epochs, fit.converged
    );

    match margin::max_margin(data, Bias::ThroughOrigin)? {
        MarginResult::Separable {
            bracket, support, ..
        } => println!(
            "γ* through the origin ∈ [{:.10}, {:.10}], {} support rows",
            bracket.0,
            bracket.1,
            support.len()
        ),
        other => println!("maximum margin: {other:?}"),
    }

    let geometry = Geometry::compute(data)?;
    let verdict = verify_with(&geometry, &PerceptronParams::new())?;
    for checked in verdict.bounds.iter().filter(|b| b.bound.applies) {
        println!(
            "{:<28} {:>12.1}  holds: {:?}",
            checked.bound.name,
            checked.bound.value.unwrap_or(f64::NAN),
            checked.holds
        );
    }
    assert!(
        verdict.failures().is_empty(),
        "the theorem holds on the run"
    );
    Ok(())
}
