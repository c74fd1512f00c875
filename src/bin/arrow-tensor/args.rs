//! Command-line arguments shared by several subcommands, and the options they stand for.

use crate::files::FileOptions;
use arrow_tensor_ipc::record_batch::MessageOptions;
use arrow_tensor_ipc::ReadOptions;
use clap::Args;

/// Options shared by every subcommand that reads messages.
#[derive(Args, Debug, Clone, Copy)]
pub struct ReadArgs {
    /// Check only what safe reading needs (sizes and counts), not every rule on index
    /// values (bounds, ordering, indptr structure). Strict validation is the default.
    #[arg(long)]
    permissive: bool,
}

impl ReadArgs {
    /// The read options: strict, or permissive with `--permissive`.
    pub fn options(self) -> ReadOptions {
        if self.permissive {
            ReadOptions::permissive()
        } else {
            ReadOptions::strict()
        }
    }

    /// The options that turn record batches into tensors for `inspect`, `dump` and
    /// `validate` (`convert` and `tile` set their own from their command lines).
    pub fn message_options(self) -> MessageOptions {
        MessageOptions::default().with_limits(self.options().limits)
    }

    /// The options of the file-format readers for `inspect`, `dump` and `validate`.
    pub fn file_options(self) -> FileOptions {
        FileOptions {
            validation: self.options().validation,
            ..FileOptions::default()
        }
    }
}
