"""The reader's review in report.html (issue 48), in a real browser as test_report_holter.py: the beat
families with their thumbnails; corrections made in the page (a family, a beat, an AF episode
removed or added), listed with an undo, counted at once in the Holter summary, exported as
corrections.json (a download, nothing sent) holding exactly those corrections; `zeroflow correct`
applies that file, and the report it rewrites loads clean and says corrections were applied. A run
without classes (--segmentation seed, gate-to-gate's earlier name) has no review.

ZEROFLOW_SCREENSHOTS=DIR also writes the families view's screenshot into DIR (docs/img has it).
"""

import collections
import csv
import json
import os
import pathlib
import shutil

import pytest
from conftest import ROOT, run_cli
from test_report_browser import MITDB, Report, browser, image_stats, stats_page  # noqa: F401

RECORD_119 = ROOT / "tests" / "data" / "mitdb" / "119.hea"  # a dominant family and two V families


def clean(report):
    assert report.js("window.zeroflowReport.errors") == []
    assert [m for m in report.console if m[0] in ("error", "pageerror", "warning")] == []


def offline(report):
    """Nothing fetched but the page itself (an exported file is a blob, never a request out)."""
    assert [r for r in report.requests if not r.startswith("blob:")] == [report.url]


def read_beats(folder):
    with open(folder / "beats.csv", newline="") as f:
        return list(csv.DictReader(f))


def read_summary(folder):
    return json.loads((folder / "summary.json").read_text())


