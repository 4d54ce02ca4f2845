"""The Holter pages of report.html in a real browser (Chromium through Playwright, as
test_report_browser.py): first on the page, offline and clean; the numbers a cardiologist reads equal
summary.json's and events.csv's; the strips are drawn on ECG paper at 25 mm/s, every lead of the
recording stacked in its own band (MIT-BIH 119 from ../shared/data: MLII and V1); print keeps the
Holter pages alone, cut between sections and never through a strip; a report older than the strips'
leads still draws them; a run without classes (--segmentation seed, the earlier name of gate-to-gate) has no Holter section.

ZEROFLOW_SCREENSHOTS=DIR also writes the summary's screenshot and a strip's (of the two-lead 119)
into DIR (the ones in docs/img come from here).
"""

import collections
import csv
import json
import math
import os
import pathlib
import re
import shutil

import pytest
from conftest import ROOT, run_cli
from test_report_browser import MITDB, Report, browser, image_stats, measure_pixels, stats_page  # noqa: F401

RECORD_119 = ROOT / "tests" / "data" / "mitdb" / "119.hea"  # ventricular bigeminy and trigeminy
SECTIONS = ["holter", "holter-trend", "holter-hours", "holter-events", "holter-families", "holter-strips"]
PX_PER_MM = 96 / 25.4


def hms(seconds):
    """hh:mm:ss from the recording's start, as the Holter pages write times."""
    t = math.floor(max(0.0, seconds) + 0.5)  # JavaScript's Math.round
    return f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}"


def g3(v):
    """A value to 3 significant digits, as the page writes it (JavaScript's toPrecision(3))."""
    return f"{float(f'{v:.3g}'):g}"


def clean(report):
    assert report.js("window.zeroflowReport.errors") == []
    assert [m for m in report.console if m[0] in ("error", "pageerror", "warning")] == []


