//! A small JSON writer: objects with keys in a fixed order, exact integers, round-trip
//! floats and the non-finite floats as strings, appended to a `String` without building an
//! intermediate tree (a tensor may hold millions of values).

use half::f16;
use std::fmt::Write;

/// A number that can be written as JSON.
pub trait JsonNumber: Copy {
    /// Appends the number.
    fn push_json(self, out: &mut String);
}

macro_rules! json_int {
    ($($t:ty),*) => {$(
        impl JsonNumber for $t {
            fn push_json(self, out: &mut String) {
                // Formatting into a String cannot fail.
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
json_int!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

impl JsonNumber for f64 {
    fn push_json(self, out: &mut String) {
        if self.is_nan() {
            out.push_str("\"NaN\"");
        } else if self == f64::INFINITY {
            out.push_str("\"Infinity\"");
        } else if self == f64::NEG_INFINITY {
            out.push_str("\"-Infinity\"");
        } else {
            match serde_json::Number::from_f64(self) {
                // Shortest representation that reads back to the same f64 (`-0.0` included).
                Some(n) => {
                    let _ = write!(out, "{n}");
                }
                None => out.push_str("null"),
            }
        }
    }
}

impl JsonNumber for f32 {
    fn push_json(self, out: &mut String) {
        f64::from(self).push_json(out);
    }
}

impl JsonNumber for f16 {
    fn push_json(self, out: &mut String) {
        self.to_f64().push_json(out);
    }
}

impl JsonNumber for arrow_tensor_ipc::Scalar {
    fn push_json(self, out: &mut String) {
        use arrow_tensor_ipc::Scalar;
        match self {
            Scalar::Int8(v) => v.push_json(out),
            Scalar::Int16(v) => v.push_json(out),
            Scalar::Int32(v) => v.push_json(out),
            Scalar::Int64(v) => v.push_json(out),
            Scalar::UInt8(v) => v.push_json(out),
            Scalar::UInt16(v) => v.push_json(out),
            Scalar::UInt32(v) => v.push_json(out),
            Scalar::UInt64(v) => v.push_json(out),
            Scalar::Float16(v) => v.push_json(out),
            Scalar::Float32(v) => v.push_json(out),
            Scalar::Float64(v) => v.push_json(out),
        }
    }
}

/// Appends a JSON string literal.
pub fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends a JSON array of numbers.
pub fn push_numbers<T: JsonNumber>(out: &mut String, values: impl IntoIterator<Item = T>) {
    out.push('[');
    for (i, v) in values.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        v.push_json(out);
    }
    out.push(']');
}

/// Appends a JSON array of strings.
pub fn push_strings<'a>(out: &mut String, values: impl IntoIterator<Item = &'a str>) {
    out.push('[');
    for (i, v) in values.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str(out, v);
    }
    out.push(']');
}

/// A JSON object being written: keys in the order they are added.
#[derive(Debug)]
pub struct Object {
    out: String,
    empty: bool,
}

impl Default for Object {
    fn default() -> Self {
        Self::new()
    }
}

impl Object {
    /// Starts an object.
    pub fn new() -> Self {
        Object {
            out: String::from("{"),
            empty: true,
        }
    }

    /// Writes a key and returns the buffer to write its value into.
    pub fn key(&mut self, key: &str) -> &mut String {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        push_str(&mut self.out, key);
        self.out.push(':');
        &mut self.out
    }

    /// A number value.
    pub fn number<T: JsonNumber>(&mut self, key: &str, value: T) {
        value.push_json(self.key(key));
    }

    /// A string value.
    pub fn string(&mut self, key: &str, value: &str) {
        push_str(self.key(key), value);
    }

    /// A boolean value.
    pub fn boolean(&mut self, key: &str, value: bool) {
        self.key(key).push_str(if value { "true" } else { "false" });
    }

    /// A null value.
    pub fn null(&mut self, key: &str) {
        self.key(key).push_str("null");
    }

    /// Closes the object and returns its text.
    pub fn finish(mut self) -> String {
        self.out.push('}');
        self.out
    }
}
