// The reader's review: corrections made in the page (a family or a beat re-labelled, an AF episode
// removed or added), kept pending in the page, listed with an undo each, and exported as the
// corrections file that `zeroflow correct RESULTS corrections.json` applies (its format:
// include/zeroflow/report/corrections.hpp). The page never applies them itself: it shows what they
// would do to the Holter summary's counts, and says how to apply them. Only a run with classes
// (the robust segmentation, so every beat is kept and a beat's number is its candidate's) has a review.
/* global zf */
zf.review = (() => {
  const { int, hms, clock } = zf.format;
  const classes = ['N', 'S', 'V', 'Q'];
  /** Pending corrections in the order they were made: {type: 'family', family, cls},
   *  {type: 'beat', beat, cls}, {type: 'remove', first_beat, last_beat} or {type: 'add', first_beat, last_beat}. */
  let items = [];
  let run = null;  // the run the items belong to (a new blob starts afresh)
  const $ = (id) => document.getElementById(id);

  function current() {
    if (run !== zf.run) { run = zf.run; items = []; }
    return items;
  }
  const enabled = () => !!(zf.run && zf.holter.analysis() && zf.data.robust());
  const families = () => (zf.holter.analysis() && zf.holter.analysis().families) || [];
  const count = () => (enabled() ? current().length : 0);

  /** Beat → family id, for the beats the families give as examples (the only members the page knows). */
  let exampleCache = null;
  function exampleFamily(beat) {
    if (!exampleCache || exampleCache.run !== zf.run) {
      const map = new Map();
      for (const f of families()) for (const b of f.examples) map.set(b, f.id);
      exampleCache = { run: zf.run, map };
    }
    return exampleCache.map.get(beat);
  }

  const familyItem = (id) => current().find((i) => i.type === 'family' && i.family === id);
  const beatItem = (beat) => current().find((i) => i.type === 'beat' && i.beat === beat);
  const removed = (first, last) => current().some((i) => i.type === 'remove' && i.first_beat === first && i.last_beat === last);

  /** A beat's class as found by the run, after its family's pending re-labelling (when the page
   *  knows it is a member), and after its own. */
  function classOf(beat, withOwn = true) {
    const own = withOwn && beatItem(beat);
    if (own) return own.cls;
    const f = exampleFamily(beat), fam = f === undefined ? null : familyItem(f);
    return fam ? fam.cls : zf.data.className(beat);
  }

  /** The Holter summary's N, S, V, Q counts with the pending corrections: a family's re-labelling
   *  moves all its beats (its class counts are known); a beat's moves one, from its family's new
   *  class where it is one of the family's examples, else from its own. */
  function counts() {
    const c = zf.holter.analysis().counts, out = { N: c.N, S: c.S, V: c.V, Q: c.Q };
    const byId = new Map(families().map((f) => [f.id, f]));
    for (const i of current()) {
      if (i.type !== 'family') continue;
      const f = byId.get(i.family);
      if (!f) continue;
      for (const k of classes) out[k] -= f.counts[k] || 0;
      out[i.cls] += f.beats;
    }
    for (const i of current()) {
      if (i.type !== 'beat') continue;
      const was = classOf(i.beat, false);
      if (was in out) out[was]--;
      out[i.cls]++;
    }
    return out;
  }

  // Changes, each followed by changed(): what shows the corrections is drawn again.
  function drop(match) { items = current().filter((i) => !match(i)); }
  function setFamily(id, cls) {
    drop((i) => i.type === 'family' && i.family === id);
    if (cls) items.push({ type: 'family', family: id, cls });
    changed();
  }
  /** Re-labels a beat; its class as found (with no correction of its family pending) drops the correction. */
  function setBeat(beat, cls) {
    drop((i) => i.type === 'beat' && i.beat === beat);
    if (cls && cls !== classOf(beat)) items.push({ type: 'beat', beat, cls });
    changed();
  }
  function setRemoved(first, last, on) {
    drop((i) => i.type === 'remove' && i.first_beat === first && i.last_beat === last);
    if (on) items.push({ type: 'remove', first_beat: first, last_beat: last });
    changed();
  }
  function addAf(first, last) {
    drop((i) => i.type === 'add' && i.first_beat === first && i.last_beat === last);
    items.push({ type: 'add', first_beat: first, last_beat: last });
    changed();
  }
  function undo(index) {
    current().splice(index, 1);
    changed();
  }

  /** The corrections file's content (corrections.hpp), in the order each kind was made. */
  function json() {
    const of = (type) => current().filter((i) => i.type === type);
    return {
      zeroflow_corrections: 1,
      samples: zf.run.S.samples,
      families: of('family').map((i) => ({ family: i.family, class: i.cls })),
      beats: of('beat').map((i) => ({ beat: i.beat, class: i.cls })),
      af_episodes: {
        remove: of('remove').map((i) => ({ first_beat: i.first_beat, last_beat: i.last_beat })),
        add: of('add').map((i) => ({ first_beat: i.first_beat, last_beat: i.last_beat })),
      },
    };
  }

  /** Downloads corrections.json: a Blob and a link with `download`, nothing sent anywhere. */
  function exportFile() {
    if (!count()) return;
    // Indented, each correction on a line of its own.
    const text = JSON.stringify(json(), null, 2).replace(/\{\n\s+([^{}[\]]+?)\n\s*\}/g,
      (_, body) => '{' + body.split(/,\n\s*/).join(', ') + '}') + '\n';
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'corrections.json';
    a.hidden = true;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 5000);
    message(`corrections.json exported (${int(count())} correction${count() === 1 ? '' : 's'}); apply it with ${command()}.`);
  }

  /** The results folder as a shell argument: this page's folder when opened from a file. */
  function folder() {
    if (location.protocol !== 'file:') return '<folder>';
    let path = decodeURIComponent(location.pathname).replace(/\/[^/]*$/, '') || '/';
    if (/^\/[A-Za-z]:\//.test(path)) path = path.slice(1);
    return /[\s'"$`\\]/.test(path) ? `"${path}"` : path;
  }
  const command = () => `zeroflow correct ${folder()} corrections.json`;

  // ---- what the reader sees ---------------------------------------------------------------------

  /** N S V Q buttons re-labelling `beat`; its class now pressed, its class as found in the title. */
  function beatControl(beat) {
    const box = document.createElement('span');
    box.className = 'class-pick review-control';
    box.dataset.beat = String(beat);
    const now = classOf(beat), found = zf.data.className(beat), own = beatItem(beat);
    for (const cls of classes) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = cls;
      b.dataset.class = cls;
      b.style.setProperty('--class', zf.format.colour.beatClass[cls]);
      b.setAttribute('aria-pressed', String(cls === now));
      b.title = cls === now ? `beat #${int(beat)} is ${cls}` + (own ? ` (corrected here; found ${found})` : '')
        : `re-label beat #${int(beat)} ${cls}` + (cls === found ? ' (as found)' : '');
      b.addEventListener('click', (e) => {
        e.stopPropagation();
        if (cls !== now) setBeat(beat, cls);
        else if (own) setBeat(beat, null);  // pressed again: the correction goes
      });
      box.appendChild(b);
    }
    return box;
  }

  function describe(i) {
    const { rate } = zf.run, at = (b) => hms(zf.data.beatPeak(b) / rate);
    if (i.type === 'family') {
      const f = families().find((x) => x.id === i.family);
      return `family ${i.family} (${f ? int(f.beats) + ' beats, ' + f.class : '?'}): every beat ${i.cls}`;
    }
    if (i.type === 'beat') return `beat #${int(i.beat)} at ${clock(zf.data.beatPeak(i.beat) / rate, 1)}: ${classOf(i.beat, false) || '?'} → ${i.cls}`;
    const span = `beats #${int(i.first_beat)}–#${int(i.last_beat)}, ${at(i.first_beat)}–${at(i.last_beat)}`;
    return i.type === 'remove' ? `not AF: the episode of ${span}` : `AF added: ${span}`;
  }

  function message(text, error = false) {
    const el = $('review-message');
    if (!el) return;
    el.textContent = text;
    el.classList.toggle('error', error);
  }

  /** A beat number ("1041", "#1041") or a time ("0:02:25", "2:25", "145.5 s") as a beat: for a
   *  time, the first beat at or after it (`last`: the last beat at or before it). */
  function beatAt(text, last) {
    const t = String(text).trim().replace(/^#/, '').replace(/,/g, ''), n = zf.run.cand.n;
    let beat;
    if (/^\d+$/.test(t)) beat = Number(t);
    else {
      let seconds;
      const m = /^(?:(\d+):)?(\d+):(\d+(?:\.\d*)?)$/.exec(t), s = /^(\d+(?:\.\d*)?)\s*s$/.exec(t);
      if (m) seconds = Number(m[1] || 0) * 3600 + Number(m[2]) * 60 + Number(m[3]);
      else if (s) seconds = Number(s[1]);
      else throw new Error(`"${text}" is neither a beat number nor a time (h:mm:ss)`);
      const sample = seconds * zf.run.rate;
      let lo = 0, hi = n;  // first beat whose peak is at or after the time
      while (lo < hi) { const mid = (lo + hi) >> 1; if (zf.data.beatPeak(mid) < sample) lo = mid + 1; else hi = mid; }
      beat = last ? (lo < n && zf.data.beatPeak(lo) === sample ? lo : lo - 1) : lo;
    }
    if (!(beat >= 0 && beat < n)) throw new Error(`no beat ${text}: the beats are #0 to #${int(n - 1)}`);
    return beat;
  }

  function field(form, label, name, placeholder, width) {
    const l = document.createElement('label'), input = document.createElement('input');
    input.name = name;
    input.placeholder = placeholder;
    input.size = width;
    input.autocomplete = 'off';
    l.append(label, input);
    form.appendChild(l);
    return input;
  }

  /** The panel's fixed parts, made once per page (a redraw keeps what the reader typed). */
  function build(box) {
    box.textContent = '';
    const h = document.createElement('h3');
    h.textContent = 'Review';
    const how = document.createElement('p');
    how.className = 'muted';
    how.textContent = 'Re-label a family with its card\'s selector; a beat in the whole recording (click it when zoomed ' +
      'in, or pick it in any figure) or below; mark an AF episode "not AF" in the events list, or add one below. ' +
      'Nothing is changed until the corrections are exported and applied:';
    const cmd = document.createElement('code');
    cmd.id = 'review-command';
    const list = document.createElement('ol');
    list.id = 'review-items';
    list.addEventListener('click', (e) => {
      const b = e.target.closest('button.undo');
      if (b) undo(Number(b.dataset.index));
    });

    const beatForm = document.createElement('form');
    beatForm.id = 'review-beat';
    const beatInput = field(beatForm, 're-label beat #', 'beat', 'beat number', 8);
    const pick = document.createElement('select');
    pick.name = 'class';
    for (const c of classes) pick.add(new Option(c, c));
    const beatGo = document.createElement('button');
    beatGo.type = 'submit';
    beatGo.textContent = 're-label';
    beatForm.append(' as ', pick, ' ', beatGo);
    beatForm.addEventListener('submit', (e) => {
      e.preventDefault();
      try {
        const t = beatInput.value.trim();
        if (!/^#?[\d,]+$/.test(t)) throw new Error(`"${beatInput.value}" is not a beat number`);
        const beat = beatAt(t, false), before = classOf(beat);
        setBeat(beat, pick.value);
        message(before === pick.value ? `beat #${int(beat)} is ${pick.value} already` : `beat #${int(beat)}: ${before} → ${pick.value}`);
        beatInput.value = '';
      } catch (err) { message(err.message, true); }
    });

    const afForm = document.createElement('form');
    afForm.id = 'review-af';
    const from = field(afForm, 'AF from ', 'first', 'beat # or h:mm:ss', 12);
    const to = field(afForm, ' to ', 'last', 'beat # or h:mm:ss', 12);
    const afGo = document.createElement('button');
    afGo.type = 'submit';
    afGo.textContent = 'add AF episode';
    afForm.append(' ', afGo);
    afForm.addEventListener('submit', (e) => {
      e.preventDefault();
      try {
        const first = beatAt(from.value, false), last = beatAt(to.value, true);
        if (last < first) throw new Error(`the episode would end (beat #${int(last)}) before it starts (beat #${int(first)})`);
        addAf(first, last);
        message(`AF episode added: beats #${int(first)}–#${int(last)}`);
        from.value = to.value = '';
      } catch (err) { message(err.message, true); }
    });

    const msg = document.createElement('p');
    msg.id = 'review-message';
    msg.className = 'muted';
    msg.setAttribute('role', 'status');
    const exp = document.createElement('button');
    exp.type = 'button';
    exp.id = 'review-export';
    exp.className = 'primary';
    exp.addEventListener('click', exportFile);
    box.append(h, how, cmd, list, beatForm, afForm, msg, exp);
    box.dataset.built = '1';
  }

  /** The pending list, the export button, the floating reminder and the summary's note. */
  function render() {
    const box = $('holter-review'), pill = $('review-pill');
    if (!enabled()) { if (pill) pill.hidden = true; return; }
    if (box && !box.dataset.built) build(box);
    const list = $('review-items');
    if (box) {
      box.hidden = false;
      box.dataset.pending = String(count());
      $('review-command').textContent = command();
      list.textContent = '';
      current().forEach((i, index) => {
        const li = document.createElement('li');
        li.dataset.type = i.type;
        li.dataset.item = JSON.stringify(i);
        const text = document.createElement('span');
        text.textContent = describe(i);
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'undo';
        b.dataset.index = String(index);
        b.textContent = 'undo';
        b.title = 'drop this correction';
        li.append(text, b);
        list.appendChild(li);
      });
      if (!count()) list.innerHTML = '<li class="none muted">No correction yet.</li>';
      const exp = $('review-export');
      exp.disabled = !count();
      exp.textContent = count() ? `export corrections (${int(count())})` : 'export corrections';
    }
    if (pill) {
      pill.hidden = !count();
      pill.textContent = '';
      if (count()) {
        const go = document.createElement('button'), exp = document.createElement('button');
        go.type = exp.type = 'button';
        go.textContent = `${int(count())} correction${count() === 1 ? '' : 's'} pending: review`;
        go.addEventListener('click', () => $('holter-review').scrollIntoView({ behavior: 'smooth', block: 'center' }));
        exp.textContent = 'export';
        exp.addEventListener('click', exportFile);
        pill.append(go, exp);
      }
    }
  }

  /** Draws again what shows the corrections. */
  function changed() {
    zf.safely('holter', zf.figures.holter.draw);
    zf.safely('holter-events', zf.figures['holter-events'].draw);
    zf.safely('holter-families', zf.figures['holter-families'].refresh);
    zf.safely('overview', zf.figures.overview.review);
    render();
  }

  return { classes, enabled, count, counts, classOf, exampleFamily, familyItem, removed, setFamily, setBeat, setRemoved,
    addAf, undo, json, exportFile, command, beatControl, render, items: () => current().slice() };
})();
