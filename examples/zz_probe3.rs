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
    let zero = PerceptronParams::new()
        .max_epochs(1)
        .summation(Summation::Fast)
        .check()
        .unwrap();
    let x = data.csr().unwrap();
    let (ind, val) = (x.indices(), x.data());
    let ip = x.indptr();
    let ip = ip.to_proper();
    let mut w = Vec::with_capacity(full.w.len());
    w.extend(full.w.iter().copied());
    let labels = data.labels();
    let mut best = [f64::MAX; 3];
    for _ in 0..1000 {
        let t = std::time::Instant::now();
        black_box(clean.fit(&data).unwrap().updates);
        best[0] = best[0].min(t.elapsed().as_secs_f64());
        let t = std::time::Instant::now();
        black_box(zero.fit(&data).unwrap().updates);
        best[1] = best[1].min(t.elapsed().as_secs_f64());
        let t = std::time::Instant::now();
        let mut wrong = 0usize;
        for i in 0..ip.len() - 1 {
            let (a, b) = (ip[i], ip[i + 1]);
            let s = novikoff::simd::sparse_dot(&w, &ind[a..b], &val[a..b], Summation::Fast);
            wrong += (labels[i] * s <= 0.0) as usize;
        }
        black_box(wrong);
        best[2] = best[2].min(t.elapsed().as_secs_f64());
    }
    println!(
        "fit-clean {:.3} ms, fit-zero {:.3} ms, gather {:.3} ms, clean/gather speed {:.2}",
        best[0] * 1e3,
        best[1] * 1e3,
        best[2] * 1e3,
        best[2] / best[0]
    );
}
