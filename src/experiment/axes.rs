//! The axes of the training grid as a spec spells them: orders by name, bias rules by name.

use serde::{Deserialize, Serialize};

/// An order of the training grid. A shuffled order runs once per replicate of
/// [`TrainGrid::seeds`](super::TrainGrid::seeds), each with its own seed derived from the spec's seed and the task.
///
/// ```
/// assert_eq!(novikoff::experiment::GridOrder::Shuffle.name(), "shuffle");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GridOrder {
    /// The rows in their stored order, every epoch.
    Cyclic,
    /// A seeded reshuffle every epoch.
    Shuffle,
}

impl GridOrder {
    /// The name the spec, the task keys and the results use.
    ///
    /// ```
    /// assert_eq!(novikoff::experiment::GridOrder::Cyclic.name(), "cyclic");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            GridOrder::Cyclic => "cyclic",
            GridOrder::Shuffle => "shuffle",
        }
    }
}

/// The spec spells a bias rule by its name ([`BiasRule::parse`](crate::perceptron::BiasRule::parse), [`BiasRule::name`](crate::perceptron::BiasRule::name)).
pub(super) mod rule_names {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    use crate::perceptron::BiasRule;

    pub(in crate::experiment) fn serialize<S: Serializer>(
        rules: &[BiasRule],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(rules.iter().map(|r| r.name()))
    }

    pub(in crate::experiment) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<BiasRule>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|name| {
                BiasRule::parse(name).map_err(|e| D::Error::custom(format!("train.rules: {e}")))
            })
            .collect()
    }
}

/// The spec spells a variant by its name ([`Variant::parse`](crate::perceptron::Variant::parse),
/// [`Variant::name`](crate::perceptron::Variant::name)).
pub(super) mod variant_names {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    use crate::perceptron::Variant;

    pub(in crate::experiment) fn serialize<S: Serializer>(
        variants: &[Variant],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(variants.iter().map(|v| v.name()))
    }

    pub(in crate::experiment) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<Variant>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|name| {
                Variant::parse(name)
                    .and_then(Variant::check)
                    .map_err(|e| D::Error::custom(format!("train.variants: {e}")))
            })
            .collect()
    }
}

/// `variants` of a `[[dataset]]` entry: absent, or a list of names.
pub(super) mod optional_variant_names {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    use crate::perceptron::Variant;

    pub(in crate::experiment) fn serialize<S: Serializer>(
        variants: &Option<Vec<Variant>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match variants {
            Some(variants) => s.collect_seq(variants.iter().map(|v| v.name())),
            None => s.serialize_none(),
        }
    }

    pub(in crate::experiment) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<Variant>>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|name| {
                Variant::parse(name)
                    .and_then(Variant::check)
                    .map_err(|e| D::Error::custom(format!("variants: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}
