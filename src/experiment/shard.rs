//! Shards: the tasks of one machine out of N, and the file-name suffix of its results.

use crate::error::{Error, Result};

/// `--shard I/N`: run the tasks whose stable id falls in shard `I` of `N` (0-based `I`).
///
/// ```
/// use novikoff::experiment::Shard;
/// let shard: Shard = "1/4".parse()?;
/// assert_eq!((shard.index, shard.count), (1, 4));
/// assert!("4/4".parse::<Shard>().is_err());
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u64,
    /// The number of shards.
    pub count: u64,
}

impl std::str::FromStr for Shard {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self> {
        let bad = || {
            Error::parameter(
                "shard",
                format!(
                    "`{text}` is not I/N with 0 ≤ I < N (e.g. 0/4; Slurm: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=0-3)"
                ),
            )
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// True when the task with this id belongs to the shard.
    ///
    /// ```
    /// let all: novikoff::experiment::Shard = "0/1".parse()?;
    /// assert!(all.contains("00000000000000ff"));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn contains(&self, id: &str) -> bool {
        u64::from_str_radix(id, 16).is_ok_and(|h| h % self.count == self.index)
    }

    /// The file-name suffix of this shard's results, e.g. `.shard-1-of-4`.
    ///
    /// ```
    /// let s: novikoff::experiment::Shard = "1/4".parse()?;
    /// assert_eq!(s.suffix(), ".shard-1-of-4");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn suffix(&self) -> String {
        format!(".shard-{}-of-{}", self.index, self.count)
    }
}
