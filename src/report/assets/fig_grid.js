// Beats decoded from a latent grid: the decoder's output for a 5×5 grid of latent points, one
// small uPlot chart per cell on a common amplitude range; μ₀ grows to the right, μ₁ upwards.
/* global zf */
zf.figures.grid = (() => {
  const { colour, num, finiteRange } = zf.format;

  function draw() {
    const el = document.getElementById('grid-chart'), { D, rows } = zf.run;
    const g = D.grid, values = zf.data.decode(g.values), w = rows.width, m = g.n;
    if (!m || !w || values.length < m * m * w) { zf.chart.message(el, 'no decoded grid in this run'); return; }
    const range = finiteRange([values]), mu = (i) => -g.extent + (2 * g.extent * i) / (m - 1);
    el.textContent = '';
    el.style.setProperty('--cells', String(m));
    const cells = document.createElement('div');
    cells.className = 'cells';
    const x = Float64Array.from({ length: w }, (_, i) => i);
    const height = Math.max(40, Math.floor((Number(el.dataset.h) - 40) / m));
    for (let j = m - 1; j >= 0; j--) {
      const label = document.createElement('span');
      label.className = 'mu1';
      label.textContent = num(mu(j), 2);
      cells.appendChild(label);
      for (let i = 0; i < m; i++) {
        // decode_grid's row i·m + j decodes (μ₀, μ₁) = (g[i], g[j]).
        const cell = document.createElement('div');
        cell.className = 'cell';
        cell.dataset.h = String(height);
        cells.appendChild(cell);
        cell._values = values.subarray((i * m + j) * w, (i * m + j + 1) * w);
      }
    }
    cells.appendChild(document.createElement('span'));
    for (let i = 0; i < m; i++) {
      const label = document.createElement('span');
      label.className = 'mu0';
      label.textContent = num(mu(i), 2);
      cells.appendChild(label);
    }
    el.appendChild(cells);
    const axes = document.createElement('div');
    axes.className = 'grid-axes';
    axes.textContent = 'μ₀ →   ·   μ₁ ↑';
    el.appendChild(axes);
    for (const cell of cells.querySelectorAll('.cell'))
      zf.chart.spark(cell, {
        scales: { x: { time: false, range: () => [0, w - 1] }, y: { range: () => range } },
        series: [{}, { stroke: colour.signal, width: 1.2, points: { show: false } }],
      }, [x, cell._values]);
  }

  return { draw };
})();
