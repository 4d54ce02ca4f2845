#!/usr/bin/env python3
"""Draws the loading benchmark's JSON (bench/loading_bench.cpp) as the talk's chart and prints
its table in Markdown, for docs/loading.md.

    python bench/loading_chart.py loading.json [--png docs/img/loading.png]

One group of bars per file size: GB/s of each way into GPU memory, cold (page cache dropped
first) and warm, with the run's own limits drawn as lines: the disk's read bandwidth (O_DIRECT),
the page cache's read bandwidth (every core) and pinned host -> device copies.
"""

import argparse
import json
import sys


def limits(size):
    rows = {(r["method"], r["cache"]): r for r in size["rows"] if "gb_per_s" in r}
    disk = (rows.get(("disk read (O_DIRECT)", "cold")) or rows.get(("disk read (buffered, cold)", "cold")) or {}).get(
        "gb_per_s"
    )
    cache = rows.get(("page cache read (pread)", "warm"), {}).get("gb_per_s")
    return disk, cache


def table(report):
    out = []
    h2d = report["pinned_h2d_gb_per_s"]
    m = report["machine"]
    out.append(
        f"GPU {m['gpu']}, {m['threads_used']} threads, files on {m['file_system']} ({m['dir']}); "
        f"KvikIO {m['kvikio']}, GDS mode: {m['gds_mode']} ({m['gds_reason']}). "
        f"Page cache dropped with {m['page_cache_drop']}. Pinned host -> device: {h2d:.1f} GB/s."
    )
    out.append("")
    out.append("| size | way into GPU memory | cache | GB/s (best) | median s | % of its limit |")
    out.append("|---|---|---|---|---|---|")
    for size in report["sizes"]:
        disk, cache = limits(size)
        for r in size["rows"]:
            if "skipped" in r:
                out.append(f"| {size['gb']:g} GB | {r['method']} | {r['cache']} | skipped: {r['skipped']} | | |")
                continue
            limit = None
            if r["method"].startswith(("disk", "page cache")):
                pct = ""
            else:
                limit = disk if r["cache"] == "cold" else (min(cache, h2d) if cache else h2d)
                pct = f"{100 * r['gb_per_s'] / limit:.0f} %" if limit else ""
            flag = "" if r.get("verified", True) else " (bytes differ!)"
            out.append(
                f"| {size['gb']:g} GB | {r['method']}{flag} | {r['cache']} | {r['gb_per_s']:.2f} | "
                f"{r['seconds_median']:.3f} | {pct} |"
            )
    if report.get("binary_vs_csv"):
        out.append("")
        out.append("| recording as | bytes | best ms | median ms | samples/s |")
        out.append("|---|---|---|---|---|")
        for r in report["binary_vs_csv"]:
            out.append(
                f"| {r['format']} | {r['bytes']:,} | {1e3 * r['seconds_best']:.2f} | "
                f"{1e3 * r['seconds_median']:.2f} | {r['samples_per_s'] / 1e9:.2f} G |"
            )
    return "\n".join(out)


def chart(report, png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = report["sizes"]
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.5 * len(sizes), 5.5), sharey=True, squeeze=False)
    h2d = report["pinned_h2d_gb_per_s"]
    for ax, size in zip(axes[0], sizes):
        rows = [r for r in size["rows"] if "gb_per_s" in r and not r["method"].startswith(("disk", "page cache"))]
        labels = [f"{r['method']}\n{r['cache']}" for r in rows]
        colors = ["#4c72b0" if r["cache"] == "warm" else "#dd8452" for r in rows]
        ax.barh(range(len(rows)), [r["gb_per_s"] for r in rows], color=colors)
        ax.set_yticks(range(len(rows)), labels, fontsize=8)
        disk, cache = limits(size)
        for value, name, style in (
            (disk, "disk read", ":"),
            (cache, "page cache read", "--"),
            (h2d, "pinned H2D", "-."),
        ):
            if value:
                ax.axvline(value, color="black", linestyle=style, linewidth=1)
                ax.text(value, len(rows) - 0.5, f" {name}\n {value:.1f}", fontsize=7, va="top")
        ax.set_title(f"{size['gb']:g} GB file")
        ax.set_xlabel("GB/s into GPU memory")
        ax.invert_yaxis()
    m = report["machine"]
    fig.suptitle(
        f"File -> GPU memory on {m['gpu']}, GDS mode: {m['gds_mode']}\norange: cold (page cache dropped), blue: warm"
    )
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json")
    parser.add_argument("--png", help="write the chart here (needs matplotlib)")
    args = parser.parse_args()
    with open(args.json) as f:
        report = json.load(f)
    print(table(report))
    if args.png:
        try:
            chart(report, args.png)
        except ImportError:
            print("no matplotlib here: draw the chart on a machine with it (the JSON is all it needs)", file=sys.stderr)
            return 1
        print(f"wrote {args.png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
