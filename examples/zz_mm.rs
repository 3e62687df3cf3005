use novikoff::generate::separable;
use novikoff::margin::{Bias, max_margin};
fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let (n, d, reps) = (args[0], args[1], args[2]);
    let margin = if d >= 1000 { 0.1 } else { 0.02 };
    let data = separable(n, d, margin, 1.0, 1).unwrap().data;
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = std::time::Instant::now();
        let r = max_margin(&data, Bias::Free).unwrap();
        std::hint::black_box(&r);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("best {:.2} ms", best * 1e3);
}
