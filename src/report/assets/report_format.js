// Numbers, times and colours as the report writes them (shared by every figure).
/* global zf */
zf.format = (() => {
  const nf = new Intl.NumberFormat('en-US');
  const int = (v) => nf.format(Math.round(v));
  function num(v, digits = 4) {
    if (v === null || v === undefined || !isFinite(v)) return '–';
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(digits - 1);
    return String(Number(v.toPrecision(digits)));
  }
  const pad = (v, n) => String(v).padStart(n, '0');
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
  /** hh:mm:ss from the recording's start, hours always two digits (a Holter report's times). */
  function hms(seconds) {
    const t = Math.round(Math.max(0, seconds));
    return pad(Math.floor(t / 3600), 2) + ':' + pad(Math.floor((t % 3600) / 60), 2) + ':' + pad(t % 60, 2);
  }
  /** hh:mm from the recording's start (seconds rounded down to the minute). */
  const hm = (seconds) => hms(Math.floor(Math.max(0, seconds) / 60) * 60).slice(0, -3);
  function bytes(b) {
    if (!b) return '0 B';
    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let i = 0;
    while (b >= 1000 && i < units.length - 1) b /= 1000, i++;
    return num(b, 3) + ' ' + units[i];
  }
  const ms = (v) => (v >= 100 ? int(v) + ' ms' : num(v, 3) + ' ms');
  /** Digits after the point that a tick step needs. */
  const decimalsFor = (step) => (step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step) - 1e-9)));
  function tickLabel(v, step) {
    return Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? num(v, 3) : v.toFixed(decimalsFor(step));
  }
  /** Time ticks: h:mm:ss for long spans or late in a long recording, seconds otherwise. */
  function timeFormat(span, end) {
    if (span >= 120 || end >= 600) return { label: 'time (h:mm:ss)', fmt: (v, step) => clock(v, decimalsFor(step)) };
    return { label: 'time (s)', fmt: (v, step) => tickLabel(v, step) };
  }
  /** [lo, hi] of the finite values of some arrays, padded by a fraction of the span. */
  function finiteRange(arrays, padFrac = 0.05) {
    let lo = Infinity, hi = -Infinity;
    for (const a of arrays) for (let i = 0; i < a.length; i++) { const v = a[i]; if (v < lo) lo = v; if (v > hi) hi = v; }
    if (!(lo <= hi)) return [0, 1];
    if (lo === hi) return [lo - 1, hi + 1];
    const p = (hi - lo) * padFrac;
    return [lo - p, hi + p];
  }

  const colour = {
    ink: '#1f2933', muted: '#52606d', grid: '#edf1f5', frame: '#bcccdc', signal: '#1f4e79',
    band: 'rgba(31, 78, 121, 0.28)', bandEdge: 'rgba(31, 78, 121, 0.55)', filtered: '#d97706',
    kept: 'rgba(82, 96, 109, 0.45)', gate: 'rgba(82, 96, 109, 0.6)', pruned: '#e8833a', alarm: '#c62828',
    alarmSoft: 'rgba(198, 40, 40, 0.12)', select: '#0b7285', selectSoft: 'rgba(11, 114, 133, 0.14)',
    overlay: 'rgba(31, 78, 121, 0.28)', bin: '#9aa5b1', keptZone: 'rgba(46, 125, 50, 0.06)',
    beatClass: { N: '#52606d', S: '#7048e8', V: '#e8590c', Q: '#adb5bd' }, af: 'rgba(245, 159, 0, 0.16)',
  };
  const font = (px, weight = '') => `${weight} ${px}px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif`;

  /** Anomaly colour map for t in [0, 1]: calm blue through sand to alarm red. */
  const stops = [[69, 117, 180], [145, 191, 219], [224, 210, 150], [252, 141, 89], [198, 40, 40]];
  function heat(t) {
    t = Math.min(1, Math.max(0, t)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(t)), f = t - i, a = stops[i], b = stops[i + 1];
    return `rgb(${Math.round(a[0] + (b[0] - a[0]) * f)},${Math.round(a[1] + (b[1] - a[1]) * f)},${Math.round(a[2] + (b[2] - a[2]) * f)})`;
  }
  /** Percentiles that land evenly on the colour map: the bulk stays calm, the tail stands out. */
  const percentileStops = [0, 0.5, 0.9, 0.99, 1];
  function colourOfPercentile(q) {
    for (let i = 1; i < percentileStops.length; i++) {
      const a = percentileStops[i - 1], b = percentileStops[i];
      if (q <= b) return (i - 1 + (b > a ? (q - a) / (b - a) : 1)) / (percentileStops.length - 1);
    }
    return 1;
  }

  return { int, num, clock, hms, hm, bytes, ms, decimalsFor, tickLabel, timeFormat, finiteRange, colour, font, heat,
           percentileStops, colourOfPercentile };
})();
