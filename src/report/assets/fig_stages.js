// Where the time went: wall time of each pipeline stage as bars (an HTML table: a handful of
// rows needs no chart), and peak memory through zeroflow's allocators.
/* global zf */
zf.figures.stages = (() => {
  const { ms, bytes } = zf.format;

  function stageList() {
    const { D, S } = zf.run;
    if (Array.isArray(D.stages) && D.stages.length) return D.stages;
    return Object.entries(S.stages_ms).filter(([k]) => k !== 'total').map(([name, v]) => ({ name, ms: v }));
  }

  /** A row of a facts table whose value cell carries its summary.json key and value. */
  function factRow(table, name, text, key, value) {
    const tr = document.createElement('tr'), th = document.createElement('th'), td = document.createElement('td');
    th.textContent = name;
    td.textContent = text;
    if (key) { td.dataset.key = key; td.dataset.value = JSON.stringify(value); }
    tr.append(th, td);
    table.appendChild(tr);
  }

  function draw() {
    const { S } = zf.run, stages = stageList(), el = document.getElementById('stages-chart');
    const max = Math.max(...stages.map((s) => s.ms), 1e-3);
    el.textContent = '';
    const table = document.createElement('table');
    table.className = 'bars';
    for (const s of stages) {
      const tr = document.createElement('tr'), name = document.createElement('th'), cell = document.createElement('td');
      name.textContent = s.name;
      const bar = document.createElement('span'), value = document.createElement('span');
      bar.className = 'bar';
      bar.style.width = Math.max(0.3, (100 * s.ms) / max) * 0.8 + '%';
      value.className = 'value';
      value.textContent = ms(s.ms);
      cell.append(bar, value);
      tr.append(name, cell);
      table.appendChild(tr);
    }
    el.appendChild(table);
    const memory = document.getElementById('memory-table');
    memory.textContent = '';
    const entries = [
      ['total', ms(S.stages_ms.total), 'stages_ms.total', S.stages_ms.total],
      ['peak host memory', bytes(S.peak_host_bytes), 'peak_host_bytes', S.peak_host_bytes],
      ['peak device memory', S.device === 'cpu' ? '– (CPU run)' : bytes(S.peak_device_bytes), 'peak_device_bytes', S.peak_device_bytes]];
    for (const s of stages) entries.push([s.name, ms(s.ms), 'stages_ms.' + s.name, s.ms]);
    for (const [name, text, key, value] of entries) factRow(memory, name, text, key, value);
  }

  return { draw, factRow };
})();
