//! The convergence theorem end to end on a generated dataset: geometry, training, every bound checked.
//!
//! Shows [`novikoff::generate`] (a separable set with a prescribed margin γ and radius R), the
//! geometry of [`novikoff::margin`] (the radius and the certified maximum margins γ* with their
//! brackets `lower ≤ γ* ≤ upper`, free bias and through the origin), and [`novikoff::bounds`]: each
//! bias rule trained with [`verify_with`], every form of the mistake bound listed with its hypotheses as
//! checked on the data, and the proof's two inequalities checked after every update. It ends with the
//! bounds of the planted separator (the generator's `u`, `b`), weaker than those of the optimal one
//! because its margin is smaller. The program fails if any applicable bound or inequality fails.
//!
//! Run it with `cargo run --release --example theorem`.

use novikoff::bounds::{Geometry, bounds_for_separator, verify_with};
use novikoff::generate::{Family, SeparableParams};
use novikoff::margin::{self, Bias, MarginResult, max_margin};
use novikoff::perceptron::{BiasRule, PerceptronParams};

fn main() -> Result<(), novikoff::Error> {
    // 300 points in the unit ball of R⁵, labelled by a hyperplane at offset 0.2, margin at least 0.1.
    // The offset hyperplane need not pass through the origin, so the rule without bias may be left with
    // no bound at all: the output then shows which hypothesis failed, with the margin module's proof.
    let generated = SeparableParams::new(300, 5)
        .margin(0.1)
        .radius(1.0)
        .offset(0.2)
        .seed(7)
        .check()?
        .generate()?;
    let data = &generated.data;
    let (u, b) = (
        generated.u.clone().expect("planted normal"),
        generated.b.unwrap_or(0.0),
    );
    println!("{} points in R^{}", data.n_samples(), data.n_features());
    println!(
        "radius R = max ‖x‖        {:.6}  (prescribed ≤ 1)",
        margin::radius(data)
    );
    println!(
        "margin of the planted (u, b) {:.6}  (prescribed ≥ 0.1)",
        margin::margin(data, u.view(), b)?
    );
    for bias in [Bias::Free, Bias::ThroughOrigin] {
        match max_margin(data, bias)? {
            MarginResult::Separable {
                bracket: (lower, upper),
                support,
                ..
            } => println!(
                "γ*, {:<14} in [{lower:.9}, {upper:.9}], {} support vectors",
                bias.name(),
                support.len()
            ),
            MarginResult::NotSeparable { certificate, .. } => println!(
                "γ*, {:<14} none: not separable (certificate verified: {})",
                bias.name(),
                certificate.verify(data, 1e-9)
            ),
            other => println!("γ*, {:<14} {other:?}", bias.name()),
        }
    }

    // The four margin problems, solved once and shared by every rule.
    let geometry = Geometry::compute(data)?;
    let mut failures = 0;
    for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
        let learner = PerceptronParams::new().bias(rule).max_epochs(2000);
        let verdict = verify_with(&geometry, &learner)?;
        println!(
            "\nrule {}: {} mistakes, {} epochs, {}",
            verdict.rule,
            verdict.fit.mistakes,
            verdict.fit.epochs,
            verdict.fit.stop_reason.name()
        );
        for checked in &verdict.bounds {
            let bound = &checked.bound;
            // Forms proved for another bias rule say so in their first hypothesis; skip them here.
            if !bound.hypotheses.first().is_some_and(|h| h.holds) {
                continue;
            }
            match (bound.value, checked.holds) {
                (Some(value), Some(holds)) => println!(
                    "  {:<26} {:<10} ≤ {value:>10.2}: ratio {:.3}, {}",
                    bound.name,
                    bound.formula,
                    checked.ratio.unwrap_or(f64::NAN),
                    if holds { "holds" } else { "FAILS" }
                ),
                _ => println!("  {:<26} {:<10} does not apply:", bound.name, bound.formula),
            }
            // Each hypothesis as checked on this data and run; the measurement only where it fails.
            for hypothesis in &bound.hypotheses {
                match hypothesis.holds {
                    true => println!("      [x] {}", hypothesis.statement),
                    false => println!("      [ ] {}: {}", hypothesis.statement, hypothesis.detail),
                }
            }
            failures += usize::from(checked.holds == Some(false));
        }
        let invariants = &verdict.invariants;
        println!(
            "  proof's inequalities: {:?} over {} updates, {} violations (min slack: dot {:?}, norm {:?})",
            invariants.status,
            invariants.updates,
            invariants.violations,
            invariants.min_dot_slack,
            invariants.min_norm_slack
        );
        failures += usize::try_from(invariants.violations).unwrap_or(usize::MAX);

        // Any separator gives a bound with its own margin; the planted one is not the best.
        let planted = bounds_for_separator(data, &learner, u.view(), b)?;
        for bound in planted.iter().filter(|b| b.applies) {
            println!(
                "  with the planted separator: {} = {:.2} (γ = {:.4})",
                bound.name,
                bound.value.unwrap_or(f64::NAN),
                bound.gamma.unwrap_or(f64::NAN)
            );
            failures += usize::from(bound.holds_for(verdict.fit.mistakes) == Some(false));
        }
    }
    assert_eq!(failures, 0, "a bound or an inequality of the proof failed");
    println!("\nevery applicable bound and every inequality of the proof held");
    Ok(())
}
