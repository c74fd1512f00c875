//! Bridges to the Rust crates people compute with, each behind its own cargo feature:
//! dense tensors as [`ndarray`](https://docs.rs/ndarray) arrays (feature `ndarray`) and
//! CSR/CSC/COO sparse tensors as [`sprs`](https://docs.rs/sprs) matrices (feature `sprs`),
//! without copying where the layouts allow.

#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "sprs")]
pub mod sprs;
