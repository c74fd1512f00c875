//! Command-line arguments shared by several subcommands, and the options they stand for.

use arrow_tensor_ipc::input::InputOptions;
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

    /// How `inspect`, `dump` and `validate` read their inputs (`convert` and `tile` add
    /// their own flags to these).
    pub fn input_options(self) -> InputOptions<'static> {
        InputOptions::default().with_read_options(self.options())
    }
}
