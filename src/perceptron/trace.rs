//! Recording every update of a run, in memory or streamed to a writer.

use std::io::Write;

use crate::error::{Error, Result};

/// One update, as the engine sees it right after applying it.
///
/// `x` is the example's feature row and `w`, `b` the weights after the update. The update made was
/// `w += step·label·x`, `b += step·label·bias_constant²`, with `step = η` for every variant but
/// Passive–Aggressive, whose step is its `τ`.
#[derive(Debug, Clone, Copy)]
pub struct UpdateEvent<'a> {
    /// 1-based update number `k`.
    pub update: u64,
    /// 1-based epoch (for the online learner, always 1).
    pub epoch: usize,
    /// 0-based index of the example (for the online learner, its position in the stream).
    pub row: usize,
    /// The example's label ±1.
    pub label: f64,
    /// `w·x + b` before the update.
    pub activation: f64,
    /// The example's features.
    pub x: &'a [f64],
    /// The weights after the update.
    pub w: &'a [f64],
    /// The bias after the update.
    pub b: f64,
    /// The augmentation constant `c` of the bias rule.
    pub bias_constant: f64,
    /// The weight `v` of the constant coordinate after the update, so that `b = c·v` exactly.
    pub bias_weight: f64,
    /// The learning rate η.
    pub eta: f64,
    /// The step `s` of this update (`η`, or Passive–Aggressive's `τ`).
    pub step: f64,
}

/// Something that observes every update: an in-memory [`Trace`], a [`CsvTrace`] writer, the proof's
/// invariant checks of [`crate::bounds`], or several at once as a tuple `(a, b)`.
///
/// ```
/// use novikoff::perceptron::{TraceSink, UpdateEvent};
/// struct CountUpdates(u64);
/// impl TraceSink for CountUpdates {
///     fn record(&mut self, _event: &UpdateEvent<'_>) -> novikoff::Result<()> {
///         self.0 += 1;
///         Ok(())
///     }
/// }
/// ```
pub trait TraceSink {
    /// False for a sink that ignores every event ([`NoTrace`]), so that the training loop does not
    /// assemble them.
    ///
    /// ```
    /// use novikoff::perceptron::{NoTrace, Trace, TraceSink};
    /// assert!(!NoTrace.records() && Trace::default().records());
    /// assert!((NoTrace, Trace::default()).records());
    /// ```
    #[inline(always)]
    fn records(&self) -> bool {
        true
    }

    /// Observe one update. An error stops the run and is returned by `fit`.
    fn record(&mut self, event: &UpdateEvent<'_>) -> Result<()>;
}

/// A sink that ignores everything; the default of [`fit`](super::Perceptron::fit), compiled away.
///
/// ```
/// use novikoff::perceptron::{NoTrace, TraceSink};
/// let _sink: &mut dyn TraceSink = &mut NoTrace;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTrace;

impl TraceSink for NoTrace {
    #[inline(always)]
    fn records(&self) -> bool {
        false
    }

    #[inline(always)]
    fn record(&mut self, _event: &UpdateEvent<'_>) -> Result<()> {
        Ok(())
    }
}

impl<T: TraceSink + ?Sized> TraceSink for &mut T {
    #[inline(always)]
    fn records(&self) -> bool {
        (**self).records()
    }

    #[inline(always)]
    fn record(&mut self, event: &UpdateEvent<'_>) -> Result<()> {
        (**self).record(event)
    }
}

impl<A: TraceSink, B: TraceSink> TraceSink for (A, B) {
    #[inline(always)]
    fn records(&self) -> bool {
        self.0.records() || self.1.records()
    }

    #[inline(always)]
    fn record(&mut self, event: &UpdateEvent<'_>) -> Result<()> {
        self.0.record(event)?;
        self.1.record(event)
    }
}

/// One recorded update.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TraceRecord {
    /// 1-based update number.
    pub update: u64,
    /// 1-based epoch.
    pub epoch: usize,
    /// 0-based row.
    pub row: usize,
    /// `w·x + b` before the update.
    pub activation: f64,
    /// The weights after the update.
    pub w: Vec<f64>,
    /// The bias after the update.
    pub b: f64,
}

