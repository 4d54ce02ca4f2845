// Beat families, as a Holter reader reviews them (summary.json's holter.families): one card per
// family of one QRS shape with its class, its beats by class and up to eight of its beats spread
// over the recording, overlaid and one by one (SVG of their thumbnails); a click on one shows it in
// the whole recording. Each card's selector re-labels the whole family (a pending correction,
// zf.review); the review panel beside the cards lists the corrections and exports them.
/* global zf */
zf.figures['holter-families'] = (() => {
  const { int, num, clock, colour, finiteRange } = zf.format;
  const { waveform, beatPeak } = zf.data;
  const cap = 24;
  const state = { all: false };
  // The SVG namespace as the HTML parser gives it (the page names no address).
  const NS = (() => { const d = document.createElement('div'); d.innerHTML = '<svg></svg>'; return d.firstChild.namespaceURI; })();

  function svg(cls, w, h) {
    const s = document.createElementNS(NS, 'svg');
    s.setAttribute('class', cls);
    s.setAttribute('viewBox', `0 0 ${w} ${h}`);
    s.setAttribute('preserveAspectRatio', 'none');
    s.setAttribute('aria-hidden', 'true');
    return s;
  }
  /** A beat's trace as an SVG path in a w×h box: x over the row's width, y over [lo, hi]. */
  function trace(s, wave, w, h, lo, hi, stroke, width, opacity) {
    const end = (zf.run.rows.width - 1) / zf.run.rate || 1;
    let d = '', pen = false;
    for (let i = 0; i < wave.y.length; i++) {
      const v = wave.y[i];
      if (!isFinite(v)) { pen = false; continue; }
      d += (pen ? 'L' : 'M') + ((wave.x[i] / end) * w).toFixed(2) + ' ' + (h - ((v - lo) / (hi - lo)) * h).toFixed(2);
      pen = true;
    }
    const p = document.createElementNS(NS, 'path');
    for (const [k, v] of Object.entries({ d, stroke, 'stroke-width': width, 'stroke-opacity': opacity, fill: 'none',
      'vector-effect': 'non-scaling-stroke', 'stroke-linejoin': 'round' })) p.setAttribute(k, v);
    s.appendChild(p);
  }

  /** "134 Q · 51 V": a family's beats by class, most first. */
  const byClass = (counts) => zf.review.classes.filter((c) => counts[c] > 0).sort((a, b) => counts[b] - counts[a])
    .map((c) => `${int(counts[c])} ${c}`).join(' · ') || '0';

  function go(beat) {
    const t = beatPeak(beat) / zf.run.rate;
    history.replaceState(null, '', '#t=' + t.toFixed(3));
    zf.figures.overview.select(beat, true, true);
  }

  function card(f, total) {
    const el = document.createElement('article');
    el.className = 'family-card';
    Object.assign(el.dataset, { family: String(f.id), class: f.class, beats: String(f.beats), counts: JSON.stringify(f.counts) });
    const head = document.createElement('div');
    head.className = 'family-head';
    const badge = document.createElement('span');
    badge.className = 'family-class';
    badge.style.setProperty('--class', colour.beatClass[f.class] || colour.muted);
    badge.textContent = f.class;
    badge.title = `class ${f.class}: the class most of its beats have`;
    const title = document.createElement('div');
    title.className = 'family-title';
    const name = document.createElement('strong');
    name.textContent = `family ${f.id}` + (f.id === 0 ? ' · dominant shape' : '');
    const size = document.createElement('span');
    size.className = 'muted';
    size.textContent = `${int(f.beats)} beat${f.beats === 1 ? '' : 's'} · ${num((100 * f.beats) / Math.max(1, total), 3)} %`;
    title.append(name, size);
    head.append(badge, title);
    if (zf.review.enabled()) {
      const select = document.createElement('select');
      select.className = 'review-control family-select';
      select.title = `re-label every beat of family ${f.id}`;
      select.add(new Option(`as found (${f.class})`, ''));
      for (const c of zf.review.classes) select.add(new Option(`all ${c}`, c));
      select.addEventListener('change', () => zf.review.setFamily(f.id, select.value || null));
      head.appendChild(select);
    }
    const counts = document.createElement('p');
    counts.className = 'family-counts';
    counts.textContent = byClass(f.counts);
    const pending = document.createElement('p');
    pending.className = 'family-pending no-print';
    pending.hidden = true;

    // The examples: overlaid on one scale, then one by one on the same scale.
    const waves = f.examples.map((b) => ({ beat: b, wave: waveform(b) })).filter((e) => e.wave);
    const [lo, hi] = finiteRange(waves.map((e) => e.wave.y), 0.06);
    const stroke = colour.beatClass[f.class] || colour.signal;
    const overlay = svg('family-overlay', 240, 64);
    for (const e of waves) trace(overlay, e.wave, 240, 64, lo, hi, stroke, 1.2, waves.length > 1 ? 0.6 : 1);
    const thumbs = document.createElement('div');
    thumbs.className = 'family-thumbs';
    for (const e of waves) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'thumb';
      b.dataset.beat = String(e.beat);
      const s = svg('beat', 60, 40);
      trace(s, e.wave, 60, 40, lo, hi, colour.signal, 1, 1);
      const tag = document.createElement('span');
      tag.className = 'tag';
      b.append(s, tag);
      b.addEventListener('click', () => go(e.beat));
      thumbs.appendChild(b);
    }
    el.dataset.thumbs = String(waves.length);
    if (!waves.length) {
      const none = document.createElement('p');
      none.className = 'muted';
      none.textContent = 'no waveform of its beats in this report';
      el.append(head, counts, none, pending);
    } else el.append(head, counts, overlay, thumbs, pending);
    return el;
  }

  /** Each card as the pending corrections have it: its selector, a note, the tags of its examples. */
  function refresh() {
    const { rate } = zf.run;
    for (const el of document.querySelectorAll('#holter-families .family-card')) {
      const id = Number(el.dataset.family), item = zf.review.familyItem(id), now = item ? item.cls : el.dataset.class;
      el.dataset.pending = item ? item.cls : '';
      el.classList.toggle('pending', !!item);
      const select = el.querySelector('select.family-select');
      if (select) select.value = item ? item.cls : '';
      const note = el.querySelector('.family-pending');
      note.hidden = !item;
      note.textContent = item ? `pending: every beat ${item.cls} (corrected in this page, not yet applied)` : '';
      for (const b of el.querySelectorAll('button.thumb')) {
        const beat = Number(b.dataset.beat), cls = zf.review.enabled() ? zf.review.classOf(beat) : zf.data.className(beat);
        b.dataset.class = cls;
        const tag = b.querySelector('.tag');
        tag.textContent = cls !== now ? cls : '';
        tag.style.color = colour.beatClass[cls] || colour.muted;
        b.title = `beat #${int(beat)} at ${clock(beatPeak(beat) / rate, 1)}, ${cls}: click to see it in the recording`;
      }
    }
  }

  function draw() {
    const section = zf.holter.section('fig-holter-families');
    if (!section) return;
    const h = zf.holter.analysis(), list = (h.families || []).slice(), box = document.getElementById('holter-families');
    list.sort((a, b) => (a.id === 0 ? -1 : b.id === 0 ? 1 : b.beats - a.beats || a.id - b.id));
    const shown = state.all ? list : list.slice(0, cap);
    box.textContent = '';
    if (!list.length) box.innerHTML = '<p class="muted">No family in this run.</p>';
    for (const f of shown) box.appendChild(card(f, h.counts.beats));
    const more = document.getElementById('holter-families-more');
    more.hidden = shown.length === list.length;
    more.textContent = `show all ${int(list.length)} families`;
    if (!more.dataset.bound) {
      more.dataset.bound = '1';
      more.addEventListener('click', () => { state.all = true; zf.safely('holter-families', draw); });
    }
    section.dataset.families = String(list.length);
    section.dataset.shown = String(shown.length);
    refresh();
    zf.review.render();
    if (window.zeroflowReport) window.zeroflowReport.corrections = () => zf.review.json();
  }

  return { draw, refresh };
})();