@pytest.fixture(scope="module")
def run_119(zeroflow_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("holter") / "119"
    run_cli(zeroflow_bin, "run", RECORD_119, "--out", out, "--device", "cpu", "--epochs", 2)
    return out


@pytest.fixture(scope="module")
def report(browser, run_119):  # noqa: F811
    r = Report(browser, run_119)
    yield r
    r.close()


@pytest.fixture(scope="module")
def two_leads(browser, zeroflow_bin, tmp_path_factory):  # noqa: F811
    """MIT-BIH 119 with both its leads, MLII and V1 (tests/data has MLII alone)."""
    if not (MITDB / "119.hea").exists():
        pytest.skip(f"{MITDB} is not beside the project: no two-lead 119")
    out = tmp_path_factory.mktemp("holter-leads") / "119"
    run_cli(zeroflow_bin, "run", MITDB / "119.hea", "--out", out, "--device", "cpu", "--epochs", 1)
    r = Report(browser, out)
    yield r
    r.close()


def edited(browser, folder, to, edit):  # noqa: F811
    """A copy of run `folder` in `to` whose report.html's data `edit` (a function of the blob) has changed."""
    shutil.copytree(folder, to)
    html = (to / "report.html").read_text()
    m = re.search(r'(<script id="zf-data" type="application/json">)(.*?)(</script>)', html, re.S)
    data = json.loads(m.group(2))
    edit(data)
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    (to / "report.html").write_text(html[: m.start(2)] + blob + html[m.end(2) :])
    return Report(browser, to)


def drawn_strips(report):
    """Each strip as drawn: its event, leads, band (mm), the ECG paper's size (CSS px and mm), each
    lead's trace (points, name) and the names written on the paper, and the caption."""
    return report.js(
        "[...document.querySelectorAll('figure.strip')].map(f => { const s = f.querySelector('svg.ecg'),"
        " r = s.getBoundingClientRect(), vb = s.viewBox.baseVal;"
        " return {event: +f.dataset.event, leads: +f.dataset.leads, band: +f.dataset.band, width: r.width,"
        " height: r.height, mmWide: vb.width, mmHigh: vb.height,"
        " traces: [...s.querySelectorAll('path[clip-path]')].map(p => ({lead: p.dataset.lead,"
        " points: (p.getAttribute('d').match(/[ML]/g) || []).length,"
        " clip: document.querySelector(p.getAttribute('clip-path').slice(4, -1) + ' rect').getAttribute('y')})),"
        " names: [...s.querySelectorAll('text.lead')].map(t => t.textContent),"
        " pulses: f.querySelectorAll('svg.calibration path:not([shape-rendering])').length,"
        " caption: f.querySelector('figcaption').textContent}; })"
    )


def print_height_mm(report):
    """The tallest strip (caption included) in print, in mm."""
    return (
        report.js(
            "Math.max(...[...document.querySelectorAll('figure.strip')].map(f => f.getBoundingClientRect().height))"
        )
        / PX_PER_MM
    )


def events_csv(folder):
    with open(folder / "events.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_holter_pages_come_first_offline_and_clean(report):
    assert report.js("document.querySelector('main').firstElementChild.id") == "fig-holter"
    order = report.js("[...document.querySelectorAll('main > section')].map(s => s.dataset.figure)")
    assert order[: len(SECTIONS)] == SECTIONS
    drawn = report.js(
        "Object.fromEntries([...document.querySelectorAll('.holter')].map(s => [s.dataset.figure, s.dataset.drawn]))"
    )
    assert drawn == {name: "1" for name in SECTIONS}
    assert report.js("[...document.querySelectorAll('.holter')].every(s => !s.hidden && s.offsetHeight > 100)")
    assert report.requests == [report.url]
    clean(report)


def test_summary_numbers_are_summary_json_s(report):
    h = report.summary["holter"]
    shown = report.js(
        "[...document.querySelectorAll('#fig-holter [data-key]')].map(e => "
        "({key: e.dataset.key, value: JSON.parse(e.dataset.value), text: e.textContent}))"
    )
    by_key = {x["key"]: x for x in shown}
    for x in shown:
        want = report.summary
        for part in x["key"].split("."):
            want = want[part]
        assert x["value"] == want, x
    text = lambda key: by_key["holter." + key]["text"]
    rate = h["heart_rate"]
    for name in ("lowest", "highest"):
        e = rate[name]
        assert text(f"heart_rate.{name}.bpm") == f"{round(e['bpm'])} bpm at {hms(e['seconds'])}"
    assert text("heart_rate.mean_bpm") == f"{g3(rate['mean_bpm'])} bpm"
    c = h["counts"]
    assert text("counts.beats") == f"{c['beats']:,}"
    for cls in "NSVQ":
        assert text(f"counts.{cls}").startswith(f"{c[cls]:,} ("), cls
    for name in ("ventricular", "supraventricular"):
        e = c[name]
        assert text(f"counts.{name}.isolated") == (
            f"{e['isolated']:,} isolated · {e['in_couplets']:,} in couplets · {e['in_runs']:,} in runs"
        )
    assert text("af_burden.percent") == f"{g3(h['af_burden']['percent'])} % of the time"
    assert text("af_burden.episodes") == f"{h['af_burden']['episodes']:,}"
    pauses = report.js(
        "[...document.querySelectorAll('#fig-holter tr')].find(tr => tr.cells[0].textContent.startsWith('pauses')).cells[1].textContent"
    )
    assert pauses == f"{h['events']['counts'].get('pause', 0):,}"
    units = {"sdnn_ms": "ms", "sdann_ms": "ms", "sdnn_index_ms": "ms", "rmssd_ms": "ms", "pnn50_percent": "%"}
    for key, unit in units.items():
        v = h["hrv"][key]
        assert text(f"hrv.{key}") == ("—" if v is None else f"{g3(v)} {unit}"), key
    small = report.js("document.getElementById('holter-thresholds').textContent")
    p = h["parameters"]
    assert f"pause ≥ {g3(p['pause_seconds'])} s" in small and f"> {g3(p['tachycardia_bpm'])} bpm" in small
    facts = report.js("document.getElementById('holter-facts').textContent")
    assert (
        pathlib.Path(report.summary["input"]).name in facts
        and f"{h['beats']:,} beats analysed" in facts
        and hms(h["duration_seconds"]) in facts
    )


def test_hourly_table_and_trend_follow_the_hours_and_minutes(report):
    h = report.summary["holter"]
    rows = report.js(
        "[...document.querySelectorAll('#holter-hours tbody tr')].map(tr => [...tr.cells].map(c => c.textContent))"
    )
    head = report.js("[...document.querySelectorAll('#holter-hours thead th')].map(c => c.textContent)")
    assert len(rows) == len(h["per_hour"]) >= 1
    for row, hour in zip(rows, h["per_hour"]):
        cell = dict(zip(head, row))
        for key in ("N", "S", "V", "Q"):
            assert cell[key] == f"{hour[key]:,}", (key, cell)
        assert cell["V isolated"] == f"{hour['ventricular']['isolated']:,}"
        assert cell["V in runs"] == f"{hour['ventricular']['in_runs']:,}"
    total = dict(
        zip(head, report.js("[...document.querySelector('#holter-hours tfoot tr').cells].map(c => c.textContent)"))
    )
    assert total["beats"] == f"{h['counts']['beats']:,}" and total["HR mean"] == g3(h["heart_rate"]["mean_bpm"])
    trend = report.js("document.getElementById('fig-holter-trend').dataset.minutes")
    assert int(trend) == len(h["heart_rate"]["per_minute"]["mean_bpm"])


def test_events_table_lists_every_event(report):
    rows = events_csv(report.folder)
    counts = report.js(
        "Object.fromEntries([...document.querySelectorAll('#holter-event-counts tr[data-kind]')]"
        ".map(tr => [tr.dataset.kind, +tr.dataset.count]))"
    )
    assert {k: n for k, n in counts.items() if n} == dict(collections.Counter(r["kind"] for r in rows))
    assert counts == {**{k: 0 for k in counts}, **report.summary["holter"]["events"]["counts"]}
    more = report.page.locator("#holter-events-more")
    if more.is_visible():
        more.click()
    listed = report.js(
        "[...document.querySelectorAll('#holter-event-list tbody tr')].map(tr => [...tr.cells].map(c => c.textContent))"
    )
    assert len(listed) == len(rows) == int(report.js("document.getElementById('holter-event-list').dataset.total"))
    for shown, row in zip(listed, rows):
        assert shown[1] == row["kind"].replace("_", " ")
        assert shown[2] == hms(float(row["onset_seconds"]))
        assert shown[4] == f"{int(row['beats']):,}"
    # A kind's row lists that kind alone; a second click all of them again.
    kind = rows[-1]["kind"]
    report.page.locator(f"#holter-event-counts tr[data-kind={kind}]").click()
    assert report.js("document.getElementById('holter-event-list').dataset.total") == str(counts[kind])
    report.page.locator(f"#holter-event-counts tr[data-kind={kind}]").click()
    assert report.js("document.getElementById('holter-event-list').dataset.total") == str(len(rows))


def test_strips_are_on_ecg_paper_at_25_mm_per_second(report):
    data = report.js(
        "(() => { const d = JSON.parse(document.getElementById('zf-data').textContent);"
        " return d.strips.map(s => ({event: s.event, n: s.values.n})); })()"
    )
    assert data, "119 has notable events, so strips"
    rate = report.summary["sample_rate"]
    strips = drawn_strips(report)
    assert sorted(s["event"] for s in strips) == sorted(d["event"] for d in data)
    events = report.js("JSON.parse(document.getElementById('zf-data').textContent).holter_events")
    n = {d["event"]: d["n"] for d in data}
    for s in strips:
        seconds = n[s["event"]] / rate
        assert s["mmWide"] == pytest.approx(seconds * 25, rel=1e-6)
        assert s["width"] == pytest.approx(seconds * 25 * PX_PER_MM, rel=0.002), s
        # Eight seconds at 25 mm/s is 200 mm of paper; a strip cut by the recording's end is shorter.
        if n[s["event"]] == round(8 * rate):
            assert s["width"] == pytest.approx(8 * 25 * PX_PER_MM, rel=0.02)
        assert s["height"] == pytest.approx(s["mmHigh"] * PX_PER_MM, rel=0.002) and s["mmHigh"] % 5 == 0
        assert s["traces"][0]["points"] >= 0.95 * n[s["event"]]
        e = events[s["event"]]
        assert s["caption"].startswith(e["kind"].replace("_", " ") + " at " + hms(e["onset_seconds"]))
        assert "25 mm/s, 10 mm/mV" in s["caption"]
        # tests/data's 119 has MLII alone: one lead, named, with its calibration pulse.
        assert s["leads"] == 1 and s["names"] == ["MLII"] and s["pulses"] == 1 and s["mmHigh"] == s["band"]
        assert s["caption"].endswith(" · lead MLII")


def test_every_lead_of_a_strip_is_drawn_in_its_own_band(two_leads):
    r = two_leads
    data = r.js(
        "(() => { const d = JSON.parse(document.getElementById('zf-data').textContent);"
        " return {leads: d.strip_leads, n: Object.fromEntries(d.strips.map(s => [s.event, [s.values.n, ...s.others.map(o => o.n)]]))}; })()"
    )
    assert data["leads"] == ["MLII", "V1"]
    # The classes read both leads' shapes, and the summary's facts say so.
    assert r.summary["leads"] == {
        "beats": "MLII", "shapes": ["MLII", "V1"], "joined": ["V1"], "joined_dropped": 0, "joined_added": 0
    }  # fmt: skip
    assert r.js("document.getElementById('holter-facts').textContent").endswith(" · leads MLII + V1")
    rate = r.summary["sample_rate"]
    strips = drawn_strips(r)
    assert len(strips) == len(data["n"]) >= 1
    assert any(n[0] == round(8 * rate) for n in data["n"].values())
    for s in strips:
        n = data["n"][str(s["event"])]
        assert n[0] == n[1]
        # As wide as one lead: 8 s at 25 mm/s (less where the recording ends).
        assert s["mmWide"] == pytest.approx(n[0] / rate * 25, rel=1e-6)
        if n[0] == round(8 * rate):
            assert s["width"] == pytest.approx(8 * 25 * PX_PER_MM, rel=0.02), s
        # Two bands, each as tall as a one-lead strip may be, each trace clipped to its own.
        assert s["leads"] == 2 and 25 <= s["band"] <= 50 and s["band"] % 5 == 0
        assert s["mmHigh"] == 2 * s["band"] and s["height"] == pytest.approx(s["mmHigh"] * PX_PER_MM, rel=0.002)
        assert [t["lead"] for t in s["traces"]] == ["MLII", "V1"] and s["names"] == ["MLII", "V1"]
        assert [float(t["clip"]) for t in s["traces"]] == [0, s["band"]]
        assert all(t["points"] >= 0.95 * n[0] for t in s["traces"])
        assert s["pulses"] == 2  # one calibration pulse a lead
        assert s["caption"].endswith("25 mm/s, 10 mm/mV · leads MLII, V1")
    # The event's marks run across both leads.
    span = r.js(
        "[...document.querySelectorAll('figure.strip svg.ecg')].map(s => [s.viewBox.baseVal.height,"
        " ...[...s.querySelectorAll('line')].map(l => +l.getAttribute('y2'))])"
    )
    assert all(h[1:] and all(y == h[0] for y in h[1:]) for h in span)
    clean(r)


def test_a_strip_of_twelve_leads_fits_a_printed_page(browser, two_leads, tmp_path):  # noqa: F811
    names = ["I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6"]

    def twelve(d):
        d["strip_leads"] = names
        for s in d["strips"]:
            s["others"] = [s["values"]] * 5 + s["others"] * 6

    r = edited(browser, two_leads.folder, tmp_path / "twelve", twelve)
    try:
        strips = drawn_strips(r)
        assert all(s["leads"] == 12 and s["band"] == 15 and s["mmHigh"] == 180 and s["names"] == names for s in strips)
        assert all([float(t["clip"]) for t in s["traces"]] == [15 * k for k in range(12)] for s in strips)
        r.page.emulate_media(media="print")
        r.page.set_viewport_size({"width": 980, "height": 700})
        r.page.wait_for_timeout(400)
        # Landscape A4 less its margins is 190 mm high (Letter 196 mm).
        assert print_height_mm(r) <= 190
        clean(r)
    finally:
        r.close()


def test_a_report_without_the_strips_leads_draws_one(browser, run_119, tmp_path):  # noqa: F811
    def old(d):
        del d["strip_leads"]
        for s in d["strips"]:
            del s["others"]

    r = edited(browser, run_119, tmp_path / "old", old)
    try:
        strips = drawn_strips(r)
        assert strips and all(s["leads"] == 1 and s["names"] == [] and len(s["traces"]) == 1 for s in strips)
        assert all(s["caption"].endswith("25 mm/s, 10 mm/mV") for s in strips)
        clean(r)
    finally:
        r.close()


def test_an_event_with_a_strip_takes_the_page_to_it(report):
    event = report.js("document.querySelector('figure.strip').dataset.event")
    more = report.page.locator("#holter-events-more")
    if more.is_visible():
        more.click()
    row = report.page.locator(f"#holter-event-list tr[data-event='{event}']")
    row.scroll_into_view_if_needed()
    row.click()
    report.page.wait_for_function(
        "(e) => { const f = document.getElementById('strip-' + e), r = f.getBoundingClientRect();"
        " return f.classList.contains('flash') && r.top >= 0 && r.bottom <= window.innerHeight; }",
        arg=event,
    )


def screenshot(report, stats_page, selector, path):  # noqa: F811
    """`selector`'s screenshot, written to `path`, checked not blank and small."""
    element = report.page.locator(selector)
    element.scroll_into_view_if_needed()
    report.page.wait_for_timeout(1900)  # a clicked strip's flash has faded
    png = element.screenshot(path=str(path), animations="disabled")
    s = image_stats(stats_page, png)
    assert s["width"] > 600 and s["height"] > 100, (path, s)
    assert s["colours"] >= 12 and 0.01 < s["ink"] < 0.9 and s["std"] > 8, (path, s)
    assert len(png) < 300_000, (path, len(png))
    return png


def pink_share(stats_page, png):  # noqa: F811
    """The share of the paper's pink (its grid lines) in a screenshot."""
    return measure_pixels(
        stats_page,
        png,
        """
            let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] < 215 && d[i + 2] < 225 && d[i] - d[i + 1] > 30) n++;
            return n / (d.length / 4);
        """,
    )


def screenshots(tmp_path):
    keep = os.environ.get("ZEROFLOW_SCREENSHOTS")
    folder = pathlib.Path(keep) if keep else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_summary_and_strip_screenshots_are_not_blank(report, stats_page, tmp_path):  # noqa: F811
    screenshot(report, stats_page, "#fig-holter", screenshots(tmp_path) / "report-holter-summary.png")
    png = screenshot(report, stats_page, "figure.strip >> nth=0", tmp_path / "strip.png")
    assert pink_share(stats_page, png) > 0.02


def test_two_lead_strip_screenshot_is_not_blank(two_leads, stats_page, tmp_path):  # noqa: F811
    # docs/img's strip: the two leads of 119.
    png = screenshot(two_leads, stats_page, "figure.strip >> nth=0", screenshots(tmp_path) / "report-holter-strip.png")
    assert pink_share(stats_page, png) > 0.02


def test_print_keeps_the_holter_pages_uncut(report, tmp_path):
    page = report.page
    page.emulate_media(media="print")
    try:
        shown = report.js(
            "Object.fromEntries([...document.querySelectorAll('main > section')].map(s => [s.dataset.figure,"
            " getComputedStyle(s).display !== 'none']))"
        )
        assert all(shown[name] for name in SECTIONS) and not any(v for k, v in shown.items() if k not in SECTIONS)
        assert report.js(
            "[...document.querySelectorAll('.no-print')].every(e => getComputedStyle(e).display === 'none')"
        )
        style = report.js(
            "({strips: getComputedStyle(document.getElementById('fig-holter-strips')).breakBefore,"
            " strip: getComputedStyle(document.querySelector('figure.strip')).breakInside})"
        )
        assert style == {"strips": "page", "strip": "avoid"}
        # Nothing is wider than landscape Letter less its margins (A4 is wider): else the browser
        # would shrink the pages, and the strips would no longer measure 25 mm a second on paper.
        page.set_viewport_size({"width": 980, "height": 700})
        page.wait_for_timeout(400)
        assert report.js("document.documentElement.scrollWidth") <= 980
        # The reader may ask for the technical figures too.
        page.locator("#holter-print-all").evaluate("e => { e.checked = true; e.dispatchEvent(new Event('change')); }")
        assert report.js("getComputedStyle(document.getElementById('fig-overview')).display") != "none"
        page.locator("#holter-print-all").evaluate("e => { e.checked = false; e.dispatchEvent(new Event('change')); }")
    finally:
        page.emulate_media(media="null")
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.wait_for_timeout(400)
    pdf = page.pdf(path=str(tmp_path / "holter.pdf"))
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
    assert 3 <= pages <= 12, pages
    clean(report)


def test_print_keeps_two_lead_strips_whole(two_leads, tmp_path):
    page = two_leads.page
    page.emulate_media(media="print")
    try:
        page.set_viewport_size({"width": 980, "height": 700})
        page.wait_for_timeout(400)
        assert two_leads.js(
            "[...document.querySelectorAll('figure.strip')].every(f => getComputedStyle(f).breakInside === 'avoid')"
        )
        assert two_leads.js("document.documentElement.scrollWidth") <= 980
        # A strip and its caption fit a landscape page less its margins: it is never cut.
        assert print_height_mm(two_leads) <= 190
    finally:
        page.emulate_media(media="null")
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.wait_for_timeout(400)
    pdf = page.pdf(path=str(tmp_path / "holter.pdf"), landscape=True)
    assert len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) >= 3
    clean(two_leads)


@pytest.fixture(scope="module")
def af_report(browser, zeroflow_bin, tmp_path_factory):  # noqa: F811
    """MIT-BIH 203 (atrial fibrillation and flutter, in ../shared/data)."""
    if not (MITDB / "203.hea").exists():
        pytest.skip(f"{MITDB} is not beside the project")
    out = tmp_path_factory.mktemp("holter-af") / "203"
    run_cli(zeroflow_bin, "run", MITDB / "203.hea", "--out", out, "--device", "cpu", "--epochs", 2)
    r = Report(browser, out)
    yield r
    r.close()


def test_af_burden_is_shown_and_shaded_in_the_trend(af_report, stats_page):  # noqa: F811
    af = af_report.summary["holter"]["af_burden"]
    assert af["episodes"] >= 1
    text = af_report.js("document.querySelector('#fig-holter [data-key=\"holter.af_burden.percent\"]').textContent")
    assert text == f"{g3(af['percent'])} % of the time"
    png = af_report.page.locator("#holter-trend").screenshot()
    amber = measure_pixels(
        stats_page,
        png,
        """
            let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] > 240 && d[i + 1] > 225 && d[i + 1] < 245 && d[i + 2] < 225) n++;
            return n / (d.length / 4);
        """,
    )
    assert amber > 0.1, amber
    assert len(events_csv(af_report.folder)) == int(
        af_report.js("document.getElementById('fig-holter-events').dataset.events")
    )
    clean(af_report)


def test_a_run_without_classes_has_no_holter_section(browser, zeroflow_bin, tmp_path):  # noqa: F811
    out = tmp_path / "seed"
    run_cli(zeroflow_bin, "run", RECORD_119, "--out", out, "--device", "cpu", "--epochs", 1, "--segmentation", "seed")
    assert "holter" not in json.loads((out / "summary.json").read_text())
    r = Report(browser, out)
    try:
        assert r.js("document.querySelectorAll('.holter, [id^=fig-holter], figure.strip').length") == 0
        assert r.js("document.querySelector('main').firstElementChild.id") == "fig-overview"
        assert r.js("document.body.classList.contains('has-holter')") is False
        drawn = r.js("[...document.querySelectorAll('[data-figure]')].map(s => s.dataset.drawn)")
        assert set(drawn) == {"1"}, drawn
        clean(r)
    finally:
        r.close()
