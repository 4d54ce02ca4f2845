// Segmentation at work: ten seconds of the recording and its band-pass (Ricker) response, two
// uPlot charts on one time axis (their cursors move together), with the gates that start each
// beat candidate (grey: kept, orange dashed: pruned) and the R-peaks.
/* global zf */
zf.figures.excerpt = (() => {
  const { colour, timeFormat, finiteRange, num } = zf.format;
  const { beatStart, beatPeak, firstCandidateFrom } = zf.data;

  function draw() {
    const { excerpt, rate, cand } = zf.run, top = document.getElementById('excerpt-chart'), bottom = document.getElementById('excerpt-filtered');
    const section = document.getElementById('fig-excerpt'), p = zf.run.S.parameters, robust = zf.data.robust();
    if (robust)
      document.getElementById('excerpt-caption').textContent = 'Ten seconds of the recording (top) and its band-pass ' +
        '(Ricker wavelet) response (bottom). Red dots are the R peaks the QRS detector accepted (adaptive thresholds on ' +
        `the band-pass energy); each grey line starts a beat's window, ${num(p.window_before / rate, 3)} s before its ` +
        'peak. Every beat is kept and scored.';
    if (!excerpt.signal.length) { zf.chart.message(top, 'no excerpt in this run'); zf.chart.message(bottom, ''); return; }
    const start = excerpt.start, len = excerpt.signal.length;
    const t = Float64Array.from({ length: len }, (_, i) => (start + i) / rate);
    const t0 = t[0], t1 = t[len - 1];
    const from = firstCandidateFrom(start), to = firstCandidateFrom(start + len);
    const tf = timeFormat(t1 - t0, t1), format = () => tf;
    const gates = (u) => zf.chart.paint(u, (ctx, box) => {
      for (let c = from; c < to; c++)
        zf.chart.vline(ctx, zf.chart.at(u, beatStart(c) / rate, 'x', box), box, cand.status[c] ? colour.gate : colour.pruned, 1, cand.status[c] ? [] : [4, 3]);
    });
    const peaks = (u) => zf.chart.paint(u, (ctx, box) => {
      for (let c = from; c < to; c++) {
        const p = beatPeak(c) - start;
        if (p >= 0 && p < len) zf.chart.dot(ctx, zf.chart.at(u, (start + p) / rate, 'x', box), zf.chart.at(u, excerpt.signal[p], 'y', box), 2.5, colour.alarm);
      }
    });
    const common = (yLabel, range, hooks, xLabels) => ({
      scales: { x: { time: false, range: () => [t0, t1] }, y: { range: () => range } },
      axes: [zf.chart.timeAxis(format, xLabels ? { label: tf.label.replace('time', 'time in the recording') } : { label: '', labelSize: 0, size: 2, ticks: { show: false }, values: (u, s) => s.map(() => '') }),
        zf.chart.axis(yLabel, { size: 56 })],
      cursor: { drag: { x: false, y: false, setScale: false }, y: false, points: { show: false }, sync: { key: 'excerpt' } },
      hooks,
    });
    zf.chart.make(top, Object.assign(common('signal (raw units)', finiteRange([excerpt.signal]), { drawClear: [gates], draw: [peaks] }, false),
      { series: [{}, { label: 'signal', stroke: colour.signal, width: 1.3, points: { show: false } }] }), [t, excerpt.signal]);
    if (excerpt.filtered.length)
      zf.chart.make(bottom, Object.assign(common('band-pass', finiteRange([excerpt.filtered]), { drawClear: [gates] }, true),
        { series: [{}, { label: 'band-pass response', stroke: colour.filtered, width: 1.3, points: { show: false } }] }), [t, excerpt.filtered]);
    else zf.chart.message(bottom, 'no band-pass response in this run');
    const lines = robust ? [{ colour: colour.gate, text: 'beat window start' }]
      : [{ colour: colour.gate, text: 'gate (kept beat)' }, { colour: colour.pruned, text: 'gate (pruned)', dash: true }];
    zf.chart.legend(document.getElementById('excerpt-legend'), [
      { colour: colour.signal, text: 'signal' }, { colour: colour.filtered, text: 'band-pass response' },
      ...lines, { colour: colour.alarm, text: 'R-peak', dot: true }]);
    section.dataset.gates = String(Math.max(0, to - from));
  }

  return { draw };
})();
