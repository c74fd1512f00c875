//! placeholder
pub mod gen;
