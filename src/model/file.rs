//! The model file: format name and version, the model, its provenance; reading with every refusal
//! named, writing atomically.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{KernelModel, LinearModel, Model, MulticlassKernelModel, MulticlassModel, Provenance};
use crate::dataset::{Dataset, MulticlassDataset};
use crate::error::{Error, Location, Result};
use crate::kernel::{KernelFit, KernelPerceptronParams};
use crate::multiclass::{Method, MulticlassFit, MulticlassPerceptron, OneVsRest};
use crate::perceptron::{Fit, Perceptron, PerceptronParams};

/// The `format` field of every model file.
pub const FORMAT: &str = "novikoff-model";

/// The newest format version this crate writes and reads. It changes only if the meaning of an existing
/// field changes; new model kinds are added within a version.
pub const FORMAT_VERSION: u32 = 1;

/// The model kinds this crate reads, as the `kind` field spells them.
const KNOWN_KINDS: &[&str] = &["linear", "multiclass", "kernel", "multiclass_kernel"];

/// A saved model: the [`Model`], how it was made ([`Provenance`]), and the format and crate versions that
/// wrote it. See the [module documentation](super) for the format.
///
/// ```
/// use novikoff::model::{LinearModel, Model, ModelFile, FORMAT_VERSION};
/// use novikoff::simd::Summation;
/// let file = ModelFile::new(Model::Linear(LinearModel::new(vec![1.0, -2.0], 0.5, Summation::Fast)?), None);
/// assert_eq!(file.format_version(), FORMAT_VERSION);
/// assert_eq!(file.crate_version(), env!("CARGO_PKG_VERSION"));
/// let text = file.to_json()?;
/// assert!(text.contains("\"kind\": \"linear\""));
/// assert_eq!(ModelFile::from_json(&text, "m.json")?, file);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFile {
    format_version: u32,
    crate_version: String,
    /// The model that predicts.
    pub model: Model,
    /// How it was made, when known (a model written by hand has none).
    pub provenance: Option<Provenance>,
}

/// The document as it is written and read.
#[derive(Serialize, Deserialize)]
struct Document {
    format: String,
    format_version: u32,
    crate_version: String,
    model: Model,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    provenance: Option<Provenance>,
}

