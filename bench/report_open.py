"""report.html of a 22-hour recording: its size, and how long Chromium takes to show it.

Usage: python3 bench/report_open.py [--zeroflow build/default/zeroflow] [--hours 22.3] [--epochs 1]
                                    [--device cpu] [--runs 5] [--folder DIR] [--screenshots DIR]

Generates (once, cached in --folder) `zeroflow generate --hours 22.3`, i.e. 20 M samples at
250 Hz like the seed's recording, runs `zeroflow run` on it (few epochs: the report's size and
drawing time do not depend on how well the model is trained), then opens report.html over
file:// in headless Chromium (Debian's /usr/bin/chromium through Playwright) --runs times, each
in a fresh page, and reports:
  - the file's size, and how much of it is the data blob and which parts;
  - the Holter summary on screen: the page draws the Holter pages first and gives the browser a
    frame to paint them before the other figures (window.zeroflowReport.summaryMs: drawn;
    summaryFrameMs: the animation frame that paints them), what a reader waits for;
  - time-to-rendered: from navigation start until the report's script has drawn every figure
    (performance.now() when window.zeroflowReport.ready is set), and the wall time around it;
  - where the time goes: HTML parsing (domInteractive), decoding the data, building each
    figure's charts, and painting the latent points (uPlot paints after the charts are built;
    time-to-rendered includes it).
This is a measurement, not a test with a threshold; the targets are under 2 s for the summary's
first paint and 20 MB for the file.
--screenshots DIR saves one PNG per figure (for docs/).
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

FIGURES = [
    "fig-overview",
    "fig-excerpt",
    "fig-lengths",
    "fig-beats",
    "fig-latent",
    "fig-grid",
    "fig-loss",
    "fig-anomalies",
    "fig-stages",
    "fig-parameters",
]


def run(cmd):
    print("$", " ".join(map(str, cmd)), file=sys.stderr)
    t = time.perf_counter()
    subprocess.run(list(map(str, cmd)), check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def blob_parts(html: str):
    """Sizes (bytes of JSON text) of the data blob's parts."""
    tag = '<script id="zf-data" type="application/json">'
    start = html.index(tag) + len(tag)
    data = json.loads(html[start : html.index("</script>", start)])
    return {k: len(json.dumps(v)) for k, v in data.items()}, len(html[start : html.index("</script>", start)])


def main():
    root = pathlib.Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zeroflow", default=os.environ.get("ZEROFLOW_BIN", root / "build" / "default" / "zeroflow"))
    ap.add_argument("--hours", type=float, default=22.3)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--width", type=int, default=1400, help="browser viewport width (CSS pixels)")
    ap.add_argument(
        "--folder",
        default=os.path.join(os.environ.get("ZEROFLOW_BENCH_DATA", tempfile.gettempdir()), "zeroflow_report_bench"),
    )
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--screenshots", default=None)
    args = ap.parse_args()

    folder = pathlib.Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    recording = folder / f"ecg_{args.hours:g}h.csv"
    if not recording.exists():
        run([args.zeroflow, "generate", "--hours", args.hours, "--out", recording])
    out = folder / "run"
    took = run(
        [args.zeroflow, "run", recording, "--force", "--out", out, "--device", args.device, "--epochs", args.epochs]
    )
    summary = json.loads((out / "summary.json").read_text())
    report = out / "report.html"
    html = report.read_text()
    parts, blob = blob_parts(html)

    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        for i in range(args.runs):
            page = browser.new_page(viewport={"width": args.width, "height": 1000})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            t = time.perf_counter()
            page.goto(report.resolve().as_uri())
            page.wait_for_function("window.zeroflowReport && window.zeroflowReport.ready", timeout=60000, polling=5)
            wall = time.perf_counter() - t
            m = page.evaluate("""() => { const h = window.zeroflowReport, nav = performance.getEntriesByType('navigation')[0];
                return {rendered: h.renderMs, dom: nav.domInteractive, load: h.loadMs, parse: h.parseMs,
                        summary: h.summaryMs || 0, painted: h.summaryFrameMs || 0,
                        figures: Object.fromEntries(Object.entries(h.figures).map(([k, v]) => [k, v.ms])),
                        paint: h.figures.latent ? h.figures.latent.paintMs : 0, errors: h.errors}; }""")
            m["wall"] = wall * 1000
            if errors or m["errors"]:
                raise SystemExit(f"report errors: {errors or m['errors']}")
            results.append(m)
            if args.screenshots and i == 0:
                shots = pathlib.Path(args.screenshots)
                shots.mkdir(parents=True, exist_ok=True)
                for fig in FIGURES:
                    page.locator("#" + fig).screenshot(path=str(shots / f"{fig[4:]}.png"))
                # The overview zoomed onto the most anomalous beat, as a click on its card leaves it.
                page.locator("#anomaly-list li").first.click()
                page.wait_for_timeout(300)
                page.locator("#fig-overview").screenshot(path=str(shots / "overview-zoomed.png"))
            page.close()
        browser.close()

    med = lambda key: statistics.median(r[key] for r in results)
    print(
        f"recording            {summary['samples']:,} samples ({summary['duration_seconds'] / 3600:.1f} h), "
        f"{summary['beats_found']:,} beats, {summary['beats_kept']:,} kept"
    )
    print(
        f"zeroflow run         {took:.1f} s on {summary['device']} ({args.epochs} epochs); "
        f"figures stage {summary['stages_ms'].get('figures', float('nan')):.1f} ms"
    )
    print(f"report.html          {report.stat().st_size / 1e6:.2f} MB (data blob {blob / 1e6:.2f} MB)")
    for k, v in sorted(parts.items(), key=lambda kv: -kv[1]):
        if v > 10_000:
            print(f"  {k:18s} {v / 1e6:.2f} MB")
    print(
        f"Holter summary       drawn at {med('summary'):.0f} ms, painted in the frame at {med('painted'):.0f} ms "
        f"(medians; worst {max(r['painted'] for r in results):.0f} ms)"
    )
    print(
        f"time to rendered     median {med('rendered'):.0f} ms, best {min(r['rendered'] for r in results):.0f} ms, "
        f"worst {max(r['rendered'] for r in results):.0f} ms over {len(results)} fresh pages "
        f"(wall around goto+wait: median {med('wall'):.0f} ms)"
    )
    print(
        f"  HTML parsed (domInteractive) {med('dom'):.0f} ms; data decoded {med('load'):.0f} ms "
        f"(JSON.parse {med('parse'):.0f} ms)"
    )
    figs = {k: statistics.median(r["figures"][k] for r in results) for k in results[0]["figures"]}
    print("  figures (building each chart): " + ", ".join(f"{k} {v:.0f} ms" for k, v in figs.items()))
    # uPlot paints in microtasks after the charts are built; the latent points are most of it.
    print(f"  latent points painted in uPlot's draw hook: {med('paint'):.0f} ms")


if __name__ == "__main__":
    main()
