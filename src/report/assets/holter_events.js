// Events: every kind with its count (a click lists that kind alone), then the events in time
// order, the first `cap` with a button for the rest. A click on an event with a strip takes the
// page to its strip; on any other, to the event in the whole-recording figure. Each atrial
// fibrillation episode has a "not AF" toggle: a pending correction (zf.review) removing it.
/* global zf */
zf.figures['holter-events'] = (() => {
  const { int, num, hms } = zf.format;
  const { kinds, label, head, cells, duration } = zf.holter;
  const cap = 50;
  const state = { kind: '', all: false };

  function countTable(table, counts, list) {
    table.textContent = '';
    head(table, ['event', '#count', '#longest']);
    const longest = new Map();
    for (const e of list) if (!longest.has(e.kind) || e.duration_seconds > longest.get(e.kind)) longest.set(e.kind, e.duration_seconds);
    const body = table.createTBody();
    for (const kind of kinds.concat(Object.keys(counts).filter((k) => !kinds.includes(k)))) {
      const n = counts[kind] || 0, tr = cells(body.insertRow(), [label(kind), int(n), n ? duration(longest.get(kind)) : '']);
      tr.dataset.kind = kind;
      tr.dataset.count = String(n);
      if (!n) { tr.classList.add('muted'); continue; }
      tr.classList.add('clickable');
      if (state.kind === kind) tr.classList.add('chosen');
      tr.title = 'list these events alone (click again for all)';
      tr.addEventListener('click', () => { state.kind = state.kind === kind ? '' : kind; state.all = false; draw(); });
    }
  }

  function goTo(e, index) {
    const strip = zf.holter.strips().byEvent.get(index);
    if (strip) { zf.figures['holter-strips'].show(index); return; }
    const t = e.onset_seconds;
    history.replaceState(null, '', '#t=' + t.toFixed(3));
    zf.figures.overview.zoomTo(t - 3, t + Math.max(e.duration_seconds, 4) + 3);
    document.getElementById('fig-overview').scrollIntoView({ behavior: 'smooth', block: 'start' });
  }

  /** An AF episode's "not AF" toggle in its row's last cell. */
  function notAf(td, tr, e) {
    td.className = 'no-print';
    if (e.kind !== 'atrial_fibrillation') return;
    const box = document.createElement('label'), check = document.createElement('input');
    box.className = 'not-af review-control';
    box.title = 'remove this AF episode (a pending correction)';
    check.type = 'checkbox';
    check.checked = zf.review.removed(e.first_beat, e.last_beat);
    box.append(check, ' not AF');
    box.addEventListener('click', (ev) => ev.stopPropagation());
    check.addEventListener('change', () => zf.review.setRemoved(e.first_beat, e.last_beat, check.checked));
    td.appendChild(box);
    tr.classList.toggle('struck', check.checked);
  }

  function eventList(table, list) {
    const { byEvent } = zf.holter.strips();
    const chosen = [];
    list.forEach((e, i) => { if (!state.kind || e.kind === state.kind) chosen.push(i); });
    const shown = state.all ? chosen : chosen.slice(0, cap);
    table.textContent = '';
    const review = zf.review.enabled() && list.some((e) => e.kind === 'atrial_fibrillation');
    head(table, ['#', 'event', 'start', '#duration', '#beats', '#rate', 'strip'].concat(review ? ['review'] : []));
    if (review) table.tHead.rows[0].lastChild.className = 'no-print';
    const body = table.createTBody();
    for (const i of shown) {
      const e = list[i], tr = cells(body.insertRow(), [String(i + 1), label(e.kind), hms(e.onset_seconds), duration(e.duration_seconds),
        int(e.beats), e.rate_bpm === null ? '—' : num(e.rate_bpm, 3) + ' bpm', byEvent.has(i) ? 'strip ↓' : '']);
      tr.dataset.event = String(i);
      tr.className = 'clickable';
      tr.title = byEvent.has(i) ? 'show its strip' : 'show it in the whole recording';
      tr.addEventListener('click', () => goTo(e, i));
      if (review) notAf(tr.insertCell(), tr, e);
    }
    table.dataset.total = String(chosen.length);
    table.dataset.shown = String(shown.length);
    const more = document.getElementById('holter-events-more'), note = document.getElementById('holter-events-note');
    more.hidden = shown.length === chosen.length;
    more.textContent = `show all ${int(chosen.length)} events`;
    note.textContent = (state.kind ? `${label(state.kind)}: ` : '') +
      (shown.length < chosen.length ? `the first ${int(shown.length)} of ${int(chosen.length)} events (events.csv beside this report has them all).`
        : `${int(chosen.length)} event${chosen.length === 1 ? '' : 's'}.`);
  }

  function draw() {
    const section = zf.holter.section('fig-holter-events');
    if (!section) return;
    const h = zf.holter.analysis(), list = zf.holter.events();
    countTable(document.getElementById('holter-event-counts'), h.events.counts, list);
    eventList(document.getElementById('holter-event-list'), list);
    const more = document.getElementById('holter-events-more');
    if (!more.dataset.bound) {
      more.dataset.bound = '1';
      more.addEventListener('click', () => { state.all = true; eventList(document.getElementById('holter-event-list'), zf.holter.events()); });
    }
    section.dataset.events = String(list.length);
  }

  return { draw };
})();
