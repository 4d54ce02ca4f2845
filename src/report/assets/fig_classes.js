// Beat classes and rhythm: per class its count, share and example beats (the highest-scoring of
// the class, overlaid in a small uPlot chart; a click shows the first in the overview); a timeline
// of S and V beats per minute with the atrial fibrillation episodes shaded; and the episodes as a
// table whose rows take the overview to their onset. A run of the gate-to-gate segmentation has no
// classes, and the figure says so.
/* global zf, uPlot */
zf.figures.classes = (() => {
  const { colour, int, num, clock, finiteRange } = zf.format;
  const { beatPeak, waveform } = zf.data;
  const about = {
    N: 'dominant (normal) beats',
    S: 'supraventricular ectopic: the dominant shape, early or in a fast run',
    V: 'ventricular ectopic: a different QRS, early or before a pause (or of a family of such)',
    Q: 'unclassifiable: a different QRS in normal timing (noise, artefact)',
  };

  /** The run's AF episodes as {onset, offset} in samples, [] when it has none. */
  const episodes = () => ((zf.run.S.classes && zf.run.S.classes.af_episodes) || []);

  function classTable(box) {
    const { S, cand, rate } = zf.run, counts = S.classes.counts, total = cand.n || 1;
    const table = document.createElement('table');
    table.className = 'facts class-table';
    for (const name of ['N', 'S', 'V', 'Q']) {
      const tr = table.insertRow(), examples = (S.classes.examples[name] || []).filter((c) => waveform(c));
      tr.dataset.class = name;
      tr.dataset.count = String(counts[name]);
      const th = document.createElement('th'), swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = colour.beatClass[name];
      th.append(swatch, name);
      const what = tr.insertCell(), chart = tr.insertCell();
      what.textContent = `${int(counts[name])} beat${counts[name] === 1 ? '' : 's'} (${num((100 * counts[name]) / total, 3)} %) · ${about[name]}`;
      tr.prepend(th);
      chart.className = 'class-examples';
      if (!examples.length) { chart.textContent = '–'; continue; }
      const el = document.createElement('div');
      el.className = 'spark';
      el.dataset.h = '54';
      el.title = `${examples.length} example${examples.length > 1 ? 's' : ''}; click to see the first in the recording`;
      chart.appendChild(el);
      tr.addEventListener('click', () => {
        history.replaceState(null, '', '#t=' + (beatPeak(examples[0]) / rate).toFixed(3));
        zf.figures.overview.select(examples[0], true, true);
      });
      tr.classList.add('clickable');
      requestAnimationFrame(() => zf.safely('classes', () => overlay(el, examples, colour.beatClass[name])));
    }
    box.appendChild(table);
  }

  /** Example beats of one class, overlaid on one time axis. */
  function overlay(el, beats, stroke) {
    const waves = beats.map((c) => waveform(c)), x = waves[0].x;
    const ys = waves.map((w) => (w.y.length === x.length ? w.y : null)).filter(Boolean);
    zf.chart.spark(el, {
      scales: { x: { time: false, range: () => [x[0], x[x.length - 1]] }, y: { range: () => finiteRange(ys) } },
      series: [{}].concat(ys.map(() => ({ stroke, width: 1.1, points: { show: false } }))),
    }, [x].concat(ys));
  }

  /** S and V beats per minute over the recording, the AF episodes shaded behind them. */
  function timeline(el) {
    const { cand, rate, n } = zf.run, minutes = Math.max(1, Math.ceil(n / rate / 60));
    const x = Float64Array.from({ length: minutes + 1 }, (_, i) => i);
    const s = new Float64Array(minutes + 1), v = new Float64Array(minutes + 1);
    for (let c = 0; c < cand.n; c++) {
      const m = Math.min(minutes - 1, Math.floor(beatPeak(c) / rate / 60));
      if (cand.cls[c] === 2) s[m]++;
      else if (cand.cls[c] === 3) v[m]++;
    }
    let peak = 1;
    for (let i = 0; i < minutes; i++) peak = Math.max(peak, s[i], v[i]);
    const steps = uPlot.paths.stepped({ align: 1 });
    zf.chart.make(el, {
      scales: { x: { time: false, range: () => [0, minutes] }, y: { range: () => [0, peak * 1.1] } },
      axes: [zf.chart.axis('time in the recording (min)', { space: 60 }), zf.chart.axis('beats per minute', { size: 56, fmt: (t) => int(t) })],
      series: [{}, { label: 'S', stroke: colour.beatClass.S, width: 1.5, paths: steps, points: { show: false } },
        { label: 'V', stroke: colour.beatClass.V, width: 1.5, paths: steps, points: { show: false } }],
      cursor: { show: false },
      hooks: {
        drawClear: [(u) => zf.chart.paint(u, (ctx, box) => {
          ctx.fillStyle = colour.af;
          for (const e of episodes()) {
            const a = zf.chart.at(u, e.onset / rate / 60, 'x', box), b = zf.chart.at(u, e.offset / rate / 60, 'x', box);
            ctx.fillRect(a, box.top, Math.max(1, b - a), box.height);
          }
        })],
      },
    }, [x, s, v]);
  }

  function episodeTable(box) {
    const { rate, S } = zf.run, list = episodes();
    const p = document.createElement('p');
    p.className = 'muted';
    p.id = 'af-summary';
    p.textContent = list.length
      ? `${list.length} atrial fibrillation episode${list.length > 1 ? 's' : ''}, ${clock(S.classes.af_seconds)} in all (${num((100 * S.classes.af_seconds) / S.duration_seconds, 3)} % of the recording). Click one to see its onset.`
      : 'No atrial fibrillation episode: no run of 30 or more beats with irregular R–R intervals and no consistent P wave.';
    box.appendChild(p);
    if (!list.length) return;
    const table = document.createElement('table');
    table.className = 'facts episode-table';
    const head = table.createTHead().insertRow();
    for (const h of ['rhythm', 'onset', 'offset', 'duration', 'beats']) { const th = document.createElement('th'); th.textContent = h; head.appendChild(th); }
    const body = table.createTBody();
    for (const e of list) {
      const tr = body.insertRow();
      tr.dataset.onset = String(e.onset / rate);
      tr.className = 'clickable';
      for (const text of [e.rhythm, clock(e.onset / rate), clock(e.offset / rate), clock(e.duration_seconds), int(e.beats)]) tr.insertCell().textContent = text;
      tr.addEventListener('click', () => {
        const t = e.onset / rate;
        history.replaceState(null, '', '#t=' + t.toFixed(3));
        zf.figures.overview.zoomTo(t - 5, t + 15);
        document.getElementById('fig-overview').scrollIntoView({ behavior: 'smooth', block: 'start' });
      });
    }
    box.appendChild(table);
  }

  function draw() {
    const { S } = zf.run, box = document.getElementById('classes-body'), chart = document.getElementById('classes-timeline');
    box.textContent = '';
    if (!S.classes || S.parameters.segmentation !== 'robust') {
      box.innerHTML = '<p class="muted">Beat classes and rhythm come with the robust segmentation (the default); this run used the seed documents\' gate-to-gate method (--segmentation gate-to-gate), which classifies nothing.</p>';
      chart.hidden = true;
      return;
    }
    classTable(box);
    timeline(chart);
    episodeTable(box);
    const rule = document.createElement('p');
    rule.className = 'caption';
    rule.textContent = 'The rule: ' + S.classes.rule + '.';
    box.appendChild(rule);
  }

  return { draw };
})();
