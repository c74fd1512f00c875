//! [`CustomMetadata`]: the key/value list of an Arrow `Message` table
//! (`custom_metadata: [KeyValue]` in `format/Message.fbs`), carried by [`Tensor`](crate::Tensor)
//! and [`SparseTensor`](crate::SparseTensor).

use std::sync::Arc;

/// The key under which a tensor's name is kept in its [`CustomMetadata`]:
/// `arrow_tensor_ipc.name`.
///
/// The `.npz` bundle reader (`formats::npz::read`, feature `npy`) puts each
/// member's name there (the key `numpy.load` gives it: the member's file name without
/// `.npy`), and the bundle writer takes member names from it.
/// [`Message::name`](crate::Message::name) reads it.
pub const NAME_KEY: &str = "arrow_tensor_ipc.name";

/// The `custom_metadata` of a message: an ordered list of key/value pairs, as the
/// `Message` flatbuffer holds it (keys need not be unique; order is kept).
///
/// Arrow C++ reads and ignores a tensor message's `custom_metadata`; this crate keeps it
/// when decoding and writes it back when encoding. Cloning is cheap (the pairs are shared).
///
/// ```
/// use arrow_tensor_ipc::{CustomMetadata, Tensor, NAME_KEY};
/// let t = Tensor::from_vec(vec![2], vec![1i32, 2])?
///     .with_custom_metadata(CustomMetadata::new([(NAME_KEY, "weights"), ("unit", "m")]));
/// let m = t.custom_metadata().unwrap();
/// assert_eq!(m.get(NAME_KEY), Some("weights"));
/// assert_eq!(m.len(), 2);
/// # Ok::<(), arrow_tensor_ipc::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CustomMetadata(Arc<[(String, String)]>);

impl CustomMetadata {
    /// A list of the given pairs, in order.
    pub fn new<K: Into<String>, V: Into<String>>(pairs: impl IntoIterator<Item = (K, V)>) -> Self {
        pairs.into_iter().collect()
    }

    /// The pairs, in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }

    /// The value of the first pair with this key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the list has no pair (an empty list is still written, as an empty vector).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The pairs, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// This list with `key` set to `value`: the first pair with the key gets the value (the
    /// others with it are dropped), or the pair is appended.
    pub fn with(&self, key: &str, value: &str) -> Self {
        let mut out: Vec<(String, String)> = Vec::with_capacity(self.0.len() + 1);
        let mut set = false;
        for (k, v) in self.0.iter() {
            if k == key {
                if !set {
                    out.push((k.clone(), value.to_string()));
                    set = true;
                }
            } else {
                out.push((k.clone(), v.clone()));
            }
        }
        if !set {
            out.push((key.to_string(), value.to_string()));
        }
        CustomMetadata(out.into())
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for CustomMetadata {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        CustomMetadata(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect::<Vec<_>>()
                .into(),
        )
    }
}
