//! Batch experiments: a grid of datasets × rules × orders × η × seeds, run in parallel, stored
//! crash-safely, resumable, and split across machines.
//!
//! * [`Spec`]: the TOML description (see [`DEFAULT_SPEC`] for a complete example).
//! * [`run`]: the spec expanded into datasets and tasks with stable ids (only one [`Shard`]'s, when
//!   asked), each task measured ([`TaskRecord`], the verdict of [`bounds::report`](crate::bounds::report)
//!   on its run), in parallel, into `results.jsonl` and `results.csv`: one whole row per finished task,
//!   resumable, with a lock that keeps a second writer out of a run's files.
//! * [`merge()`] combines shards; [`load_results`] reads a results file back.
//! * [`summarize`]: the per-rule table printed at the end of a run and by `novikoff summary`.
//!
//! The files depend on each other in one direction: `spec` (parsing) ← `plan` (expansion) ← `measure`
//! (one task) ← `runner` (the pool), with `record`, `store`, `merge` and `lock` for the files.

mod atomic;
mod axes;
mod count;
mod env;
mod grid;
mod kernel_axes;
mod locate;
mod lock;
mod measure;
mod measure_kernel;
mod measure_options;
mod merge;
mod plan;
mod record;
mod record_kernel;
mod runner;
mod shard;
mod spec;
mod store;
mod summary;
mod tightness;

#[doc(hidden)]
pub use env::Environment;
// The spec's parsing, the results files' layout and the locks: public for the tests, not part of the
// documented API.
#[doc(hidden)]
pub use grid::{ParamValue, Scalar};
pub use kernel_axes::{GridMulticlass, KernelChoice};
#[doc(hidden)]
pub use lock::{OutputLock, create_output_folder};
#[doc(hidden)]
pub use measure::bound_names;
pub use measure_options::Measure;
pub use merge::{MergeOptions, MergeSummary, merge};
#[doc(hidden)]
pub use plan::{DatasetInstance, Plan, Source, Task, task_id};
#[doc(hidden)]
pub use record::csv_header;
pub use record::{BoundRecord, TaskRecord};
#[doc(hidden)]
pub use runner::spec_hash;
pub use runner::{RunOptions, RunReport, run};
pub use shard::Shard;
#[doc(hidden)]
pub use spec::{ADVERSARY_UPDATES, MAX_TASKS};
pub use spec::{DEFAULT_SPEC, DatasetSpec, GridOrder, Spec, TrainGrid};
pub use store::load_results;
#[doc(hidden)]
pub use store::{DroppedLine, Store, read_records, result_paths};
pub use summary::{RuleSummary, summarize, summary_table};
pub use tightness::{TightnessRow, tightness, tightness_table};
