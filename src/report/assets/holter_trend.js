// The heart rate over the recording: per minute its lowest, mean and highest (a band around the
// mean line), AF episodes shaded amber and unreadable stretches grey behind it, the day's lowest
// and highest marked; the time axis in hh:mm from the start. Redrawn at the paper's width to print.
/* global zf */
zf.figures['holter-trend'] = (() => {
  const { colour, int, hm, hms } = zf.format;
  const unreadableFill = 'rgba(82, 96, 109, 0.16)';
  const paper = { width: 960, height: 210 };  // CSS px: landscape A4 or Letter less 10 mm margins
  const minuteSteps = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200];

  function shade(u, list, fill) {
    const rate = zf.run.rate;
    zf.chart.paint(u, (ctx, box) => {
      ctx.fillStyle = fill;
      for (const e of list) {
        const a = zf.chart.at(u, e.onset / rate, 'x', box), b = zf.chart.at(u, e.offset / rate, 'x', box);
        ctx.fillRect(a, box.top, Math.max(1, b - a), box.height);
      }
    });
  }
  function extremes(u, r) {
    zf.chart.paint(u, (ctx, box) => {
      ctx.font = zf.chart.font(11);
      ctx.textAlign = 'center';
      for (const [e, up] of [[r.lowest, false], [r.highest, true]]) {
        if (!e) continue;
        const x = zf.chart.at(u, e.seconds, 'x', box), y = zf.chart.at(u, e.bpm, 'y', box);
        zf.chart.dot(ctx, x, y, 3.5, colour.alarm);
        ctx.fillStyle = colour.ink;
        ctx.textBaseline = up ? 'bottom' : 'top';
        ctx.fillText(`${int(e.bpm)} bpm ${hms(e.seconds)}`, Math.min(box.right - 60, Math.max(box.left + 60, x)), y + (up ? -6 : 6));
      }
    }, false);
  }

  /** Draws the chart as wide as its box, or `size` ({width, height} in CSS px) for the paper. */
  function draw(size) {
    const section = zf.holter.section('fig-holter-trend');
    if (!section) return;
    const h = zf.holter.analysis(), m = h.heart_rate.per_minute, el = document.getElementById('holter-trend');
    const n = m.mean_bpm.length, end = Math.max(60, h.duration_seconds);
    if (!n) { zf.chart.message(el, 'no heart rate measured'); return; }
    const x = Array.from({ length: n }, (_, i) => Math.min(end, i * 60 + 30));
    const finite = [m.lowest_bpm, m.highest_bpm, m.mean_bpm].map((a) => Float64Array.from(a, (v) => (v === null ? NaN : v)));
    const [lo, hi] = zf.format.finiteRange(finite, 0.08);
    const classes = zf.run.S.classes || {};
    const height = el.dataset.h;
    if (size) el.style.width = size.width + 'px', el.dataset.h = String(size.height);
    const u = zf.chart.make(el, {
      scales: { x: { time: false, range: () => [0, end] }, y: { range: () => [Math.max(0, lo), hi] } },
      axes: [zf.chart.axis('time from the start (hh:mm)', { incrs: minuteSteps, space: 70, fmt: (v) => hm(v) }),
        zf.chart.axis('heart rate (bpm)', { size: 48, fmt: (v) => int(v) })],
      series: [{},
        { label: 'highest', stroke: 'rgba(31, 78, 121, 0.45)', width: 1, points: { show: false } },
        { label: 'mean', stroke: colour.signal, width: 1.6, points: { show: false } },
        { label: 'lowest', stroke: 'rgba(31, 78, 121, 0.45)', width: 1, points: { show: false } }],
      bands: [{ series: [1, 3], fill: 'rgba(31, 78, 121, 0.14)' }],
      cursor: { show: false },
      hooks: {
        drawClear: [(v) => shade(v, classes.af_episodes || [], colour.af), (v) => shade(v, classes.unreadable || [], unreadableFill)],
        draw: [(v) => extremes(v, h.heart_rate)],
      },
    }, [x, m.highest_bpm, m.mean_bpm, m.lowest_bpm]);
    el.style.width = '';
    el.dataset.h = height;
    section.dataset.minutes = String(n);
    zf.chart.legend(document.getElementById('holter-trend-legend'), [
      { colour: colour.signal, text: 'mean per minute' }, { colour: 'rgba(31, 78, 121, 0.45)', text: 'lowest and highest per minute' },
      { colour: 'rgba(245, 159, 0, 0.6)', text: 'atrial fibrillation', dot: true }, { colour: 'rgba(82, 96, 109, 0.5)', text: 'unreadable', dot: true },
      { colour: colour.alarm, text: 'lowest and highest of the recording', dot: true }]);
    return u;
  }

  // The chart is drawn in pixels for the window: print redraws it for the paper, then back.
  window.addEventListener('beforeprint', () => { if (zf.run) zf.safely('holter-trend', () => draw(paper)); });
  window.addEventListener('afterprint', () => { if (zf.run) zf.safely('holter-trend', () => draw()); });

  return { draw: () => { draw(); } };
})();
