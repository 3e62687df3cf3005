//! The multi-class model: one linear score per class, and the class of the highest score.

use ndarray::Array2;
use serde::{Deserialize, Serialize};

use super::LinearModel;
use crate::dataset::{Dataset, MulticlassDataset};
use crate::error::{Error, Result};
use crate::multiclass::{
    ClassScorer, ConfusionMatrix, Method, MulticlassFit, OneVsRest, class_scores, confusion_on,
    predicted_classes,
};

/// `argmax_r w_r·x + b_r` over `k ≥ 2` classes (`"kind": "multiclass"` in a model file): the classes'
/// names, one [`LinearModel`] per class, and the [`Method`] that learnt them.
///
/// A model made from a run ([`MulticlassModel::from_fit`] for the multi-class perceptron,
/// [`MulticlassModel::from_one_vs_rest`] for one-vs-rest) scores **bit for bit** as the run's own
/// `decision_function`: class `r`'s score is its linear model's `w_r·x + b_r` in the run's summation
/// order. The prediction is the class of the highest score, the first of them on a tie (numpy's
/// `argmax`, scikit-learn's rule).
///
/// ```
/// use ndarray::array;
/// use novikoff::{dataset::MulticlassDataset, model::MulticlassModel};
/// use novikoff::multiclass::MulticlassPerceptronParams;
/// let data = MulticlassDataset::new(
///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]],
///     vec!["a".into(), "b".into(), "c".into()],
///     vec![0, 1, 2],
/// )?;
/// let fit = MulticlassPerceptronParams::new().check()?.fit(&data)?;
/// let model = MulticlassModel::from_fit(&fit)?;
/// assert_eq!(model.decision_function_dataset(data.features())?, fit.decision_function(data.features())?);
/// assert_eq!(model.predict_dataset(data.features())?, vec![0, 1, 2]);
/// assert_eq!(model.classes(), ["a", "b", "c"]);
/// # Ok::<(), novikoff::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    try_from = "MulticlassFields",
    into = "MulticlassFields"
)]
pub struct MulticlassModel {
    method: Method,
    classes: Vec<String>,
    models: Vec<LinearModel>,
}

/// The fields as a file holds them: `n_features` is written so that a reader sees the dimension
/// without counting, and is checked against every class's.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MulticlassFields {
    method: Method,
    n_features: usize,
    classes: Vec<String>,
    models: Vec<LinearModel>,
}

impl From<MulticlassModel> for MulticlassFields {
    fn from(m: MulticlassModel) -> Self {
        MulticlassFields {
            method: m.method,
            n_features: m.n_features(),
            classes: m.classes,
            models: m.models,
        }
    }
}

impl TryFrom<MulticlassFields> for MulticlassModel {
    type Error = String;

    fn try_from(f: MulticlassFields) -> std::result::Result<Self, String> {
        let model =
            MulticlassModel::new(f.method, f.classes, f.models).map_err(|e| e.to_string())?;
        if model.n_features() != f.n_features {
            return Err(format!(
                "n_features is {} but the classes' models take {}",
                f.n_features,
                model.n_features()
            ));
        }
        Ok(model)
    }
}

impl MulticlassModel {
    /// A model of `classes` (at least two, each named once) scored by `models`, one per class in the
    /// same order, all of one dimension.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let class = |w: Vec<f64>| LinearModel::new(w, 0.0, Summation::Fast);
    /// let model = MulticlassModel::new(
    ///     Method::OneVsRest,
    ///     vec!["cat".into(), "dog".into()],
    ///     vec![class(vec![1.0, 0.0])?, class(vec![0.0, 1.0])?],
    /// )?;
    /// assert_eq!((model.n_classes(), model.n_features()), (2, 2));
    /// assert!(MulticlassModel::new(Method::Kesler, vec!["a".into(), "a".into()], model.models().to_vec()).is_err());
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for fewer than two classes, a class named twice or an empty name, a
    /// number of models that is not the number of classes, models of different dimensions, or a
    /// class's model that names classes of its own ([`LinearModel::with_classes`]).
    pub fn new(method: Method, classes: Vec<String>, models: Vec<LinearModel>) -> Result<Self> {
        super::check_classes(&classes, models.len())?;
        if let Some(r) = models.iter().position(|m| m.classes().is_some()) {
            return Err(Error::parameter(
                "models",
                format!(
                    "the model of class `{}` names classes of its own: a class's model scores that \
                     class, and the classes are named once, by the multi-class model",
                    classes[r]
                ),
            ));
        }
        let d = models[0].n_features();
        if let Some((r, other)) = models.iter().enumerate().find(|(_, m)| m.n_features() != d) {
            return Err(Error::parameter(
                "models",
                format!(
                    "the model of class `{}` takes {} features, the first class's {d}",
                    classes[r],
                    other.n_features()
                ),
            ));
        }
        Ok(MulticlassModel {
            method,
            classes,
            models,
        })
    }

