// zeroflow report: draws every figure from the data blob in #zf-data (layout: src/report/html_data.cpp,
// encodings: src/report/html_encode.hpp). Plain JavaScript and canvas; nothing is fetched.
// window.zeroflowReport is a small hook for people and tests: ready, renderMs, figures, zoomTo(t0, t1),
// view(), select(beat), latentPoint(k), errors.
(function () {
  'use strict';

  const hook = (window.zeroflowReport = { ready: false, errors: [], figures: {} });
  window.addEventListener('error', (e) => hook.errors.push(String(e.message || e)));

  // ------------------------------------------------------------------------------------ decoding
  const typed = { i8: Int8Array, u8: Uint8Array, i16: Int16Array, i32: Int32Array, f32: Float32Array, f64: Float64Array };
  const nanCode = { i8: -128, i16: -32768 };

  function bytesOf(b64) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(b64);  // native where the browser has it
    const text = atob(b64);
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }

  /** Typed array of an encoded array (see html_encode.hpp): floats come back as Float32Array,
   *  delta-coded integers as Float64Array (exact), others in their own type. */
  function decode(spec) {
    if (!spec || !spec.n) return new Float32Array(0);
    const raw = new typed[spec.dtype](bytesOf(spec.b64).buffer, 0, spec.n);
    if (spec.scale !== undefined) {
      const out = new Float32Array(spec.n), nan = nanCode[spec.dtype], o = spec.offset, s = spec.scale;
      for (let i = 0; i < out.length; i++) out[i] = raw[i] === nan ? NaN : o + s * raw[i];
      return out;
    }
    if (spec.row_scale) {
      const scale = decode(spec.row_scale), w = spec.width, out = new Float32Array(spec.n);
      for (let i = 0; i < out.length; i++) out[i] = raw[i] === -128 ? NaN : raw[i] * scale[(i / w) | 0];
      return out;
    }
    if (spec.delta) {
      const out = new Float64Array(spec.n);
      let sum = 0;
      for (let i = 0; i < out.length; i++) out[i] = sum += raw[i];
      return out;
    }
    return raw;
  }

  // ---------------------------------------------------------------------------------- formatting
  const nf = new Intl.NumberFormat('en-US');
  const int = (v) => nf.format(Math.round(v));
  function num(v, digits = 4) {
    if (v === null || v === undefined || !isFinite(v)) return '–';
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(digits - 1);
    return String(Number(v.toPrecision(digits)));
  }
  function pad(v, n) { return String(v).padStart(n, '0'); }
  /** h:mm:ss with `decimals` digits of seconds. */
  function clock(seconds, decimals = 0) {
    const sign = seconds < 0 ? '−' : '';
    const unit = Math.pow(10, decimals);
    let t = Math.round(Math.abs(seconds) * unit);
    const frac = t % unit;
    t = (t - frac) / unit;
    const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), s = t % 60;
    return sign + h + ':' + pad(m, 2) + ':' + pad(s, 2) + (decimals ? '.' + pad(frac, decimals) : '');
  }
  function bytes(b) {
    if (!b) return '0 B';
    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let i = 0;
    while (b >= 1000 && i < units.length - 1) b /= 1000, i++;
    return num(b, 3) + ' ' + units[i];
  }
  function ms(v) { return v >= 100 ? int(v) + ' ms' : num(v, 3) + ' ms'; }

  // --------------------------------------------------------------------------------------- scales
  /** Tick values of a nice 1-2-5 step over [lo, hi], about `count` of them. */
  function niceTicks(lo, hi, count) {
    if (!(hi > lo)) return { step: 1, ticks: [lo] };
    const raw = (hi - lo) / Math.max(1, count);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => (hi - lo) / s <= count * 1.4) || 10 * mag;
    const ticks = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return { step, ticks };
  }
  /** Time ticks in seconds: 1-2-5 steps below a minute, then whole minutes and hours. */
  const timeSteps = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  function timeTicks(lo, hi, count) {
    const raw = (hi - lo) / Math.max(1, count);
    if (raw < 30) return niceTicks(lo, hi, count);
    const step = timeSteps.find((s) => s >= raw) || Math.ceil(raw / 86400) * 86400;
    const ticks = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) ticks.push(v);
    return { step, ticks };
  }
  function decimalsFor(step) { return step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step) - 1e-9)); }
  function tickLabel(v, step) {
    const d = decimalsFor(step);
    return Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? num(v, 3) : v.toFixed(d);
  }
  /** Formats time ticks: h:mm:ss for long spans or late in a long recording, seconds otherwise. */
  function timeFormat(span, end) {
    if (span >= 120 || end >= 600) return { label: 'time (h:mm:ss)', fmt: (v, step) => clock(v, decimalsFor(step)) };
    return { label: 'time (s)', fmt: (v, step) => tickLabel(v, step) };
  }
  function linear(d0, d1, r0, r1) {
    const k = d1 !== d0 ? (r1 - r0) / (d1 - d0) : 0;
    const f = (v) => r0 + (v - d0) * k;
    f.inv = (p) => (k ? d0 + (p - r0) / k : d0);
    return f;
  }
  function finiteRange(arrays, padFrac = 0.05) {
    let lo = Infinity, hi = -Infinity;
    for (const a of arrays) for (let i = 0; i < a.length; i++) { const v = a[i]; if (v < lo) lo = v; if (v > hi) hi = v; }
    if (!(lo <= hi)) return [0, 1];
    if (lo === hi) return [lo - 1, hi + 1];
    const p = (hi - lo) * padFrac;
    return [lo - p, hi + p];
  }

  // ------------------------------------------------------------------------------------- drawing
  const colour = {
    ink: '#1f2933', muted: '#52606d', grid: '#edf1f5', frame: '#bcccdc', signal: '#1f4e79',
    band: 'rgba(31, 78, 121, 0.28)', filtered: '#d97706', kept: 'rgba(82, 96, 109, 0.45)',
    pruned: '#e8833a', alarm: '#c62828', alarmSoft: 'rgba(198, 40, 40, 0.12)', select: '#0b7285',
    selectSoft: 'rgba(11, 114, 133, 0.14)', test: '#6b7280',
  };
  const font = (px, weight = '') => `${weight} ${px}px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif`;

  /** Sizes a canvas to its box at the device's pixel ratio; returns its 2-D context and CSS size. */
  function setup(canvas) {
    if (!canvas.dataset.h) canvas.dataset.h = canvas.getAttribute('height') || '300';
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(50, canvas.clientWidth || canvas.parentNode.clientWidth || 600);
    const h = Number(canvas.dataset.h);
    canvas.style.height = h + 'px';
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
    return { ctx, w, h, dpr };
  }

  /** The plot rectangle inside margins. */
  function box(w, h, m) {
    return { left: m[3], top: m[0], right: w - m[1], bottom: h - m[2], width: w - m[1] - m[3], height: h - m[0] - m[2] };
  }

  /** Grid lines, frame, ticks and axis labels. x and y: {scale, ticks, step, fmt, label}. */
  function axes(ctx, b, x, y, opts = {}) {
    ctx.save();
    ctx.lineWidth = 1;
    ctx.strokeStyle = colour.grid;
    ctx.beginPath();
    for (const v of x.ticks) { const p = Math.round(x.scale(v)) + 0.5; ctx.moveTo(p, b.top); ctx.lineTo(p, b.bottom); }
    for (const v of y.ticks) { const p = Math.round(y.scale(v)) + 0.5; ctx.moveTo(b.left, p); ctx.lineTo(b.right, p); }
    ctx.stroke();
    ctx.strokeStyle = colour.frame;
    ctx.strokeRect(b.left + 0.5, b.top + 0.5, b.width - 1, b.height - 1);
    ctx.fillStyle = colour.muted;
    ctx.font = font(11);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    if (!opts.noXLabels) {
      let lastRight = -Infinity;
      for (const v of x.ticks) {
        const p = x.scale(v), text = x.fmt ? x.fmt(v, x.step) : tickLabel(v, x.step);
        const tw = ctx.measureText(text).width;
        // Inside the canvas, and no label over its neighbour.
        const at = Math.min(Math.max(p, tw / 2 + 2), ctx.canvas.width / (window.devicePixelRatio || 1) - tw / 2 - 2);
        if (at - tw / 2 < lastRight + 6) continue;
        ctx.fillText(text, at, b.bottom + 5);
        lastRight = at + tw / 2;
      }
      if (x.label) { ctx.fillStyle = colour.ink; ctx.fillText(x.label, (b.left + b.right) / 2, b.bottom + 20); }
    }
    ctx.fillStyle = colour.muted;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const v of y.ticks) ctx.fillText(y.fmt ? y.fmt(v, y.step) : tickLabel(v, y.step), b.left - 6, y.scale(v));
    if (y.label) {
      ctx.save();
      ctx.translate(opts.yLabelX || 14, (b.top + b.bottom) / 2);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'center';
      ctx.fillStyle = colour.ink;
      ctx.fillText(y.label, 0, 0);
      ctx.restore();
    }
    ctx.restore();
  }

  function axis(lo, hi, r0, r1, count, extra = {}) {
    const t = extra.time ? timeTicks(lo, hi, count) : niceTicks(lo, hi, count);
    return Object.assign({ scale: linear(lo, hi, r0, r1), ticks: t.ticks, step: t.step }, extra);
  }

  function message(ctx, w, h, text) {
    ctx.fillStyle = colour.muted;
    ctx.font = font(13);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(text, w / 2, h / 2);
  }

  /** A polyline of ys over xs (or index → x), skipping NaNs. */
  function line(ctx, n, xAt, yAt) {
    ctx.beginPath();
    let pen = false;
    for (let i = 0; i < n; i++) {
      const y = yAt(i);
      if (!isFinite(y)) { pen = false; continue; }
      const x = xAt(i);
      if (pen) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      pen = true;
    }
    ctx.stroke();
  }

  /** Anomaly colour map for t in [0, 1]: calm blue through sand to alarm red. */
  const stops = [[69, 117, 180], [145, 191, 219], [224, 210, 150], [252, 141, 89], [198, 40, 40]];
  function heat(t) {
    t = Math.min(1, Math.max(0, t)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(t)), f = t - i, a = stops[i], b = stops[i + 1];
    return `rgb(${Math.round(a[0] + (b[0] - a[0]) * f)},${Math.round(a[1] + (b[1] - a[1]) * f)},${Math.round(a[2] + (b[2] - a[2]) * f)})`;
  }

  const percentileStops = [0, 0.5, 0.9, 0.99, 1];
  /** Position on the colour map of a percentile: the stops above land evenly on it. */
  function colourOfPercentile(q) {
    for (let i = 1; i < percentileStops.length; i++) {
      const a = percentileStops[i - 1], b = percentileStops[i];
      if (q <= b) return (i - 1 + (b > a ? (q - a) / (b - a) : 1)) / (percentileStops.length - 1);
    }
    return 1;
  }

  // ---------------------------------------------------------------------------------------- data
  let D, S, rate, n, cand, kept, rows, topN, levels;

  function load() {
    const tl = performance.now();
    D = JSON.parse(document.getElementById('zf-data').textContent);
    hook.parseMs = performance.now() - tl;
    S = D.summary;
    rate = S.sample_rate;
    n = S.samples;
    const status = decode(D.candidates.status);
    cand = {
      n: D.candidates.n,
      start: decode(D.candidates.start),
      length: decode(D.candidates.length),
      peakOffset: decode(D.candidates.peak_offset),
      status,
      keptIndex: new Int32Array(D.candidates.n).fill(-1),  // candidate → kept row, −1 when pruned
    };
    const keptCandidates = [];
    for (let c = 0; c < cand.n; c++) if (status[c]) { cand.keptIndex[c] = keptCandidates.length; keptCandidates.push(c); }
    kept = {
      n: keptCandidates.length,
      candidate: Int32Array.from(keptCandidates),
      score: decode(D.kept.score),
      mu0: decode(D.kept.mu0),
      mu1: decode(D.kept.mu1),
    };
    const w = D.rows.width;
    const rowBeats = decode(D.rows.beats), rowValues = decode(D.rows.values);
    rows = { width: w, byBeat: new Map() };
    for (let i = 0; i < rowBeats.length; i++) rows.byBeat.set(rowBeats[i], rowValues.subarray(i * w, (i + 1) * w));
    rows.beats = Array.from(rowBeats);
    rows.thumbWidth = D.thumbs.width;
    rows.thumbs = decode(D.thumbs.values);

    // Most anomalous first; ties to the earlier beat (as the pipeline ranks them).
    const scored = rankByScore(kept.score);
    topN = scored.slice(0, 25).map((k, i) => ({ rank: i + 1, k, beat: kept.candidate[k] }));
    kept.order = scored;

    // Overview pyramid: level 0 as computed on the device, each next one halves the buckets.
    const o = D.overview;
    levels = [];
    if (o && o.n) {
      let lo = decode(o.min), hi = decode(o.max), bucket = o.bucket;
      levels.push({ bucket, lo, hi });
      while (lo.length > 1) {
        const m = Math.ceil(lo.length / 2), nlo = new Float32Array(m), nhi = new Float32Array(m);
        for (let i = 0; i < m; i++) {
          const j = 2 * i, k = j + 1 < lo.length ? j + 1 : j;
          nlo[i] = lo[k] < lo[j] ? lo[k] : lo[j];
          nhi[i] = hi[k] > hi[j] ? hi[k] : hi[j];
        }
        lo = nlo, hi = nhi, bucket *= 2;
        levels.push({ bucket, lo, hi });
      }
    }
  }

  /** Indices of the finite scores, highest first, ties to the lower index. For up to 2^20
   *  scores the order comes from one native sort of packed keys (the float32 score's bits made
   *  order-preserving, times 2^20, plus the index: exact in a double), ~10x faster than a
   *  comparator; beyond that, the comparator. */
  function rankByScore(score) {
    const n_ = score.length, index = [];
    if (n_ <= 1 << 20) {
      const bits = new Uint32Array(score.buffer, score.byteOffset, n_), keys = new Float64Array(n_);
      let m = 0;
      for (let i = 0; i < n_; i++) {
        if (!isFinite(score[i])) continue;
        const u = bits[i], ordered = u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0;  // ascending with the float
        keys[m++] = (0xffffffff - ordered) * 1048576 + i;  // descending score, then ascending index
      }
      const sorted = keys.subarray(0, m).sort();
      for (let i = 0; i < m; i++) index.push(sorted[i] % 1048576);
      return index;
    }
    for (let i = 0; i < n_; i++) if (isFinite(score[i])) index.push(i);
    return index.sort((a, b) => (score[b] - score[a]) || (a - b));
  }

  const beatStart = (c) => cand.start[c];
  const beatPeak = (c) => cand.start[c] + cand.peakOffset[c];
  const splitName = (c) => ['pruned', 'train', 'test', 'kept'][cand.status[c]];
  /** A kept beat's waveform: its full row when shipped, else its thumbnail, as {xs, ys}. */
  function waveform(c) {
    const w = rows.width, row = rows.byBeat.get(c);
    if (row) return { xs: (i) => i / rate, ys: row, n: w, full: true };
    const k = cand.keptIndex[c], tw = rows.thumbWidth;
    if (k < 0 || !tw) return null;
    const per = w / tw;
    return { xs: (i) => (i * per + (per - 1) / 2) / rate, ys: rows.thumbs.subarray(k * tw, (k + 1) * tw), n: tw, full: false };
  }
  /** Index of the first candidate starting at or after sample s. */
  function firstCandidateFrom(s) {
    let lo = 0, hi = cand.n;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (cand.start[mid] < s) lo = mid + 1; else hi = mid; }
    return lo;
  }

  // ------------------------------------------------------------------------------------ overview
  const ov = { s0: 0, s1: 1, selected: -1, drag: null };
  const minSpan = 10;  // samples: zoom reaches single samples

  function clampView(s0, s1) {
    let span = Math.min(Math.max(s1 - s0, minSpan), Math.max(n, minSpan));
    s0 = Math.min(Math.max(s0, 0), Math.max(0, n - span));
    return [s0, s0 + span];
  }
  function setView(s0, s1) { [ov.s0, ov.s1] = clampView(s0, s1); }

  /** Per-column min/max of [s0, s1) at `px` columns from the coarsest level still finer than a column. */
  function columns(s0, s1, px) {
    const spp = (s1 - s0) / px;
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

  /** Raw samples known in [s0, s1) beyond the overview's buckets: the excerpt and the shipped rows. */
  function rawPieces(s0, s1) {
    const pieces = [];
    const ex = D.excerpt;
    if (ex && excerptSignal.length) {
      const a = ex.start, b = ex.start + excerptSignal.length;
      if (b > s0 && a < s1) pieces.push({ start: a, values: excerptSignal });
    }
    const norm = S.normalization;
    for (const [c, row] of rows.byBeat) {
      const a = beatStart(c), len = cand.length[c];
      if (a + len <= s0 || a >= s1) continue;
      const values = new Float32Array(len);
      for (let i = 0; i < len; i++) values[i] = row[i] * norm.scale + norm.center;
      pieces.push({ start: a, values });
    }
    return pieces;
  }

  let excerptSignal = new Float32Array(0), excerptFiltered = new Float32Array(0);

  function drawOverview() {
    const canvas = document.getElementById('overview-canvas');
    const { ctx, w, h } = setup(canvas);
    const b = box(w, h, [12, 14, 40, 70]);
    const section = document.getElementById('fig-overview');
    if (!levels.length) { message(ctx, w, h, 'no overview in this run'); return; }
    const s0 = ov.s0, s1 = ov.s1, px = Math.max(1, Math.floor(b.width)), spp = (s1 - s0) / px;
    const col = columns(s0, s1, px);
    const L = col.level;
    const raw = L.bucket === 1 && !col.resolved;  // raw samples, fewer than one per column
    // y range from what is visible
    let ylo = Infinity, yhi = -Infinity;
    const first = Math.max(0, Math.floor(s0 / L.bucket)), last = Math.min(L.lo.length, Math.ceil(s1 / L.bucket));
    for (let i = first; i < last; i++) { if (L.lo[i] < ylo) ylo = L.lo[i]; if (L.hi[i] > yhi) yhi = L.hi[i]; }
    if (!(ylo <= yhi)) ylo = 0, yhi = 1;
    [ylo, yhi] = finiteRange([[ylo, yhi]], 0.06);
    const tf = timeFormat((s1 - s0) / rate, s1 / rate);
    const x = axis(s0 / rate, s1 / rate, b.left, b.right, Math.max(2, Math.floor(b.width / 110)), { time: (s1 - s0) / rate >= 120, fmt: tf.fmt, label: tf.label });
    const y = axis(ylo, yhi, b.bottom, b.top, Math.max(2, Math.floor(b.height / 45)), { label: 'signal (raw units)' });
    axes(ctx, b, x, y);
    const xs = (s) => b.left + (s - s0) / spp;

    ctx.save();
    ctx.beginPath();
    ctx.rect(b.left, b.top, b.width, b.height);
    ctx.clip();

    // Beat spans of the top anomalies and the selection, behind the signal.
    const mark = (c, fill) => {
      const a = xs(beatStart(c)), e = xs(beatStart(c) + cand.length[c]);
      if (e - a >= 3) { ctx.fillStyle = fill; ctx.fillRect(a, b.top, e - a, b.height); }
    };
    for (const t of topN) mark(t.beat, colour.alarmSoft);
    if (ov.selected >= 0) mark(ov.selected, colour.selectSoft);

    // Beat boundaries once they are far enough apart to tell.
    const from = firstCandidateFrom(s0), to = firstCandidateFrom(s1);
    if (to - from > 0 && to - from < b.width / 6) {
      ctx.lineWidth = 1;
      for (let c = from; c < to; c++) {
        const p = Math.round(xs(beatStart(c))) + 0.5;
        ctx.strokeStyle = cand.status[c] ? colour.kept : colour.pruned;
        ctx.setLineDash(cand.status[c] ? [] : [4, 3]);
        ctx.beginPath(); ctx.moveTo(p, b.top); ctx.lineTo(p, b.bottom); ctx.stroke();
      }
      ctx.setLineDash([]);
    }

    const yOf = y.scale;
    if (col.resolved) {
      // One min/max bar per column, widened to touch the neighbours so the band reads as a trace.
      ctx.fillStyle = colour.signal;
      let plo = NaN, phi = NaN;
      for (let i = 0; i < px; i++) {
        let lo = col.lo[i], hi = col.hi[i];
        if (!(lo <= hi)) { plo = phi = NaN; continue; }
        if (plo <= phi) { lo = Math.min(lo, phi); hi = Math.max(hi, plo); }
        const top = yOf(hi), bottom = yOf(lo);
        ctx.fillRect(b.left + i, top, 1, Math.max(1, bottom - top));
        plo = col.lo[i], phi = col.hi[i];
      }
    } else if (raw) {
      // Single samples: a line, and dots once they are far apart.
      const a = Math.max(0, Math.floor(s0) - 1), e = Math.min(n, Math.ceil(s1) + 1);
      ctx.strokeStyle = colour.signal;
      ctx.lineWidth = 1.4;
      line(ctx, e - a, (i) => xs(a + i), (i) => yOf(L.lo[a + i]));
      if (1 / spp >= 5) {
        ctx.fillStyle = colour.signal;
        for (let i = a; i < e; i++) { ctx.beginPath(); ctx.arc(xs(i), yOf(L.lo[i]), 2.2, 0, 2 * Math.PI); ctx.fill(); }
      }
    } else {
      // Past the finest stored level: its buckets as boxes, raw samples where the report has them.
      // The envelope through the buckets' centres: max along the top, min back along the bottom.
      const a = Math.max(0, first - 1), e = Math.min(L.lo.length, last + 1);
      const centre = (i) => xs((i + 0.5) * L.bucket);
      ctx.beginPath();
      for (let i = a; i < e; i++) ctx[i === a ? 'moveTo' : 'lineTo'](centre(i), yOf(L.hi[i]));
      for (let i = e - 1; i >= a; i--) ctx.lineTo(centre(i), yOf(L.lo[i]));
      ctx.closePath();
      ctx.fillStyle = colour.band;
      ctx.fill();
      ctx.strokeStyle = 'rgba(31, 78, 121, 0.55)';
      ctx.lineWidth = 1;
      line(ctx, e - a, (i) => centre(a + i), (i) => yOf(L.hi[a + i]));
      line(ctx, e - a, (i) => centre(a + i), (i) => yOf(L.lo[a + i]));
      ctx.strokeStyle = colour.signal;
      ctx.lineWidth = 1.4;
      for (const piece of rawPieces(s0, s1)) {
        line(ctx, piece.values.length, (i) => xs(piece.start + i), (i) => yOf(piece.values[i]));
        if (1 / spp >= 5) {
          ctx.fillStyle = colour.signal;
          for (let i = 0; i < piece.values.length; i++) {
            const px2 = xs(piece.start + i);
            if (px2 < b.left - 3 || px2 > b.right + 3) continue;
            ctx.beginPath(); ctx.arc(px2, yOf(piece.values[i]), 2.2, 0, 2 * Math.PI); ctx.fill();
          }
        }
      }
    }

    // Anomaly markers on top: a triangle at the R-peak, the rank beside it when there is room.
    ctx.font = font(10, 600);
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    const placed = [];
    for (const t of topN) {
      const p = xs(beatPeak(t.beat));
      if (p < b.left - 6 || p > b.right + 6) continue;
      ctx.fillStyle = colour.alarm;
      ctx.beginPath(); ctx.moveTo(p - 5, b.top + 1); ctx.lineTo(p + 5, b.top + 1); ctx.lineTo(p, b.top + 9); ctx.fill();
      if (!placed.some((q) => Math.abs(q - p) < 18)) { ctx.fillText(String(t.rank), p + 5, b.top + 9); placed.push(p); }
    }
    if (ov.selected >= 0) {
      const p = xs(beatPeak(ov.selected));
      ctx.strokeStyle = colour.select;
      ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(p, b.top); ctx.lineTo(p, b.bottom); ctx.stroke();
    }
    ctx.restore();

    if (!col.resolved && !raw) {
      ctx.fillStyle = colour.muted;
      ctx.font = font(11);
      ctx.textAlign = 'right';
      ctx.textBaseline = 'top';
      ctx.fillText(`stored as min/max of ${L.bucket} samples (${num(L.bucket / rate, 3)} s); raw samples where the report holds them`, b.right - 6, b.top + 14);
    }

    const span = (s1 - s0) / rate;
    section.dataset.t0 = String(s0 / rate);
    section.dataset.t1 = String(s1 / rate);
    section.dataset.bucket = String(L.bucket);
    document.getElementById('overview-range').textContent =
      `${clock(s0 / rate, span < 60 ? 3 : 0)} – ${clock(s1 / rate, span < 60 ? 3 : 0)}  (${span >= 120 ? clock(span) : num(span, 3) + ' s'} shown)`;
    ov.box = b;
    ov.spp = spp;
    drawContext();
  }

  function drawContext() {
    const canvas = document.getElementById('overview-context');
    const { ctx, w, h } = setup(canvas);
    const b = box(w, h, [4, 14, 4, 70]);
    if (!levels.length) return;
    const px = Math.max(1, Math.floor(b.width));
    const col = columns(0, n, px);
    const [lo, hi] = finiteRange([levels[levels.length - 1].lo, levels[levels.length - 1].hi], 0.05);
    const y = linear(lo, hi, b.bottom, b.top);
    ctx.fillStyle = '#f8fafc';
    ctx.fillRect(b.left, b.top, b.width, b.height);
    ctx.fillStyle = 'rgba(31, 78, 121, 0.55)';
    for (let i = 0; i < px; i++) if (col.lo[i] <= col.hi[i]) ctx.fillRect(b.left + i, y(col.hi[i]), 1, Math.max(1, y(col.lo[i]) - y(col.hi[i])));
    ctx.fillStyle = colour.alarm;
    for (const t of topN) ctx.fillRect(b.left + beatPeak(t.beat) / n * b.width - 0.5, b.top, 1.5, 6);
    const a = b.left + ov.s0 / n * b.width, e = b.left + ov.s1 / n * b.width;
    ctx.fillStyle = 'rgba(11, 114, 133, 0.15)';
    ctx.fillRect(a, b.top, Math.max(2, e - a), b.height);
    ctx.strokeStyle = colour.select;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(a, b.top + 0.75, Math.max(2, e - a), b.height - 1.5);
    ctx.strokeStyle = colour.frame;
    ctx.lineWidth = 1;
    ctx.strokeRect(b.left + 0.5, b.top + 0.5, b.width - 1, b.height - 1);
    ctx.fillStyle = colour.muted;
    ctx.font = font(11);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    ctx.fillText('whole', b.left - 6, b.top + b.height / 2);
    ov.contextBox = b;
  }

  let pending = false;
  function redrawOverview() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; safely('overview', drawOverview); });
  }

  function zoomAround(sample, factor) {
    const s0 = sample - (sample - ov.s0) * factor, s1 = sample + (ov.s1 - sample) * factor;
    setView(s0, s1);
    redrawOverview();
  }

  function wireOverview() {
    const canvas = document.getElementById('overview-canvas');
    const sampleAt = (clientX) => {
      const r = canvas.getBoundingClientRect();
      return ov.s0 + (clientX - r.left - ov.box.left) * ov.spp;
    };
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      const delta = e.deltaMode === 1 ? e.deltaY * 33 : e.deltaY;
      zoomAround(sampleAt(e.clientX), Math.exp(Math.max(-2, Math.min(2, delta * 0.0015))));
    }, { passive: false });
    canvas.addEventListener('pointerdown', (e) => {
      ov.drag = { x: e.clientX, s0: ov.s0, s1: ov.s1 };
      canvas.setPointerCapture(e.pointerId);
      canvas.classList.add('dragging');
    });
    canvas.addEventListener('pointermove', (e) => {
      if (ov.drag) {
        const shift = (e.clientX - ov.drag.x) * ov.spp;
        setView(ov.drag.s0 - shift, ov.drag.s1 - shift);
        redrawOverview();
        return;
      }
      const s = sampleAt(e.clientX);
      const hover = document.getElementById('overview-hover');
      hover.textContent = s >= 0 && s <= n ? 't = ' + clock(s / rate, 3) + '  (sample ' + int(Math.floor(s)) + ')' : '';
    });
    const end = (e) => { if (ov.drag) { ov.drag = null; canvas.classList.remove('dragging'); try { canvas.releasePointerCapture(e.pointerId); } catch (_) { /* already released */ } } };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    canvas.addEventListener('dblclick', (e) => zoomAround(sampleAt(e.clientX), 0.25));
    const context = document.getElementById('overview-context');
    const jump = (e) => {
      const r = context.getBoundingClientRect(), b = ov.contextBox;
      const centre = ((e.clientX - r.left - b.left) / b.width) * n, half = (ov.s1 - ov.s0) / 2;
      setView(centre - half, centre + half);
      redrawOverview();
    };
    context.addEventListener('pointerdown', (e) => { jump(e); context.setPointerCapture(e.pointerId); context.dataset.drag = '1'; });
    context.addEventListener('pointermove', (e) => { if (context.dataset.drag) jump(e); });
    context.addEventListener('pointerup', () => { delete context.dataset.drag; });
    document.querySelector('#fig-overview .toolbar').addEventListener('click', (e) => {
      const action = e.target.dataset && e.target.dataset.action;
      const mid = (ov.s0 + ov.s1) / 2, span = ov.s1 - ov.s0;
      if (action === 'zoom-in') zoomAround(mid, 0.5);
      else if (action === 'zoom-out') zoomAround(mid, 2);
      else if (action === 'left') { setView(ov.s0 - span / 3, ov.s1 - span / 3); redrawOverview(); }
      else if (action === 'right') { setView(ov.s0 + span / 3, ov.s1 + span / 3); redrawOverview(); }
      else if (action === 'reset') { setView(0, n); redrawOverview(); }
    });
  }

  /** Shows [t0, t1] seconds in the overview at once (the hook and the links use it). */
  function zoomTo(t0, t1) {
    setView(t0 * rate, t1 * rate);
    safely('overview', drawOverview);
    return view();
  }
  function view() { return { t0: ov.s0 / rate, t1: ov.s1 / rate }; }
  function showBeat(c, scroll) {
    ov.selected = c;
    const t = beatPeak(c) / rate;
    zoomTo(t - 2.5, t + 2.5);
    if (scroll) document.getElementById('fig-overview').scrollIntoView({ behavior: 'smooth', block: 'start' });
  }

  // ------------------------------------------------------------------------------------- excerpt
  function drawExcerpt() {
    const { ctx, w, h } = setup(document.getElementById('excerpt-canvas'));
    if (!excerptSignal.length) { message(ctx, w, h, 'no excerpt in this run'); return; }
    const start = D.excerpt.start, len = excerptSignal.length;
    const t0 = start / rate, t1 = (start + len - 1) / rate;
    const gap = 14, top = box(w, h, [28, 14, 0, 70]);
    const hTop = Math.round((h - 28 - 40 - gap) * 0.58);
    const b1 = { left: top.left, right: top.right, width: top.width, top: 28, bottom: 28 + hTop, height: hTop };
    const b2 = { left: top.left, right: top.right, width: top.width, top: b1.bottom + gap, bottom: h - 40, height: h - 40 - b1.bottom - gap };
    const count = Math.max(2, Math.floor(top.width / 90));
    const tf = timeFormat(t1 - t0, t1);
    const x1 = axis(t0, t1, b1.left, b1.right, count, { label: tf.label.replace('time', 'time in the recording'), fmt: tf.fmt });
    const [a0, a1] = finiteRange([excerptSignal]);
    const [f0, f1] = finiteRange([excerptFiltered]);
    axes(ctx, b1, x1, axis(a0, a1, b1.bottom, b1.top, 4, { label: 'signal (raw units)' }), { noXLabels: true });
    axes(ctx, b2, x1, axis(f0, f1, b2.bottom, b2.top, 3, { label: 'band-pass' }));
    const xs = (i) => x1.scale((start + i) / rate);
    // Gates: every candidate start inside the excerpt.
    const from = firstCandidateFrom(start), to = firstCandidateFrom(start + len);
    let gates = 0;
    for (let c = from; c < to; c++) {
      const p = Math.round(xs(beatStart(c) - start)) + 0.5;
      ctx.strokeStyle = cand.status[c] ? 'rgba(82, 96, 109, 0.6)' : colour.pruned;
      ctx.setLineDash(cand.status[c] ? [] : [4, 3]);
      ctx.lineWidth = 1;
      for (const bb of [b1, b2]) { ctx.beginPath(); ctx.moveTo(p, bb.top); ctx.lineTo(p, bb.bottom); ctx.stroke(); }
      gates++;
    }
    ctx.setLineDash([]);
    const y1 = linear(a0, a1, b1.bottom, b1.top), y2 = linear(f0, f1, b2.bottom, b2.top);
    ctx.lineWidth = 1.3;
    ctx.strokeStyle = colour.signal;
    line(ctx, len, xs, (i) => y1(excerptSignal[i]));
    if (excerptFiltered.length) {
      ctx.strokeStyle = colour.filtered;
      line(ctx, excerptFiltered.length, xs, (i) => y2(excerptFiltered[i]));
    }
    // R-peaks as dots on the signal.
    ctx.fillStyle = colour.alarm;
    for (let c = from; c < to; c++) {
      const p = beatPeak(c) - start;
      if (p < 0 || p >= len) continue;
      ctx.beginPath(); ctx.arc(xs(p), y1(excerptSignal[p]), 2.5, 0, 2 * Math.PI); ctx.fill();
    }
    legend(ctx, b1.right, 12, [
      { colour: colour.signal, text: 'signal' }, { colour: colour.filtered, text: 'band-pass response' },
      { colour: 'rgba(82, 96, 109, 0.6)', text: 'gate (kept beat)' }, { colour: colour.pruned, text: 'gate (pruned)', dash: true },
      { colour: colour.alarm, text: 'R-peak', dot: true }]);
    document.getElementById('fig-excerpt').dataset.gates = String(gates);
  }

  /** A legend in one row, right-aligned at (right, y): meant for the margin above a plot, so it
   *  never hides data. */
  function legend(ctx, right, y, items) {
    ctx.save();
    ctx.font = font(11);
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    let x = right;
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      x -= ctx.measureText(item.text).width + 22;
      ctx.strokeStyle = item.colour;
      ctx.fillStyle = item.colour;
      ctx.lineWidth = 2;
      if (item.dot) { ctx.beginPath(); ctx.arc(x + 8, y, 3, 0, 2 * Math.PI); ctx.fill(); }
      else if (item.ring) { ctx.lineWidth = 1.3; ctx.beginPath(); ctx.arc(x + 8, y, 3.5, 0, 2 * Math.PI); ctx.stroke(); }
      else { ctx.setLineDash(item.dash ? [4, 3] : []); ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 16, y); ctx.stroke(); ctx.setLineDash([]); }
      ctx.fillStyle = colour.ink;
      ctx.fillText(item.text, x + 20, y);
      x -= 14;
    }
    ctx.restore();
  }

  // ------------------------------------------------------------------------------------- lengths
  function drawLengths() {
    const { ctx, w, h } = setup(document.getElementById('lengths-canvas'));
    const hist = decode(D.histogram);
    const p = S.parameters;
    if (!hist.length) { message(ctx, w, h, 'no beats'); return; }
    let lastBin = 0;
    for (let i = 0; i < hist.length; i++) if (hist[i]) lastBin = i;
    const overflow = hist.length - 1;  // the last bin counts every longer beat
    const maxBin = Math.min(overflow, Math.max(lastBin, p.max_length) + Math.ceil(0.08 * p.max_length));
    const b = box(w, h, [12, 14, 40, 64]);
    let peak = 0;
    for (let i = 0; i <= maxBin; i++) peak = Math.max(peak, hist[i]);
    const x = axis(0, (maxBin + 1) / rate, b.left, b.right, Math.max(2, Math.floor(b.width / 70)), { label: 'beat length (s)' });
    const y = axis(0, peak * 1.08 || 1, b.bottom, b.top, 5, { label: 'beats', fmt: (v) => int(v) });
    axes(ctx, b, x, y);
    ctx.fillStyle = 'rgba(46, 125, 50, 0.06)';
    ctx.fillRect(x.scale(p.min_length / rate), b.top, x.scale((p.max_length + 1) / rate) - x.scale(p.min_length / rate), b.height);
    for (let i = 0; i <= maxBin; i++) {
      if (!hist[i]) continue;
      const a = x.scale(i / rate), e = x.scale((i + 1) / rate);
      ctx.fillStyle = i >= p.min_length && i <= p.max_length ? colour.signal : '#9aa5b1';
      ctx.fillRect(a, y.scale(hist[i]), Math.max(1, e - a - (e - a > 3 ? 0.5 : 0)), b.bottom - y.scale(hist[i]));
    }
    ctx.font = font(11);
    ctx.textBaseline = 'top';
    for (let [bound, name, align] of [[p.min_length, 'min', 'right'], [p.max_length + 1, 'max', 'left']]) {
      const px = Math.round(x.scale(bound / rate)) + 0.5;
      ctx.strokeStyle = colour.alarm;
      ctx.setLineDash([5, 4]);
      ctx.lineWidth = 1.3;
      ctx.beginPath(); ctx.moveTo(px, b.top); ctx.lineTo(px, b.bottom); ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = colour.alarm;
      const seconds = (name === 'min' ? p.min_length : p.max_length) / rate;
      const text = `${name} ${num(seconds, 4)} s`, tw = ctx.measureText(text).width;
      if (align === 'left' && px + 5 + tw > b.right) align = 'right';  // no room on the right: the other side
      if (align === 'right' && px - 5 - tw < b.left) align = 'left';
      ctx.textAlign = align;
      ctx.fillText(text, px + (align === 'left' ? 5 : -5), b.top + 4);
    }
    let longer = 0;
    for (let i = maxBin + 1; i < hist.length; i++) longer += hist[i];
    if (longer) {
      ctx.fillStyle = colour.muted;
      ctx.textAlign = 'right';
      ctx.fillText(`+ ${int(longer)} beats ≥ ${num((maxBin + 1) / rate, 3)} s`, b.right - 6, b.top + 20);
    }
  }

  // --------------------------------------------------------------------------------------- beats
  function drawBeats() {
    const { ctx, w, h } = setup(document.getElementById('beats-canvas'));
    const top = new Set(topN.map((t) => t.beat));
    let chosen = rows.beats.filter((c) => !top.has(c));
    if (!chosen.length) chosen = rows.beats;
    if (!chosen.length) { message(ctx, w, h, 'no beats shipped with this report'); return; }
    const wd = rows.width, b = box(w, h, [12, 14, 40, 64]);
    const all = chosen.map((c) => rows.byBeat.get(c));
    const [lo, hi] = finiteRange(all);
    const x = axis(0, (wd - 1) / rate, b.left, b.right, Math.max(2, Math.floor(b.width / 70)), { label: 'time from the gate (s)' });
    const y = axis(lo, hi, b.bottom, b.top, 5, { label: 'normalised amplitude (robust z)' });
    axes(ctx, b, x, y);
    ctx.lineWidth = 1;
    ctx.strokeStyle = 'rgba(31, 78, 121, 0.28)';
    for (const row of all) line(ctx, wd, (i) => x.scale(i / rate), (i) => y.scale(row[i]));
    const mean = new Float32Array(wd);
    for (const row of all) for (let i = 0; i < wd; i++) mean[i] += row[i] / all.length;
    ctx.lineWidth = 2;
    ctx.strokeStyle = colour.ink;
    line(ctx, wd, (i) => x.scale(i / rate), (i) => y.scale(mean[i]));
    document.getElementById('fig-beats').dataset.beats = String(all.length);
  }

  // -------------------------------------------------------------------------------------- latent
  const lat = { selected: -1, hover: -1 };

  function drawLatent() {
    const canvas = document.getElementById('latent-canvas');
    const { ctx, w, h, dpr } = setup(canvas);
    if (!kept.n) { message(ctx, w, h, 'no kept beats'); return; }
    const b = box(w, h, [12, 132, 44, 64]);
    const [x0, x1] = finiteRange([kept.mu0]), [y0, y1] = finiteRange([kept.mu1]);
    const x = axis(x0, x1, b.left, b.right, Math.max(2, Math.floor(b.width / 80)), { label: 'μ₀' });
    const y = axis(y0, y1, b.bottom, b.top, Math.max(2, Math.floor(b.height / 60)), { label: 'μ₁' });
    axes(ctx, b, x, y);
    // Colour = percentile of the score, so that a heavy tail still spreads over the map.
    // Colour by the score's percentile, stretched so that the bulk stays calm and the tail
    // stands out: median → a quarter of the map, 90th percentile → half, 99th → three quarters.
    const order = kept.order, rank = new Float32Array(kept.n).fill(-1);
    for (let i = 0; i < order.length; i++) rank[order[i]] = colourOfPercentile(order.length > 1 ? 1 - i / (order.length - 1) : 1);
    const radius = kept.n <= 4000 ? 3 : kept.n <= 30000 ? 2.3 : 1.7;
    // Every point is stamped from a pre-drawn, anti-aliased sprite straight into the plot's
    // pixels: a canvas call per point costs microseconds each in a software-rendered browser,
    // too slow for 100 k beats; blending the sprite's pixels in a typed array is not.
    const levelsN = 48, size = Math.ceil((radius + 1.5) * 2 * dpr), sprites = [];
    const spriteCanvas = document.createElement('canvas');
    spriteCanvas.width = size * 2;
    spriteCanvas.height = size * levelsN;
    const sc = spriteCanvas.getContext('2d');
    sc.scale(dpr, dpr);
    for (let l = 0; l < levelsN; l++) {
      for (const ring of [0, 1]) {
        sc.beginPath();
        sc.arc((ring * size + size / 2) / dpr, (l * size + size / 2) / dpr, radius, 0, 2 * Math.PI);
        if (ring) { sc.strokeStyle = heat(l / (levelsN - 1)); sc.lineWidth = 1.2; sc.stroke(); }
        else { sc.fillStyle = heat(l / (levelsN - 1)); sc.fill(); }
      }
    }
    const sheet = sc.getImageData(0, 0, size * 2, size * levelsN).data;
    for (let l = 0; l < levelsN; l++) {
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
    const px = new Float32Array(kept.n), py = new Float32Array(kept.n);
    const half = size / dpr / 2;
    const bx = Math.ceil((b.left + 1) * dpr), by = Math.ceil((b.top + 1) * dpr);
    const bw = Math.floor((b.right - 1) * dpr) - bx, bh = Math.floor((b.bottom - 1) * dpr) - by;
    const image = ctx.getImageData(bx, by, bw, bh), pix = image.data;
    // Low scores first, so the anomalies are drawn on top.
    for (let i = order.length - 1; i >= 0; i--) {
      const k = order[i];
      const X = x.scale(kept.mu0[k]), Y = y.scale(kept.mu1[k]);
      px[k] = X, py[k] = Y;
      if (!isFinite(X) || !isFinite(Y)) continue;
      const texels = sprites[Math.round(rank[k] * (levelsN - 1))][cand.status[kept.candidate[k]] === 2 ? 1 : 0];
      const ox = Math.round((X - half) * dpr) - bx, oy = Math.round((Y - half) * dpr) - by;
      for (let t = 0; t < texels.length; t += 6) {
        const xx = ox + texels[t], yy = oy + texels[t + 1];
        if (xx < 0 || yy < 0 || xx >= bw || yy >= bh) continue;
        const o = (yy * bw + xx) * 4, a = texels[t + 5];
        pix[o] += (texels[t + 2] - pix[o]) * a;
        pix[o + 1] += (texels[t + 3] - pix[o + 1]) * a;
        pix[o + 2] += (texels[t + 4] - pix[o + 2]) * a;
      }
    }
    ctx.putImageData(image, bx, by);
    // Colour bar with the scores at a few percentiles.
    const cb = { left: b.right + 22, top: b.top + 4, width: 12, height: Math.min(220, b.height - 90) };
    for (let i = 0; i < cb.height; i++) { ctx.fillStyle = heat(1 - i / (cb.height - 1)); ctx.fillRect(cb.left, cb.top + i, cb.width, 1); }
    ctx.strokeStyle = colour.frame;
    ctx.strokeRect(cb.left + 0.5, cb.top + 0.5, cb.width - 1, cb.height - 1);
    ctx.font = font(10);
    ctx.fillStyle = colour.muted;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    for (const q of percentileStops) {
      const k = order[Math.round((1 - q) * (order.length - 1))], at = cb.top + (1 - colourOfPercentile(q)) * (cb.height - 1);
      const label = q === 1 ? 'max' : q === 0 ? 'min' : `${Math.round(q * 100)} %`;
      ctx.fillText(`${num(kept.score[k], 3)} (${label})`, cb.left + cb.width + 4, at);
    }
    ctx.save();
    ctx.translate(cb.left - 8, cb.top + cb.height / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.fillStyle = colour.ink;
    ctx.font = font(11);
    ctx.fillText('anomaly score', 0, 0);
    ctx.restore();
    legend(ctx, w - 30, cb.top + cb.height + 18, [{ colour: heat(0.15), text: 'train', dot: true }]);
    legend(ctx, w - 30, cb.top + cb.height + 36, [{ colour: heat(0.15), text: 'test', ring: true }]);
    // A coarse grid of screen positions for hover look-ups.
    const cell = 12, cols = Math.ceil(w / cell) + 1, grid = new Map();
    for (let k = 0; k < kept.n; k++) {
      if (!isFinite(px[k]) || !isFinite(py[k])) continue;
      const key = Math.floor(py[k] / cell) * cols + Math.floor(px[k] / cell);
      let list = grid.get(key);
      if (!list) grid.set(key, (list = []));
      list.push(k);
    }
    Object.assign(lat, { px, py, grid, cell, cols, box: b });
    overlayLatent();
  }

  /** The highlight ring of the hovered and the selected point, on a canvas above the scatter. */
  function overlayLatent() {
    const canvas = document.getElementById('latent-canvas');
    let over = document.getElementById('latent-overlay');
    if (!over) {
      over = document.createElement('canvas');
      over.id = 'latent-overlay';
      over.style.cssText = 'position:absolute;left:0;top:0;pointer-events:none;width:100%';
      over.setAttribute('height', canvas.dataset.h);
      canvas.parentNode.appendChild(over);
    }
    const { ctx } = setup(over);
    ctx.clearRect(0, 0, over.width, over.height);
    for (const [k, c, r] of [[lat.hover, colour.ink, 6], [lat.selected, colour.select, 7]]) {
      if (k < 0 || !lat.px) continue;
      ctx.strokeStyle = c;
      ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(lat.px[k], lat.py[k], r, 0, 2 * Math.PI); ctx.stroke();
    }
  }

  function nearestLatent(mx, my, reach = 10) {
    if (!lat.grid) return -1;
    let best = -1, bestD = reach * reach;
    const cx = Math.floor(mx / lat.cell), cy = Math.floor(my / lat.cell), span = Math.ceil(reach / lat.cell);
    for (let gy = cy - span; gy <= cy + span; gy++) {
      for (let gx = cx - span; gx <= cx + span; gx++) {
        const list = lat.grid.get(gy * lat.cols + gx);
        if (!list) continue;
        for (const k of list) {
          const d = (lat.px[k] - mx) ** 2 + (lat.py[k] - my) ** 2;
          if (d < bestD || (d === bestD && kept.score[k] > kept.score[best])) bestD = d, best = k;
        }
      }
    }
    return best;
  }

  /** Fills the beat panel with kept beat k. */
  function showLatentBeat(k) {
    const panel = document.getElementById('latent-detail');
    const c = kept.candidate[k];
    panel.dataset.beat = String(c);
    panel.dataset.time = String(beatPeak(c) / rate);
    panel.dataset.score = String(kept.score[k]);
    const hint = document.getElementById('latent-hint');
    hint.textContent = k === (topN.length ? topN[0].k : -1) && lat.selected < 0 && lat.hover < 0
      ? 'The most anomalous beat. Hover or click a point to see another.' : '';
    hint.hidden = !hint.textContent;
    const facts = [
      ['beat', '#' + int(c)], ['time', clock(beatPeak(c) / rate, 3)], ['score', num(kept.score[k], 4)],
      ['rank', kept.rank ? int(kept.rank[k] + 1) + ' of ' + int(kept.order.length) : '–'],
      ['split', splitName(c)], ['length', num(cand.length[c] / rate, 3) + ' s'],
      ['μ', `(${num(kept.mu0[k], 3)}, ${num(kept.mu1[k], 3)})`]];
    const dl = document.getElementById('latent-facts');
    dl.innerHTML = '';
    for (const [name, value] of facts) {
      const dt = document.createElement('dt'), dd = document.createElement('dd');
      dt.textContent = name;
      dd.textContent = value;
      dd.dataset.fact = name;
      dl.append(dt, dd);
    }
    drawWave(document.getElementById('latent-beat'), c, { axes: true });
    const go = document.getElementById('latent-goto');
    go.hidden = false;
    go.onclick = () => showBeat(c, true);
  }

  /** A beat's waveform in a small canvas (the panel's and the table's). */
  function drawWave(canvas, c, opts = {}) {
    const { ctx, w, h } = setup(canvas);
    const wave = waveform(c);
    if (!wave) { message(ctx, w, h, 'no waveform'); return; }
    const b = opts.axes ? box(w, h, [8, 8, 30, 40]) : box(w, h, [3, 3, 3, 3]);
    const [lo, hi] = finiteRange([wave.ys]);
    const x = axis(0, (rows.width - 1) / rate, b.left, b.right, 4, { label: opts.axes ? 's' : '' });
    const y = axis(lo, hi, b.bottom, b.top, 3, { label: '' });
    if (opts.axes) axes(ctx, b, x, y);
    const len = cand.length[c] / rate;
    ctx.fillStyle = 'rgba(31, 78, 121, 0.05)';
    ctx.fillRect(b.left, b.top, x.scale(len) - b.left, b.height);
    ctx.strokeStyle = cand.keptIndex[c] >= 0 && topN.some((t) => t.beat === c) ? colour.alarm : colour.signal;
    ctx.lineWidth = opts.axes ? 1.6 : 1.3;
    line(ctx, wave.n, (i) => x.scale(wave.xs(i)), (i) => y.scale(wave.ys[i]));
    if (opts.axes && !wave.full) {
      ctx.fillStyle = colour.muted;
      ctx.font = font(10);
      ctx.textAlign = 'right';
      ctx.textBaseline = 'top';
      ctx.fillText(`preview: ${rows.thumbWidth} points`, b.right - 4, b.top + 3);
    }
  }

  function wireLatent() {
    const canvas = document.getElementById('latent-canvas');
    const tip = document.getElementById('tooltip');
    const at = (e) => { const r = canvas.getBoundingClientRect(); return nearestLatent(e.clientX - r.left, e.clientY - r.top); };
    canvas.addEventListener('mousemove', (e) => {
      const k = at(e);
      if (k !== lat.hover) { lat.hover = k; overlayLatent(); if (k >= 0 && lat.selected < 0) showLatentBeat(k); }
      if (k < 0) { tip.hidden = true; return; }
      const c = kept.candidate[k];
      tip.textContent = `beat #${int(c)} · ${clock(beatPeak(c) / rate, 3)} · score ${num(kept.score[k], 3)} · ${splitName(c)}`;
      tip.style.left = e.clientX + 14 + 'px';
      tip.style.top = e.clientY + 12 + 'px';
      tip.hidden = false;
    });
    canvas.addEventListener('mouseleave', () => { lat.hover = -1; tip.hidden = true; overlayLatent(); });
    canvas.addEventListener('click', (e) => {
      const k = at(e);
      lat.selected = k;
      overlayLatent();
      if (k >= 0) { showLatentBeat(k); ov.selected = kept.candidate[k]; redrawOverview(); }
    });
  }

  // ---------------------------------------------------------------------------------------- grid
  function drawGrid() {
    const { ctx, w, h } = setup(document.getElementById('grid-canvas'));
    const g = D.grid, values = decode(g.values), wd = rows.width, m = g.n;
    if (values.length < m * m * wd) { message(ctx, w, h, 'no decoded grid in this run'); return; }
    const b = box(w, h, [8, 8, 44, 56]);
    const cw = b.width / m, ch = b.height / m, [lo, hi] = finiteRange([values]);
    const mu = (i) => -g.extent + (2 * g.extent * i) / (m - 1);
    ctx.font = font(10);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) {
        // decode_grid's row i·m + j decodes (μ₀, μ₁) = (g[i], g[j]): μ₀ to the right, μ₁ upwards.
        const left = b.left + i * cw, top = b.top + (m - 1 - j) * ch;
        const cell = { left: left + 3, top: top + 3, width: cw - 6, height: ch - 6 };
        ctx.fillStyle = '#fbfcfd';
        ctx.fillRect(cell.left, cell.top, cell.width, cell.height);
        ctx.strokeStyle = colour.grid;
        ctx.strokeRect(cell.left + 0.5, cell.top + 0.5, cell.width - 1, cell.height - 1);
        const row = values.subarray((i * m + j) * wd, (i * m + j + 1) * wd);
        const x = linear(0, wd - 1, cell.left + 3, cell.left + cell.width - 3);
        const y = linear(lo, hi, cell.top + cell.height - 3, cell.top + 3);
        ctx.strokeStyle = colour.signal;
        ctx.lineWidth = 1.2;
        line(ctx, wd, x, (t) => y(row[t]));
      }
    }
    ctx.fillStyle = colour.muted;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (let i = 0; i < m; i++) ctx.fillText(num(mu(i), 2), b.left + (i + 0.5) * cw, b.bottom + 4);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (let j = 0; j < m; j++) ctx.fillText(num(mu(j), 2), b.left - 6, b.top + (m - 1 - j + 0.5) * ch);
    ctx.fillStyle = colour.ink;
    ctx.font = font(11);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.fillText('μ₀', (b.left + b.right) / 2, b.bottom + 20);
    ctx.save();
    ctx.translate(14, (b.top + b.bottom) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText('μ₁', 0, 0);
    ctx.restore();
  }

  // ---------------------------------------------------------------------------------------- loss
  function drawLoss() {
    const { ctx, w, h } = setup(document.getElementById('loss-canvas'));
    const loss = S.loss_per_epoch || [];
    if (!loss.length) {
      message(ctx, w, h, S.parameters.model ? 'scored with a saved model: no training in this run' : 'no training in this run');
      return;
    }
    const b = box(w, h, [28, 14, 40, 64]);
    const all = loss.concat(S.test_loss !== null && S.test_loss !== undefined ? [S.test_loss] : []);
    const [lo, hi] = finiteRange([all], 0.08);
    const x = axis(1, Math.max(2, loss.length), b.left, b.right, Math.min(loss.length, 10), { label: 'epoch' });
    x.ticks = x.ticks.filter((v) => Number.isInteger(v));
    const y = axis(lo, hi, b.bottom, b.top, 5, { label: 'loss per beat' });
    axes(ctx, b, x, y);
    ctx.strokeStyle = colour.signal;
    ctx.lineWidth = 2;
    line(ctx, loss.length, (i) => x.scale(i + 1), (i) => y.scale(loss[i]));
    ctx.fillStyle = colour.signal;
    if (loss.length <= 60) for (let i = 0; i < loss.length; i++) { ctx.beginPath(); ctx.arc(x.scale(i + 1), y.scale(loss[i]), 2.6, 0, 2 * Math.PI); ctx.fill(); }
    const items = [{ colour: colour.signal, text: 'training beats' }];
    if (S.test_loss !== null && S.test_loss !== undefined) {
      const p = Math.round(y.scale(S.test_loss)) + 0.5;
      ctx.strokeStyle = colour.filtered;
      ctx.setLineDash([6, 4]);
      ctx.lineWidth = 1.6;
      ctx.beginPath(); ctx.moveTo(b.left, p); ctx.lineTo(b.right, p); ctx.stroke();
      ctx.setLineDash([]);
      items.push({ colour: colour.filtered, text: `test beats: ${num(S.test_loss, 4)}`, dash: true });
    }
    legend(ctx, b.right, 12, items);
  }

  // ------------------------------------------------------------------------------------ anomalies
  /** One card per top anomaly: its waveform, rank, time (a link into the overview) and score. */
  function fillAnomalies() {
    const list = document.getElementById('anomaly-list');
    list.innerHTML = '';
    if (!topN.length) {
      list.innerHTML = '<li class="muted">no scored beats</li>';
      return;
    }
    for (const t of topN) {
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
      const canvas = document.createElement('canvas');
      canvas.setAttribute('height', '64');
      const foot = document.createElement('div');
      foot.className = 'foot';
      foot.textContent = `beat #${int(c)} · ${num(cand.length[c] / rate, 3)} s · ${splitName(c)}`;
      li.append(head, canvas, foot);
      li.addEventListener('click', (e) => {
        e.preventDefault();
        history.replaceState(null, '', '#t=' + seconds.toFixed(3));
        showBeat(c, true);
      });
      list.appendChild(li);
    }
    list.querySelectorAll('li').forEach((li) => drawWave(li.querySelector('canvas'), Number(li.dataset.beat)));
  }

  // --------------------------------------------------------------------------- stages, numbers
  function stageList() {
    if (Array.isArray(D.stages) && D.stages.length) return D.stages;
    return Object.entries(S.stages_ms).filter(([k]) => k !== 'total').map(([name, v]) => ({ name, ms: v }));
  }

  function drawStages() {
    const canvas = document.getElementById('stages-canvas');
    const stages = stageList();
    canvas.dataset.h = String(Math.max(160, stages.length * 28 + 56));
    const { ctx, w, h } = setup(canvas);
    const b = box(w, h, [8, 80, 40, 96]);
    const max = Math.max(...stages.map((s) => s.ms), 1e-3);
    const x = axis(0, max * 1.05, b.left, b.right, 5, { label: 'milliseconds', fmt: (v) => int(v) });
    const y = { scale: () => 0, ticks: [], label: '' };
    axes(ctx, b, x, y);
    const bar = b.height / stages.length;
    ctx.font = font(11);
    stages.forEach((s, i) => {
      const top = b.top + i * bar + bar * 0.18, height = bar * 0.64;
      ctx.fillStyle = colour.signal;
      ctx.fillRect(b.left + 1, top, Math.max(1, x.scale(s.ms) - b.left), height);
      ctx.fillStyle = colour.ink;
      ctx.textAlign = 'right';
      ctx.textBaseline = 'middle';
      ctx.fillText(s.name, b.left - 8, top + height / 2);
      ctx.textAlign = 'left';
      ctx.fillStyle = colour.muted;
      ctx.fillText(ms(s.ms), x.scale(s.ms) + 6, top + height / 2);
    });
    const table = document.getElementById('memory-table');
    table.innerHTML = '';
    const entries = [
      ['total', ms(S.stages_ms.total), 'stages_ms.total', S.stages_ms.total],
      ['peak host memory', bytes(S.peak_host_bytes), 'peak_host_bytes', S.peak_host_bytes],
      ['peak device memory', S.device === 'cpu' ? '– (CPU run)' : bytes(S.peak_device_bytes), 'peak_device_bytes', S.peak_device_bytes]];
    for (const s of stages) entries.push([s.name, ms(s.ms), 'stages_ms.' + s.name, s.ms]);
    for (const [name, text, key, value] of entries) factRow(table, name, text, key, value);
  }

  function factRow(table, name, text, key, value) {
    const tr = document.createElement('tr');
    const th = document.createElement('th'), td = document.createElement('td');
    th.textContent = name;
    td.textContent = text;
    if (key) { td.dataset.key = key; td.dataset.value = JSON.stringify(value); }
    tr.append(th, td);
    table.appendChild(tr);
  }

  function fillNumbers() {
    const duration = S.duration_seconds;
    document.getElementById('input-name').textContent = S.input;
    document.getElementById('subtitle').textContent =
      `${int(S.samples)} samples at ${num(S.sample_rate, 6)} Hz (${clock(duration)}) · device ${S.device} · zeroflow ${S.zeroflow_version}`;
    const cards = [
      ['duration', clock(duration), 'duration_seconds', duration],
      ['samples', int(S.samples), 'samples', S.samples],
      ['beats found', int(S.beats_found), 'beats_found', S.beats_found],
      ['beats kept', int(S.beats_kept), 'beats_kept', S.beats_kept],
      ['test loss', S.test_loss === null ? '–' : num(S.test_loss, 4), 'test_loss', S.test_loss],
      ['total time', ms(S.stages_ms.total), 'stages_ms.total', S.stages_ms.total],
    ];
    if (S.evaluation && !S.evaluation.not_evaluated) {
      const v = S.evaluation.classes.V;
      cards.push(['beat sensitivity', num(100 * S.evaluation.sensitivity, 4) + ' %', 'evaluation.sensitivity', S.evaluation.sensitivity]);
      cards.push(['V AUROC', v.auroc === null ? 'undefined' : num(v.auroc, 4), 'evaluation.classes.V.auroc', v.auroc]);
    }
    const dl = document.getElementById('key-numbers');
    dl.innerHTML = '';
    for (const [name, text, key, value] of cards) {
      const div = document.createElement('div'), dt = document.createElement('dt'), dd = document.createElement('dd');
      div.dataset.key = key;
      div.dataset.value = JSON.stringify(value);
      dt.textContent = name;
      dd.textContent = text;
      div.append(dt, dd);
      dl.appendChild(div);
    }
    const params = document.getElementById('parameter-table');
    params.innerHTML = '';
    const p = S.parameters;
    const rows_ = [
      ['input', S.input, 'input', S.input], ['device', S.device, 'device', S.device],
      ['sample rate', num(S.sample_rate, 6) + ' Hz', 'sample_rate', S.sample_rate],
      ['column', p.column || '(first)', 'parameters.column', p.column],
      ['Ricker width', `${p.ricker_width} samples (${num(p.ricker_width / rate, 3)} s)`, 'parameters.ricker_width', p.ricker_width],
      ['NMS window', `${p.nms_window} samples (${num(p.nms_window / rate, 3)} s)`, 'parameters.nms_window', p.nms_window],
      ['kept lengths', `${p.min_length}–${p.max_length} samples (${num(p.min_length / rate, 4)}–${num(p.max_length / rate, 4)} s)`, 'parameters.max_length', p.max_length],
      ['row width', `${p.row_width} samples`, 'parameters.row_width', p.row_width],
      ['normalisation', `${S.normalization.method}: center ${num(S.normalization.center, 5)}, scale ${num(S.normalization.scale, 5)}`, 'normalization.scale', S.normalization.scale],
      ['epochs', String(p.epochs), 'parameters.epochs', p.epochs], ['batch', String(p.batch), 'parameters.batch', p.batch],
      ['seed', String(p.seed), 'parameters.seed', p.seed],
      ['model', p.model || '(trained in this run)', 'parameters.model', p.model],
      ['score', S.score, 'score', S.score],
      ['zeroflow', S.zeroflow_version, 'zeroflow_version', S.zeroflow_version]];
    for (const [name, text, key, value] of rows_) factRow(params, name, text, key, value);
    if (S.evaluation) {
      const e = S.evaluation, table = document.getElementById('evaluation-table');
      table.hidden = false;
      document.getElementById('evaluation-title').hidden = false;
      table.innerHTML = '';
      factRow(table, 'labels', S.labels, 'labels', S.labels);
      if (e.not_evaluated) {
        factRow(table, 'not evaluated', e.not_evaluated, 'evaluation.not_evaluated', e.not_evaluated);
      } else {
        const pct = (v) => v === null ? 'undefined' : num(100 * v, 4) + ' %';
        for (const [name, text, key] of [
          ['labelled beats', int(e.labelled_beats), 'labelled_beats'],
          ['detections (TP / FP / FN)', `${int(e.detections)} (${int(e.true_positives)} / ${int(e.false_positives)} / ${int(e.false_negatives)}), ±${num(e.tolerance_seconds, 3)} s`, 'true_positives'],
          ['sensitivity', pct(e.sensitivity), 'sensitivity'],
          ['positive predictivity', pct(e.positive_predictivity), 'positive_predictivity'],
          ['labelled beats scored', int(e.scored_beats), 'scored_beats']])
          factRow(table, name, text, 'evaluation.' + key, e[key]);
        // Each class against every other labelled beat; unscored beats rank lowest (e.ranking).
        for (const cls of ['V', 'S', 'abnormal']) {
          const c = e.classes[cls];
          const what = c.undefined ? `undefined: ${c.undefined}`
            : `AUROC ${num(c.auroc, 4)}, average precision ${num(c.average_precision, 4)}`;
          factRow(table, `${cls} beats`, `${int(c.beats)} (${int(c.unscored_beats)} unscored) · ${what}`,
                  `evaluation.classes.${cls}.auroc`, c.auroc);
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------- driver
  function safely(name, draw) {
    const section = document.querySelector(`[data-figure="${name}"]`);
    const t0 = performance.now();
    try {
      draw();
      if (section) section.dataset.drawn = '1';
      hook.figures[name] = { drawn: true, ms: performance.now() - t0 };
    } catch (err) {
      hook.figures[name] = { drawn: false, error: String(err) };
      hook.errors.push(name + ': ' + err);
      if (section) section.dataset.drawn = '0';
      console.error('zeroflow report: ' + name + ':', err);
    }
  }

  const figures = [
    ['overview', drawOverview], ['excerpt', drawExcerpt], ['lengths', drawLengths], ['beats', drawBeats],
    ['latent', drawLatent], ['grid', drawGrid], ['loss', drawLoss], ['anomalies', fillAnomalies], ['stages', drawStages],
    ['parameters', () => {}]];

  function renderAll() { for (const [name, draw] of figures) safely(name, draw); }

  function fromHash() {
    const m = /t=([0-9.]+)/.exec(location.hash);
    if (!m) return false;
    const t = Number(m[1]);
    let best = -1;
    const c = firstCandidateFrom(t * rate);
    for (const k of [c - 1, c]) if (k >= 0 && k < cand.n && (best < 0 || Math.abs(beatPeak(k) - t * rate) < Math.abs(beatPeak(best) - t * rate))) best = k;
    if (best >= 0) ov.selected = best;
    zoomTo(t - 2.5, t + 2.5);
    return true;
  }

  function start() {
    const t0 = performance.now();
    try {
      load();
      hook.loadMs = performance.now() - t0;
    } catch (err) {
      const box_ = document.getElementById('load-error');
      box_.hidden = false;
      box_.textContent = 'The report data could not be read: ' + err;
      hook.errors.push('load: ' + err);
      console.error(err);
      return;
    }
    excerptSignal = decode(D.excerpt && D.excerpt.signal);
    excerptFiltered = decode(D.excerpt && D.excerpt.filtered);
    kept.rank = new Int32Array(kept.n).fill(-1);
    kept.order.forEach((k, i) => (kept.rank[k] = i));
    setView(0, n);
    safely('numbers', fillNumbers);
    renderAll();
    wireOverview();
    wireLatent();
    if (topN.length) safely('latent-panel', () => showLatentBeat(topN[0].k));  // until a point is chosen
    window.addEventListener('hashchange', () => { if (fromHash()) document.getElementById('fig-overview').scrollIntoView({ block: 'start' }); });
    fromHash();
    let resize = 0;
    window.addEventListener('resize', () => { clearTimeout(resize); resize = setTimeout(renderAll, 150); });
    Object.assign(hook, {
      zoomTo, view,
      /** Selects candidate `beat` as a click in the latent figure would. */
      select(beat) {
        const k = cand.keptIndex[beat];
        if (k < 0) return false;
        lat.selected = k; overlayLatent(); showLatentBeat(k); ov.selected = beat; redrawOverview();
        return true;
      },
      /** Page coordinates (for a mouse click) of kept beat k's point in the latent figure. */
      latentPoint(k) {
        const r = document.getElementById('latent-canvas').getBoundingClientRect();
        return { x: r.left + lat.px[k], y: r.top + lat.py[k], beat: kept.candidate[k] };
      },
      keptCount: kept.n,
      topBeats: topN.map((t) => t.beat),
    });
    const footer = document.getElementById('footer');
    hook.renderMs = performance.now();
    footer.textContent = `zeroflow ${S.zeroflow_version} · drawn in ${Math.round(hook.renderMs)} ms after the page started loading`;
    hook.ready = true;
    document.body.dataset.ready = '1';
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