/// Every update of a run, in memory.
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::{PerceptronParams, Trace}, Dataset};
/// let data = Dataset::new(array![[1.0, 0.0], [-1.0, 0.0]], array![1.0, -1.0])?;
/// let mut trace = Trace::default();
/// PerceptronParams::new().check()?.fit_with_trace(&data, &mut trace)?;
/// assert_eq!(trace.records.len(), 1);
/// assert_eq!(trace.records[0].w, vec![1.0, 0.0]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// The updates in order.
    pub records: Vec<TraceRecord>,
}

impl TraceSink for Trace {
    fn record(&mut self, event: &UpdateEvent<'_>) -> Result<()> {
        self.records.push(TraceRecord {
            update: event.update,
            epoch: event.epoch,
            row: event.row,
            activation: event.activation,
            w: event.w.to_vec(),
            b: event.b,
        });
        Ok(())
    }
}

/// Streams one CSV row per update, `update,epoch,row,activation,w0,…,w{d−1},b`, so that a run of 10⁸
/// updates never has to live in memory. Floats are written in Rust's shortest round-trip form, so the file
/// reproduces every bit.
///
/// ```
/// use ndarray::array;
/// use novikoff::{perceptron::{CsvTrace, PerceptronParams}, Dataset};
/// let data = Dataset::new(array![[1.0, 0.0], [-1.0, 0.0]], array![1.0, -1.0])?;
/// let mut sink = CsvTrace::new(Vec::new(), 2, "<memory>");
/// PerceptronParams::new().check()?.fit_with_trace(&data, &mut sink)?;
/// let text = String::from_utf8(sink.finish()?).unwrap();
/// assert_eq!(text, "update,epoch,row,activation,w0,w1,b\n1,1,0,0,1,0,0\n");
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug)]
pub struct CsvTrace<W: Write> {
    out: W,
    n_features: usize,
    header_written: bool,
    path: std::path::PathBuf,
    line: String,
}

impl<W: Write> CsvTrace<W> {
    /// A sink writing to `out`; `path` names it in error messages.
    ///
    /// ```
    /// let sink = novikoff::perceptron::CsvTrace::new(std::io::sink(), 3, "trace.csv");
    /// # drop(sink);
    /// ```
    pub fn new(out: W, n_features: usize, path: impl Into<std::path::PathBuf>) -> Self {
        Self {
            out,
            n_features,
            header_written: false,
            path: path.into(),
            line: String::new(),
        }
    }

    fn write_header(&mut self) -> Result<()> {
        let mut header = String::from("update,epoch,row,activation");
        for j in 0..self.n_features {
            header.push_str(&format!(",w{j}"));
        }
        header.push_str(",b\n");
        self.header_written = true;
        self.out
            .write_all(header.as_bytes())
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Flush and return the writer (the header is written even for a run with no update).
    ///
    /// ```
    /// let sink = novikoff::perceptron::CsvTrace::new(Vec::new(), 1, "<memory>");
    /// assert_eq!(sink.finish()?, b"update,epoch,row,activation,w0,b\n");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn finish(mut self) -> Result<W> {
        if !self.header_written {
            self.write_header()?;
        }
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        Ok(self.out)
    }
}

impl<W: Write> TraceSink for CsvTrace<W> {
    fn record(&mut self, event: &UpdateEvent<'_>) -> Result<()> {
        use std::fmt::Write as _;
        if !self.header_written {
            self.write_header()?;
        }
        self.line.clear();
        let _ = write!(
            self.line,
            "{},{},{},{}",
            event.update, event.epoch, event.row, event.activation
        );
        for w in event.w {
            let _ = write!(self.line, ",{w}");
        }
        let _ = writeln!(self.line, ",{}", event.b);
        self.out
            .write_all(self.line.as_bytes())
            .map_err(|e| Error::io(&self.path, e))
    }
}
