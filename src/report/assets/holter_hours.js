// Hour by hour: the heart rate (lowest, mean and highest of the hour's minutes), beats by class,
// ectopic beats isolated, in couplets and in runs, AF and unreadable minutes; the whole recording
// in the last row.
/* global zf */
zf.figures['holter-hours'] = (() => {
  const { int, num, hm } = zf.format;
  const { head, cells } = zf.holter;

  /** The lowest, mean and highest heart rate over minutes [a, b): the minutes' lowest, the mean
   *  of their means, their highest; null where no minute was measured. */
  function rateOver(m, a, b) {
    let lo = Infinity, hi = -Infinity, sum = 0, k = 0;
    for (let i = a; i < Math.min(b, m.mean_bpm.length); i++) {
      if (m.lowest_bpm[i] !== null) lo = Math.min(lo, m.lowest_bpm[i]);
      if (m.highest_bpm[i] !== null) hi = Math.max(hi, m.highest_bpm[i]);
      if (m.mean_bpm[i] !== null) sum += m.mean_bpm[i], k++;
    }
    return k ? { lo, mean: sum / k, hi } : null;
  }

  function row(body, label, c, rate) {
    const v = c.ventricular, s = c.supraventricular, bpm = (x) => (rate && isFinite(x) ? int(x) : '—');
    const minutes = (sec) => (sec > 0 ? num(sec / 60, 3) : '0');
    return cells(body.insertRow(), [label, int(c.beats), bpm(rate && rate.lo), rate ? num(rate.mean, 3) : '—', bpm(rate && rate.hi),
      int(c.N), int(c.S), int(s.in_couplets), int(s.in_runs), int(c.V), int(v.isolated), int(v.in_couplets), int(v.in_runs),
      int(c.Q), minutes(c.af_seconds), minutes(c.unreadable_seconds)]);
  }

  function draw() {
    const section = zf.holter.section('fig-holter-hours');
    if (!section) return;
    const h = zf.holter.analysis(), m = h.heart_rate.per_minute, table = document.getElementById('holter-hours');
    table.textContent = '';
    head(table, ['hour', '#beats', '#HR low', '#HR mean', '#HR high', '#N', '#S', '#S in couplets', '#S in runs', '#V',
      '#V isolated', '#V in couplets', '#V in runs', '#Q', '#AF min', '#unreadable min']);
    const body = table.createTBody();
    for (const c of h.per_hour) {
      const from = c.hour * 3600, to = Math.min(h.duration_seconds, from + 3600);
      const tr = row(body, `${hm(from)}–${hm(Math.ceil(to / 60) * 60)}`, c, rateOver(m, c.hour * 60, c.hour * 60 + 60));
      tr.dataset.hour = String(c.hour);
    }
    const total = row(table.createTFoot(), 'all', h.counts, rateOver(m, 0, m.mean_bpm.length));
    // The recording's own figures (over every interval), as the summary gives them.
    const r = h.heart_rate;
    total.cells[2].textContent = r.lowest ? int(r.lowest.bpm) : '—';
    total.cells[3].textContent = r.mean_bpm === null ? '—' : num(r.mean_bpm, 3);
    total.cells[4].textContent = r.highest ? int(r.highest.bpm) : '—';
    section.dataset.hours = String(h.per_hour.length);
  }

  return { draw };
})();
