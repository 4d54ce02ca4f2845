// Draws every figure once the page is parsed, redraws on resize, follows #t=<seconds> links, and
// exposes window.zeroflowReport for people and tests: ready, renderMs, summaryMs (the Holter pages
// drawn, before the other figures), figures, errors,
// zoomTo(t0, t1), view(), select(beat), latentPoint(k), keptCount, topBeats.
/* global zf */
(() => {
  const hook = (window.zeroflowReport = { ready: false, errors: [], figures: {} });
  window.addEventListener('error', (e) => hook.errors.push(String(e.message || e)));

  /** Runs one figure's drawing; a failure marks that figure, never the others. */
  zf.safely = (name, draw) => {
    const section = document.querySelector(`[data-figure="${name}"]`), t0 = performance.now();
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
  };

  const order = ['holter', 'holter-trend', 'holter-hours', 'holter-events', 'holter-families', 'holter-strips', 'overview', 'classes', 'excerpt', 'lengths', 'beats', 'latent', 'grid', 'loss', 'anomalies', 'stages'];
  function renderAll() {
    for (const name of order) zf.safely(name, zf.figures[name].draw);
    zf.safely('parameters', () => {});
  }

  /** The first drawing: the Holter pages, a frame for the browser to paint them (what a reader
   *  looks at first, in front of them at once on a day-long recording), then the other figures. */
  function renderFirst(then) {
    const first = order.filter((name) => name.startsWith('holter'));
    for (const name of first) zf.safely(name, zf.figures[name].draw);
    hook.summaryMs = performance.now();
    requestAnimationFrame(() => {
      hook.summaryFrameMs = performance.now();  // the frame that paints the Holter pages
      setTimeout(() => {
      for (const name of order) if (!first.includes(name)) zf.safely(name, zf.figures[name].draw);
      zf.safely('parameters', () => {});
      then();
    }, 0);
    });
  }

  function fromHash() {
    const m = /t=([0-9.]+)/.exec(location.hash);
    if (!m) return false;
    const { rate, cand } = zf.run, t = Number(m[1]), s = t * rate;
    let best = -1;
    const c = zf.data.firstCandidateFrom(s);
    for (const k of [c - 1, c])
      if (k >= 0 && k < cand.n && (best < 0 || Math.abs(zf.data.beatPeak(k) - s) < Math.abs(zf.data.beatPeak(best) - s))) best = k;
    if (best >= 0) zf.figures.overview.select(best, false, false);
    zf.figures.overview.zoomTo(t - 2.5, t + 2.5);
    return true;
  }

  function start() {
    const t0 = performance.now();
    try {
      zf.run = zf.data.load(document.getElementById('zf-data').textContent);
      hook.loadMs = performance.now() - t0;
      hook.parseMs = zf.run.parseMs;
    } catch (err) {
      const box = document.getElementById('load-error');
      box.hidden = false;
      box.textContent = 'The report data could not be read: ' + err;
      hook.errors.push('load: ' + err);
      console.error(err);
      return;
    }
    const { n, kept, top } = zf.run;
    zf.figures.overview.setView(0, n);
    zf.safely('numbers', zf.figures.numbers.draw);
    renderFirst(() => finish(top, kept));
  }

  function finish(top, kept) {
    if (top.length) zf.safely('latent-panel', () => zf.figures.latent.show(top[0].k));  // until a point is chosen
    window.addEventListener('hashchange', () => { if (fromHash()) document.getElementById('fig-overview').scrollIntoView({ block: 'start' }); });
    fromHash();
    let resize = 0, width = window.innerWidth;
    window.addEventListener('resize', () => {
      if (window.innerWidth === width) return;
      width = window.innerWidth;
      clearTimeout(resize);
      resize = setTimeout(renderAll, 150);
    });
    Object.assign(hook, {
      zoomTo: zf.figures.overview.zoomTo,
      view: zf.figures.overview.view,
      /** Selects candidate `beat` as a click in the latent figure would. */
      select(beat) {
        const k = zf.run.cand.keptIndex[beat];
        if (k < 0) return false;
        zf.figures.latent.select(k);
        return true;
      },
      /** Page coordinates (for a mouse click) of kept beat k's point in the latent figure. */
      latentPoint: (k) => zf.figures.latent.point(k),
      keptCount: kept.n,
      topBeats: top.map((t) => t.beat),
    });
    // uPlot paints in microtasks queued as each chart was made: this one runs after them.
    queueMicrotask(() => {
      hook.renderMs = performance.now();
      if (hook.figures.latent) hook.figures.latent.paintMs = zf.figures.latent.paintMs;
      document.getElementById('footer-drawn').textContent =
        `zeroflow ${zf.run.S.zeroflow_version} · drawn in ${Math.round(hook.renderMs)} ms after the page started loading`;
      hook.ready = true;
      document.body.dataset.ready = '1';
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
