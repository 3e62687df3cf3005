//! The online perceptron on a stream, and adversaries that choose the order of the stream.
//!
//! Shows [`OnlinePerceptron`]: it sees one example at a time, predicts, and updates only on a
//! mistake, so its mistake count is exactly what the theorem bounds. A generated separable stream is
//! fed once, in order, and the mistakes are printed as the stream goes on: they come ever more rarely
//! and stay far below the bound, which holds for every order of the same examples. Then [`bounds::search`] lets
//! adversaries that see the weights pick the next example among the misclassified ones (the most
//! violated, the least violated, the one that advances the proof least, random ones) and reports how
//! close each comes to the bound.
//!
//! Run it with `cargo run --release --example online`.

use novikoff::bounds::{self, AdversaryParams, Geometry};
use novikoff::generate::{Family, SeparableParams};
use novikoff::perceptron::{BiasRule, OnlinePerceptron, PerceptronParams};

fn main() -> Result<(), novikoff::Error> {
    let stream = SeparableParams::new(2000, 5)
        .margin(0.05)
        .radius(1.0)
        .offset(0.1)
        .seed(3)
        .check()?
        .generate()?
        .data;
    let learner = PerceptronParams::new().bias(BiasRule::Classic).check()?;

    // The bound for any sequence drawn from these examples: the tightest applicable form for the rule.
    let geometry = Geometry::compute(&stream)?;
    let bound = bounds::bounds(&geometry, learner.params())?
        .into_iter()
        .filter(|b| b.value.is_some())
        .min_by(|a, b| a.value.partial_cmp(&b.value).expect("finite"))
        .expect("the stream is separable with a bias");
    let limit = bound.value.expect("applicable");
    println!(
        "stream of {} examples in R^{}; {} {} bounds the mistakes of the classic rule by {limit:.1}\n",
        stream.n_samples(),
        stream.n_features(),
        bound.name,
        bound.formula
    );

    let mut online: OnlinePerceptron = learner.online(stream.n_features(), None)?;
    println!("   seen  mistakes  last mistake at");
    let mut last_mistake = 0;
    for (i, &label) in stream.labels().iter().enumerate() {
        let outcome = online.observe(stream.row(i), label)?;
        if outcome.mistake {
            last_mistake = online.seen();
        }
        if [10, 30, 100, 300, 1000, 2000].contains(&online.seen()) {
            println!(
                "{:>7}  {:>8}  {:>15}",
                online.seen(),
                online.mistakes(),
                last_mistake
            );
        }
    }
    println!("w = {:.4}, b = {:.4}", online.w(), online.b());
    assert!(
        online.mistakes() as f64 <= limit,
        "the bound holds for the stream"
    );

    // Adversaries choose the order; each run is the same online learner, checked update by update.
    let report = bounds::search(
        &geometry,
        &learner,
        &AdversaryParams::new().restarts(3).seed(1).check()?,
    )?;
    println!("\norder            mistakes  mistakes/bound  proof's inequalities");
    for run in &report.runs {
        println!(
            "{:<15}  {:>8}  {:>14.3}  {}",
            run.strategy.name(),
            run.mistakes,
            run.ratio.unwrap_or(f64::NAN),
            match run.invariants.holds() {
                Some(true) => "hold".to_string(),
                Some(false) => format!("{} VIOLATIONS", run.invariants.violations),
                None => "not checked".to_string(),
            }
        );
        assert!(run.mistakes as f64 <= limit * (1.0 + bounds::VALUE_RTOL));
    }
    println!(
        "the worst order found ({}) made {:.1}% of the bound",
        report.runs[report.best].strategy.name(),
        100.0 * report.best_ratio.unwrap_or(f64::NAN)
    );
    Ok(())
}
