use novikoff::io::{ReadOptions, Storage};
use novikoff::perceptron::PerceptronParams;
use novikoff::simd::Summation;
use std::hint::black_box;
fn main() {
    let data = novikoff::io::open(
        "/tmp/sp/rcv1.npz",
        &ReadOptions::default().storage(Storage::Sparse),
    )
    .unwrap();
    let full = PerceptronParams::new()
        .max_epochs(100)
        .summation(Summation::Fast)
        .check()
        .unwrap()
        .fit(&data)
        .unwrap();
    let clean = PerceptronParams::new()
        .max_epochs(1)
        .initial(full.w.clone(), full.b)
        .summation(Summation::Fast)
        .check()
        .unwrap();
    let mut best = f64::MAX;
    for _ in 0..3000 {
        let t = std::time::Instant::now();
        black_box(clean.fit(&data).unwrap().updates);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("fit-clean {:.3} ms", best * 1e3);
}
