// Embedded beats: three dozen beats spread over the recording, as the model sees them, overlaid
// with their mean (one uPlot series each).
/* global zf */
zf.figures.beats = (() => {
  const { colour, finiteRange, num } = zf.format;

  function draw() {
    const el = document.getElementById('beats-chart'), { rows, rate, topSet } = zf.run;
    let chosen = rows.beats.filter((c) => !topSet.has(c));
    if (!chosen.length) chosen = rows.beats;
    if (!chosen.length) { zf.chart.message(el, 'no beats shipped with this report'); return; }
    const robust = zf.data.robust(), p = zf.run.S.parameters;
    if (robust)
      document.getElementById('beats-caption').textContent = 'Beats spread over the recording, as the model sees them: ' +
        `from ${num(p.window_before / rate, 3)} s before the R peak to ${num(p.window_after / rate, 3)} s after it, ` +
        'robust z-scored. The dark line is their mean.';
    const w = rows.width, all = chosen.map((c) => rows.byBeat.get(c));
    const mean = new Float32Array(w);
    for (const row of all) for (let i = 0; i < w; i++) mean[i] += row[i] / all.length;
    const x = Float64Array.from({ length: w }, (_, i) => i / rate), range = finiteRange(all);
    const series = [{}].concat(all.map(() => ({ stroke: colour.overlay, width: 1, points: { show: false } })),
      [{ label: 'mean', stroke: colour.ink, width: 2, points: { show: false } }]);
    zf.chart.make(el, {
      scales: { x: { time: false, range: () => [0, (w - 1) / rate] }, y: { range: () => range } },
      axes: [zf.chart.axis(robust ? 'time from the window start (s)' : 'time from the gate (s)', { space: 60 }), zf.chart.axis('normalised amplitude (robust z)', { size: 56 })],
      series,
      cursor: { show: false },
    }, [x].concat(all, [mean]));
    document.getElementById('fig-beats').dataset.beats = String(all.length);
  }

  return { draw };
})();