    /// The model of a multi-class perceptron's run: class `r`'s weights, bias constant `c` and bias
    /// weight `v_r` (so `b_r = c·v_r`, the run's bits).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::MulticlassModel, multiclass::{Method, MulticlassPerceptronParams}};
    /// use novikoff::perceptron::BiasRule;
    /// let data = MulticlassDataset::new(
    ///     array![[1.0], [-1.0], [3.0]], vec!["l".into(), "r".into(), "far".into()], vec![0, 1, 2])?;
    /// let fit = MulticlassPerceptronParams::new().bias(BiasRule::Classic).max_epochs(50).check()?.fit(&data)?;
    /// let model = MulticlassModel::from_fit(&fit)?;
    /// assert_eq!(model.method(), Method::Kesler);
    /// assert_eq!(model.models()[2].b(), fit.b[2]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] when a weight is not finite (a run stopped by overflow).
    pub fn from_fit(fit: &MulticlassFit) -> Result<Self> {
        let models = fit
            .w
            .rows()
            .into_iter()
            .zip(&fit.bias_weights)
            .map(|(w, &v)| {
                LinearModel::with_bias_weight(w.to_vec(), fit.bias_constant, v, fit.summation)
            })
            .collect::<Result<Vec<_>>>()?;
        Self::new(Method::Kesler, fit.classes.clone(), models)
    }

    /// The model of a one-vs-rest run of the perceptron: each class's predictor as
    /// [`LinearModel::of_run`] takes it from that class's run (the last, averaged or pocket weights).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::MulticlassModel, multiclass::{BinaryLearner, OneVsRest}};
    /// use novikoff::perceptron::{BiasRule, PerceptronParams};
    /// let data = MulticlassDataset::new(
    ///     array![[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]], vec!["a".into(), "b".into(), "c".into()], vec![0, 1, 2])?;
    /// let ovr = OneVsRest::fit(&data, &BinaryLearner::Linear(PerceptronParams::new().bias(BiasRule::Classic)))?;
    /// let model = MulticlassModel::from_one_vs_rest(&ovr)?;
    /// assert_eq!(model.decision_function_dataset(data.features())?, ovr.decision_function(data.features())?);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for a kernel perceptron's classes (a dual model, which a linear model
    /// cannot hold), a run checked by [`OneVsRest::verify`] (it keeps no weights to save: train it
    /// with [`OneVsRest::fit`]), the voted perceptron, and weights that are not finite.
    pub fn from_one_vs_rest(ovr: &OneVsRest) -> Result<Self> {
        let models = ovr
            .linear_fits()?
            .into_iter()
            .map(LinearModel::of_run)
            .collect::<Result<Vec<_>>>()?;
        let classes = ovr.classes.iter().map(|c| c.class.clone()).collect();
        Self::new(Method::OneVsRest, classes, models)
    }

    /// How the classes were learnt.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let one = LinearModel::new(vec![1.0], 0.0, Summation::Fast)?;
    /// let model = MulticlassModel::new(Method::Kesler, vec!["a".into(), "b".into()], vec![one.clone(), one])?;
    /// assert_eq!(model.method().name(), "kesler");
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn method(&self) -> Method {
        self.method
    }

