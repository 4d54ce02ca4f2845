// What every chart shares: uPlot (embedded beside this script) with the report's axes, colours
// and sizes; drawing in CSS pixels inside uPlot's hooks; legends and messages in HTML.
/* global zf, uPlot */
zf.chart = (() => {
  const { colour, font, tickLabel } = zf.format;
  const dpr = () => window.devicePixelRatio || 1;

  // Tick steps: 1-2-5 for values; for times, 1-2-5 below half a minute, then whole minutes and hours.
  const steps125 = [];
  for (let e = -6; e <= 12; e++) for (const m of [1, 2, 5]) steps125.push(Number((m * Math.pow(10, e)).toPrecision(1)));
  const timeSteps = steps125.filter((v) => v < 30).concat([60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]);

  /** An axis in the report's style; `fmt(v, step)` writes a tick (default: the step's digits). */
  function axis(label, extra = {}) {
    const fmt = extra.fmt || tickLabel;
    delete extra.fmt;
    return Object.assign({
      label, stroke: colour.muted, font: font(11), labelFont: font(12), labelSize: label ? 20 : 0, gap: 4, size: 28,
      grid: { stroke: colour.grid, width: 1 }, ticks: { stroke: colour.frame, width: 1, size: 4 },
      incrs: steps125, values: (u, splits, ai, space, incr) => splits.map((v) => (v === null ? '' : fmt(v, incr))),
    }, extra);
  }
  /** A time axis in seconds, formatted by `format()` ({label, fmt}) as the view changes. */
  function timeAxis(format, extra = {}) {
    return axis(format().label, Object.assign({ incrs: timeSteps, space: 90, size: 28, fmt: (v, step) => format().fmt(v, step) }, extra));
  }

  /** Makes (or remakes) the uPlot chart in `el`, as wide as its box and data-h pixels high. */
  function make(el, opts, data) {
    if (el._chart) el._chart.destroy();
    el.textContent = '';
    const width = Math.max(120, Math.floor(el.clientWidth || el.parentNode.clientWidth || 600));
    const height = Number(el.dataset.h || 300);
    const u = new uPlot(Object.assign({
      width, height, legend: { show: false }, padding: [10, 40, 0, 0],
      cursor: { drag: { x: false, y: false, setScale: false }, points: { show: false } },
    }, opts), data, el);
    el._chart = u;
    return u;
  }

  /** A chart without axes or cursor: a beat's trace in a card or a grid cell. */
  function spark(el, opts, data) {
    return make(el, Object.assign({
      padding: [3, 3, 3, 3], cursor: { show: false }, select: { show: false },
      axes: [{ show: false }, { show: false }],
    }, opts), data);
  }

  /** Runs draw(ctx, box) with the context in CSS pixels, clipped to the plot when `clip`; box is
   *  the plot area in CSS pixels of the canvas. */
  function paint(u, draw, clip = true) {
    const ctx = u.ctx, r = dpr();
    const box = { left: u.bbox.left / r, top: u.bbox.top / r, width: u.bbox.width / r, height: u.bbox.height / r };
    box.right = box.left + box.width;
    box.bottom = box.top + box.height;
    ctx.save();
    ctx.scale(r, r);
    if (clip) { ctx.beginPath(); ctx.rect(box.left, box.top, box.width, box.height); ctx.clip(); }
    draw(ctx, box);
    ctx.restore();
  }
  /** Canvas CSS position of value v on scale `key` (x: horizontal, others vertical). */
  const at = (u, v, key, box) => (key === 'x' ? box.left : box.top) + u.valToPos(v, key);

  /** A vertical line at x (CSS pixels) over the plot box. */
  function vline(ctx, x, box, style, width = 1, dash = []) {
    const p = Math.round(x) + 0.5;
    ctx.strokeStyle = style;
    ctx.lineWidth = width;
    ctx.setLineDash(dash);
    ctx.beginPath(); ctx.moveTo(p, box.top); ctx.lineTo(p, box.bottom); ctx.stroke();
    ctx.setLineDash([]);
  }
  function dot(ctx, x, y, radius, style) {
    ctx.fillStyle = style;
    ctx.beginPath(); ctx.arc(x, y, radius, 0, 2 * Math.PI); ctx.fill();
  }

  /** A one-row legend in HTML above a chart: items {colour, text, dash, dot, ring}. */
  function legend(el, items) {
    el.textContent = '';
    el.className = 'legend';
    for (const item of items) {
      const span = document.createElement('span'), key = document.createElement('i');
      key.className = item.dot ? 'key dot' : item.ring ? 'key ring' : item.dash ? 'key dash' : 'key';
      key.style.setProperty('--key', item.colour);
      span.append(key, document.createTextNode(item.text));
      el.appendChild(span);
    }
  }

  /** A short message in place of a chart that has nothing to show. */
  function message(el, text) {
    if (el._chart) { el._chart.destroy(); el._chart = null; }
    el.textContent = '';
    const p = document.createElement('p');
    p.className = 'empty';
    p.style.height = (el.dataset.h || 120) + 'px';
    p.textContent = text;
    el.appendChild(p);
  }

  return { axis, timeAxis, make, spark, paint, at, vline, dot, legend, message, font, dpr };
})();
