//! Batch experiments: a grid of datasets × rules × orders × η × seeds, run in parallel, stored
//! crash-safely, resumable, and split across machines.
//!
//! * [`Spec`]: the TOML description (see [`DEFAULT_SPEC`] for a complete example).
//! * [`Plan`]: the spec expanded into dataset instances and [`Task`]s with stable ids; [`Shard`] selects
//!   the tasks of one machine.
//! * [`Store`]: `results.jsonl` and `results.csv`, one whole row per finished task, resumable; [`merge()`]
//!   combines shards; [`OutputLock`] keeps a second writer out of a run's files.
//! * [`summarize`]: the per-rule table printed at the end of a run and by `novikoff summary`.

mod atomic;
mod env;
mod grid;
mod locate;
mod lock;
mod measure;
mod merge;
mod plan;
mod record;
mod runner;
mod shard;
mod spec;
mod store;
mod summary;

pub use env::Environment;
pub use grid::{ParamValue, Scalar};
pub use lock::{OutputLock, create_output_folder};
pub use measure::bound_names;
pub use merge::{MergeOptions, MergeSummary, merge};
pub use plan::{DatasetInstance, Plan, Source, Task, task_id};
pub use record::{BoundRecord, TaskRecord, csv_header};
pub use runner::{RunOptions, RunReport, run, spec_hash};
pub use shard::Shard;
pub use spec::{DEFAULT_SPEC, DatasetSpec, MAX_TASKS, Measure, Spec, TrainGrid};
pub use store::{DroppedLine, Store, load_results, read_records, result_paths};
pub use summary::{RuleSummary, summarize, summary_table};
