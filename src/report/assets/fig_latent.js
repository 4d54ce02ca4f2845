// Latent space: the encoder's mean μ of every kept beat, coloured by the percentile of its anomaly
// score; filled dots for training beats, rings for test beats. uPlot draws the axes and grid;
// the points are stamped from pre-drawn sprites straight into the plot's pixels, because a canvas
// call per point is too slow for 100 k beats in a software-rendered browser. Hovering shows a
// beat, clicking selects it; the panel beside the chart shows its waveform.
/* global zf */
zf.figures.latent = (() => {
  const { colour, font, heat, num, int, clock, finiteRange, percentileStops, colourOfPercentile } = zf.format;
  const { beatPeak, splitName } = zf.data;
  const lat = { selected: -1, hover: -1, px: null, py: null, chart: null };

  /** Stamps every point into the plot (low scores first, so the anomalies lie on top). */
  function stamp(u) {
    const t0 = performance.now(), { kept, cand } = zf.run, order = kept.order, dpr = zf.chart.dpr();
    const rank = new Float32Array(kept.n).fill(-1);
    for (let i = 0; i < order.length; i++) rank[order[i]] = colourOfPercentile(order.length > 1 ? 1 - i / (order.length - 1) : 1);
    const radius = kept.n <= 4000 ? 3 : kept.n <= 30000 ? 2.3 : 1.7;
    const levels = 48, size = Math.ceil((radius + 1.5) * 2 * dpr), sprites = [];
    const sheetCanvas = document.createElement('canvas');
    sheetCanvas.width = size * 2;
    sheetCanvas.height = size * levels;
    const sc = sheetCanvas.getContext('2d');
    sc.scale(dpr, dpr);
    for (let l = 0; l < levels; l++)
      for (const ring of [0, 1]) {
        sc.beginPath();
        sc.arc((ring * size + size / 2) / dpr, (l * size + size / 2) / dpr, radius, 0, 2 * Math.PI);
        if (ring) { sc.strokeStyle = heat(l / (levels - 1)); sc.lineWidth = 1.2; sc.stroke(); } else { sc.fillStyle = heat(l / (levels - 1)); sc.fill(); }
      }
    const sheet = sc.getImageData(0, 0, size * 2, size * levels).data;
    for (let l = 0; l < levels; l++) {
      const pair = [];
      for (const ring of [0, 1]) {
        const texels = [];  // [dx, dy, r, g, b, alpha 0..1] of the sprite's visible pixels
        for (let dy = 0; dy < size; dy++)
          for (let dx = 0; dx < size; dx++) {
            const o = ((l * size + dy) * size * 2 + ring * size + dx) * 4;
            if (sheet[o + 3]) texels.push(dx, dy, sheet[o], sheet[o + 1], sheet[o + 2], sheet[o + 3] / 255);
          }
        pair.push(texels);
      }
      sprites.push(pair);
    }
    // Positions in CSS pixels of the plot area (u.over), kept for hit tests.
    const px = new Float32Array(kept.n), py = new Float32Array(kept.n), half = size / dpr / 2;
    const bx = Math.ceil(u.bbox.left + dpr), by = Math.ceil(u.bbox.top + dpr);
    const bw = Math.floor(u.bbox.left + u.bbox.width - dpr) - bx, bh = Math.floor(u.bbox.top + u.bbox.height - dpr) - by;
    const ox0 = u.bbox.left / dpr, oy0 = u.bbox.top / dpr;
    const image = u.ctx.getImageData(bx, by, bw, bh), pix = image.data;
    for (let i = order.length - 1; i >= 0; i--) {
      const k = order[i], X = u.valToPos(kept.mu0[k], 'x'), Y = u.valToPos(kept.mu1[k], 'y');
      px[k] = X, py[k] = Y;
      if (!isFinite(X) || !isFinite(Y)) continue;
      const texels = sprites[Math.round(rank[k] * (levels - 1))][cand.status[kept.candidate[k]] === 2 ? 1 : 0];
      const ox = Math.round((ox0 + X - half) * dpr) - bx, oy = Math.round((oy0 + Y - half) * dpr) - by;
      for (let t = 0; t < texels.length; t += 6) {
        const xx = ox + texels[t], yy = oy + texels[t + 1];
        if (xx < 0 || yy < 0 || xx >= bw || yy >= bh) continue;
        // Source over destination, in straight alpha: uPlot's canvas is transparent but for the grid.
        const o = (yy * bw + xx) * 4, a = texels[t + 5], da = (pix[o + 3] / 255) * (1 - a), oa = a + da;
        pix[o] = (texels[t + 2] * a + pix[o] * da) / oa;
        pix[o + 1] = (texels[t + 3] * a + pix[o + 1] * da) / oa;
        pix[o + 2] = (texels[t + 4] * a + pix[o + 2] * da) / oa;
        pix[o + 3] = oa * 255;
      }
    }
    u.ctx.putImageData(image, bx, by);
    // A coarse grid of positions for hover look-ups.
    const cell = 12, cols = Math.ceil(u.bbox.width / dpr / cell) + 1, grid = new Map();
    for (let k = 0; k < kept.n; k++) {
      if (!isFinite(px[k]) || !isFinite(py[k])) continue;
      const key = Math.floor(py[k] / cell) * cols + Math.floor(px[k] / cell);
      let list = grid.get(key);
      if (!list) grid.set(key, (list = []));
      list.push(k);
    }
    Object.assign(lat, { px, py, grid, cell, cols });
    colourBar(u);
    overlay();
    api.paintMs = performance.now() - t0;
  }

  /** The colour bar in the right margin, with the scores at the percentiles that mark its stops. */
  function colourBar(u) {
    zf.chart.paint(u, (ctx, box) => {
      const { kept } = zf.run, order = kept.order;
      const cb = { left: box.right + 24, top: box.top + 4, width: 12, height: Math.min(220, box.height - 90) };
      for (let i = 0; i < cb.height; i++) { ctx.fillStyle = heat(1 - i / (cb.height - 1)); ctx.fillRect(cb.left, cb.top + i, cb.width, 1); }
      ctx.strokeStyle = colour.frame;
      ctx.strokeRect(cb.left + 0.5, cb.top + 0.5, cb.width - 1, cb.height - 1);
      ctx.font = font(10);
      ctx.fillStyle = colour.muted;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      for (const q of percentileStops) {
        const k = order[Math.round((1 - q) * (order.length - 1))], y = cb.top + (1 - colourOfPercentile(q)) * (cb.height - 1);
        const label = q === 1 ? 'max' : q === 0 ? 'min' : `${Math.round(q * 100)} %`;
        ctx.fillText(`${num(kept.score[k], 3)} (${label})`, cb.left + cb.width + 4, y);
      }
      ctx.save();
      ctx.translate(cb.left - 9, cb.top + cb.height / 2);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'center';
      ctx.fillStyle = colour.ink;
      ctx.font = font(11);
      ctx.fillText('anomaly score', 0, 0);
      ctx.restore();
      const keyY = cb.top + cb.height + 20;
      ctx.font = font(11);
      ctx.fillStyle = heat(0.15);
      ctx.beginPath(); ctx.arc(cb.left + 6, keyY, 3, 0, 2 * Math.PI); ctx.fill();
      ctx.strokeStyle = heat(0.15);
      ctx.lineWidth = 1.3;
      ctx.beginPath(); ctx.arc(cb.left + 6, keyY + 18, 3.5, 0, 2 * Math.PI); ctx.stroke();
      ctx.fillStyle = colour.ink;
      ctx.fillText('train', cb.left + 16, keyY);
      ctx.fillText('test', cb.left + 16, keyY + 18);
    }, false);
  }

  function draw() {
    const el = document.getElementById('latent-chart'), { kept } = zf.run;
    if (!kept.n) { zf.chart.message(el, 'no kept beats'); return; }
    const xr = finiteRange([kept.mu0]), yr = finiteRange([kept.mu1]);
    lat.chart = zf.chart.make(el, {
      padding: [10, 140, 0, 0],
      scales: { x: { time: false, range: () => xr }, y: { range: () => yr } },
      axes: [zf.chart.axis('μ₀', { space: 70 }), zf.chart.axis('μ₁', { size: 56, space: 50 })],
      series: [{}, { show: false }],
      cursor: { show: false },
      hooks: { draw: [stamp] },
    }, [[xr[0], xr[1]], [yr[0], yr[1]]]);
    wire();
  }

  /** Highlight rings of the hovered and the selected point, on a canvas above the scatter. */
  function overlay() {
    const u = lat.chart;
    if (!u) return;
    let over = u.over.querySelector('canvas.highlight');
    const dpr = zf.chart.dpr(), w = u.over.clientWidth, h = u.over.clientHeight;
    if (!over) {
      over = document.createElement('canvas');
      over.className = 'highlight';
      over.style.cssText = `position:absolute;left:0;top:0;pointer-events:none;width:${w}px;height:${h}px`;
      u.over.appendChild(over);
    }
    over.width = Math.round(w * dpr);
    over.height = Math.round(h * dpr);
    const ctx = over.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    for (const [k, c, r] of [[lat.hover, colour.ink, 6], [lat.selected, colour.select, 7]]) {
      if (k < 0 || !lat.px) continue;
      ctx.strokeStyle = c;
      ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(lat.px[k], lat.py[k], r, 0, 2 * Math.PI); ctx.stroke();
    }
  }

  /** The kept beat nearest to (mx, my) in plot pixels within `reach`; ties go to the higher score. */
  function nearest(mx, my, reach = 10) {
    if (!lat.grid) return -1;
    const score = zf.run.kept.score;
    let best = -1, bestD = reach * reach;
    const cx = Math.floor(mx / lat.cell), cy = Math.floor(my / lat.cell), span = Math.ceil(reach / lat.cell);
    for (let gy = cy - span; gy <= cy + span; gy++)
      for (let gx = cx - span; gx <= cx + span; gx++) {
        const list = lat.grid.get(gy * lat.cols + gx);
        if (!list) continue;
        for (const k of list) {
          const d = (lat.px[k] - mx) ** 2 + (lat.py[k] - my) ** 2;
          if (d < bestD || (d === bestD && score[k] > score[best])) bestD = d, best = k;
        }
      }
    return best;
  }

  /** Fills the beat panel with kept beat k. */
  function show(k) {
    const { kept, cand, rate, top } = zf.run, c = kept.candidate[k];
    const panel = document.getElementById('latent-detail');
    panel.dataset.beat = String(c);
    panel.dataset.time = String(beatPeak(c) / rate);
    panel.dataset.score = String(kept.score[k]);
    const hint = document.getElementById('latent-hint');
    hint.textContent = k === (top.length ? top[0].k : -1) && lat.selected < 0 && lat.hover < 0
      ? 'The most anomalous beat. Hover or click a point to see another.' : '';
    hint.hidden = !hint.textContent;
    const facts = [
      ['beat', '#' + int(c)], ['time', clock(beatPeak(c) / rate, 3)], ['score', num(kept.score[k], 4)],
      ['rank', int(kept.rank[k] + 1) + ' of ' + int(kept.order.length)],
      ['split', splitName(c)], ['length', num(cand.length[c] / rate, 3) + ' s'],
      ['μ', `(${num(kept.mu0[k], 3)}, ${num(kept.mu1[k], 3)})`]];
    const dl = document.getElementById('latent-facts');
    dl.textContent = '';
    for (const [name, value] of facts) {
      const dt = document.createElement('dt'), dd = document.createElement('dd');
      dt.textContent = name;
      dd.textContent = value;
      dd.dataset.fact = name;
      dl.append(dt, dd);
    }
    zf.figures.anomalies.wave(document.getElementById('latent-beat'), c, true);
    const go = document.getElementById('latent-goto');
    go.hidden = false;
    go.onclick = () => zf.figures.overview.select(c, true, true);
  }

  function wire() {
    const u = lat.chart, target = u.over, tip = document.getElementById('tooltip');
    const at = (e) => { const r = target.getBoundingClientRect(); return nearest(e.clientX - r.left, e.clientY - r.top); };
    target.addEventListener('mousemove', (e) => {
      const k = at(e), { kept, rate } = zf.run;
      if (k !== lat.hover) { lat.hover = k; overlay(); if (k >= 0 && lat.selected < 0) show(k); }
      if (k < 0) { tip.hidden = true; return; }
      const c = kept.candidate[k];
      tip.textContent = `beat #${int(c)} · ${clock(beatPeak(c) / rate, 3)} · score ${num(kept.score[k], 3)} · ${splitName(c)}`;
      tip.style.left = e.clientX + 14 + 'px';
      tip.style.top = e.clientY + 12 + 'px';
      tip.hidden = false;
    });
    target.addEventListener('mouseleave', () => { lat.hover = -1; tip.hidden = true; overlay(); });
    target.addEventListener('click', (e) => select(at(e)));
  }

  /** Selects kept beat k as a click on its point would (−1: none). */
  function select(k) {
    lat.selected = k;
    overlay();
    if (k >= 0) { show(k); zf.figures.overview.select(zf.run.kept.candidate[k], false, false); }
  }
  /** Page coordinates of kept beat k's point (for a mouse click). */
  function point(k) {
    const r = lat.chart.over.getBoundingClientRect();
    return { x: r.left + lat.px[k], y: r.top + lat.py[k], beat: zf.run.kept.candidate[k] };
  }

  const api = { draw, show, select, point, paintMs: 0 };
  return api;
})();
