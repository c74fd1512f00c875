//! The stable names of the error kinds.

use super::ErrorKind;

impl ErrorKind {
    /// A stable snake_case name of the variant (`"truncated"`, `"parse"`, ...), as the Python
    /// exception's `kind` attribute carries it.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::Io { .. } => "io",
            ErrorKind::Truncated { .. } => "truncated",
            ErrorKind::NegativeMetadataLength { .. } => "negative_metadata_length",
            ErrorKind::NegativeBodyLength { .. } => "negative_body_length",
            ErrorKind::LimitExceeded { .. } => "limit_exceeded",
            ErrorKind::InvalidFlatbuffer { .. } => "invalid_flatbuffer",
            ErrorKind::UnsupportedVersion { .. } => "unsupported_version",
            ErrorKind::NotATensor { .. } => "not_a_tensor",
            ErrorKind::UnknownUnion { .. } => "unknown_union",
            ErrorKind::MissingField { .. } => "missing_field",
            ErrorKind::UnsupportedValueType { .. } => "unsupported_value_type",
            ErrorKind::UnsupportedIndexType { .. } => "unsupported_index_type",
            ErrorKind::Negative { .. } => "negative",
            ErrorKind::Overflow { .. } => "overflow",
            ErrorKind::CountMismatch { .. } => "count_mismatch",
            ErrorKind::InvalidRank { .. } => "invalid_rank",
            ErrorKind::BufferOutOfBody { .. } => "buffer_out_of_body",
            ErrorKind::BufferTooShort { .. } => "buffer_too_short",
            ErrorKind::Misaligned { .. } => "misaligned",
            ErrorKind::Overlap { .. } => "overlap",
            ErrorKind::InvalidStrides { .. } => "invalid_strides",
            ErrorKind::IndexOutOfBounds { .. } => "index_out_of_bounds",
            ErrorKind::CoordinateOutOfRange { .. } => "coordinate_out_of_range",
            ErrorKind::NotIncreasing { .. } => "not_increasing",
            ErrorKind::DuplicateCoordinate { .. } => "duplicate_coordinate",
            ErrorKind::InvalidIndptr { .. } => "invalid_indptr",
            ErrorKind::NotAPermutation { .. } => "not_a_permutation",
            ErrorKind::InvalidCooStrides { .. } => "invalid_coo_strides",
            ErrorKind::TypeMismatch { .. } => "type_mismatch",
            ErrorKind::IndexTypeTooNarrow { .. } => "index_type_too_narrow",
            ErrorKind::NotArrowCompatible { .. } => "not_arrow_compatible",
            ErrorKind::PartialValue { .. } => "partial_value",
            ErrorKind::UnsupportedLayout { .. } => "unsupported_layout",
            ErrorKind::IndexDoesNotFit { .. } => "index_does_not_fit",
            ErrorKind::Empty { .. } => "empty",
            ErrorKind::Selection { .. } => "selection",
            ErrorKind::DuplicateName { .. } => "duplicate_name",
            ErrorKind::Refused { .. } => "refused",
            ErrorKind::OutOfRange { .. } => "out_of_range",
            ErrorKind::OutputTooSmall { .. } => "output_too_small",
            ErrorKind::ReservedName { .. } => "reserved_name",
            ErrorKind::Internal { .. } => "internal",
            ErrorKind::AllocationFailed { .. } => "allocation_failed",
            ErrorKind::InvalidColumn { .. } => "invalid_column",
            ErrorKind::ColumnLimitExceeded { .. } => "column_limit_exceeded",
            ErrorKind::NullCell { .. } => "null_cell",
            ErrorKind::CoordinateOutOfBounds { .. } => "coordinate_out_of_bounds",
            ErrorKind::Inconsistent { .. } => "inconsistent",
            ErrorKind::InvalidMetadata { .. } => "invalid_metadata",
            #[cfg(feature = "record-batch")]
            ErrorKind::Arrow { .. } => "arrow",
            ErrorKind::Parse { .. } => "parse",
            ErrorKind::WorkerFailed { .. } => "worker_failed",
            ErrorKind::UnsupportedKind { .. } => "unsupported_kind",
            ErrorKind::InputIo { .. } => "input_io",
            ErrorKind::InputTensorFailed { .. } => "input_tensor_failed",
            ErrorKind::Dataset { .. } => "dataset",
            ErrorKind::DatasetFile { .. } => "dataset_file",
            ErrorKind::InvalidParquet { .. } => "invalid_parquet",
            ErrorKind::ParquetPanicked { .. } => "parquet_panicked",
            #[cfg(feature = "parquet")]
            ErrorKind::Parquet { .. } => "parquet",
            #[cfg(feature = "object-store")]
            ErrorKind::ObjectStore { .. } => "object_store",
        }
    }
}