@pytest.fixture(scope="module")
def run_119(zeroflow_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("review") / "119"
    run_cli(zeroflow_bin, "run", RECORD_119, "--out", out, "--device", "cpu", "--epochs", 2)
    return out


@pytest.fixture
def copy_119(run_119, tmp_path):
    """A copy of the run that a test may correct."""
    folder = tmp_path / "119"
    shutil.copytree(run_119, folder)
    return folder


@pytest.fixture
def report(browser, run_119):  # noqa: F811
    r = Report(browser, run_119)
    yield r
    r.close()


def shown_order(families):
    """The cards' order: the dominant family, then the largest first."""
    return sorted(families, key=lambda f: (f["id"] != 0, -f["beats"], f["id"]))


def pending(report):
    return report.js(
        "[...document.querySelectorAll('#review-items li[data-type]')].map(li => JSON.parse(li.dataset.item))"
    )


def export(report, path):
    with report.page.expect_download() as download:
        report.page.locator("#review-export").click()
    d = download.value
    assert d.suggested_filename == "corrections.json"
    d.save_as(path)
    return json.loads(path.read_text())


def test_families_view_lists_every_family_with_its_beats(report):
    families = report.summary["holter"]["families"]
    assert len(families) >= 3
    order = report.js("[...document.querySelectorAll('main > section')].map(s => s.dataset.figure)")
    assert order.index("holter-families") == order.index("holter-events") + 1
    cards = report.js(
        "[...document.querySelectorAll('#holter-families .family-card')].map(c => ({id: +c.dataset.family,"
        " cls: c.dataset.class, beats: +c.dataset.beats, counts: JSON.parse(c.dataset.counts), text: c.textContent,"
        " badge: c.querySelector('.family-class').textContent,"
        " overlay: [...c.querySelectorAll('svg.family-overlay path')].map(p => (p.getAttribute('d').match(/L/g) || []).length),"
        " thumbs: [...c.querySelectorAll('button.thumb')].map(b => ({beat: +b.dataset.beat,"
        " points: (b.querySelector('path').getAttribute('d').match(/L/g) || []).length}))}))"
    )
    want = shown_order(families)
    assert [c["id"] for c in cards] == [f["id"] for f in want]
    width = report.js("JSON.parse(document.getElementById('zf-data').textContent).thumbs.width")
    for card, f in zip(cards, want):
        assert (card["cls"], card["badge"]) == (f["class"], f["class"])
        assert (card["beats"], card["counts"]) == (f["beats"], f["counts"])
        assert f"family {f['id']}" in card["text"] and f"{f['beats']:,} beat" in card["text"]
        for cls, n in f["counts"].items():
            assert (f"{n:,} {cls}" in card["text"]) == (n > 0), (cls, card["text"])
        # Every example drawn, overlaid and one by one, from its thumbnail's points.
        assert [t["beat"] for t in card["thumbs"]] == f["examples"]
        assert len(card["overlay"]) == len(f["examples"])
        assert all(n >= 0.9 * width - 1 for n in card["overlay"] + [t["points"] for t in card["thumbs"]]), card
    offline(report)
    clean(report)


def test_a_beat_of_a_family_is_shown_in_the_recording_and_can_be_picked_there(report):
    rate = report.summary["sample_rate"]
    family = shown_order(report.summary["holter"]["families"])[1]
    beat = family["examples"][2]
    thumb = report.page.locator(f".family-card[data-family='{family['id']}'] button.thumb[data-beat='{beat}']")
    thumb.scroll_into_view_if_needed()
    thumb.click()
    t = int(report.beats[beat]["peak"]) / rate
    report.page.wait_for_function(
        "(t) => { const v = window.zeroflowReport.view(); return v.t0 < t && t < v.t1; }", arg=t
    )
    assert report.view()["t1"] - report.view()["t0"] < 10
    # The toolbar shows the selected beat with its class pressed.
    bar = report.js(
        "(() => { const e = document.getElementById('overview-beat'); return {hidden: e.hidden, beat: +e.dataset.beat,"
        " pressed: [...e.querySelectorAll('button[aria-pressed=true]')].map(b => b.textContent)}; })()"
    )
    assert bar == {"hidden": False, "beat": beat, "pressed": [report.beats[beat]["class"]]}
    # Zoomed in, a click on another beat selects it.
    other = beat + 1
    t = int(report.beats[other]["peak"]) / rate
    report.js("(t) => window.zeroflowReport.zoomTo(t - 2, t + 2)", t)
    report.page.wait_for_timeout(1000)  # the smooth scroll to the figure has ended
    box = report.page.locator("#overview-chart .u-over").bounding_box()
    v = report.view()
    report.page.mouse.click(box["x"] + (t - v["t0"]) / (v["t1"] - v["t0"]) * box["width"], box["y"] + box["height"] / 2)
    assert report.js("+document.getElementById('overview-beat').dataset.beat") == other
    clean(report)


def test_families_screenshot_is_not_blank(report, stats_page, tmp_path):  # noqa: F811
    keep = os.environ.get("ZEROFLOW_SCREENSHOTS")
    folder = pathlib.Path(keep) if keep else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    # With two corrections pending: the smallest family re-labelled N, one of its beats V again.
    family = min(report.summary["holter"]["families"], key=lambda f: f["beats"])
    report.page.locator(f".family-card[data-family='{family['id']}'] select").select_option("N")
    report.page.locator("#review-beat input[name=beat]").fill(str(family["examples"][0]))
    report.page.locator("#review-beat select").select_option("V")
    report.page.locator("#review-beat button").click()
    assert len(pending(report)) == 2
    section = report.page.locator("#fig-holter-families")
    section.scroll_into_view_if_needed()
    png = section.screenshot(path=str(folder / "report-holter-families.png"), animations="disabled")
    s = image_stats(stats_page, png)
    assert s["width"] > 600 and s["height"] > 200, s
    assert s["colours"] >= 12 and 0.01 < s["ink"] < 0.9 and s["std"] > 8, s
    assert len(png) < 300_000, len(png)


def test_corrections_made_in_the_page_are_exported_and_applied(browser, copy_119, zeroflow_bin, tmp_path):  # noqa: F811
    r = Report(browser, copy_119)
    try:
        page, beats, summary = r.page, r.beats, r.summary
        families = summary["holter"]["families"]
        assert r.js("document.getElementById('holter-review').hidden") is False
        assert pending(r) == [] and r.js("document.getElementById('review-export').disabled") is True
        assert r.js("document.getElementById('review-pill').hidden") is True
        # The smallest V family re-labelled N with its card's selector.
        family = min((f for f in families if f["class"] == "V"), key=lambda f: f["beats"])
        page.locator(f".family-card[data-family='{family['id']}'] select").select_option("N")
        # A normal beat of the dominant family re-labelled V in the whole recording's toolbar...
        examples = {b for f in families for b in f["examples"]}
        normal = [
            int(b["beat"]) for b in beats if b["class"] == "N" and b["family"] == "0" and int(b["beat"]) not in examples
        ]
        assert r.js("(b) => window.zeroflowReport.select(b)", normal[10])
        page.locator("#overview-beat button[data-class='V']").click()
        # ...another Q in the review panel, and a third S, then undone.
        page.locator("#review-beat input[name=beat]").fill(str(normal[20]))
        page.locator("#review-beat select").select_option("Q")
        page.locator("#review-beat button").click()
        page.locator("#review-beat input[name=beat]").fill(f"#{normal[30]}")
        page.locator("#review-beat select").select_option("S")
        page.locator("#review-beat button").click()
        made = [
            {"type": "family", "family": family["id"], "cls": "N"},
            {"type": "beat", "beat": normal[10], "cls": "V"},
            {"type": "beat", "beat": normal[20], "cls": "Q"},
            {"type": "beat", "beat": normal[30], "cls": "S"},
        ]
        assert pending(r) == made
        assert r.js("document.getElementById('review-pill').textContent").startswith("4 corrections pending")
        page.locator("#review-items li").nth(3).locator("button.undo").click()
        assert pending(r) == made[:3]
        assert r.js("document.getElementById('review-pill').textContent").startswith("3 corrections pending")
        assert r.js("document.getElementById('review-export').textContent") == "export corrections (3)"

        # The summary counts as the corrections would make them, with the note.
        expected = []
        for b in beats:
            cls = "N" if int(b["family"]) == family["id"] else b["class"]
            expected.append({normal[10]: "V", normal[20]: "Q"}.get(int(b["beat"]), cls))
        counts = collections.Counter(expected)
        shown = r.js(
            "Object.fromEntries(['N','S','V','Q'].map(c => [c,"
            ' +document.querySelector(`#fig-holter [data-key="holter.counts.${c}"]`).dataset.corrected]))'
        )
        assert shown == {c: counts[c] for c in "NSVQ"}
        note = r.js(
            "(() => { const e = document.getElementById('holter-pending'); return e.hidden ? null : e.textContent; })()"
        )
        assert "corrected in this page, not yet applied" in note
        assert f"zeroflow correct {copy_119} corrections.json" in note
        card = r.js(f"document.querySelector('.family-card[data-family=\"{family['id']}\"]').dataset.pending")
        assert card == "N"

        fix = export(r, tmp_path / "corrections.json")
        assert fix == {
            "zeroflow_corrections": 1,
            "samples": summary["samples"],
            "families": [{"family": family["id"], "class": "N"}],
            "beats": [{"beat": normal[10], "class": "V"}, {"beat": normal[20], "class": "Q"}],
            "af_episodes": {"remove": [], "add": []},
        }
        offline(r)
        clean(r)
    finally:
        r.close()

    run_cli(zeroflow_bin, "correct", copy_119, tmp_path / "corrections.json")
    assert [b["class"] for b in read_beats(copy_119)] == expected
    after = read_summary(copy_119)
    assert {c: after["holter"]["counts"][c] for c in "NSVQ"} == {c: counts[c] for c in "NSVQ"}
    assert after["classes"]["counts"] == {c: counts[c] for c in "NSVQ"}
    assert len(after["corrections"]) == 1

    again = Report(browser, copy_119)
    try:
        line = again.js(
            "(() => { const e = document.getElementById('holter-corrected'); return e.hidden ? null : e.textContent; })()"
        )
        assert line.startswith("One set of corrections applied") and "corrections applied" in line
        assert f"{sum(a != b['class'] for a, b in zip(expected, beats)):,} beats re-labelled" in line
        for c in "NSVQ":
            text = again.js(f"document.querySelector('#fig-holter [data-key=\"holter.counts.{c}\"]').textContent")
            assert text.startswith(f"{counts[c]:,} (")
        # The family's class is now N; no correction is pending.
        assert again.js(f"document.querySelector('.family-card[data-family=\"{family['id']}\"]').dataset.class") == "N"
        assert pending(again) == [] and again.js("document.getElementById('holter-pending').hidden") is True
        offline(again)
        clean(again)
    finally:
        again.close()


def peak_time(beats, b, rate):
    return int(beats[b]["peak"]) / rate


def clock(seconds):
    """h:mm:ss.mmm (a time as the reader may type it)."""
    t = round(seconds * 1000)
    return f"{t // 3600000}:{t // 60000 % 60:02d}:{t // 1000 % 60:02d}.{t % 1000:03d}"


def test_af_episodes_are_removed_and_added_in_the_page(browser, zeroflow_bin, tmp_path):  # noqa: F811
    if not (MITDB / "203.hea").exists():
        pytest.skip(f"{MITDB} is not beside the project: no recording with atrial fibrillation")
    folder = tmp_path / "203"
    run_cli(zeroflow_bin, "run", MITDB / "203.hea", "--out", folder, "--device", "cpu", "--epochs", 2)
    r = Report(browser, folder)
    try:
        page, beats, rate = r.page, r.beats, r.summary["sample_rate"]
        episodes = [(e["first_beat"], e["last_beat"]) for e in r.summary["classes"]["af_episodes"]]
        assert len(episodes) >= 2
        # The events list, AF alone: each episode has its toggle.
        page.locator("#holter-event-counts tr[data-kind=atrial_fibrillation]").click()
        rows = page.locator("#holter-event-list tbody tr")
        assert rows.count() == len(episodes) == page.locator("#holter-event-list label.not-af").count()
        first = rows.first
        first.locator("label.not-af input").check()
        assert first.evaluate("tr => tr.classList.contains('struck')")
        assert r.js("location.hash") == ""  # the toggle is not a click on the row
        # An episode added by time: the first beat at or after the start, the last at or before the end,
        # in the gap the removed episode leaves before the next one.
        a, b = episodes[0][1] + 10, episodes[1][0] - 9
        start = (peak_time(beats, a - 1, rate) + peak_time(beats, a, rate)) / 2
        end = (peak_time(beats, b, rate) + peak_time(beats, b + 1, rate)) / 2
        page.locator("#review-af input[name=first]").fill(clock(start))
        page.locator("#review-af input[name=last]").fill(clock(end))
        page.locator("#review-af button").click()
        # A span that ends before it starts is refused, and says why.
        page.locator("#review-af input[name=first]").fill("200")
        page.locator("#review-af input[name=last]").fill("100")
        page.locator("#review-af button").click()
        assert "before it starts" in r.js("document.getElementById('review-message').textContent")
        assert pending(r) == [
            {"type": "remove", "first_beat": episodes[0][0], "last_beat": episodes[0][1]},
            {"type": "add", "first_beat": a, "last_beat": b},
        ]
        fix = export(r, tmp_path / "corrections.json")
        assert fix == {
            "zeroflow_corrections": 1,
            "samples": r.summary["samples"],
            "families": [],
            "beats": [],
            "af_episodes": {
                "remove": [{"first_beat": episodes[0][0], "last_beat": episodes[0][1]}],
                "add": [{"first_beat": a, "last_beat": b}],
            },
        }
        # Unchecking the toggle drops the correction.
        first.locator("label.not-af input").uncheck()
        assert [i["type"] for i in pending(r)] == ["add"]
        offline(r)
        clean(r)
    finally:
        r.close()

    run_cli(zeroflow_bin, "correct", folder, tmp_path / "corrections.json")
    after = read_summary(folder)
    now = [(e["first_beat"], e["last_beat"]) for e in after["classes"]["af_episodes"]]
    assert now == sorted(episodes[1:] + [(a, b)])
    af = [row["af"] for row in read_beats(folder)]
    assert af[a : b + 1] == ["1"] * (b - a + 1) and set(af[episodes[0][0] : episodes[0][1] + 1]) == {"0"}
    again = Report(browser, folder)
    try:
        assert "corrections applied" in again.js("document.getElementById('holter-corrected').textContent")
        shown = again.js("document.querySelector('#fig-holter [data-key=\"holter.af_burden.episodes\"]').textContent")
        assert shown == str(len(episodes))
        clean(again)
    finally:
        again.close()


def test_print_hides_the_review_and_keeps_each_card_whole(report):
    page = report.page
    page.locator(".family-card select").first.select_option("Q")  # a pending correction, to hide too
    page.emulate_media(media="print")
    try:
        style = report.js(
            "({section: getComputedStyle(document.getElementById('fig-holter-families')).display,"
            " cards: [...document.querySelectorAll('.family-card')].map(c => [getComputedStyle(c).display, getComputedStyle(c).breakInside]),"
            " hidden: [...document.querySelectorAll('#holter-review, #review-pill, #holter-pending, .review-control, #overview-beat')]"
            ".map(e => getComputedStyle(e).display)})"
        )
        assert style["section"] != "none"
        assert style["cards"] and all(c == ["inline-block", "avoid"] for c in style["cards"]), style["cards"]
        assert style["hidden"] and set(style["hidden"]) == {"none"}, style["hidden"]
    finally:
        page.emulate_media(media="null")


def test_a_run_without_classes_has_no_review(browser, zeroflow_bin, tmp_path):  # noqa: F811
    out = tmp_path / "seed"
    run_cli(zeroflow_bin, "run", RECORD_119, "--out", out, "--device", "cpu", "--epochs", 1, "--segmentation", "seed")
    r = Report(browser, out)
    try:
        review = "#fig-holter-families, #holter-review, .review-control, .family-card, label.not-af"
        assert r.js("(s) => document.querySelectorAll(s).length", review) == 0
        assert r.js("(b) => window.zeroflowReport.select(b)", r.js("window.zeroflowReport.topBeats[0]"))
        assert r.js("document.getElementById('overview-beat').hidden") is True
        assert r.js("document.getElementById('review-pill').hidden") is True
        assert r.js("typeof window.zeroflowReport.corrections") == "undefined"
        clean(r)
    finally:
        r.close()
