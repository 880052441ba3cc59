"""Facts of the Delta protocol that every layer reads: table features and table properties.

This is the bottom layer: it imports nothing else from acidsql. The engine's protocol checks,
DROP FEATURE, property validation, the analyzer's view of a table and the README's feature
table all read these records, so that what acidsql *knows* about a feature and what it
*supports* are stated once, side by side (compare delta-kernel-rs
`kernel/src/table_features/`, and Delta's `TableFeature.scala`).
"""
from acidsql.protocol.features import (
    FEATURES, Activation, Droppable, FeatureKind, TableFeature, UnknownFeatureError, WriteKind, feature,
    features_enabled_by, known_feature,
)
from acidsql.protocol.properties import (
    FEATURE_PROPERTY_PREFIX, PROTOCOL_VERSION_PROPERTIES, IsolationLevel, PropertyError, is_protocol_property,
    validate_properties,
)

__all__ = [
    "FEATURES", "FEATURE_PROPERTY_PREFIX", "PROTOCOL_VERSION_PROPERTIES", "Activation", "Droppable", "FeatureKind",
    "IsolationLevel", "PropertyError", "TableFeature", "UnknownFeatureError", "WriteKind", "feature",
    "features_enabled_by", "is_protocol_property", "known_feature", "validate_properties",
]
