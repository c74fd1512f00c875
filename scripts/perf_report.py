#!/usr/bin/env python3
"""Renders docs/performance.md from the JSON lines of the side-by-side comparisons.

    scripts/perf_report.py COMPARE CONVERT MTX NPZ PYTHON ITER BUILD OUT.md
    scripts/perf_report.py --build BUILD OUT.md   (replaces the Build section of OUT.md)

The inputs are what `examples/compare.rs`, `examples/compare_convert.rs`,
`examples/compare_mtx.rs`, `examples/compare_npz.rs`, `python/bench/compare.py`,
`examples/compare_iter.rs` and `scripts/build-report.sh` print:
every line is one measurement (their headers describe the fields). The report is dated and names the machine and
the commit, so a reader can tell which code and which hardware produced each figure.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from typing import Any


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
            mem = f", {kib / (1 << 20):.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{model}, {os.cpu_count()} cores{mem}, {platform.system()} {platform.release()}"


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def seconds(v: Any) -> str:
    if v is None:
        return "-"
    v = float(v)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if v >= scale:
            return f"{v / scale:.2f} {unit}"
    return f"{v / 1e-9:.0f} ns"


def load(path: str) -> list[dict[str, Any]]:
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def table(rows: list[dict[str, Any]], columns: list[tuple[str, str]]) -> list[str]:
    out = ["| " + " | ".join(title for _, title in columns) + " |"]
    out.append("| " + " | ".join("---" for _ in columns) + " |")
    for r in rows:
        cells = []
        for key, _ in columns:
            v = r.get(key)
            if key.endswith("_s"):
                cells.append(seconds(v))
            elif v is None:
                cells.append("-")
            elif isinstance(v, float):
                cells.append(f"{v:.2f}")
            else:
                cells.append(str(v))
        out.append("| " + " | ".join(cells) + " |")
    return out


def all_keys(rows: list[dict[str, Any]]) -> list[str]:
    """The keys of `rows` in the order they first appear."""
    keys: list[str] = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    return keys


def build_section(rows: list[dict[str, Any]]) -> list[str]:
    """The "Build" section: each figure of `scripts/build-report.sh` beside its goal, then
    the functions that `cargo llvm-lines` finds with the most lines."""
    when = next((r for r in rows if r.get("figure") == "measured"), {})
    out = [
        "## Build (`scripts/build-report.sh`)",
        "",
        f"Measured {when.get('date', '?')} at commit `{when.get('commit', '?')}`: cold builds of"
        " a fresh clone on this machine (dependencies compiled",
        "from the local registry cache, not downloaded); seconds of wall time, or of a unit in",
        "`cargo --timings`.",
        "",
        "| figure | measured | goal | command |",
        "| --- | --- | --- | --- |",
    ]
    for r in rows:
        fig = r.get("figure")
        if fig in ("llvm_lines_top", "measured"):
            continue
        if "units_seconds" in r:
            units = r["units_seconds"]
            measured = " + ".join(f"{k} {v:.1f} s" for k, v in units.items())
            if len(units) > 1:
                measured += f" = {sum(units.values()):.1f} s"
            goal = f"<= {r['goal_seconds']} s"
        elif "seconds" in r:
            measured, goal = f"{r['seconds']:.1f} s", f"<= {r['goal_seconds']} s"
        elif "bytes" in r:
            measured, goal = f"{r['bytes'] / 1e6:.1f} MB", f"<= {r['goal_bytes'] / 1e6:.0f} MB"
        elif "lines" in r:
            measured, goal = f"{r['lines']} lines, {r['copies']} copies", "-"
        else:
            continue
        out.append(f"| {fig} | {measured} | {goal} | `{r['command']}` |")
    top = [r for r in rows if r.get("figure") == "llvm_lines_top"]
    if top:
        out += ["", "The functions with the most LLVM IR lines (all copies together):", ""]
        out += table(top, [("lines", "lines"), ("copies", "copies"), ("function", "function")])
    return out


def replace_build(build_path: str, out_path: str) -> None:
    """Replaces the "Build" section of an existing report with one from `build_path` (the
    build figures are measured apart from the comparisons: `scripts/build-report.sh`)."""
    with open(out_path) as f:
        lines = f.read().split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith("## Build")), None)
    section = build_section(load(build_path))
    if start is None:
        # Before the first section.
        start = next(i for i, l in enumerate(lines) if l.startswith("## "))
        lines[start:start] = section + [""]
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines[start:end] = section + [""]
    with open(out_path, "w") as f:
        f.write("\n".join(lines))


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--build":
        replace_build(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) != 9:
        sys.exit(__doc__)
    compare, convert, mtx, npz, python, iters, build = (load(p) for p in sys.argv[1:8])
    out_path = sys.argv[8]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Performance report",
        "",
        f"Written by `scripts/perf-report.sh` on {now}, commit `{commit()}`.",
        f"Machine: {machine()}.",
        "",
        "Each figure is a median after a warm-up; `ratio` is Arrow C++'s time over ours (above 1:",
        "we are faster); `memcpy` is a single-thread copy of the same byte count between",
        "pre-faulted buffers. Figures on a shared 2-core VM vary by 10-30% between runs: compare",
        "rows of one report, not rows of reports from different days.",
        "",
    ]
    lines += build_section(build)
    lines += [
        "",
        "## Codec (`cargo run --release --example compare --features mmap,record-batch -- --nnz 1000000,10000000`)",
        "",
    ]
    timed = [r for r in compare if "ours_s" in r]
    lines += table(
        timed,
        [
            ("op", "operation"),
            ("bytes", "bytes"),
            ("ours_s", "ours"),
            ("arrow_s", "Arrow C++"),
            ("ratio", "ratio"),
            ("memcpy_s", "memcpy"),
            ("gbps", "ours GB/s"),
            ("per", "what is timed"),
        ],
    )
    for r in compare:
        if "child" in r:
            child = r["child"] or {}
            kib = child.get("peak_rss_kib")
            lines += [
                "",
                f"`{r['op']}`: a fresh process decoding a {r['bytes'] >> 20} MiB dense message "
                f"from a memory map peaks at {kib / 1024:.1f} MiB resident."
                if kib is not None
                else f"`{r['op']}`: {child}",
            ]
    sections = [
        ("Layout conversions", "cargo run --release --example compare_convert", convert),
        (
            "Matrix Market and FROSTT files against scipy and pyarrow",
            "cargo run --release --example compare_mtx --features matrix-market,frostt,mmap"
            " -- --reps 3",
            mtx,
        ),
        (
            "`.npz` and `.npy` files against scipy and numpy",
            "cargo run --release --example compare_npz --features npy",
            npz,
        ),
        (
            "Walking a sparse tensor's entries from a dependent crate",
            "cargo run --release --example compare_iter",
            iters,
        ),
        (
            "The Python package against pyarrow and scipy",
            ".venv/bin/python python/bench/compare.py",
            python,
        ),
    ]
    for title, command, rows in sections:
        lines += ["", f"## {title} (`{command}`)", ""]
        lines += table(rows, [(k, k) for k in all_keys(rows)])
    lines.append("")
    # The large runs (tiling, Parquet, Dask) are measured by their own scripts; their
    # figures live in docs/performance-scale.md and are carried over as they stand.
    scale = os.path.join(os.path.dirname(out_path), "performance-scale.md")
    if os.path.exists(scale):
        with open(scale) as f:
            lines += ["", f.read().rstrip(), ""]
    with open(out_path, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
