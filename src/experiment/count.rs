//! How many tasks a spec expands to, counted before anything is expanded, so that a typo in a grid
//! is refused before it is allocated.

use super::kernel_axes::{GridMulticlass, KernelChoice, kernel_choices};
use super::spec::{DatasetSpec, GridOrder, MAX_TASKS, Spec};
use crate::error::{Error, Result};

impl Spec {
    /// The number of tasks of one dataset instance: rules × η × orders (a shuffled order once per seed).
    pub(crate) fn tasks_per_instance(&self, entry: Option<&DatasetSpec>) -> Option<u64> {
        let orders = self.train.orders.iter().try_fold(0u64, |sum, order| {
            sum.checked_add(if *order == GridOrder::Shuffle {
                self.train.seeds.len() as u64
            } else {
                1
            })
        })?;
        // Passive–Aggressive runs once, with η = 1; the other variants once per η.
        let variants = entry
            .and_then(|entry| entry.variants.as_ref())
            .unwrap_or(&self.train.variants);
        let runs = variants.iter().try_fold(0u64, |sum, variant| {
            sum.checked_add(if variant.is_passive_aggressive() {
                1
            } else {
                self.train.eta.len() as u64
            })
        })?;
        (self.train.rules.len() as u64)
            .checked_mul(runs)?
            .checked_mul(orders)?
            .checked_mul(self.kernel_runs().ok()?.len() as u64)
    }

    /// The (kernel, multi-class method) pairs every dataset runs with: each kernel of the grid once
    /// without `multiclass`, or with every method (`kesler` with no kernel but `none` or `linear`).
    pub(crate) fn kernel_runs(
        &self,
    ) -> Result<Vec<(Option<KernelChoice>, Option<GridMulticlass>)>> {
        let train = &self.train;
        if [train.kernel.len(), train.degree.len(), train.coef0.len()].contains(&0)
            || train.kernel_gamma.is_empty()
        {
            return Err(Error::parameter(
                "kernel",
                "train.kernel, train.degree, train.coef0 and train.kernel_gamma must not be empty",
            ));
        }
        let choices = kernel_choices(
            &self.train.kernel,
            &self.train.degree,
            &self.train.coef0,
            &self.train.kernel_gamma,
        )?;
        if self.train.multiclass.is_empty() {
            return Ok(choices.into_iter().map(|k| (k, None)).collect());
        }
        let mut runs = Vec::new();
        for kernel in choices {
            for &method in &self.train.multiclass {
                let primal = kernel
                    .as_ref()
                    .is_none_or(|k| k.kind == crate::kernel::KernelKind::Linear);
                if method == GridMulticlass::Kesler && !primal {
                    continue;
                }
                runs.push((kernel.clone(), Some(method)));
            }
        }
        Ok(runs)
    }

    /// Refuse a grid above [`MAX_TASKS`] tasks (or dataset instances), given each entry's number of
    /// instances (`None`: too many to count), naming the largest entry's line.
    pub(crate) fn check_task_count(&self, instances: &[Option<u64>]) -> Result<()> {
        let total_instances = instances
            .iter()
            .try_fold(0u64, |sum, n| n.and_then(|n| sum.checked_add(n)));
        let total_tasks = instances.iter().enumerate().try_fold(0u64, |sum, (k, n)| {
            let per = self.tasks_per_instance(self.datasets.get(k))?;
            sum.checked_add(n.as_ref()?.checked_mul(per)?)
        });
        let plausible = |n: Option<u64>| n.is_some_and(|n| n <= MAX_TASKS);
        if plausible(total_instances) && plausible(total_tasks) {
            return Ok(());
        }
        let largest = (0..instances.len())
            .max_by_key(|&k| instances[k].unwrap_or(u64::MAX))
            .unwrap_or(0);
        let count =
            |n: Option<u64>| n.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string());
        Err(Error::Spec {
            at: self.entry_location(largest, "params"),
            message: format!(
                "the experiment expands to {} tasks over {} dataset instances (dataset #{} alone: {}); the limit is {MAX_TASKS}: check the grids for a list where one value was meant, or split the experiment into several specs",
                count(total_tasks),
                count(total_instances),
                largest + 1,
                count(instances.get(largest).copied().flatten()),
            ),
        })
    }
}
