// The whole recording: a min/max overview that keeps every peak at any zoom. uPlot draws the axes
// and the cursor; this module's path builders draw the signal from the pyramid of min/max levels
// (zf.data): one min/max bar per pixel column while a stored level is finer than a column, the
// raw samples when the report holds them, else the finest level's envelope plus the raw samples
// of the beats and the excerpt the report holds in full. The strip below shows the whole
// recording and where the view is; wheel, drag, buttons and the strip move the view. Atrial
// fibrillation episodes are shaded in both; zoomed in, every beat that is not N carries its class,
// and a click selects a beat. The selected beat's class can be corrected from the toolbar (zf.review).
/* global zf */
zf.figures.overview = (() => {
  const { colour, font, clock, num, int, finiteRange, timeFormat } = zf.format;
  const { beatStart, beatPeak, firstCandidateFrom, className } = zf.data;
  const afEpisodes = () => ((zf.run.S.classes && zf.run.S.classes.af_episodes) || []);
  /** Shades the AF episodes between the x of sample a and of sample b. */
  function shadeAf(ctx, box, x) {
    ctx.fillStyle = colour.af;
    for (const e of afEpisodes()) {
      const a = Math.max(box.left, x(e.onset)), b = Math.min(box.right, x(e.offset));
      if (b > a) ctx.fillRect(a, box.top, Math.max(1, b - a), box.height);
    }
  }
  const minSpan = 10;  // samples: zoom reaches single samples
  const ov = { s0: 0, s1: 1, selected: -1, drag: null, chart: null, context: null, state: null };
  const $ = (id) => document.getElementById(id);

  function clampView(s0, s1) {
    const n = zf.run.n;
    const span = Math.min(Math.max(s1 - s0, minSpan), Math.max(n, minSpan));
    s0 = Math.min(Math.max(s0, 0), Math.max(0, n - span));
    return [s0, s0 + span];
  }
  function setView(s0, s1) { [ov.s0, ov.s1] = clampView(s0, s1); }

  /** Per-column min/max of [s0, s1) over `px` columns from the coarsest level still finer than a
   *  column; unresolved when even the finest level is coarser than a column. */
  function columns(s0, s1, px) {
    const levels = zf.run.levels, spp = (s1 - s0) / px;
    let L = levels[0];
    for (const l of levels) if (l.bucket <= spp) L = l;
    const lo = new Float32Array(px).fill(NaN), hi = new Float32Array(px).fill(NaN);
    if (L.bucket > spp) return { lo, hi, level: L, resolved: false };
    const count = L.lo.length;
    for (let x = 0; x < px; x++) {
      const a = Math.max(0, Math.floor((s0 + x * spp) / L.bucket));
      const b = Math.min(count, Math.max(a + 1, Math.ceil((s0 + (x + 1) * spp) / L.bucket)));
      let mn = Infinity, mx = -Infinity;
      for (let i = a; i < b; i++) { if (L.lo[i] < mn) mn = L.lo[i]; if (L.hi[i] > mx) mx = L.hi[i]; }
      if (mn <= mx) lo[x] = mn, hi[x] = mx;
    }
    return { lo, hi, level: L, resolved: true };
  }

  /** Raw samples the report holds in [s0, s1) beyond the overview: the excerpt and the full rows. */
  function rawPieces(s0, s1) {
    const { excerpt, rows, cand, S } = zf.run, pieces = [];
    if (excerpt.signal.length) {
      const a = excerpt.start, b = excerpt.start + excerpt.signal.length;
      if (b > s0 && a < s1) pieces.push({ start: a, values: excerpt.signal });
    }
    const norm = S.normalization;
    for (const [c, row] of rows.byBeat) {
      const a = beatStart(c);
      // A row may hold fewer samples than the beat is long (its window ends earlier): the rest is
      // zero padding, not signal (zero within the 16-bit coding's step).
      let len = Math.min(cand.length[c], row.length), peak = 0;
      for (let i = 0; i < len; i++) peak = Math.max(peak, Math.abs(row[i]));
      while (len > 0 && Math.abs(row[len - 1]) <= 1e-4 * peak) len--;
      if (a + len <= s0 || a >= s1) continue;
      const values = new Float32Array(len);
      for (let i = 0; i < len; i++) values[i] = row[i] * norm.scale + norm.center;
      pieces.push({ start: a, values });
    }
    return pieces;
  }

  /** What the view shows at `px` columns: the mode, the level, and the y range of the visible span. */
  function viewState(px) {
    const { s0, s1 } = ov, col = columns(s0, s1, px), L = col.level;
    const mode = col.resolved ? 'columns' : L.bucket === 1 ? 'raw' : 'envelope';
    const first = Math.max(0, Math.floor(s0 / L.bucket)), last = Math.min(L.lo.length, Math.ceil(s1 / L.bucket));
    let ylo = Infinity, yhi = -Infinity;
    for (let i = first; i < last; i++) { if (L.lo[i] < ylo) ylo = L.lo[i]; if (L.hi[i] > yhi) yhi = L.hi[i]; }
    if (!(ylo <= yhi)) ylo = 0, yhi = 1;
    return { px, col, L, mode, first, last, y: finiteRange([[ylo, yhi]], 0.06), pieces: mode === 'envelope' ? rawPieces(s0, s1) : [] };
  }
  /** The state for the chart's current plot width (it settles when uPlot sizes its axes). */
  function stateFor(u) {
    const px = Math.max(1, Math.floor(u.bbox.width / zf.chart.dpr()));
    if (!ov.state || ov.state.px !== px) { const y = ov.state && ov.state.y; ov.state = viewState(px); if (y) ov.state.y = y; }
    return ov.state;
  }

  // Path builders (uPlot calls them with canvas pixels): series 1 is the min/max bars or the
  // envelope, series 2 the raw samples.
  const empty = () => ({ stroke: new Path2D(), fill: null, clip: null, band: null, gaps: null, flags: 0 });
  function rangePaths(u) {
    const st = stateFor(u), p = empty(), r = zf.chart.dpr(), left = u.bbox.left;
    const Y = (v) => u.valToPos(v, 'y', true), X = (s) => u.valToPos(s / zf.run.rate, 'x', true);
    if (st.mode === 'columns') {
      // One min/max bar per column, widened to touch its neighbours so the band reads as a trace.
      p.fill = new Path2D();
      const { lo: clo, hi: chi } = st.col;
      let plo = NaN, phi = NaN;
      for (let i = 0; i < st.px; i++) {
        let lo = clo[i], hi = chi[i];
        if (!(lo <= hi)) { plo = phi = NaN; continue; }
        if (plo <= phi) { lo = Math.min(lo, phi); hi = Math.max(hi, plo); }
        const top = Y(hi), bottom = Y(lo);
        p.fill.rect(left + i * r, top, r, Math.max(r, bottom - top));
        plo = clo[i], phi = chi[i];
      }
    } else if (st.mode === 'envelope') {
      // The finest level's buckets through their centres: max along the top, min back along the bottom.
      const L = st.L, a = Math.max(0, st.first - 1), e = Math.min(L.lo.length, st.last + 1);
      const centre = (i) => X((i + 0.5) * L.bucket);
      p.fill = new Path2D();
      for (let i = a; i < e; i++) p.fill[i === a ? 'moveTo' : 'lineTo'](centre(i), Y(L.hi[i]));
      for (let i = e - 1; i >= a; i--) p.fill.lineTo(centre(i), Y(L.lo[i]));
      p.fill.closePath();
      for (const edge of [L.hi, L.lo]) for (let i = a; i < e; i++) p.stroke[i === a ? 'moveTo' : 'lineTo'](centre(i), Y(edge[i]));
    }
    return p;
  }
  function samplePaths(u) {
    const st = stateFor(u), p = empty();
    const Y = (v) => u.valToPos(v, 'y', true), X = (s) => u.valToPos(s / zf.run.rate, 'x', true);
    const trace = (start, values, a, e) => {
      let pen = false;
      for (let i = a; i < e; i++) {
        const v = values[i];
        if (!isFinite(v)) { pen = false; continue; }
        p.stroke[pen ? 'lineTo' : 'moveTo'](X(start + i), Y(v));
        pen = true;
      }
    };
    if (st.mode === 'raw') trace(0, st.L.lo, Math.max(0, Math.floor(ov.s0) - 1), Math.min(zf.run.n, Math.ceil(ov.s1) + 1));
    for (const piece of st.pieces) trace(piece.start, piece.values, 0, piece.values.length);
    return p;
  }

  /** Behind the signal: the spans of the top anomalies and the selection, and beat boundaries once
   *  they are far enough apart to tell. */
  function under(u) {
    zf.chart.paint(u, (ctx, box) => {
      const { cand, rate, top } = zf.run, xs = (s) => zf.chart.at(u, s / rate, 'x', box);
      shadeAf(ctx, box, xs);
      const mark = (c, fill) => {
        const a = xs(beatStart(c)), e = xs(beatStart(c) + cand.length[c]);
        if (e - a >= 3) { ctx.fillStyle = fill; ctx.fillRect(a, box.top, e - a, box.height); }
      };
      for (const t of top) if (t.beat !== ov.selected) mark(t.beat, colour.alarmSoft);
      if (ov.selected >= 0) mark(ov.selected, colour.selectSoft);
      const from = firstCandidateFrom(ov.s0), to = firstCandidateFrom(ov.s1);
      if (to - from > 0 && to - from < box.width / 6)
        for (let c = from; c < to; c++) zf.chart.vline(ctx, xs(beatStart(c)), box, cand.status[c] ? colour.kept : colour.pruned, 1, cand.status[c] ? [] : [4, 3]);
    });
  }

  /** On top: sample dots once they are far apart, the anomaly markers with their ranks, the
   *  selected beat's line, and what resolution is shown. */
  function over(u) {
    const st = stateFor(u);
    zf.chart.paint(u, (ctx, box) => {
      const { rate, top, n } = zf.run, xs = (s) => zf.chart.at(u, s / rate, 'x', box), ys = (v) => zf.chart.at(u, v, 'y', box);
      if (box.width / (ov.s1 - ov.s0) >= 5) {
        const dots = (start, values, a, e) => { for (let i = a; i < e; i++) if (isFinite(values[i])) zf.chart.dot(ctx, xs(start + i), ys(values[i]), 2.2, colour.signal); };
        if (st.mode === 'raw') dots(0, st.L.lo, Math.max(0, Math.floor(ov.s0) - 1), Math.min(n, Math.ceil(ov.s1) + 1));
        for (const piece of st.pieces) {
          const a = Math.max(0, Math.floor(ov.s0 - piece.start) - 1), e = Math.min(piece.values.length, Math.ceil(ov.s1 - piece.start) + 1);
          dots(piece.start, piece.values, a, e);
        }
      }
      ctx.font = font(10, 600);
      ctx.textBaseline = 'top';
      ctx.textAlign = 'left';
      const placed = [];
      for (const t of top) {
        const p = xs(beatPeak(t.beat));
        if (p < box.left - 6 || p > box.right + 6) continue;
        ctx.fillStyle = colour.alarm;
        ctx.beginPath(); ctx.moveTo(p - 5, box.top + 1); ctx.lineTo(p + 5, box.top + 1); ctx.lineTo(p, box.top + 9); ctx.fill();
        if (!placed.some((q) => Math.abs(q - p) < 18)) { ctx.fillText(String(t.rank), p + 5, box.top + 9); placed.push(p); }
      }
      if (ov.selected >= 0) zf.chart.vline(ctx, xs(beatPeak(ov.selected)), box, colour.select, 2);
      // Each beat's class above its peak once beats are far enough apart to read: N left unmarked.
      const from = zf.data.firstCandidateFrom(ov.s0), to = zf.data.firstCandidateFrom(ov.s1);
      if (to - from > 0 && to - from < box.width / 14) {
        ctx.font = font(11, 700);
        ctx.textAlign = 'center';
        ctx.textBaseline = 'top';
        const review = zf.review.count() > 0;  // with corrections pending, the classes they give
        for (let c = from; c < to; c++) {
          const name = review ? zf.review.classOf(c) : className(c);
          if (!name || name === 'N') continue;
          ctx.fillStyle = colour.beatClass[name];
          ctx.fillText(name, xs(beatPeak(c)), box.top + 12);
        }
      }
      if (st.mode === 'envelope') {
        ctx.fillStyle = colour.muted;
        ctx.font = font(11);
        ctx.textAlign = 'right';
        ctx.fillText(`stored as min/max of ${st.L.bucket} samples (${num(st.L.bucket / rate, 3)} s); raw samples where the report holds them`, box.right - 6, box.top + 14);
      }
    });
  }

  function format() {
    const rate = zf.run.rate;
    return timeFormat((ov.s1 - ov.s0) / rate, ov.s1 / rate);
  }

  function draw() {
    const el = $('overview-chart');
    if (zf.data.robust())
      $('overview-method').textContent = '; amber spans are atrial fibrillation episodes; zoomed in, grey lines start each ' +
        "beat's window and letters mark every beat that is not N (S violet, V orange, Q grey)";
    if (!zf.run.levels.length) { zf.chart.message(el, 'no overview in this run'); zf.chart.message($('overview-context'), ''); return; }
    ov.state = null;
    ov.chart = zf.chart.make(el, {
      scales: { x: { time: false, range: () => [ov.s0 / zf.run.rate, ov.s1 / zf.run.rate] }, y: { range: () => ov.state.y } },
      axes: [zf.chart.timeAxis(format), zf.chart.axis('signal (raw units)', { size: 56 })],
      series: [{}, { label: 'min/max', fill: () => (ov.state.mode === 'columns' ? colour.signal : colour.band), stroke: colour.bandEdge, width: 1, paths: rangePaths, points: { show: false } },
        { label: 'samples', stroke: colour.signal, width: 1.4, paths: samplePaths, points: { show: false } }],
      cursor: { drag: { x: false, y: false, setScale: false }, y: false, points: { show: false } },
      hooks: { drawClear: [under], draw: [over] },
    }, [[0, 1], [0, 0], [0, 0]]);
    drawContext();
    update();
    wire();
    showBeat();
  }

  /** Recomputes what the view shows and hands it to the charts. */
  function update() {
    const u = ov.chart, rate = zf.run.rate;
    if (!u) return;
    ov.state = viewState(Math.max(1, Math.floor(u.bbox.width / zf.chart.dpr())));
    u.axes[0].label = format().label;
    u.setData([[ov.s0 / rate, ov.s1 / rate], [ov.state.y[0], ov.state.y[0]], [ov.state.y[0], ov.state.y[0]]]);
    const span = (ov.s1 - ov.s0) / rate, section = $('fig-overview');
    section.dataset.t0 = String(ov.s0 / rate);
    section.dataset.t1 = String(ov.s1 / rate);
    section.dataset.bucket = String(ov.state.L.bucket);
    $('overview-range').textContent =
      `${clock(ov.s0 / rate, span < 60 ? 3 : 0)} – ${clock(ov.s1 / rate, span < 60 ? 3 : 0)}  (${span >= 120 ? clock(span) : num(span, 3) + ' s'} shown)`;
    if (ov.context) ov.context.redraw(false, false);
  }

  /** The strip below: the whole recording at one bar per column, the view as a box. */
  function drawContext() {
    const el = $('overview-context'), levels = zf.run.levels, coarsest = levels[levels.length - 1];
    const y = finiteRange([coarsest.lo, coarsest.hi], 0.05);
    let col = null;
    ov.context = zf.chart.make(el, {
      padding: [4, 40, 4, 0],
      scales: { x: { time: false, range: () => [0, zf.run.n] }, y: { range: () => y } },
      axes: [{ show: false }, { size: 56, stroke: colour.muted, font: font(11), grid: { show: false }, ticks: { show: false }, values: (u, s) => s.map(() => ''), splits: () => [y[0]] }],
      series: [{}, { fill: 'rgba(31, 78, 121, 0.55)', width: 0, points: { show: false }, paths: (u) => {
        const p = empty(), r = zf.chart.dpr(), px = Math.max(1, Math.floor(u.bbox.width / r));
        if (!col || col.lo.length !== px) col = columns(0, zf.run.n, px);
        p.fill = new Path2D();
        for (let i = 0; i < px; i++) if (col.lo[i] <= col.hi[i]) { const t = u.valToPos(col.hi[i], 'y', true); p.fill.rect(u.bbox.left + i * r, t, r, Math.max(r, u.valToPos(col.lo[i], 'y', true) - t)); }
        return p;
      } }],
      cursor: { show: false },
      hooks: {
        drawClear: [(u) => zf.chart.paint(u, (ctx, box) => { ctx.fillStyle = '#f8fafc'; ctx.fillRect(box.left, box.top, box.width, box.height); })],
        draw: [(u) => zf.chart.paint(u, (ctx, box) => {
          const { n, top } = zf.run;
          shadeAf(ctx, box, (s) => box.left + (s / n) * box.width);
          ctx.fillStyle = colour.alarm;
          for (const t of top) ctx.fillRect(box.left + beatPeak(t.beat) / n * box.width - 0.5, box.top, 1.5, 6);
          const a = box.left + ov.s0 / n * box.width, e = box.left + ov.s1 / n * box.width;
          ctx.fillStyle = 'rgba(11, 114, 133, 0.15)';
          ctx.fillRect(a, box.top, Math.max(2, e - a), box.height);
          ctx.strokeStyle = colour.select;
          ctx.lineWidth = 1.5;
          ctx.strokeRect(a, box.top + 0.75, Math.max(2, e - a), box.height - 1.5);
          ctx.strokeStyle = colour.frame;
          ctx.lineWidth = 1;
          ctx.strokeRect(box.left + 0.5, box.top + 0.5, box.width - 1, box.height - 1);
        }, false), (u) => zf.chart.paint(u, (ctx, box) => {
          ctx.fillStyle = colour.muted;
          ctx.font = font(11);
          ctx.textAlign = 'right';
          ctx.textBaseline = 'middle';
          ctx.fillText('whole', box.left - 6, box.top + box.height / 2);
        }, false)],
      },
    }, [[0, zf.run.n], [y[0], y[0]]]);
  }

  let pending = false;
  function redraw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; zf.safely('overview', update); });
  }
  function zoomAround(sample, factor) {
    setView(sample - (sample - ov.s0) * factor, sample + (ov.s1 - sample) * factor);
    redraw();
  }

  /** Wheel, drag, double click, the strip and the buttons; wired once, on the chart's current element. */
  let wired = null;
  function wire() {
    const u = ov.chart, target = u.over;
    const sampleAt = (clientX) => {
      const r = target.getBoundingClientRect();
      return ov.s0 + ((clientX - r.left) / r.width) * (ov.s1 - ov.s0);
    };
    target.addEventListener('wheel', (e) => {
      e.preventDefault();
      const delta = e.deltaMode === 1 ? e.deltaY * 33 : e.deltaY;
      zoomAround(sampleAt(e.clientX), Math.exp(Math.max(-2, Math.min(2, delta * 0.0015))));
    }, { passive: false });
    target.addEventListener('pointerdown', (e) => {
      ov.drag = { x: e.clientX, s0: ov.s0, s1: ov.s1, width: target.getBoundingClientRect().width };
      target.setPointerCapture(e.pointerId);
      target.classList.add('dragging');
    });
    target.addEventListener('pointermove', (e) => {
      if (ov.drag) {
        const shift = ((e.clientX - ov.drag.x) / ov.drag.width) * (ov.drag.s1 - ov.drag.s0);
        setView(ov.drag.s0 - shift, ov.drag.s1 - shift);
        redraw();
        return;
      }
      const s = sampleAt(e.clientX);
      $('overview-hover').textContent = s >= 0 && s <= zf.run.n ? 't = ' + clock(s / zf.run.rate, 3) + '  (sample ' + int(Math.floor(s)) + ')' : '';
    });
    const end = (e) => {
      if (!ov.drag) return;
      const click = e.type === 'pointerup' && Math.abs(e.clientX - ov.drag.x) < 3;
      ov.drag = null;
      if (click) pick(sampleAt(e.clientX));
      target.classList.remove('dragging');
      try { target.releasePointerCapture(e.pointerId); } catch (_) { /* already released */ }
    };
    target.addEventListener('pointerup', end);
    target.addEventListener('pointercancel', end);
    target.addEventListener('dblclick', (e) => zoomAround(sampleAt(e.clientX), 0.25));
    const strip = ov.context.over;
    const jump = (e) => {
      const r = strip.getBoundingClientRect(), centre = ((e.clientX - r.left) / r.width) * zf.run.n, half = (ov.s1 - ov.s0) / 2;
      setView(centre - half, centre + half);
      redraw();
    };
    strip.addEventListener('pointerdown', (e) => { jump(e); strip.setPointerCapture(e.pointerId); strip.dataset.drag = '1'; });
    strip.addEventListener('pointermove', (e) => { if (strip.dataset.drag) jump(e); });
    strip.addEventListener('pointerup', () => { delete strip.dataset.drag; });
    if (wired) return;
    wired = true;
    document.querySelector('#fig-overview .toolbar').addEventListener('click', (e) => {
      const action = e.target.dataset && e.target.dataset.action;
      const mid = (ov.s0 + ov.s1) / 2, span = ov.s1 - ov.s0;
      if (action === 'zoom-in') zoomAround(mid, 0.5);
      else if (action === 'zoom-out') zoomAround(mid, 2);
      else if (action === 'left') { setView(ov.s0 - span / 3, ov.s1 - span / 3); redraw(); }
      else if (action === 'right') { setView(ov.s0 + span / 3, ov.s1 + span / 3); redraw(); }
      else if (action === 'reset') { setView(0, zf.run.n); redraw(); }
    });
  }

  /** A click at sample s selects the beat whose peak is nearest, once beats are far enough apart
   *  to tell (their boundaries are drawn). */
  function pick(s) {
    const from = firstCandidateFrom(ov.s0), to = firstCandidateFrom(ov.s1), n = zf.run.cand.n;
    if (!ov.chart || !(to - from > 0 && to - from < ov.chart.bbox.width / zf.chart.dpr() / 6)) return;
    const c = firstCandidateFrom(s);
    let best = -1;
    for (let k = c - 2; k <= c; k++)
      if (k >= 0 && k < n && (best < 0 || Math.abs(beatPeak(k) - s) < Math.abs(beatPeak(best) - s))) best = k;
    if (best >= 0) select(best, false, false);
  }

  /** The selected beat in the toolbar, with N S V Q buttons to re-label it (runs with classes). */
  function showBeat() {
    const el = $('overview-beat'), c = ov.selected;
    if (!el) return;
    el.textContent = '';
    el.hidden = !(c >= 0 && c < zf.run.cand.n && zf.review.enabled());
    if (el.hidden) { delete el.dataset.beat; return; }
    el.dataset.beat = String(c);
    el.append(`beat #${int(c)} at ${clock(beatPeak(c) / zf.run.rate, 3)}: class `, zf.review.beatControl(c));
  }

  /** Shows [t0, t1] seconds at once (the hook and the links use it). */
  function zoomTo(t0, t1) {
    setView(t0 * zf.run.rate, t1 * zf.run.rate);
    zf.safely('overview', update);
    return view();
  }
  const view = () => ({ t0: ov.s0 / zf.run.rate, t1: ov.s1 / zf.run.rate });
  /** Marks candidate c as selected and (with `go`) centres the view on it. */
  function select(c, go, scroll) {
    ov.selected = c;
    showBeat();
    if (go) { const t = beatPeak(c) / zf.run.rate; zoomTo(t - 2.5, t + 2.5); } else redraw();
    if (scroll) $('fig-overview').scrollIntoView({ behavior: 'smooth', block: 'start' });
  }

  /** After a correction in the page: the selected beat's class and the beats' letters. */
  function review() { showBeat(); redraw(); }

  return { draw, setView, zoomTo, view, select, review };
})();