impl ModelFile {
    /// A model file of this crate's format and version.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model, ModelFile}, simd::Summation};
    /// let file = ModelFile::new(Model::Linear(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?), None);
    /// assert!(file.provenance.is_none());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn new(model: Model, provenance: Option<Provenance>) -> Self {
        ModelFile {
            format_version: FORMAT_VERSION,
            crate_version: env!("CARGO_PKG_VERSION").into(),
            model,
            provenance,
        }
    }

    /// The model file of a run of `learner` on `data` (from `source`, a path, when given): the
    /// predictor of the run's variant ([`LinearModel::of_run`]), with the variant's name as the
    /// provenance's learner. Refused when the weights are not finite, and for the voted perceptron.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::ModelFile, perceptron::{BiasRule, PerceptronParams}, Dataset};
    /// let data = Dataset::new(array![[3.0], [1.0]], array![1.0, -1.0])?;
    /// let learner = PerceptronParams::new().bias(BiasRule::Novikoff).check()?;
    /// let fit = learner.fit(&data)?;
    /// let file = ModelFile::from_fit(&fit, &learner, &data, Some("d.csv"))?;
    /// assert_eq!(file.model.linear().unwrap().bias_constant(), 3.0); // c = R
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn from_fit(
        fit: &Fit,
        learner: &Perceptron,
        data: &Dataset,
        source: Option<&str>,
    ) -> Result<Self> {
        let model = LinearModel::of_run(fit)?;
        let provenance = Provenance::of_run(fit, learner, data, source);
        let model = Model::Linear(model);
        Ok(Self::new(model, Some(provenance)))
    }

    /// The model file of a multi-class perceptron's run of `learner` on `data` (from `source`, a path,
    /// when given): [`MulticlassModel::from_fit`], with [`Provenance::of_multiclass_run`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::ModelFile, multiclass::MulticlassPerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let learner = MulticlassPerceptronParams::new().check()?;
    /// let fit = learner.fit(&data)?;
    /// let file = ModelFile::from_multiclass_fit(&fit, &learner, &data, Some("three.csv"))?;
    /// let again = ModelFile::from_json(&file.to_json()?, "m.json")?;
    /// let model = again.model.multiclass().unwrap();
    /// assert_eq!(model.decision_function_dataset(data.features())?, fit.decision_function(data.features())?);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MulticlassModel::from_fit`].
    pub fn from_multiclass_fit(
        fit: &MulticlassFit,
        learner: &MulticlassPerceptron,
        data: &MulticlassDataset,
        source: Option<&str>,
    ) -> Result<Self> {
        let model = Model::Multiclass(MulticlassModel::from_fit(fit)?);
        let provenance = Provenance::of_multiclass_run(fit, learner, data, source);
        Ok(Self::new(model, Some(provenance)))
    }

    /// The model file of a one-vs-rest run ([`OneVsRest::fit`]) of the perceptron `learner` on
    /// `data`: [`MulticlassModel::from_one_vs_rest`], with [`Provenance::of_one_vs_rest`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::ModelFile, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::perceptron::{PerceptronParams, Variant};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let learner = PerceptronParams::new().variant(Variant::Averaged);
    /// let ovr = OneVsRest::fit(&data, &BinaryLearner::Linear(learner.clone()))?;
    /// let file = ModelFile::from_one_vs_rest(&ovr, &learner, &data, None)?;
    /// assert_eq!(file.provenance.unwrap().learner, "averaged");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MulticlassModel::from_one_vs_rest`].
    pub fn from_one_vs_rest(
        ovr: &OneVsRest,
        learner: &PerceptronParams,
        data: &MulticlassDataset,
        source: Option<&str>,
    ) -> Result<Self> {
        let model = Model::Multiclass(MulticlassModel::from_one_vs_rest(ovr)?);
        let provenance = Provenance::of_one_vs_rest(ovr, learner, data, source);
        Ok(Self::new(model, provenance))
    }

    /// The model file of a one-vs-rest run ([`OneVsRest::fit`]) of the kernel perceptron `learner`
    /// on `data`: [`MulticlassKernelModel::from_one_vs_rest`], or, for a linear kernel run on
    /// explicit weights, the one-vs-rest [`MulticlassModel`] of those weights (the runs predict with
    /// them), with [`Provenance::of_kernel_one_vs_rest`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::ModelFile, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::kernel::{Gamma, KernelParams, KernelPerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let learner = KernelPerceptronParams::new(KernelParams::rbf().gamma(Gamma::Value(0.5)).check()?);
    /// let ovr = OneVsRest::fit(&data, &BinaryLearner::Kernel(learner.clone()))?;
    /// let file = ModelFile::from_kernel_one_vs_rest(&ovr, &learner, &data, None)?;
    /// let again = ModelFile::from_json(&file.to_json()?, "m.json")?;
    /// assert_eq!(again.model.kind(), "multiclass_kernel");
    /// assert_eq!(again.model.class_scores(data.features())?, ovr.decision_function(data.features())?);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MulticlassKernelModel::from_one_vs_rest`] (a precomputed kernel is refused).
    pub fn from_kernel_one_vs_rest(
        ovr: &OneVsRest,
        learner: &KernelPerceptronParams,
        data: &MulticlassDataset,
        source: Option<&str>,
    ) -> Result<Self> {
        let fits = ovr.kernel_fits()?;
        let primal: Option<Vec<LinearModel>> = fits
            .iter()
            .map(|fit| primal_model(fit))
            .collect::<Option<Result<Vec<_>>>>()
            .transpose()?;
        let model = match primal {
            Some(models) => Model::Multiclass(MulticlassModel::new(
                Method::OneVsRest,
                ovr.classes.iter().map(|c| c.class.clone()).collect(),
                models,
            )?),
            None => {
                Model::MulticlassKernel(Box::new(MulticlassKernelModel::from_one_vs_rest(ovr)?))
            }
        };
        let provenance = Provenance::of_kernel_one_vs_rest(ovr, learner, data, source);
        Ok(Self::new(model, provenance))
    }

    /// The model file of a kernel perceptron's run of `learner` on `data` (from `source`, a path,
    /// when given): [`KernelModel::from_fit`], or, for a linear kernel run on explicit weights, the
    /// [`LinearModel`] of those weights (the run predicts with them), with
    /// [`Provenance::of_kernel_run`].
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{kernel::{Gamma, KernelParams, KernelPerceptronParams}, model::ModelFile, Dataset};
    /// let data = Dataset::new(array![[0.0], [1.0], [2.0], [3.0]], array![1.0, -1.0, 1.0, -1.0])?;
    /// let learner = KernelPerceptronParams::new(KernelParams::rbf().gamma(Gamma::Value(2.0)).check()?);
    /// let fit = learner.clone().check()?.fit(&data)?;
    /// let file = ModelFile::from_kernel_fit(&fit, &learner, &data, None)?;
    /// let again = ModelFile::from_json(&file.to_json()?, "m.json")?;
    /// assert_eq!(again.model.kind(), "kernel");
    /// assert_eq!(again.model.decision_function_dataset(&data)?, fit.decision_function(&data)?);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`KernelModel::from_fit`] (a precomputed kernel is refused).
    pub fn from_kernel_fit(
        fit: &KernelFit,
        learner: &KernelPerceptronParams,
        data: &Dataset,
        source: Option<&str>,
    ) -> Result<Self> {
        let model = match primal_model(fit).transpose()? {
            Some(linear) => Model::Linear(linear),
            None => Model::Kernel(Box::new(KernelModel::from_fit(fit)?)),
        };
        let provenance = Provenance::of_kernel_run(fit, learner, data, source);
        Ok(Self::new(model, Some(provenance)))
    }

    /// The format version of the file (this crate writes [`FORMAT_VERSION`]).
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model, ModelFile}, simd::Summation};
    /// let file = ModelFile::new(Model::Linear(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?), None);
    /// assert_eq!(file.format_version(), 1);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn format_version(&self) -> u32 {
        self.format_version
    }

    /// The version of novikoff that wrote the file.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model, ModelFile}, simd::Summation};
    /// let file = ModelFile::new(Model::Linear(LinearModel::new(vec![1.0], 0.0, Summation::Fast)?), None);
    /// assert_eq!(file.crate_version(), env!("CARGO_PKG_VERSION"));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn crate_version(&self) -> &str {
        &self.crate_version
    }

    /// The file as pretty-printed JSON. Every `f64` is written in the shortest decimal that reads back
    /// to the same bits.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model, ModelFile}, simd::Summation};
    /// let file = ModelFile::new(Model::Linear(LinearModel::new(vec![0.1], 0.0, Summation::Fast)?), None);
    /// assert!(file.to_json()?.contains("0.1"));
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn to_json(&self) -> Result<String> {
        let document = Document {
            format: FORMAT.into(),
            format_version: self.format_version,
            crate_version: self.crate_version.clone(),
            model: self.model.clone(),
            provenance: self.provenance.clone(),
        };
        serde_json::to_string_pretty(&document)
            .map_err(|e| Error::io("<json>", std::io::Error::other(e)))
    }

    /// Read a model file from JSON text; `path` names the file in errors. Refused, with the file, the
    /// line and the reason: text that is not JSON, a document that is not a novikoff model, a format
    /// version newer than [`FORMAT_VERSION`], a model kind this crate does not know, a missing, unknown
    /// or invalid field of the model.
    ///
    /// ```
    /// use novikoff::model::ModelFile;
    /// let newer = r#"{"format": "novikoff-model", "format_version": 9, "crate_version": "9.0.0", "model": {}}"#;
    /// let error = ModelFile::from_json(newer, "m.json").unwrap_err().to_string();
    /// assert!(error.starts_with("m.json: format version 9 is newer"), "{error}");
    /// assert!(ModelFile::from_json("{", "m.json").is_err());
    /// ```
    pub fn from_json(text: &str, path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let value: Value = serde_json::from_str(text).map_err(|e| {
            json_error(
                path,
                &e,
                "not a model file, or a corrupt one: the JSON does not parse",
            )
        })?;
        check_header(&value, path)?;
        let document: Document =
            serde_json::from_str(text).map_err(|e| json_error(path, &e, "invalid model"))?;
        Ok(ModelFile {
            format_version: document.format_version,
            crate_version: document.crate_version,
            model: document.model,
            provenance: document.provenance,
        })
    }

    /// Read a model file; see [`ModelFile::from_json`].
    ///
    /// ```
    /// let error = novikoff::model::ModelFile::load("no/such/model.json").unwrap_err();
    /// assert!(error.to_string().starts_with("no/such/model.json: "));
    /// assert!(error.is_input());
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::from_json(&text, path)
    }

    /// Write the file atomically (through a temporary sibling and a rename), so that a failed write
    /// leaves what was there before.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, Model, ModelFile}, simd::Summation};
    /// let dir = std::env::temp_dir().join(format!("novikoff-doc-model-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("model.json");
    /// let file = ModelFile::new(Model::Linear(LinearModel::new(vec![1.5], -0.25, Summation::Fast)?), None);
    /// file.save(&path)?;
    /// assert_eq!(ModelFile::load(&path)?, file);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let text = self.to_json()?;
        crate::io::write_atomically(path.as_ref(), |out| {
            use std::io::Write;
            out.write_all(text.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
                .map_err(|e| Error::io(path.as_ref(), e))
        })
    }
}

