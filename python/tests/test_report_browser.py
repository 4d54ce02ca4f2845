"""report.html in a real browser: Debian's Chromium, driven by Playwright (no browser download).

Each test opens the report of a `zeroflow run` over file://, waits until its script says every
figure is drawn, and checks what a person would: each figure is on screen and not blank (its
screenshot, decoded, has many colours and ink), the numbers equal summary.json and beats.csv,
the overview zooms with the wheel and pans by dragging, a latent point shows its beat when
clicked, a table row takes the overview to its beat, the console stays clean, and nothing is
requested from any network.
"""

import base64
import csv
import json
import math
import os
import pathlib

import numpy as np
import pytest
from conftest import missing_test_dependency, run_cli

MITDB = pathlib.Path(__file__).resolve().parents[3] / "shared" / "data" / "mitdb"
CHROMIUM = pathlib.Path(os.environ.get("ZEROFLOW_CHROMIUM", "/usr/bin/chromium"))
FIGURES = ["overview", "classes", "excerpt", "lengths", "beats", "latent", "grid", "loss", "anomalies", "stages"]
CHARTS = {
    "overview": "#overview-chart",
    "classes": "#classes-timeline",
    "excerpt": "#excerpt-chart",
    "lengths": "#lengths-chart",
    "beats": "#beats-chart",
    "latent": "#latent-chart",
    "grid": "#grid-chart",
    "loss": "#loss-chart",
    "stages": "#stages-chart",
    "anomalies": "#anomaly-list",
}


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing_test_dependency("playwright missing: scripts/setup installs it into .venv")
    if not CHROMIUM.exists():
        missing_test_dependency(f"{CHROMIUM} missing: scripts/setup installs Debian's chromium")
    with sync_playwright() as p:
        # --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()


class Report:
    """An opened report page, with the console messages and requests it produced."""

    def __init__(self, browser, folder, width=1400):
        self.folder = folder
        self.summary = json.loads((folder / "summary.json").read_text())
        with open(folder / "beats.csv", newline="") as f:
            self.beats = list(csv.DictReader(f))
        self.page = browser.new_page(viewport={"width": width, "height": 1000})
        self.console, self.requests = [], []
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.console.append(("pageerror", str(e))))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = (folder / "report.html").resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_function("window.zeroflowReport && window.zeroflowReport.ready", timeout=30000)

    def js(self, expression, arg=None):
        return self.page.evaluate(expression, arg)

    def view(self):
        return self.js("window.zeroflowReport.view()")

    def close(self):
        self.page.close()


def measure_pixels(page, png: bytes, measure: str):
    """Decodes a screenshot with the browser's own PNG decoder (in a blank page: nothing fetched)
    and returns what the JavaScript `measure` returns from its RGBA bytes `d` and bitmap `bmp`."""
    return page.evaluate(
        """async (b64) => {
            const bin = atob(b64), bytes = new Uint8Array(bin.length);
            for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
            const bmp = await createImageBitmap(new Blob([bytes], {type: 'image/png'}));
            const c = new OffscreenCanvas(bmp.width, bmp.height), ctx = c.getContext('2d');
            ctx.drawImage(bmp, 0, 0);
            const d = ctx.getImageData(0, 0, bmp.width, bmp.height).data;
"""
        + measure
        + "}",
        base64.b64encode(png).decode(),
    )


def image_stats(page, png: bytes):
    """A screenshot measured: distinct colours, the share of pixels that are not near-white, and
    the standard deviation of the luminance."""
    return measure_pixels(
        page,
        png,
        """
            const colours = new Set();
            let ink = 0, sum = 0, sum2 = 0;
            const n = d.length / 4;
            for (let i = 0; i < d.length; i += 4) {
                const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
                sum += y; sum2 += y * y;
                if (y < 235) ink++;
                if (colours.size < 5000) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
            }
            const mean = sum / n;
            return {width: bmp.width, height: bmp.height, colours: colours.size, ink: ink / n,
                    std: Math.sqrt(Math.max(0, sum2 / n - mean * mean))};
        """,
    )


@pytest.fixture(scope="module")
def stats_page(browser):
    page = browser.new_page()
    page.goto("about:blank")
    yield page
    page.close()


@pytest.fixture(scope="module")
def report(browser, short_run):
    r = Report(browser, short_run[0])
    yield r
    r.close()


