//! Batch experiments: a grid of datasets × rules × orders × η × seeds, run in parallel, stored
//! crash-safely, resumable, and split across machines.
//!
//! * [`Spec`]: the TOML description (see [`DEFAULT_SPEC`] for a complete example).
//! * [`Plan`]: the spec expanded into dataset instances and [`Task`]s with stable ids; [`Shard`] selects
//!   the tasks of one machine.
//! * [`Store`]: `results.jsonl` and `results.csv`, one whole row per finished task, resumable; [`merge`]
//!   combines shards.
//! * [`summarize`]: the per-rule table printed at the end of a run and by `novikoff summary`.

mod env;
mod measure;
mod plan;
mod runner;
mod spec;
mod store;
mod summary;

pub use env::Environment;
pub use measure::bound_names;
pub use plan::{task_id, DatasetInstance, Plan, Shard, Source, Task};
pub use runner::{run, spec_hash, RunOptions, RunReport};
pub use spec::{DatasetSpec, Measure, ParamValue, Scalar, Spec, TrainGrid, DEFAULT_SPEC};
pub use store::{
    csv_header, merge, read_records, result_paths, BoundRecord, MergeSummary, Store, TaskRecord,
};
pub use summary::{summarize, summary_table, RuleSummary};
