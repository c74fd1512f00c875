//! The progress bar of `convert` on large inputs, drawn by `indicatif` on standard error.
//!
//! One line: a bar as wide as the terminal and percentage of the input bytes read so far,
//! those bytes against the input's size, the rate and the time left, the number of
//! messages written and what is being done to the current one (for an input of unknown
//! size, standard input read as it comes: a spinner, the bytes read and the rate). Shown by
//! default only when standard error is a terminal and the input holds at least [`LARGE`]
//! bytes; `--progress` forces it (also into a pipe or a file, where it is redrawn after
//! carriage returns as if on a terminal of [`PLAIN_WIDTH`] columns, and the last drawing
//! ends the line), `--no-progress` turns it off.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::io::{self, IsTerminal, Write};

/// Inputs of at least this many bytes get a progress bar by default.
pub const LARGE: u64 = 64 << 20;

/// The line width of a bar drawn into a pipe or a file.
pub const PLAIN_WIDTH: u16 = 120;

/// Drawings per second, at most.
const HZ: u8 = 10;

/// When to show the bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// For inputs of at least [`LARGE`] bytes, when standard error is a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Whether a bar is drawn for an input of `total` bytes (0: unknown), given `when` and
/// whether standard error is a terminal.
pub fn shown(when: When, total: u64, terminal: bool) -> bool {
    match when {
        When::Always => true,
        When::Never => false,
        When::Auto => total >= LARGE && terminal,
    }
}

/// The progress line of one conversion.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Whether the bar is drawn into a pipe or a file (which then gets the line's end).
    plain: bool,
}

impl Progress {
    /// A progress line for an input of `total` bytes (0 when unknown).
    pub fn new(total: u64, when: When) -> Self {
        let terminal = io::stderr().is_terminal();
        if !shown(when, total, terminal) {
            return Progress {
                bar: None,
                plain: false,
            };
        }
        let target = if terminal {
            ProgressDrawTarget::stderr_with_hz(HZ)
        } else {
            ProgressDrawTarget::term_like_with_hz(Box::new(PlainStderr), HZ)
        };
        let (bar, template) = if total == 0 {
            (
                ProgressBar::no_length(),
                "{spinner} {bytes}  {binary_bytes_per_sec}  {msg}",
            )
        } else {
            (
                ProgressBar::new(total),
                "[{wide_bar}] {percent:>3}%  {bytes} / {total_bytes}  {binary_bytes_per_sec}  \
                 ETA {eta}  {msg}",
            )
        };
        // The templates are constants: a template error is a bug, shown as a bare bar.
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("#>-");
        bar.set_style(style);
        bar.set_draw_target(target);
        Progress {
            bar: Some(bar),
            plain: !terminal,
        }
    }

    /// Whether the bar is drawn.
    #[cfg(test)]
    pub fn is_shown(&self) -> bool {
        self.bar.is_some()
    }

    /// Reports `done` input bytes consumed, `messages` written, now at `stage`.
    pub fn update(&self, done: u64, messages: u64, stage: &str) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(status(messages, stage));
        }
    }

    /// Draws the final state and ends the line.
    pub fn finish(&mut self, done: u64, messages: u64, stage: &str) {
        if let Some(bar) = self.bar.take() {
            if let Some(len) = bar.length() {
                bar.set_length(len.max(done));
            }
            bar.set_position(done);
            bar.finish_with_message(status(messages, stage));
            if self.plain {
                // A progress line is not worth failing a conversion over.
                let _ = writeln!(io::stderr().lock());
            }
        }
    }
}

/// `3 messages written  converting`
fn status(messages: u64, stage: &str) -> String {
    let plural = if messages == 1 { "message" } else { "messages" };
    format!("{messages} {plural} written  {stage}")
}

/// Standard error when it is not a terminal (a pipe or a file): the line is redrawn after
/// a carriage return, without cursor movements and without the blanks that fill a
/// terminal's line.
#[derive(Debug)]
struct PlainStderr;

impl TermLike for PlainStderr {
    fn width(&self) -> u16 {
        PLAIN_WIDTH
    }

    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        writeln!(io::stderr().lock(), "{s}")
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        if s.bytes().all(|b| b == b' ') {
            return Ok(());
        }
        write!(io::stderr().lock(), "{s}")
    }

    fn clear_line(&self) -> io::Result<()> {
        write!(io::stderr().lock(), "\r")
    }

    fn flush(&self) -> io::Result<()> {
        io::stderr().lock().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_by_default_only_for_large_inputs_on_a_terminal() {
        assert!(shown(When::Auto, LARGE, true));
        assert!(!shown(When::Auto, LARGE, false), "not a terminal");
        assert!(!shown(When::Auto, LARGE - 1, true), "small input");
        assert!(!shown(When::Auto, 0, true), "unknown size");
        assert!(shown(When::Always, 0, false));
        assert!(!shown(When::Never, LARGE, true));
        // The test harness captures standard error: no bar unless forced.
        assert!(!Progress::new(LARGE, When::Auto).is_shown() || io::stderr().is_terminal());
        assert!(!Progress::new(LARGE, When::Never).is_shown());
    }

    #[test]
    fn status_names_messages_and_stage() {
        assert_eq!(status(1, "writing"), "1 message written  writing");
        assert_eq!(status(6, "done"), "6 messages written  done");
    }
}
