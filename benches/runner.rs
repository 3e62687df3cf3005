//! The experiment runner's throughput at 1 and 2 threads (issue 7's "≥ 1.8× with 2 threads").
//!
//! 24 datasets and 432 tasks, about a second of work on one core, so that the run's fixed costs (the
//! output folder, `env.json`, the final sorted rewrite with its `fsync`) stay a few per cent of it, as
//! they are in real experiments; the margin solves dominate, as they do in the default experiment.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use novikoff::experiment::{Plan, RunOptions, Spec, run};

const SPEC: &str = r#"
name = "bench"
seed = 1
[train]
rules = ["none", "classic", "novikoff"]
orders = ["cyclic", "shuffle"]
seeds = [0, 1, 2]
max_epochs = 2000
[measure]
margin = true
bounds = true
invariants = true
[[dataset]]
family = "separable"
params = { n = [500, 1000, 2000], d = [10, 40], margin = [0.05, 0.02], radius = 1.0 }
replicates = 2
"#;

fn bench_runner(c: &mut Criterion) {
    let spec = Spec::parse(SPEC, "bench.toml".as_ref()).expect("the bench spec parses");
    let tasks = Plan::new(&spec, None)
        .expect("the bench spec expands")
        .tasks
        .len() as u64;
    let mut group = c.benchmark_group("runner");
    group.sample_size(10);
    group.throughput(Throughput::Elements(tasks));
    for threads in [1usize, 2] {
        group.bench_with_input(
            BenchmarkId::new("threads", threads),
            &threads,
            |b, &threads| {
                b.iter_with_setup(
                    || tempfile::tempdir().expect("a temporary folder"),
                    |dir| {
                        let mut options = RunOptions::new(dir.path().join("out"));
                        options.threads = Some(threads);
                        options.progress = false;
                        run(&spec, SPEC, &options).expect("the bench experiment runs")
                    },
                );
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_runner);
criterion_main!(benches);
