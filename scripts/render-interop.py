#!/usr/bin/env python3
"""Renders docs/interop.md from the interop matrix's JSON-line records (scripts/interop-matrix).

Usage: render-interop.py RECORDS_DIR > docs/interop.md   (reads RECORDS_DIR/{cpu,cuda}.jsonl)
"""

import collections
import json
import pathlib
import re
import sys

CASES = ["float32", "int64", "bool", "empty", "strided2d"]
SYMBOL = {"zero-copy": "✅", "ok": "✅", "copy": "📋", "unsupported": "❌", "wrong": "💥", "unavailable": "⚪"}
TITLE = {"cpu": "CPU rows (run in CI)", "cuda": "GPU rows (run by the lead on the GPU machine)"}


def load(path):
    meta, cells = None, []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if r.get("meta"):
            meta = r
        else:
            cells.append(r)
    return meta, cells


def order(cells, key):
    seen = []
    for c in cells:
        if c[key] not in seen:
            seen.append(c[key])
    return seen


def summary(by_case):
    """One cell of the main table: the symbol for the common result, and the cases that differ."""
    results = {case: by_case[case]["result"] for case in CASES if case in by_case}
    if not results:
        return ""
    if all(r == "unavailable" for r in results.values()):
        return SYMBOL["unavailable"]
    normal = [c for c, r in results.items() if r in ("zero-copy", "ok")]
    others = [(c, r) for c, r in results.items() if r not in ("zero-copy", "ok")]
    text = SYMBOL["zero-copy"] if normal else ""
    groups = collections.defaultdict(list)
    for case, result in others:
        groups[result].append(case)
    for result, cases in groups.items():
        text += f" {SYMBOL[result]} {', '.join(cases)}"
    return text.strip()


def note(recipe):
    """A recipe's comment, as text after the code."""
    return f" ({recipe.split('  # ', 1)[1]})" if "  # " in recipe else ""


def render_device(device, meta, cells, out):
    out.append(f"## {TITLE[device]}\n")
    if meta:
        versions = ", ".join(f"{k} {v}" for k, v in sorted(meta["versions"].items()))
        out.append(
            f"Measured with zeroflow {meta['zeroflow']}, Python {meta['python']} ({meta['machine']}); {versions}.\n"
        )
    sources, targets = order(cells, "source"), order(cells, "target")
    grid = collections.defaultdict(dict)
    for c in cells:
        grid[(c["source"], c["target"])][c["case"]] = c
    out.append(
        "Rows: where the array starts; columns: where it ends, through zeroflow "
        "(`export(zf.asarray(x))`). A cell lists the cases that did not stay zero-copy.\n"
    )
    out.append("| from \\ to | " + " | ".join(targets) + " |")
    out.append("|---" * (len(targets) + 1) + "|")
    for s in sources:
        out.append(f"| **{s}** | " + " | ".join(summary(grid[(s, t)]) for t in targets) + " |")
    out.append("")

    if meta and meta.get("recipes"):
        out.append("| framework | into zeroflow | out of zeroflow (`a` is a zeroflow array) |")
        out.append("|---|---|---|")
        for key, (into, out_of) in meta["recipes"].items():
            d, name = key.split(":", 1)
            if d == device and name != "zeroflow":
                into_code, out_code = into.split("  #")[0], out_of.split("  #")[0]
                out.append(f"| {name} | `{into_code}`{note(into)} | `{out_code}`{note(out_of)} |")
        out.append("")

    # Recipes: the one line of each cell is export(import).
    recipes = {}
    for c in cells:
        if c.get("recipe"):
            recipes[(c["source"], c["target"])] = c["recipe"]
    out.append("<details><summary>The one-line recipe of every cell</summary>\n")
    out.append("| from | to | recipe |")
    out.append("|---|---|---|")
    for (s, t), recipe in recipes.items():
        out.append(f"| {s} | {t} | `{recipe}` |")
    out.append("\n</details>\n")

    copies = collections.defaultdict(list)
    failures = []
    for c in cells:
        if c["result"] == "copy":
            reason = re.sub(r"; this one is \d+ bytes off", "", c.get("reason") or "(no reason recorded)")
            copies[reason].append(f"{c['source']}→{c['target']} ({c['case']})")
        elif c["result"] in ("unsupported", "wrong"):
            failures.append(f"- {c['source']}→{c['target']} ({c['case']}): {c['result']}: {c['detail']}")
    if copies:
        out.append("**Why the copies happen** (measured; each is unavoidable with the framework's layout rules):\n")
        for reason, where in copies.items():
            shown = ", ".join(where[:8]) + (f" and {len(where) - 8} more" if len(where) > 8 else "")
            # The alignment reason carries the measured offset; group it under one line.
            out.append(f"- {reason}: {shown}")
        out.append("")
    if failures:
        out.append("**Unsupported or wrong:**\n")
        out.extend(failures)
        out.append("")
    missing = {}
    for c in cells:
        if (
            c["result"] == "unavailable"
            and c["source"] not in missing
            and all(x["result"] == "unavailable" for x in cells if x["source"] == c["source"])
        ):
            missing[c["source"]] = c["detail"]
    if missing:
        out.append("**Rows not run here:**\n")
        out.extend(f"- {name}: {why}" for name, why in missing.items())
        out.append("")

    out.append("<details><summary>Every cell, case by case</summary>\n")
    for case in CASES:
        out.append(f"**{case}**\n")
        out.append("| from \\ to | " + " | ".join(targets) + " |")
        out.append("|---" * (len(targets) + 1) + "|")
        for s in sources:
            row = [SYMBOL[grid[(s, t)][case]["result"]] if case in grid[(s, t)] else "" for t in targets]
            out.append(f"| {s} | " + " | ".join(row) + " |")
        out.append("")
    out.append("</details>\n")


def main():
    folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "docs/interop-records")
    out = [
        "# Interop matrix",
        "",
        "<!-- Generated by scripts/interop-matrix from python/tests/test_interop_matrix.py; do not edit. -->",
        "",
        "The cheat sheet of seeds/001 (Pandas, NumPy, cuDF, CuPy, JAX, Numba, TensorFlow, PyTorch, MXNet), "
        "measured through zeroflow: for each case — a float32, an int64, a bool, a 0-size array and a 2-D "
        "strided view (`base[::2, 1::3]`) — the array is made in the row's framework, taken with "
        "`zf.asarray` and handed to the column's framework with its recipe. Values are checked in every "
        "cell; **✅ zero-copy** means the column's array has the row's data pointer (for 0-size arrays, "
        "which have no data, ✅ means right shape and dtype), **📋 copy** means right values in new memory "
        "(the reasons are listed under each table), **❌ unsupported** means the move raised, "
        "**⚪** means the framework is not available on that machine.",
        "",
        "Recipes into zeroflow: `zf.asarray(x)` for every framework (DLPack, CUDA Array Interface, Arrow "
        "PyCapsules or NumPy's array interface, whichever the object speaks; `zf.as_table` for tables). "
        "Out of zeroflow: each framework's own DLPack or Arrow import (below).",
        "",
    ]
    for device in ("cpu", "cuda"):
        path = folder / f"{device}.jsonl"
        if path.exists():
            meta, cells = load(path)
            render_device(device, meta, cells, out)
        else:
            out.append(f"## {TITLE[device]}\n")
            out.append(
                f"Not measured yet: run `scripts/interop-matrix --device {device}` "
                + ("on the GPU machine." if device == "cuda" else ".")
            )
            out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