@pytest.fixture(scope="module")
def long_run(zeroflow_bin, tmp_path_factory):
    """1.2 h at 250 Hz (1.08 M samples): past the overview's budget, so buckets of 2 samples."""
    folder = tmp_path_factory.mktemp("long")
    csv_path = folder / "long.csv"
    run_cli(
        zeroflow_bin,
        "generate",
        "--hours",
        1.2,
        "--heart-rate",
        90,
        "--anomaly-rate",
        0.03,
        "--seed",
        11,
        "--out",
        csv_path,
    )
    out = folder / "run"
    run_cli(zeroflow_bin, "run", csv_path, "--out", out, "--device", "cpu", "--epochs", 2)
    return out


def kept_ranked(beats):
    """Kept beats, most anomalous first (ties: earlier beat), as the report ranks them."""
    kept = [b for b in beats if b["kept"] == "1"]
    return sorted(kept, key=lambda b: (-np.float32(b["score"]), int(b["beat"])))


def clock(seconds):
    """h:mm:ss.mmm, as the report writes times."""
    t = round(seconds * 1000)
    return f"{t // 3600000}:{t // 60000 % 60:02d}:{t // 1000 % 60:02d}.{t % 1000:03d}"


def test_every_figure_is_drawn_and_not_blank(report, stats_page, tmp_path):
    drawn = report.js(
        "Object.fromEntries([...document.querySelectorAll('[data-figure]')]"
        ".map(s => [s.dataset.figure, s.dataset.drawn]))"
    )
    for name in FIGURES:
        assert drawn.get(name) == "1", (name, drawn)
    for name, selector in CHARTS.items():
        element = report.page.locator(selector)
        element.scroll_into_view_if_needed()
        png = element.screenshot(path=str(tmp_path / f"{name}.png"))
        s = image_stats(stats_page, png)
        assert s["width"] > 200 and s["height"] > 40, (name, s)
        # A blank canvas is one colour; an axis frame alone has a handful and little ink.
        assert s["colours"] >= 12, (name, s)
        assert 0.01 < s["ink"] < 0.9, (name, s)
        assert s["std"] > 8, (name, s)
    assert report.js("window.zeroflowReport.errors") == []
    assert [m for m in report.console if m[0] in ("error", "pageerror", "warning")] == []


def test_numbers_shown_match_summary_json(report):
    s = report.summary
    shown = report.js(
        "[...document.querySelectorAll('[data-key]')].map(e => "
        "({key: e.dataset.key, value: JSON.parse(e.dataset.value), text: e.textContent}))"
    )
    keys = {x["key"] for x in shown}
    for key in [
        "samples",
        "beats_found",
        "beats_kept",
        "test_loss",
        "duration_seconds",
        "stages_ms.total",
        "peak_host_bytes",
        "parameters.epochs",
        "parameters.nms_window",
        "sample_rate",
    ]:
        assert key in keys, key
    for x in shown:
        want = s
        for part in x["key"].split("."):
            want = want[part]
        assert x["value"] == want, x
    # The text a person reads says the same (thousands separators aside).
    cards = {x["key"]: x["text"] for x in shown if x["key"] in ("samples", "beats_found", "beats_kept")}
    for key, text in cards.items():
        assert str(s[key]) in text.replace(",", ""), (key, text)
    test_loss = next(x["text"] for x in shown if x["key"] == "test_loss")
    assert math.isclose(float(test_loss.replace("test loss", "")), s["test_loss"], rel_tol=1e-3)
    for name, ms in s["stages_ms"].items():
        assert name in keys or f"stages_ms.{name}" in keys, name
    assert report.js("document.getElementById('input-name').textContent") == s["input"]


def test_top_anomalies_are_the_top_of_beats_csv(report):
    rows = report.js(
        "[...document.querySelectorAll('#anomaly-list li')].map(li => "
        "({beat: +li.dataset.beat, score: +li.dataset.score, time: li.querySelector('.time').textContent,"
        "  rank: +li.dataset.rank}))"
    )
    ranked = kept_ranked(report.beats)
    assert len(rows) == min(25, len(ranked))
    rate = report.summary["sample_rate"]
    for i, (row, want) in enumerate(zip(rows, ranked)):
        assert row["rank"] == i + 1
        assert row["beat"] == int(want["beat"])
        assert np.float32(row["score"]) == np.float32(want["score"])
        assert row["time"] == clock(int(want["peak"]) / rate)