    /// The classes' names, in the order of the scores' columns.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let one = LinearModel::new(vec![1.0], 0.0, Summation::Fast)?;
    /// let model = MulticlassModel::new(Method::Kesler, vec!["x".into(), "y".into()], vec![one.clone(), one])?;
    /// assert_eq!(model.classes(), ["x", "y"]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// Each class's linear model, in class order.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let class = |b| LinearModel::new(vec![1.0], b, Summation::Fast);
    /// let model = MulticlassModel::new(Method::OneVsRest, vec!["x".into(), "y".into()], vec![class(0.5)?, class(-1.0)?])?;
    /// assert_eq!(model.models()[1].b(), -1.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn models(&self) -> &[LinearModel] {
        &self.models
    }

    /// The number of classes `k`.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let one = LinearModel::new(vec![1.0], 0.0, Summation::Fast)?;
    /// let model = MulticlassModel::new(Method::Kesler, vec!["a".into(), "b".into(), "c".into()], vec![one; 3])?;
    /// assert_eq!(model.n_classes(), 3);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_classes(&self) -> usize {
        self.classes.len()
    }

    /// The number of features the model takes.
    ///
    /// ```
    /// use novikoff::{model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let one = LinearModel::new(vec![1.0, 2.0], 0.0, Summation::Fast)?;
    /// let model = MulticlassModel::new(Method::Kesler, vec!["a".into(), "b".into()], vec![one; 2])?;
    /// assert_eq!(model.n_features(), 2);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    pub fn n_features(&self) -> usize {
        self.models[0].n_features()
    }

    /// Every row's score for every class, `w_r·x + b_r` (`n × k`).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation, Dataset};
    /// let class = |w| LinearModel::new(vec![w], 1.0, Summation::Fast);
    /// let model = MulticlassModel::new(Method::OneVsRest, vec!["a".into(), "b".into()], vec![class(1.0)?, class(-1.0)?])?;
    /// let data = Dataset::new(array![[2.0]], array![1.0])?;
    /// assert_eq!(model.decision_function_dataset(&data)?, array![[3.0, -1.0]]);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Shape`] for data of another dimension.
    pub fn decision_function_dataset(&self, data: &Dataset) -> Result<Array2<f64>> {
        self.models[0].check_features(data.n_features())?;
        let scorers: Vec<ClassScorer<'_>> = self
            .models
            .iter()
            .map(|m| ClassScorer {
                w: m.w(),
                b: m.b(),
                summation: m.summation(),
            })
            .collect();
        Ok(class_scores(data, &scorers))
    }

    /// The class index of every row: the highest score, the lowest index on a tie.
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation, Dataset};
    /// let class = |w| LinearModel::new(vec![w], 0.0, Summation::Fast);
    /// let model = MulticlassModel::new(Method::OneVsRest, vec!["pos".into(), "neg".into()], vec![class(1.0)?, class(-1.0)?])?;
    /// let data = Dataset::new(array![[2.0], [-3.0], [0.0]], array![1.0, 1.0, 1.0])?;
    /// assert_eq!(model.predict_dataset(&data)?, vec![0, 1, 0]); // a tie goes to the first class
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MulticlassModel::decision_function_dataset`].
    pub fn predict_dataset(&self, data: &Dataset) -> Result<Vec<usize>> {
        Ok(predicted_classes(&self.decision_function_dataset(data)?))
    }

    /// The confusion matrix on labelled data whose classes are the model's, in its order (as
    /// [`crate::io::open_multiclass_as`] reads a file against [`MulticlassModel::classes`]).
    ///
    /// ```
    /// use ndarray::array;
    /// use novikoff::{dataset::MulticlassDataset, model::{LinearModel, MulticlassModel}, multiclass::Method, simd::Summation};
    /// let class = |w| LinearModel::new(vec![w], 0.0, Summation::Fast);
    /// let model = MulticlassModel::new(Method::OneVsRest, vec!["pos".into(), "neg".into()], vec![class(1.0)?, class(-1.0)?])?;
    /// let data = MulticlassDataset::new(array![[2.0], [-3.0], [1.0]], vec!["pos".into(), "neg".into()], vec![0, 1, 1])?;
    /// let confusion = model.confusion(&data)?;
    /// assert_eq!(confusion.counts, vec![vec![1, 0], vec![1, 1]]);
    /// assert_eq!(confusion.accuracy(), 2.0 / 3.0);
    /// # Ok::<(), novikoff::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parameter`] for data with other classes, and as
    /// [`MulticlassModel::decision_function_dataset`].
    pub fn confusion(&self, data: &MulticlassDataset) -> Result<ConfusionMatrix> {
        confusion_on(&self.classes, data, |rows| self.predict_dataset(rows))
    }
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;
    use crate::model::{Model, ModelFile};
    use crate::multiclass::{BinaryLearner, MulticlassPerceptronParams};
    use crate::perceptron::{BiasRule, PerceptronParams, Variant};
    use crate::simd::Summation;

    fn three_classes() -> MulticlassDataset {
        MulticlassDataset::new(
            array![
                [2.0, 0.1, 0.0],
                [0.0, 2.0, 0.3],
                [-2.0, -2.0, 1.0],
                [3.0, 0.5, -0.2],
                [0.5, 3.0, 0.0],
                [-3.0, -2.5, 0.7],
                [0.2, 0.1, 0.0],
            ],
            vec!["a".into(), "b".into(), "c".into()],
            vec![0, 1, 2, 0, 1, 2, 1],
        )
        .unwrap()
    }

    fn bits(a: &Array2<f64>) -> Vec<u64> {
        a.iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn a_model_read_back_scores_with_the_bits_of_the_run_on_either_storage() {
        let data = three_classes();
        let sparse = MulticlassDataset::from_features(
            data.features().to_sparse(),
            data.classes().to_vec(),
            data.labels().to_vec(),
        )
        .unwrap();
        for rule in [BiasRule::None, BiasRule::Classic, BiasRule::Novikoff] {
            let learner = MulticlassPerceptronParams::new()
                .bias(rule)
                .eta(0.3)
                .max_epochs(2)
                .check()
                .unwrap();
            let fit = learner.fit(&data).unwrap();
            let file = ModelFile::from_multiclass_fit(&fit, &learner, &data, None).unwrap();
            let again = ModelFile::from_json(&file.to_json().unwrap(), "m.json").unwrap();
            assert_eq!(again, file);
            let model = again.model.multiclass().unwrap();
            for scored in [&data, &sparse] {
                assert_eq!(
                    bits(&model.decision_function_dataset(scored.features()).unwrap()),
                    bits(&fit.decision_function(scored.features()).unwrap()),
                    "{rule:?}"
                );
            }
            assert_eq!(
                model.confusion(&data).unwrap(),
                fit.confusion(&data).unwrap()
            );
        }
    }

    #[test]
    fn one_vs_rest_keeps_each_class_s_own_predictor() {
        let data = three_classes();
        for variant in [Variant::Perceptron, Variant::Averaged, Variant::Pocket] {
            let learner = PerceptronParams::new()
                .bias(BiasRule::Classic)
                .max_epochs(3)
                .variant(variant);
            let ovr = OneVsRest::fit(&data, &BinaryLearner::Linear(learner.clone())).unwrap();
            let model = MulticlassModel::from_one_vs_rest(&ovr).unwrap();
            assert_eq!(
                bits(&model.decision_function_dataset(data.features()).unwrap()),
                bits(&ovr.decision_function(data.features()).unwrap()),
                "{variant:?}"
            );
            assert_eq!(
                model.confusion(&data).unwrap(),
                ovr.confusion,
                "{variant:?}"
            );
        }
        let voted = PerceptronParams::new().variant(Variant::Voted);
        let ovr = OneVsRest::fit(&data, &BinaryLearner::Linear(voted.clone())).unwrap();
        assert!(MulticlassModel::from_one_vs_rest(&ovr).is_err());
        let checked =
            OneVsRest::verify(&data, &BinaryLearner::Linear(PerceptronParams::new())).unwrap();
        let refusal = MulticlassModel::from_one_vs_rest(&checked)
            .unwrap_err()
            .to_string();
        assert!(refusal.contains("OneVsRest::fit"), "{refusal}");
    }

    #[test]
    fn inconsistent_models_are_refused() {
        let class = |d: usize| LinearModel::new(vec![1.0; d], 0.0, Summation::Fast).unwrap();
        let names = |k: usize| (0..k).map(|r| format!("c{r}")).collect::<Vec<_>>();
        let refuse = |classes: Vec<String>, models: Vec<LinearModel>, says: &str| {
            let error = MulticlassModel::new(Method::Kesler, classes, models)
                .unwrap_err()
                .to_string();
            assert!(error.contains(says), "{error} (should say {says})");
        };
        refuse(names(1), vec![class(2)], "at least two classes");
        refuse(names(3), vec![class(2); 2], "2 models for 3 classes");
        refuse(names(2), vec![class(2), class(3)], "takes 3 features");
        refuse(
            vec!["x".into(), String::new()],
            vec![class(1); 2],
            "empty name",
        );
        refuse(
            vec!["x".into(), "x".into()],
            vec![class(1); 2],
            "named twice",
        );
        let model = Model::Multiclass(
            MulticlassModel::new(Method::OneVsRest, names(2), vec![class(2); 2]).unwrap(),
        );
        let data = Dataset::new(array![[1.0, 2.0]], array![1.0]).unwrap();
        assert!(model.decision_function_dataset(&data).is_err());
        assert!(model.score(&data).is_err());
        let wrong = Dataset::new(array![[1.0]], array![1.0]).unwrap();
        assert!(
            model
                .multiclass()
                .unwrap()
                .decision_function_dataset(&wrong)
                .is_err()
        );
    }
}
