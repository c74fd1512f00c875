//! A progress bar on standard error for `convert` on large inputs.
//!
//! One line, redrawn in place (`\r`) at most ten times a second and after every message:
//! a bar and percentage of the input bytes read so far, those bytes against the file
//! size, the number of messages written and what is being done to the current one. The
//! last drawing ends the line. Shown by default only when standard error is a terminal and
//! the input holds at least [`LARGE`] bytes; `--progress` forces it (also into a pipe or a
//! file), `--no-progress` turns it off.

use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// Inputs of at least this many bytes get a progress bar by default.
pub const LARGE: u64 = 64 << 20;

/// Characters of the bar between its brackets.
const WIDTH: usize = 30;

/// Minimum time between two drawings (besides the one after each message).
const EVERY: Duration = Duration::from_millis(100);

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

/// The progress line of one conversion.
pub struct Progress {
    /// Size of the input file in bytes (0 when unknown).
    total: u64,
    on: bool,
    last: Option<Instant>,
}

impl Progress {
    /// A progress line for an input of `total` bytes.
    pub fn new(total: u64, when: When) -> Self {
        let on = match when {
            When::Always => true,
            When::Never => false,
            When::Auto => total >= LARGE && io::stderr().is_terminal(),
        };
        Progress {
            total,
            on,
            last: None,
        }
    }

    /// Reports `done` input bytes consumed, `messages` written, now at `stage` (drawn when
    /// the last drawing is older than [`EVERY`], or when `force`).
    pub fn update(&mut self, done: u64, messages: u64, stage: &str, force: bool) {
        if !self.on {
            return;
        }
        let now = Instant::now();
        if !force && self.last.is_some_and(|t| now.duration_since(t) < EVERY) {
            return;
        }
        self.last = Some(now);
        self.draw(done, messages, stage, "");
    }

    /// Draws the final state and ends the line.
    pub fn finish(&mut self, done: u64, messages: u64, stage: &str) {
        if self.on {
            self.draw(done, messages, stage, "\n");
            self.on = false;
        }
    }

    fn draw(&self, done: u64, messages: u64, stage: &str, end: &str) {
        let line = render(done, self.total, messages, stage);
        let stderr = io::stderr();
        // On a terminal, clear what a longer previous line left behind.
        let clear = if stderr.is_terminal() { "\x1b[K" } else { "" };
        // A progress line is not worth failing a conversion over.
        let _ = write!(stderr.lock(), "\r{line}{clear}{end}");
    }
}

/// The text of the progress line (without the carriage return).
pub fn render(done: u64, total: u64, messages: u64, stage: &str) -> String {
    let fraction = if total == 0 {
        1.0
    } else {
        (done.min(total) as f64 / total as f64).clamp(0.0, 1.0)
    };
    let filled = ((fraction * WIDTH as f64).round() as usize).min(WIDTH);
    let bar: String = "#".repeat(filled) + &"-".repeat(WIDTH - filled);
    let plural = if messages == 1 { "message" } else { "messages" };
    format!(
        "[{bar}] {:>3}%  {} / {}  {messages} {plural} written  {stage}",
        (fraction * 100.0).floor() as u32,
        human(done.min(total.max(done))),
        human(total)
    )
}

/// A byte count with a binary unit (`1.5 GiB`).
fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_bar_percentage_sizes_and_stage() {
        assert_eq!(
            render(0, 200 << 20, 0, "reading"),
            "[------------------------------]   0%  0 B / 200.0 MiB  0 messages written  reading"
        );
        assert_eq!(
            render(100 << 20, 200 << 20, 1, "converting"),
            "[###############---------------]  50%  100.0 MiB / 200.0 MiB  1 message written  converting"
        );
        assert_eq!(
            render(3 << 30, 3 << 30, 7, "done"),
            "[##############################] 100%  3.0 GiB / 3.0 GiB  7 messages written  done"
        );
        // An empty or unknown-size input counts as complete.
        assert!(render(0, 0, 0, "done").contains("100%"));
    }
}
