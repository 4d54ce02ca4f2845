// Most anomalous beats: one card per top-25 beat with its waveform (a small uPlot chart), rank,
// time (a link into the overview, #t=<seconds>) and score. wave() also draws the latent panel's beat.
/* global zf */
zf.figures.anomalies = (() => {
  const { colour, num, int, clock, finiteRange } = zf.format;
  const { beatPeak, splitName, waveform } = zf.data;

  /** Candidate c's waveform in `el`: its beat span shaded, the rest zero padding; with axes in the panel. */
  function wave(el, c, withAxes) {
    const { rows, rate, cand, topSet } = zf.run, data = waveform(c);
    if (!data) { zf.chart.message(el, 'no waveform'); return; }
    const range = finiteRange([data.y]), len = cand.length[c] / rate, end = (rows.width - 1) / rate;
    const opts = {
      scales: { x: { time: false, range: () => [0, end] }, y: { range: () => range } },
      series: [{}, { stroke: topSet.has(c) ? colour.alarm : colour.signal, width: withAxes ? 1.6 : 1.3, points: { show: false } }],
      hooks: {
        drawClear: [(u) => zf.chart.paint(u, (ctx, box) => {
          ctx.fillStyle = 'rgba(31, 78, 121, 0.05)';
          ctx.fillRect(box.left, box.top, zf.chart.at(u, len, 'x', box) - box.left, box.height);
        })],
        draw: [(u) => zf.chart.paint(u, (ctx, box) => {
          if (!withAxes || data.full) return;
          ctx.fillStyle = colour.muted;
          ctx.font = zf.chart.font(10);
          ctx.textAlign = 'right';
          ctx.textBaseline = 'top';
          ctx.fillText(`preview: ${rows.thumbWidth} points`, box.right - 4, box.top + 3);
        })],
      },
    };
    if (withAxes) {
      zf.chart.make(el, Object.assign(opts, {
        padding: [8, 8, 0, 0], cursor: { show: false },
        axes: [zf.chart.axis('s', { space: 50 }), zf.chart.axis('', { size: 40, space: 30 })],
      }), [data.x, data.y]);
    } else {
      zf.chart.spark(el, opts, [data.x, data.y]);
    }
  }

  function draw() {
    const list = document.getElementById('anomaly-list'), { top, kept, cand, rate } = zf.run;
    list.textContent = '';
    if (!top.length) { list.innerHTML = '<li class="muted">no scored beats</li>'; return; }
    for (const t of top) {
      const c = t.beat, seconds = beatPeak(c) / rate;
      const li = document.createElement('li');
      Object.assign(li.dataset, { beat: String(c), rank: String(t.rank), score: String(kept.score[t.k]), time: String(seconds) });
      const head = document.createElement('div');
      head.className = 'head';
      const rank = document.createElement('span');
      rank.className = 'rank';
      rank.textContent = String(t.rank);
      const link = document.createElement('a');
      link.href = '#t=' + seconds.toFixed(3);
      link.className = 'time';
      link.textContent = clock(seconds, 3);
      const score = document.createElement('span');
      score.className = 'score';
      score.textContent = num(kept.score[t.k], 4);
      score.title = 'anomaly score';
      head.append(rank, link, score);
      const chart = document.createElement('div');
      chart.className = 'spark';
      chart.dataset.h = '64';
      const foot = document.createElement('div');
      foot.className = 'foot';
      foot.textContent = `beat #${int(c)} · ${num(cand.length[c] / rate, 3)} s · ${splitName(c)}`;
      li.append(head, chart, foot);
      li.addEventListener('click', (e) => {
        e.preventDefault();
        history.replaceState(null, '', '#t=' + seconds.toFixed(3));
        zf.figures.overview.select(c, true, true);
      });
      list.appendChild(li);
    }
    list.querySelectorAll('li').forEach((li) => wave(li.querySelector('.spark'), Number(li.dataset.beat), false));
  }

  return { draw, wave };
})();
