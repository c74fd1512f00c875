//! [`TensorInfo`]: a tensor's description without its data.

use crate::{SparseFormat, SparseTensor, Tensor, ValueType};

/// What describes a tensor without its data: shape, dimension names, value type and the
/// layout it has (or had: what a dataset records of the tensor it was cut from, and the
/// layout reassembly gives by default).
///
/// ```
/// use arrow_tensor_ipc::{SparseFormat, TensorInfo, ValueType};
/// let info = TensorInfo::new([100, 80], ValueType::Float32)
///     .with_dim_names(["row", "col"])
///     .with_format(SparseFormat::Csr);
/// assert_eq!(info.dim_names, ["row", "col"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TensorInfo {
    /// The shape of the whole tensor.
    pub shape: Vec<usize>,
    /// The dimension names, one per dimension, `""` where unnamed.
    pub dim_names: Vec<String>,
    /// The type of the values.
    pub value_type: ValueType,
    /// The layout the tensor had ([`SparseFormat::Coo`] for a dense tensor).
    pub format: SparseFormat,
    /// The CSF axis order, for `format` CSF (`None`: the identity).
    pub axis_order: Option<Vec<usize>>,
}

impl TensorInfo {
    /// A COO tensor of `shape` and `value_type`, its dimensions unnamed.
    pub fn new(shape: impl AsRef<[usize]>, value_type: ValueType) -> Self {
        let shape = shape.as_ref().to_vec();
        TensorInfo {
            dim_names: vec![String::new(); shape.len()],
            shape,
            value_type,
            format: SparseFormat::Coo,
            axis_order: None,
        }
    }

    /// What a dataset of `tensor` records (shape, names, value type, layout, CSF axis
    /// order).
    pub fn of_sparse(tensor: &SparseTensor) -> Self {
        let axis_order = match tensor.index() {
            crate::SparseIndex::Csf(c) => Some(c.axis_order().to_vec()),
            _ => None,
        };
        TensorInfo {
            shape: tensor.shape().to_vec(),
            dim_names: names_or_empty(tensor.dim_names(), tensor.ndim()),
            value_type: tensor.value_type(),
            format: tensor.format(),
            axis_order,
        }
    }

    /// What a dataset of the dense `tensor` records (layout COO).
    pub fn of_dense(tensor: &Tensor) -> Self {
        TensorInfo {
            shape: tensor.shape().to_vec(),
            dim_names: names_or_empty(tensor.dim_names(), tensor.ndim()),
            value_type: tensor.value_type(),
            format: SparseFormat::Coo,
            axis_order: None,
        }
    }

    /// Sets the dimension names (one per dimension; `""` for an unnamed one).
    pub fn with_dim_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.dim_names = names.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the layout recorded (the default of reassembly).
    pub fn with_format(mut self, format: SparseFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets the CSF axis order recorded.
    pub fn with_axis_order(mut self, order: Option<Vec<usize>>) -> Self {
        self.axis_order = order;
        self
    }

    /// The rank.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
}

fn names_or_empty(names: &[String], ndim: usize) -> Vec<String> {
    if names.len() == ndim {
        names.to_vec()
    } else {
        vec![String::new(); ndim]
    }
}
