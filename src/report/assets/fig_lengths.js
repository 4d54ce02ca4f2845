// Beat lengths: the histogram of the distance between consecutive gates as uPlot step areas (kept
// lengths dark, pruned ones grey), with the pruning bounds dashed. Under the robust segmentation
// the gates are R peaks shifted by one window offset, so the lengths are the R-R intervals, and
// nothing is pruned: one series, no bounds.
/* global zf, uPlot */
zf.figures.lengths = (() => {
  const { colour, font, int, num } = zf.format;

  function draw() {
    const el = document.getElementById('lengths-chart'), { D, S, rate } = zf.run;
    const hist = zf.data.decode(D.histogram), p = S.parameters, robust = zf.data.robust();
    if (robust) {
      document.getElementById('lengths-title').textContent = 'R–R intervals';
      document.getElementById('lengths-caption').textContent = 'Histogram of the intervals between consecutive beats. ' +
        'Every beat is scored whatever its interval; the rhythm score and the beat classes use these intervals.';
    }
    if (!hist.length) { zf.chart.message(el, 'no beats'); return; }
    let lastBin = 0;
    for (let i = 0; i < hist.length; i++) if (hist[i]) lastBin = i;
    const overflow = hist.length - 1;  // the last bin counts every longer beat
    const maxBin = robust ? Math.min(overflow, lastBin + Math.ceil(0.08 * lastBin) + 1)
      : Math.min(overflow, Math.max(lastBin, p.max_length) + Math.ceil(0.08 * p.max_length));
    // Each bin as a step from its left edge to the next (one more edge closes the last bin); a
    // series is 0 outside its own bins, so neither draws over the other.
    const x = [], keptBins = [], prunedBins = [];
    let peak = 0;
    for (let i = 0; i <= maxBin + 1; i++) {
      const inside = robust || (i >= p.min_length && i <= p.max_length), v = i <= maxBin ? hist[i] : 0;
      x.push(i / rate);
      keptBins.push(inside ? v : 0);
      prunedBins.push(inside ? 0 : v);
      if (i <= maxBin) peak = Math.max(peak, hist[i]);
    }
    let longer = 0;
    for (let i = maxBin + 1; i < hist.length; i++) longer += hist[i];
    const bars = uPlot.paths.stepped({ align: 1 });
    zf.chart.make(el, {
      scales: { x: { time: false, range: () => [0, (maxBin + 1) / rate] }, y: { range: () => [0, peak * 1.08 || 1] } },
      axes: [zf.chart.axis(robust ? 'R–R interval (s)' : 'beat length (s)', { space: 60 }), zf.chart.axis('beats', { size: 56, fmt: (v) => int(v) })],
      series: [{}, { label: robust ? 'beats' : 'kept', fill: colour.signal, stroke: colour.signal, width: 0, paths: bars, points: { show: false } },
        { label: 'pruned', fill: colour.bin, stroke: colour.bin, width: 0, paths: bars, points: { show: false } }],
      hooks: {
        drawClear: [(u) => zf.chart.paint(u, (ctx, box) => {
          if (robust) return;
          const a = zf.chart.at(u, p.min_length / rate, 'x', box), e = zf.chart.at(u, (p.max_length + 1) / rate, 'x', box);
          ctx.fillStyle = colour.keptZone;
          ctx.fillRect(a, box.top, e - a, box.height);
        })],
        draw: [(u) => zf.chart.paint(u, (ctx, box) => {
          ctx.font = font(11);
          ctx.textBaseline = 'top';
          for (let [bound, name, align] of robust ? [] : [[p.min_length, 'min', 'right'], [p.max_length + 1, 'max', 'left']]) {
            const px = zf.chart.at(u, bound / rate, 'x', box);
            zf.chart.vline(ctx, px, box, colour.alarm, 1.3, [5, 4]);
            const seconds = (name === 'min' ? p.min_length : p.max_length) / rate;
            const text = `${name} ${num(seconds, 4)} s`, tw = ctx.measureText(text).width;
            if (align === 'left' && px + 5 + tw > box.right) align = 'right';  // no room on the right: the other side
            if (align === 'right' && px - 5 - tw < box.left) align = 'left';
            ctx.fillStyle = colour.alarm;
            ctx.textAlign = align;
            ctx.fillText(text, px + (align === 'left' ? 5 : -5), box.top + 4);
          }
          if (longer) {
            ctx.fillStyle = colour.muted;
            ctx.textAlign = 'right';
            ctx.fillText(`+ ${int(longer)} beats ≥ ${num((maxBin + 1) / rate, 3)} s`, box.right - 6, box.top + 20);
          }
        })],
      },
    }, [x, keptBins, prunedBins]);
  }

  return { draw };
})();