/// A JSON error at its line and column, with serde's message (its own " at line L column C" dropped,
/// since the location says it).
fn json_error(path: &Path, error: &serde_json::Error, what: &str) -> Error {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    Error::parse(
        Location::new(path)
            .line(error.line())
            .column(error.column()),
        format!("{what}: {message}"),
    )
}

/// Refuse, before reading any model field, what is not a novikoff model, a newer format version, and a
/// model kind this crate does not know: each has its own message, where a typed read would only say
/// that a field did not match.
fn check_header(value: &Value, path: &Path) -> Result<()> {
    let refuse = |message: String| Err(Error::parse(Location::new(path), message));
    let Some(object) = value.as_object() else {
        return refuse("not a model file: the document is not a JSON object".into());
    };
    if object.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return refuse(format!(
            "not a model file: it has no field \"format\": \"{FORMAT}\""
        ));
    }
    let written_by = object
        .get("crate_version")
        .and_then(Value::as_str)
        .map(|v| format!("novikoff {v}"))
        .unwrap_or_else(|| "an unknown version of novikoff".into());
    let version = match object.get("format_version").map(Value::as_u64) {
        Some(Some(v)) if v >= 1 => v,
        Some(_) => {
            return refuse(format!(
                "format_version must be a whole number from 1 to {FORMAT_VERSION}, found {}",
                object["format_version"]
            ));
        }
        None => return refuse("the field format_version is missing".into()),
    };
    if version > u64::from(FORMAT_VERSION) {
        return refuse(format!(
            "format version {version} is newer than this novikoff ({}) reads (up to {FORMAT_VERSION}); \
             the file was written by {written_by}",
            env!("CARGO_PKG_VERSION")
        ));
    }
    let kind = object
        .get("model")
        .and_then(|m| m.get("kind"))
        .and_then(Value::as_str);
    match kind {
        Some(kind) if KNOWN_KINDS.contains(&kind) => Ok(()),
        Some(kind) => refuse(format!(
            "model kind `{kind}` is not one this novikoff ({}) knows ({}); the file was written by \
             {written_by}",
            env!("CARGO_PKG_VERSION"),
            KNOWN_KINDS.join(", ")
        )),
        None => refuse("the model has no field \"kind\"".into()),
    }
}

/// The linear model of a kernel run on explicit weights (a linear kernel's), which the run predicts
/// with; `None` for a run that keeps only its dual coefficients.
fn primal_model(fit: &KernelFit) -> Option<Result<LinearModel>> {
    fit.primal_weights()
        .map(|w| LinearModel::new(w.to_vec(), fit.b, fit.summation))
}
