//! Seed 004's worked example (the 10-607 slides), trained with every bias rule.
//!
//! Shows the built-in dataset [`novikoff::textbook::example`], one [`PerceptronParams`] per
//! [`BiasRule`], and the in-memory [`Trace`] of every update. For each rule it prints `w`, `b`, the
//! mistakes, the epochs and the trace (update, epoch, row, activation before the update, `w`, `b`).
//! Without a bias the run is the slides' `(1,−2) → (2,−1) → (3,1)`: 3 mistakes in 2 epochs, and the
//! program checks that.
//!
//! Run it with `cargo run --release --example textbook`.

use novikoff::perceptron::{BiasRule, PerceptronParams, Trace};
use novikoff::textbook;

fn main() -> Result<(), novikoff::Error> {
    let data = textbook::example("seed004").expect("seed004 is built in");
    println!(
        "seed 004: {} points in the plane, R = {} (R² = {})\n",
        data.n_samples(),
        data.radius(),
        data.radius().powi(2)
    );

    // c = 0, 1, R and a constant of your own: one mechanism, the perceptron on (x, c) with b = c·w_{d+1}.
    for rule in [
        BiasRule::None,
        BiasRule::Classic,
        BiasRule::Novikoff,
        BiasRule::Constant(0.5),
    ] {
        let mut trace = Trace::default();
        let fit = PerceptronParams::new()
            .bias(rule)
            .max_epochs(100)
            .check()?
            .fit_with_trace(&data, &mut trace)?;
        println!(
            "rule {:<8} (c = {}): w = {}, b = {}, {} mistakes, {} epochs, {}",
            rule.name(),
            fit.bias_constant,
            fit.w,
            fit.b,
            fit.mistakes,
            fit.epochs,
            fit.stop_reason.name()
        );
        println!("  update  epoch  row          activation  w after        b after");
        for step in &trace.records {
            println!(
                "  {:>6}  {:>5}  {:>3}  {:>18}  {:<13}  {}",
                step.update,
                step.epoch,
                step.row,
                step.activation,
                format!("{:?}", step.w),
                step.b
            );
        }
        println!();

        if rule == BiasRule::None {
            let path: Vec<&[f64]> = trace.records.iter().map(|r| r.w.as_slice()).collect();
            assert_eq!(
                path,
                [[1.0, -2.0], [2.0, -1.0], [3.0, 1.0]],
                "the slides' run"
            );
            assert_eq!((fit.mistakes, fit.epochs), (3, 2));
        }
    }
    Ok(())
}