def test_wheel_zooms_and_drag_pans_the_overview(report):
    page = report.page
    canvas = page.locator("#overview-chart .u-over")
    canvas.scroll_into_view_if_needed()
    report.js("window.zeroflowReport.zoomTo(0, 1e9)")
    whole = report.view()
    assert whole["t0"] == 0 and math.isclose(whole["t1"], report.summary["duration_seconds"])
    box = canvas.bounding_box()
    x, y = box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    # The time under the cursor, from the plot area's box (uPlot's overlay) and the view.
    t_cursor = page.evaluate(
        """([x]) => { const r = document.querySelector('#overview-chart .u-over')
        .getBoundingClientRect(), v = window.zeroflowReport.view();
        return v.t0 + (x - r.left) / r.width * (v.t1 - v.t0); }""",
        [x],
    )
    for _ in range(6):
        page.mouse.wheel(0, -400)
        page.wait_for_timeout(40)
    page.wait_for_function(
        "(t) => window.zeroflowReport.view().t1 - window.zeroflowReport.view().t0 < t", arg=whole["t1"] / 4
    )
    zoomed = report.view()
    assert zoomed["t1"] - zoomed["t0"] < (whole["t1"] - whole["t0"]) / 4
    assert zoomed["t0"] <= t_cursor <= zoomed["t1"]  # zoomed around the cursor
    # The section says what is shown.
    shown = report.js("(() => { const s = document.getElementById('fig-overview').dataset; return [+s.t0, +s.t1]; })()")
    assert shown == pytest.approx([zoomed["t0"], zoomed["t1"]])
    # Drag to the right: earlier times come into view.
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 200, y, steps=5)
    page.mouse.up()
    page.wait_for_timeout(50)
    panned = report.view()
    assert panned["t0"] < zoomed["t0"]
    assert math.isclose(panned["t1"] - panned["t0"], zoomed["t1"] - zoomed["t0"], rel_tol=1e-9)
    # Down to single samples: a handful of them still draws.
    report.js("window.zeroflowReport.zoomTo(100, 100.06)")
    v = report.view()
    assert (v["t1"] - v["t0"]) * report.summary["sample_rate"] <= 16
    assert report.js("document.getElementById('fig-overview').dataset.drawn") == "1"


def test_clicking_a_latent_point_shows_its_beat(report, stats_page):
    page = report.page
    ranked = kept_ranked(report.beats)
    top = ranked[0]
    kept_index = [b["beat"] for b in report.beats if b["kept"] == "1"].index(top["beat"])
    page.locator("#latent-chart").scroll_into_view_if_needed()
    point = report.js("(k) => window.zeroflowReport.latentPoint(k)", kept_index)
    assert point["beat"] == int(top["beat"])
    page.mouse.move(point["x"], point["y"])
    tip = report.js(
        "(() => { const t = document.getElementById('tooltip'); return {hidden: t.hidden, text: t.textContent}; })()"
    )
    assert not tip["hidden"] and f"beat #{int(top['beat']):,}" in tip["text"], tip
    page.mouse.click(point["x"], point["y"])
    panel = report.js(
        "(() => { const p = document.getElementById('latent-detail'); return {beat: p.dataset.beat,"
        " time: p.querySelector('[data-fact=time]').textContent, score: +p.dataset.score}; })()"
    )
    # The most anomalous beat wins ties with points under it.
    assert panel["beat"] == top["beat"]
    assert panel["time"] == clock(int(top["peak"]) / report.summary["sample_rate"])
    assert np.float32(panel["score"]) == np.float32(top["score"])
    wave = image_stats(stats_page, page.locator("#latent-beat").screenshot())
    assert wave["colours"] >= 8 and wave["ink"] > 0.01, wave
    # The overview marks it too, and its button takes the overview there.
    page.locator("#latent-goto").click()
    v = report.view()
    t = int(top["peak"]) / report.summary["sample_rate"]
    assert v["t0"] < t < v["t1"] and v["t1"] - v["t0"] < 10


def test_a_top_anomaly_takes_the_overview_to_its_beat(report):
    page = report.page
    ranked = kept_ranked(report.beats)
    row = page.locator("#anomaly-list li").nth(2)
    row.scroll_into_view_if_needed()
    row.click()
    t = int(ranked[2]["peak"]) / report.summary["sample_rate"]
    page.wait_for_function("(t) => { const v = window.zeroflowReport.view(); return v.t0 < t && t < v.t1; }", arg=t)
    v = report.view()
    assert v["t1"] - v["t0"] < 10
    assert f"#t={t:.3f}" in page.url


