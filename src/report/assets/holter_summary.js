// The Holter summary, what a cardiologist reads first: the recording, the heart rate with the
// times of its extremes, the beats by class, AF burden, pauses and ventricular runs, heart-rate
// variability, and the thresholds the analysis used. Every value cell carries its summary.json
// path and value (data-key, data-value).
/* global zf */
zf.figures.holter = (() => {
  const { int, num, hms } = zf.format;
  const { fact, value, duration, at } = zf.holter;

  function panel(box, title) {
    const div = document.createElement('div'), h = document.createElement('h3'), table = document.createElement('table');
    div.className = 'holter-panel';
    h.textContent = title;
    table.className = 'facts';
    div.append(h, table);
    box.appendChild(div);
    return table;
  }

  /** A line under a fact that details it, across both columns. */
  function detail(table, text, path) {
    const tr = fact(table, '', text, path);
    tr.cells[0].remove();
    tr.cells[0].colSpan = 2;
    tr.classList.add('sub');
  }
  /** "444 (22.3 %)": a count and its share of the beats. */
  const share = (n, total) => `${int(n)}` + (total > 0 ? ` (${num((100 * n) / total, 3)} %)` : '');
  /** "12 isolated · 3 in couplets · 0 in runs" of an ectopic class's counts. */
  const ectopic = (c) => `${int(c.isolated)} isolated · ${int(c.in_couplets)} in couplets · ${int(c.in_runs)} in runs`;

  function heartRate(box, h) {
    const t = panel(box, 'Heart rate'), r = h.heart_rate;
    const extreme = (name, e, key) => (e ? fact(t, name, `${int(e.bpm)} bpm${at(e.seconds)}`, `holter.heart_rate.${key}.bpm`)
      : fact(t, name, '—', `holter.heart_rate.${key}`));
    extreme('lowest', r.lowest, 'lowest');
    fact(t, 'mean', value(r.mean_bpm, 'bpm'), 'holter.heart_rate.mean_bpm');
    extreme('highest', r.highest, 'highest');
    t.dataset.role = 'heart-rate';
  }

  function beats(box, h) {
    const t = panel(box, 'Beats'), c = h.counts, total = c.beats;
    // With corrections pending in the page (zf.review), each class's count as they would make it.
    const fixed = zf.review.count() ? zf.review.counts() : null;
    const count = (name, cls) => {
      const tr = fact(t, name, share(c[cls], total), `holter.counts.${cls}`), td = tr.cells[1];
      if (!fixed) return;
      td.dataset.corrected = String(fixed[cls]);
      if (fixed[cls] === c[cls]) return;
      const was = document.createElement('span'), now = document.createElement('span');
      was.className = 'was';
      was.textContent = td.textContent;
      now.className = 'now no-print';
      now.textContent = ' → ' + share(fixed[cls], total);
      now.title = 'corrected in this page, not yet applied';
      td.textContent = '';
      td.append(was, now);
      td.classList.add('corrected');
    };
    fact(t, 'all beats', int(total), 'holter.counts.beats');
    count('N normal', 'N');
    count('S supraventricular', 'S');
    detail(t, ectopic(c.supraventricular), 'holter.counts.supraventricular.isolated');
    count('V ventricular', 'V');
    detail(t, ectopic(c.ventricular), 'holter.counts.ventricular.isolated');
    count('Q unclassifiable', 'Q');
  }

  /** Results already corrected (zeroflow correct): how many sets, and what they changed. */
  function applied(el) {
    const sets = Array.isArray(zf.run.S.corrections) ? zf.run.S.corrections : [];
    el.hidden = !sets.length;
    if (!sets.length) return;
    const relabelled = sets.reduce((n, s) => n + (s.beats_relabelled || 0), 0);
    const first = sets[0], last = sets[sets.length - 1];
    el.dataset.sets = String(sets.length);
    el.textContent = `${sets.length === 1 ? 'One set' : int(sets.length) + ' sets'} of corrections applied (zeroflow correct): ` +
      `${int(relabelled)} beat${relabelled === 1 ? '' : 's'} re-labelled` +
      (first.episodes_before !== last.episodes_after || sets.some((s) => ((s.af_episodes || {}).remove || []).length + ((s.af_episodes || {}).add || []).length)
        ? `, AF episodes ${int(first.episodes_before)} → ${int(last.episodes_after)}` : '') +
      '. Every figure of this report shows the corrected results; the model\'s scores are as the run found them.';
  }

  /** The note under the panels while corrections are pending in the page. */
  function pending(el) {
    const n = zf.review.count();
    el.hidden = !n;
    el.textContent = '';
    if (!n) return;
    const cmd = document.createElement('code');
    cmd.textContent = zf.review.command();
    el.append(`${int(n)} correction${n === 1 ? '' : 's'} pending: the beats' counts are corrected in this page, not yet ` +
      'applied: export the corrections (review panel, under "Beat families") and run ', cmd,
    '. The other figures show the results as the run found them.');
  }

  function rhythm(box, h) {
    const t = panel(box, 'Atrial fibrillation and pauses'), af = h.af_burden, e = h.events;
    fact(t, 'AF burden', `${num(af.percent, 3)} % of the time`, 'holter.af_burden.percent');
    fact(t, 'AF in all', duration(af.seconds), 'holter.af_burden.seconds');
    fact(t, 'AF episodes', int(af.episodes), 'holter.af_burden.episodes');
    fact(t, 'longest AF episode', af.episodes ? duration(af.longest_seconds) + at(af.longest_onset_seconds) : '—', 'holter.af_burden.longest_seconds');
    const pause = e.longest_pause;
    fact(t, `pauses (≥ ${num(h.parameters.pause_seconds, 3)} s)`, int(e.counts.pause || 0), 'holter.events.counts.pause');
    fact(t, 'longest pause', pause ? duration(pause.duration_seconds) + at(pause.onset_seconds) : '—',
      pause ? 'holter.events.longest_pause.duration_seconds' : 'holter.events.longest_pause');
    const run = e.longest_ventricular_run, fast = e.fastest_ventricular_run;
    fact(t, 'longest V run', run ? `${int(run.beats)} beats${at(run.onset_seconds)}` : '—',
      run ? 'holter.events.longest_ventricular_run.beats' : 'holter.events.longest_ventricular_run');
    fact(t, 'fastest V run', fast ? `${value(fast.rate_bpm, 'bpm')}${at(fast.onset_seconds)}` : '—',
      fast ? 'holter.events.fastest_ventricular_run.rate_bpm' : 'holter.events.fastest_ventricular_run');
  }

  function hrv(box, h) {
    const t = panel(box, 'Heart-rate variability'), v = h.hrv, minutes = num(h.parameters.segment_seconds / 60, 3);
    fact(t, 'SDNN', value(v.sdnn_ms, 'ms'), 'holter.hrv.sdnn_ms');
    fact(t, `SDANN (${minutes} min)`, value(v.sdann_ms, 'ms'), 'holter.hrv.sdann_ms');
    fact(t, 'SDNN index', value(v.sdnn_index_ms, 'ms'), 'holter.hrv.sdnn_index_ms');
    fact(t, 'RMSSD', value(v.rmssd_ms, 'ms'), 'holter.hrv.rmssd_ms');
    fact(t, 'pNN50', value(v.pnn50_percent, '%'), 'holter.hrv.pnn50_percent');
    fact(t, 'NN intervals', int(v.nn_intervals), 'holter.hrv.nn_intervals');
  }

  function thresholds(el, h) {
    const p = h.parameters;
    el.textContent = `Thresholds: pause ≥ ${num(p.pause_seconds, 3)} s; bradycardia < ${num(p.bradycardia_bpm, 3)} bpm and ` +
      `tachycardia > ${num(p.tachycardia_bpm, 3)} bpm over ${int(p.rate_intervals)} intervals; a run is ≥ ${int(p.run_beats)} ` +
      `ectopic beats in a row; bigeminy and trigeminy ≥ ${int(p.pattern_cycles)} cycles; HRV over normal-to-normal ` +
      `intervals, SDANN and SDNN index on ${num(p.segment_seconds / 60, 3)}-minute segments (≥ ${num(100 * p.min_segment_coverage, 3)} % ` +
      `covered), pNN50 counts successive differences > ${num(p.successive_difference_ms, 3)} ms. Times are from the ` +
      'start of the recording (hh:mm:ss).';
  }

  function draw() {
    const section = zf.holter.section('fig-holter');
    if (!section) return;
    const { S } = zf.run, h = zf.holter.analysis(), unreadable = h.counts.unreadable_seconds;
    document.getElementById('holter-facts').textContent = `${S.input.split(/[\\/]/).pop()} · recorded ${hms(h.duration_seconds)} (${zf.holter.duration(h.duration_seconds)}) · ` +
      `${int(h.beats)} beats analysed` + (unreadable > 0 ? ` · ${zf.holter.duration(unreadable)} unreadable` : '') +
      // Which leads the classes read: the beats' own first (docs/classification.md, every lead).
      (S.leads && S.leads.shapes.length ? ` · lead${S.leads.shapes.length > 1 ? 's' : ''} ${S.leads.shapes.join(' + ')}` : '');
    const box = document.getElementById('holter-panels');
    box.textContent = '';
    heartRate(box, h);
    beats(box, h);
    rhythm(box, h);
    hrv(box, h);
    thresholds(document.getElementById('holter-thresholds'), h);
    applied(document.getElementById('holter-corrected'));
    pending(document.getElementById('holter-pending'));
    document.body.classList.add('has-holter');
  }

  // Printing: the Holter pages alone unless the reader asks for the technical figures too.
  function controls() {
    const print = document.getElementById('holter-print'), all = document.getElementById('holter-print-all');
    if (!print || print.dataset.bound) return;
    print.dataset.bound = '1';
    print.addEventListener('click', () => window.print());
    all.addEventListener('change', () => document.body.classList.toggle('print-all', all.checked));
  }

  return { draw: () => { draw(); controls(); } };
})();
