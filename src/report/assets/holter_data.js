// What the Holter sections share: the run's analysis (summary.json's "holter", layout in
// src/report/holter_outputs.cpp), its events and their strips (html_data.cpp), the events' names,
// durations as a cardiologist reads them, and small table builders. A run without classes
// (--segmentation gate-to-gate) has no analysis: each Holter section then removes itself.
/* global zf */
zf.holter = (() => {
  const { num, hms } = zf.format;
  /** Event kinds in the order a report lists them. */
  const kinds = ['pause', 'bradycardia', 'tachycardia', 'ventricular_couplet', 'ventricular_run', 'ventricular_bigeminy',
    'ventricular_trigeminy', 'supraventricular_couplet', 'supraventricular_run', 'supraventricular_bigeminy',
    'supraventricular_trigeminy', 'atrial_fibrillation'];
  const label = (kind) => kind.replace(/_/g, ' ');

  const analysis = () => zf.run.S.holter || null;
  const events = () => zf.run.D.holter_events || [];

  /** The strips, decoded once per run, ordered as the kinds then by time; and event → strip. Each
   *  has its leads ({name, values}: the one the run read, then the recording's others, in
   *  strip_leads' order); a report older than strip_leads has one lead, its name null. */
  let cache = null;
  function strips() {
    if (cache && cache.run === zf.run) return cache;
    const names = zf.run.D.strip_leads || [], { decode } = zf.data;
    const list = (zf.run.D.strips || []).map((s) => {
      const leads = [s.values].concat(s.others || []).map((v, k) => ({ name: names[k] || null, values: decode(v) }));
      return { event: s.event, start: s.start, values: leads[0].values, leads };
    });
    const rank = (s) => { const e = events()[s.event], k = e ? kinds.indexOf(e.kind) : -1; return k < 0 ? kinds.length : k; };
    list.sort((a, b) => rank(a) - rank(b) || a.event - b.event);
    cache = { run: zf.run, list, byEvent: new Map(list.map((s) => [s.event, s])) };
    return cache;
  }

  /** The signal's unit: millivolts for WFDB and EDF records (their physical unit), else unknown. */
  const millivolts = () => /\.(hea|dat|edf|bdf)$/i.test(zf.run.S.input || '');

  /** A duration as read on a Holter report: 2.4 s, 12 min 05 s, 3 h 12 min. */
  function duration(seconds) {
    if (seconds === null || seconds === undefined || !isFinite(seconds)) return '—';
    if (seconds < 60) return num(seconds, seconds < 10 ? 2 : 3) + ' s';
    const t = Math.round(seconds), h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), s = t % 60;
    return h ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min ${String(s).padStart(2, '0')} s`;
  }
  /** A measured value with its unit, or "—" where it was not measured (null). */
  const value = (v, unit, digits = 3) => (v === null || v === undefined || !isFinite(v) ? '—' : num(v, digits) + (unit ? ' ' + unit : ''));
  const at = (seconds) => (seconds === null || seconds === undefined ? '' : ' at ' + hms(seconds));

  /** summary.json's value at a dotted path, undefined where the path does not exist. */
  function lookup(path) {
    let v = zf.run.S;
    for (const part of path.split('.')) {
      if (v === null || typeof v !== 'object' || !(part in v)) return undefined;
      v = v[part];
    }
    return v;
  }

  /** A row of a two-column table; its value cell carries the summary.json path and value (where
   *  that path exists), as the other figures' facts do. */
  function fact(table, name, text, path) {
    const tr = table.insertRow(), th = document.createElement('th'), td = document.createElement('td');
    th.textContent = name;
    td.textContent = text;
    td.className = 'num';
    const v = path === undefined ? undefined : lookup(path);
    if (v !== undefined) { td.dataset.key = path; td.dataset.value = JSON.stringify(v); }
    tr.append(th, td);
    return tr;
  }
  /** A header row of `names` in `table`'s head; names starting with '#' are right-aligned numbers. */
  function head(table, names) {
    const tr = table.createTHead().insertRow();
    for (const name of names) {
      const th = document.createElement('th');
      th.textContent = name.replace(/^#/, '');
      if (name[0] === '#') th.className = 'num';
      tr.appendChild(th);
    }
  }
  /** Appends cells to a row; numbers (finite) are right-aligned. */
  function cells(tr, values) {
    for (const v of values) {
      const td = tr.insertCell();
      td.textContent = v;
      if (/^[−\d—]/.test(String(v))) td.className = 'num';
    }
    return tr;
  }

  /** The Holter section `id`, shown; null (and removed) when the run has no Holter analysis. */
  function section(id) {
    const el = document.getElementById(id);
    if (!el) return null;
    if (!analysis()) { el.remove(); return null; }
    el.hidden = false;
    return el;
  }

  return { kinds, label, analysis, events, strips, millivolts, duration, value, at, lookup, fact, head, cells, section };
})();
