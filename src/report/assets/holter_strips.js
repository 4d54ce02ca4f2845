// ECG strips of the notable events on paper: SVG in millimetres at 25 mm/s and 10 mm/mV on the
// 1 mm / 5 mm pink grid (1 mm = 96 / 25.4 CSS px, so the screen at 100 % and the printed page
// measure like ECG paper). Every lead of the recording (strip_leads) is stacked in its own band,
// clipped to it, with its name and a 1 mV calibration pulse at its left; the event's span is
// marked across all of them; a caption gives its kind, time, rate and the leads. Vector drawing,
// so print is as sharp as the paper.
/* global zf */
zf.figures['holter-strips'] = (() => {
  const { num, int, hms } = zf.format;
  const { label, duration } = zf.holter;
  const pxPerMm = 96 / 25.4, mmPerSecond = 25, mmPerMv = 10;
  // The SVG namespace as the HTML parser gives it (the page names no address).
  const NS = (() => { const d = document.createElement('div'); d.innerHTML = '<svg></svg>'; return d.firstChild.namespaceURI; })();
  const ink = { minor: '#f6c3cd', major: '#e48a9d', trace: '#111827', mark: '#1f4e79', span: 'rgba(31, 78, 121, 0.10)',
    // A lead's name: small print, haloed in white so that the grid and the trace leave it legible.
    name: { 'font-size': 2.6, 'font-family': 'system-ui, sans-serif', fill: '#1f2933', stroke: '#fff', 'stroke-width': 0.7, 'paint-order': 'stroke' } };

  function svg(widthMm, heightMm, cls) {
    const s = document.createElementNS(NS, 'svg');
    s.setAttribute('class', cls);
    s.setAttribute('viewBox', `0 0 ${widthMm} ${heightMm}`);
    s.setAttribute('width', (widthMm * pxPerMm).toFixed(3));
    s.setAttribute('height', (heightMm * pxPerMm).toFixed(3));
    s.setAttribute('preserveAspectRatio', 'none');
    return s;
  }
  function add(parent, tag, attrs) {
    const el = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    parent.appendChild(el);
    return el;
  }
  /** The grid: thin lines every millimetre, thicker every 5 mm. */
  function grid(s, w, h) {
    for (const [step, stroke, width] of [[1, ink.minor, 0.1], [5, ink.major, 0.22]]) {
      let d = '';
      for (let x = 0; x <= w + 1e-9; x += step) d += `M${x.toFixed(2)} 0V${h}`;
      for (let y = 0; y <= h + 1e-9; y += step) d += `M0 ${y.toFixed(2)}H${w.toFixed(2)}`;
      add(s, 'path', { d, stroke, 'stroke-width': width, fill: 'none', 'shape-rendering': 'crispEdges' });
    }
  }

  /** A lead's vertical scale: 10 mm/mV (or 10 mm per unit of a file of plausible amplitude), else
   *  whatever spans 30 mm; and the height it wants, a whole number of 5 mm squares. */
  function scale(values) {
    let lo = Infinity, hi = -Infinity;
    for (const v of values) if (isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    if (!(lo <= hi)) lo = hi = 0;
    const span = hi - lo, plausible = span < 8 && span > 0.05;
    const mmPerUnit = zf.holter.millivolts() || plausible ? mmPerMv : 30 / Math.max(span, 1e-9);
    return { mmPerUnit, span, mid: (lo + hi) / 2, want: Math.ceil((span * mmPerUnit + 6) / 5) * 5, calibrated: mmPerUnit === mmPerMv };
  }
  /** Every lead's band: 25 to 50 mm, as the tallest lead wants; less where the leads would not fit
   *  a landscape page (180 mm in all, at least 15 mm a lead: twelve leads fit). */
  function bandOf(scales) {
    const most = Math.min(50, Math.max(15, Math.floor(180 / scales.length / 5) * 5)), least = Math.min(25, most);
    return Math.min(most, Math.max(least, ...scales.map((sc) => sc.want)));
  }
  /** The value at the band's middle: the middle of the lead's range; where that range is too tall
   *  for the band (drift, artefact), the baseline (median) a little below the middle, so that the
   *  QRS complexes, mostly upward, stay in view; the rest is clipped. */
  function middle(values, sc, band) {
    if (sc.span * sc.mmPerUnit + 6 <= band) return sc.mid;
    const sorted = Float32Array.from(values).filter(isFinite).sort();
    return sorted[sorted.length >> 1] + (0.1 * band) / sc.mmPerUnit;
  }
  const unitOf = (sc) => (sc.calibrated ? (zf.holter.millivolts() ? '10 mm/mV' : '10 mm per unit of the file') : `${num(sc.mmPerUnit, 3)} mm per unit of the file`);

  function strip(s, e) {
    const rate = zf.run.rate, n = s.values.length, w = (n / rate) * mmPerSecond;
    const leads = s.leads || [{ name: null, values: s.values }], scales = leads.map((l) => scale(l.values));
    const band = bandOf(scales), h = band * leads.length;
    const fig = document.createElement('figure');
    fig.className = 'strip';
    fig.id = 'strip-' + s.event;
    Object.assign(fig.dataset, { event: String(s.event), kind: e.kind, leads: String(leads.length), band: String(band) });
    const paper = document.createElement('div');
    paper.className = 'paper';
    const cal = svg(7, h, 'calibration');
    grid(cal, 7, h);
    const ecg = svg(w, h, 'ecg');
    grid(ecg, w, h);
    const x = (sample) => ((sample - s.start) / rate) * mmPerSecond;
    const a = Math.max(0, x(e.onset)), b = Math.min(w, Math.max(x(e.offset), a + 0.4));
    add(ecg, 'rect', { x: a, y: 0, width: Math.max(0, b - a), height: h, fill: ink.span });
    for (const at of [a, b]) add(ecg, 'line', { x1: at, x2: at, y1: 0, y2: h, stroke: ink.mark, 'stroke-width': 0.25, 'stroke-dasharray': '1 0.8' });
    add(ecg, 'path', { d: `M${a} 0.5H${b}`, stroke: ink.mark, 'stroke-width': 1 });
    leads.forEach((lead, k) => {
      const sc = scales[k], top = k * band, centre = top + band / 2, mid = middle(lead.values, sc, band), v = lead.values;
      // The calibration pulse, once per lead: 1 mV (10 mm) for 0.2 s (5 mm), on its own 7 mm of paper.
      const base = centre + 5;
      if (sc.calibrated) add(cal, 'path', { d: `M0 ${base}H1V${base - mmPerMv}H6V${base}H7`, stroke: ink.trace, 'stroke-width': 0.3, fill: 'none' });
      const clip = `clip-${s.event}-${k}`;
      add(add(ecg, 'clipPath', { id: clip }), 'rect', { x: 0, y: top, width: w, height: band });
      let d = '';
      for (let i = 0; i < v.length; i++) {
        if (!isFinite(v[i])) continue;
        const y = centre - (v[i] - mid) * sc.mmPerUnit;
        d += (d && isFinite(v[i - 1]) ? 'L' : 'M') + ((i / rate) * mmPerSecond).toFixed(2) + ' ' + y.toFixed(2);
      }
      add(ecg, 'path', { d, stroke: ink.trace, 'stroke-width': 0.28, fill: 'none', 'stroke-linejoin': 'round', 'clip-path': `url(#${clip})`, 'data-lead': lead.name || '' });
      if (lead.name) add(ecg, 'text', { x: 1, y: top + 3.6, class: 'lead', ...ink.name }).textContent = lead.name;
    });
    paper.append(cal, ecg);
    const caption = document.createElement('figcaption');
    const what = document.createElement('strong');
    what.textContent = label(e.kind);
    const units = scales.map(unitOf), names = leads.map((l) => l.name).filter(Boolean);
    const unit = units.every((u) => u === units[0]) ? units[0] : units.map((u, k) => `${leads[k].name || 'lead ' + (k + 1)} ${u}`).join(', ');
    caption.append(what, ` at ${hms(e.onset_seconds)} · ${duration(e.duration_seconds)} · ${int(e.beats)} beat${e.beats === 1 ? '' : 's'}` +
      (e.rate_bpm === null ? '' : ` · ${num(e.rate_bpm, 3)} bpm`) + ` · strip from ${hms(s.start / rate)}, 25 mm/s, ${unit}` +
      (names.length ? ` · lead${names.length > 1 ? 's' : ''} ${names.join(', ')}` : ''));
    fig.append(caption, paper);
    return fig;
  }

  function draw() {
    const section = zf.holter.section('fig-holter-strips');
    if (!section) return;
    const box = document.getElementById('holter-strips'), events = zf.holter.events(), { list } = zf.holter.strips();
    box.textContent = '';
    if (!list.length) { box.innerHTML = '<p class="muted">No event, so no strip.</p>'; return; }
    for (const s of list) if (events[s.event]) box.appendChild(strip(s, events[s.event]));
    section.dataset.strips = String(list.length);
  }

  /** Takes the page to event `index`'s strip and marks it for a moment. */
  function show(index) {
    const fig = document.getElementById('strip-' + index);
    if (!fig) return false;
    fig.scrollIntoView({ behavior: 'smooth', block: 'center' });
    fig.classList.remove('flash');
    void fig.offsetWidth;  // restarts the animation
    fig.classList.add('flash');
    return true;
  }

  return { draw, show };
})();
