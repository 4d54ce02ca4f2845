// The run's data: decodes the blob in #zf-data (layout: src/report/html_data.cpp, encodings:
// src/report/html_encode.hpp) into typed arrays every figure reads, and derives the overview's
// coarser min/max levels from the finest one computed on the run's device.
/* global zf */
zf.data = (() => {
  const typed = { i8: Int8Array, u8: Uint8Array, i16: Int16Array, i32: Int32Array, f32: Float32Array, f64: Float64Array };
  const nanCode = { i8: -128, i16: -32768 };

  function bytesOf(b64) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(b64);  // native where the browser has it
    const text = atob(b64);
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }

  /** Typed array of an encoded array: floats come back as Float32Array, delta-coded integers as
   *  Float64Array (exact), others in their own type. */
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

  /** Indices of the finite scores, highest first, ties to the lower index. Up to 2^20 scores are
   *  ordered by one native sort of packed keys (the float32's bits made order-preserving, times
   *  2^20, plus the index: exact in a double), much faster than a comparator; beyond that, the
   *  comparator. */
  function rankByScore(score) {
    const n = score.length, index = [];
    if (n <= 1 << 20) {
      const bits = new Uint32Array(score.buffer, score.byteOffset, n), keys = new Float64Array(n);
      let m = 0;
      for (let i = 0; i < n; i++) {
        if (!isFinite(score[i])) continue;
        const u = bits[i], ordered = u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0;  // ascending with the float
        keys[m++] = (0xffffffff - ordered) * 1048576 + i;  // descending score, then ascending index
      }
      const sorted = keys.subarray(0, m).sort();
      for (let i = 0; i < m; i++) index.push(sorted[i] % 1048576);
      return index;
    }
    for (let i = 0; i < n; i++) if (isFinite(score[i])) index.push(i);
    return index.sort((a, b) => (score[b] - score[a]) || (a - b));
  }

  /** The overview pyramid: the finest level as computed on the device, each next one halving the
   *  buckets (min of mins, max of maxes), down to one bucket. */
  function pyramid(o) {
    const levels = [];
    if (!o || !o.n) return levels;
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
    return levels;
  }

  /** Reads the blob; every figure then reads the returned object (also kept as zf.run). */
  function load(text) {
    const t0 = performance.now(), D = JSON.parse(text), parseMs = performance.now() - t0, S = D.summary;
    const status = decode(D.candidates.status);
    const cand = {
      n: D.candidates.n,
      start: decode(D.candidates.start),
      length: decode(D.candidates.length),
      peakOffset: decode(D.candidates.peak_offset),
      status,
      cls: D.candidates.class ? decode(D.candidates.class) : new Uint8Array(D.candidates.n),  // 0 none, 1 N, 2 S, 3 V, 4 Q
      keptIndex: new Int32Array(D.candidates.n).fill(-1),  // candidate → kept row, −1 when pruned
    };
    const keptCandidates = [];
    for (let c = 0; c < cand.n; c++) if (status[c]) { cand.keptIndex[c] = keptCandidates.length; keptCandidates.push(c); }
    const kept = {
      n: keptCandidates.length,
      candidate: Int32Array.from(keptCandidates),
      score: decode(D.kept.score),
      mu0: decode(D.kept.mu0),
      mu1: decode(D.kept.mu1),
    };
    kept.order = rankByScore(kept.score);  // most anomalous first, ties to the earlier beat
    kept.rank = new Int32Array(kept.n).fill(-1);
    kept.order.forEach((k, i) => (kept.rank[k] = i));
    const w = D.rows.width, rowBeats = decode(D.rows.beats), rowValues = decode(D.rows.values);
    const rows = { width: w, byBeat: new Map(), beats: Array.from(rowBeats), thumbWidth: D.thumbs.width, thumbs: decode(D.thumbs.values) };
    for (let i = 0; i < rowBeats.length; i++) rows.byBeat.set(rowBeats[i], rowValues.subarray(i * w, (i + 1) * w));
    const top = kept.order.slice(0, 25).map((k, i) => ({ rank: i + 1, k, beat: kept.candidate[k] }));
    const run = {
      parseMs, D, S, rate: S.sample_rate, n: S.samples, cand, kept, rows, top,
      topSet: new Set(top.map((t) => t.beat)),
      levels: pyramid(D.overview),
      excerpt: { start: D.excerpt ? D.excerpt.start : 0, signal: decode(D.excerpt && D.excerpt.signal), filtered: decode(D.excerpt && D.excerpt.filtered) },
    };
    return run;
  }

  // Beat helpers over the loaded run.
  const beatStart = (c) => zf.run.cand.start[c];
  const beatPeak = (c) => zf.run.cand.start[c] + zf.run.cand.peakOffset[c];
  const splitName = (c) => ['pruned', 'train', 'test', 'kept'][zf.run.cand.status[c]];
  /** Whether the run used the robust segmentation (the default): every beat kept, windows around R peaks. */
  const robust = () => zf.run.S.parameters.segmentation === 'robust';
  const className = (c) => ['', 'N', 'S', 'V', 'Q'][zf.run.cand.cls[c]] || '';
  /** Index of the first candidate starting at or after sample s. */
  function firstCandidateFrom(s) {
    const start = zf.run.cand.start;
    let lo = 0, hi = zf.run.cand.n;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (start[mid] < s) lo = mid + 1; else hi = mid; }
    return lo;
  }
  /** A kept beat's waveform: its full row when the report holds it, else its thumbnail; as
   *  {x: seconds from the gate, y: values, full}. */
  function waveform(c) {
    const { rows, cand, rate } = zf.run, w = rows.width, row = rows.byBeat.get(c);
    if (row) return { x: Float64Array.from(row, (_, i) => i / rate), y: row, full: true };
    const k = cand.keptIndex[c], tw = rows.thumbWidth;
    if (k < 0 || !tw) return null;
    const per = w / tw;
    return { x: Float64Array.from({ length: tw }, (_, i) => (i * per + (per - 1) / 2) / rate), y: rows.thumbs.subarray(k * tw, (k + 1) * tw), full: false };
  }

  return { decode, load, rankByScore, beatStart, beatPeak, splitName, className, robust, firstCandidateFrom, waveform };
})();