def test_nothing_is_fetched_and_the_file_is_self_contained(report):
    assert report.requests == [report.url]
    html = (report.folder / "report.html").read_text()
    for marker in ('<link rel="stylesheet"', 'src="', "import(", "fetch("):
        assert marker not in html, marker
    # Addresses occur only in comments of the inlined uPlot (its licence header and notes).
    for line in html.splitlines():
        if "http://" in line or "https://" in line:
            assert line.lstrip().startswith(("//", "*")), line
    size = (report.folder / "report.html").stat().st_size
    assert size < 3_000_000, size  # 12 minutes of ECG: raw overview, thumbnails, latent points


def test_charts_are_uplot_and_follow_the_window(report):
    """The figures are uPlot charts (the library inlined, its licence in the page), and a narrower
    window redraws them to fit, still interactive."""
    page = report.page
    assert report.js("typeof uPlot") == "function"
    # overview, its strip, excerpt (2), lengths, beats, latent, the latent panel's beat, loss,
    # 25 decoded-grid cells, one per top anomaly, the classes' timeline and one per class present,
    # and the Holter page's heart-rate trend
    top = min(25, len(kept_ranked(report.beats)))
    present = len({b["class"] for b in report.beats})
    trend = 1 if "holter" in report.summary else 0
    assert report.js("document.querySelectorAll('.uplot').length") == 9 + 25 + top + 1 + present + trend
    licence = report.js("document.getElementById('licences').textContent")
    assert "Leon Sorokin" in licence and "MIT License" in licence
    wide = report.js("document.querySelector('#overview-chart .uplot').getBoundingClientRect().width")
    try:
        page.set_viewport_size({"width": 900, "height": 1000})
        page.wait_for_function("document.querySelector('#overview-chart .uplot').getBoundingClientRect().width < 880")
        narrow = report.js("document.querySelector('#overview-chart .uplot').getBoundingClientRect().width")
        assert narrow < wide
        drawn = report.js("[...document.querySelectorAll('[data-figure]')].map(s => s.dataset.drawn)")
        assert set(drawn) == {"1"}, drawn
        # The remade overview still answers the wheel.
        report.js("window.zeroflowReport.zoomTo(0, 1e9)")
        target = page.locator("#overview-chart .u-over")
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.wheel(0, -600)
        page.wait_for_function(
            "(t) => { const v = window.zeroflowReport.view(); return v.t1 - v.t0 < t; }",
            arg=report.summary["duration_seconds"] * 0.9,
        )
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.wait_for_timeout(400)
    assert report.js("window.zeroflowReport.errors") == []
    assert [m for m in report.console if m[0] in ("error", "pageerror")] == []


def test_bucketed_overview_zooms_past_its_finest_level(browser, long_run, stats_page):
    r = Report(browser, long_run)
    try:
        # The whole hour on ~1300 pixels draws from a coarse level of the pyramid...
        assert int(r.js("document.getElementById('fig-overview').dataset.bucket")) >= 256
        data = r.js("JSON.parse(document.getElementById('zf-data').textContent).overview")
        assert data["bucket"] == 2 and data["n"] == math.ceil(r.summary["samples"] / 2)
        # 0.3 s is 75 samples on ~1300 pixels: past the stored 2-sample buckets.
        r.js("window.zeroflowReport.zoomTo(1800, 1800.3)")
        assert r.js("document.getElementById('fig-overview').dataset.drawn") == "1"
        assert r.js("document.getElementById('fig-overview').dataset.bucket") == "2"  # ...this from the finest
        png = r.page.locator("#overview-chart").screenshot()
        s = image_stats(stats_page, png)
        assert s["colours"] >= 12 and s["ink"] > 0.01, s
        assert r.js("window.zeroflowReport.errors") == []
        assert [m for m in r.console if m[0] in ("error", "pageerror")] == []
    finally:
        r.close()


def figure_texts(report):
    """Every figure's title and caption, as a person reads them."""
    return report.js(
        "Object.fromEntries([...document.querySelectorAll('[data-figure]')].map(s => "
        "[s.dataset.figure, (s.querySelector('h2') || {}).textContent + ' ' + "
        "[...s.querySelectorAll('.caption')].map(p => p.textContent).join(' ')]))"
    )


