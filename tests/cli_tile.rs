//! `arrow-tensor tile` and `convert DIR OUT`.