def test_class_counts_shown_match_beats_csv(report):
    shown = report.js(
        "Object.fromEntries([...document.querySelectorAll('#classes-body tr[data-class]')]"
        ".map(tr => [tr.dataset.class, {count: +tr.dataset.count, text: tr.textContent}]))"
    )
    counted = {name: sum(1 for b in report.beats if b["class"] == name) for name in "NSVQ"}
    assert {name: x["count"] for name, x in shown.items()} == counted
    assert counted == report.summary["classes"]["counts"]
    for name, x in shown.items():
        assert f"{counted[name]:,} beat" in x["text"], x
    assert counted["V"] > 0  # the synthetic recording's PVCs: an example chart is drawn for them
    assert report.js("document.querySelectorAll('#classes-body tr[data-class=V] canvas').length") >= 1


def test_robust_captions_describe_the_robust_method(report):
    texts = figure_texts(report)
    # Under the default segmentation nothing is pruned and there are no NMS gates: no panel says so.
    for name, text in texts.items():
        assert "pruned" not in text and "non-maximum suppression" not in text, (name, text)
    assert texts["lengths"].startswith("R–R intervals")
    assert "R peaks the QRS detector accepted" in texts["excerpt"]
    assert "before the R peak" in texts["beats"]
    legend = report.js("document.getElementById('excerpt-legend').textContent")
    assert "pruned" not in legend and "beat window start" in legend


@pytest.fixture(scope="module")
def af_report(browser, zeroflow_bin, tmp_path_factory):
    """The report of MIT-BIH 203 (atrial fibrillation and flutter throughout, ../shared/data)."""
    if not (MITDB / "203.hea").exists():
        pytest.skip(f"{MITDB} is not beside the project")
    out = tmp_path_factory.mktemp("af") / "run"
    run_cli(zeroflow_bin, "run", MITDB / "203.hea", "--out", out, "--device", "cpu", "--epochs", 2)
    r = Report(browser, out)
    yield r
    r.close()


def test_af_episodes_are_listed_shaded_and_lead_to_their_onset(af_report, stats_page, tmp_path):
    with open(af_report.folder / "episodes.csv", newline="") as f:
        episodes = list(csv.DictReader(f))
    assert len(episodes) >= 1
    rows = af_report.js("[...document.querySelectorAll('.episode-table tbody tr')].map(tr => +tr.dataset.onset)")
    assert len(rows) == len(episodes)
    rate = af_report.summary["sample_rate"]
    for shown, e in zip(rows, episodes):
        assert math.isclose(shown, int(e["onset"]) / rate, rel_tol=1e-9), (shown, e)
    assert "atrial fibrillation episode" in af_report.js("document.getElementById('af-summary').textContent")
    row = af_report.page.locator(".episode-table tbody tr").nth(len(rows) // 2)
    row.scroll_into_view_if_needed()
    row.click()
    view = af_report.view()
    onset = rows[len(rows) // 2]
    assert view["t0"] <= onset <= view["t1"] and view["t1"] - view["t0"] <= 21, (view, onset)
    # The overview shades the episode: amber (245, 159, 0 at 16 %) behind the trace.
    png = af_report.page.locator("#overview-chart").screenshot(path=str(tmp_path / "af.png"))
    amber = measure_pixels(
        af_report.page,
        png,
        """
            let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] > 240 && d[i + 1] > 225 && d[i + 1] < 245 && d[i + 2] < 225) n++;
            return n / (d.length / 4);
        """,
    )
    assert amber > 0.05, amber
    assert af_report.js("window.zeroflowReport.errors") == []


def test_seed_report_keeps_the_seed_captions(browser, zeroflow_bin, short_recording, tmp_path):
    out = tmp_path / "seed"
    run_cli(
        zeroflow_bin, "run", short_recording, "--out", out, "--device", "cpu", "--epochs", 1, "--segmentation", "seed"
    )
    r = Report(browser, out)
    try:
        texts = figure_texts(r)
        assert "pruned before embedding" in texts["lengths"]
        assert "non-maximum suppression" in texts["excerpt"]
        assert "classifies nothing" in r.js("document.getElementById('classes-body').textContent")
        assert r.js("window.zeroflowReport.errors") == []
    finally:
        r.close()
