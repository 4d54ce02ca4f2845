// The run in numbers: the key figures at the top, the run's parameters and the evaluation against
// labels. Each value carries its summary.json key and value in data-* attributes.
/* global zf */
zf.figures.numbers = (() => {
  const { int, num, clock, ms } = zf.format;

  function draw() {
    const { S, rate } = zf.run, duration = S.duration_seconds, factRow = zf.figures.stages.factRow;
    document.getElementById('input-name').textContent = S.input;
    document.getElementById('subtitle').textContent =
      `${int(S.samples)} samples at ${num(S.sample_rate, 6)} Hz (${clock(duration)}) · device ${S.device} · zeroflow ${S.zeroflow_version}`;
    const cards = [
      ['duration', clock(duration), 'duration_seconds', duration],
      ['samples', int(S.samples), 'samples', S.samples],
      ['beats found', int(S.beats_found), 'beats_found', S.beats_found],
      ['beats kept', int(S.beats_kept), 'beats_kept', S.beats_kept],
      ['test loss', S.test_loss === null ? '–' : num(S.test_loss, 4), 'test_loss', S.test_loss],
      ['total time', ms(S.stages_ms.total), 'stages_ms.total', S.stages_ms.total],
    ];
    if (S.evaluation && !S.evaluation.not_evaluated) {
      const v = S.evaluation.classes.V;
      cards.push(['beat sensitivity', num(100 * S.evaluation.sensitivity, 4) + ' %', 'evaluation.sensitivity', S.evaluation.sensitivity]);
      cards.push(['V AUROC', v.auroc === null ? 'undefined' : num(v.auroc, 4), 'evaluation.classes.V.auroc', v.auroc]);
    }
    const dl = document.getElementById('key-numbers');
    dl.textContent = '';
    for (const [name, text, key, value] of cards) {
      const div = document.createElement('div'), dt = document.createElement('dt'), dd = document.createElement('dd');
      div.dataset.key = key;
      div.dataset.value = JSON.stringify(value);
      dt.textContent = name;
      dd.textContent = text;
      div.append(dt, dd);
      dl.appendChild(div);
    }
    const params = document.getElementById('parameter-table'), p = S.parameters;
    params.textContent = '';
    const rows = [
      ['input', S.input, 'input', S.input], ['device', S.device, 'device', S.device],
      ['sample rate', num(S.sample_rate, 6) + ' Hz', 'sample_rate', S.sample_rate],
      ['column', p.column || '(first)', 'parameters.column', p.column],
      ['Ricker width', `${p.ricker_width} samples (${num(p.ricker_width / rate, 3)} s)`, 'parameters.ricker_width', p.ricker_width],
      ['NMS window', `${p.nms_window} samples (${num(p.nms_window / rate, 3)} s)`, 'parameters.nms_window', p.nms_window],
      ['kept lengths', `${p.min_length}–${p.max_length} samples (${num(p.min_length / rate, 4)}–${num(p.max_length / rate, 4)} s)`, 'parameters.max_length', p.max_length],
      ['row width', `${p.row_width} samples`, 'parameters.row_width', p.row_width],
      ['normalisation', `${S.normalization.method}: center ${num(S.normalization.center, 5)}, scale ${num(S.normalization.scale, 5)}`, 'normalization.scale', S.normalization.scale],
      ['epochs', String(p.epochs), 'parameters.epochs', p.epochs], ['batch', String(p.batch), 'parameters.batch', p.batch],
      ['seed', String(p.seed), 'parameters.seed', p.seed],
      ['model', p.model || '(trained in this run)', 'parameters.model', p.model],
      ['score', S.score && typeof S.score === 'object' ? S.score.definition || JSON.stringify(S.score) : String(S.score), 'score', S.score],
      ['zeroflow', S.zeroflow_version, 'zeroflow_version', S.zeroflow_version]];
    for (const [name, text, key, value] of rows) factRow(params, name, text, key, value);
    if (!S.evaluation) return;
    const e = S.evaluation, table = document.getElementById('evaluation-table');
    table.hidden = false;
    document.getElementById('evaluation-title').hidden = false;
    table.textContent = '';
    factRow(table, 'labels', S.labels, 'labels', S.labels);
    if (e.not_evaluated) {
      factRow(table, 'not evaluated', e.not_evaluated, 'evaluation.not_evaluated', e.not_evaluated);
      return;
    }
    const pct = (v) => (v === null ? 'undefined' : num(100 * v, 4) + ' %');
    for (const [name, text, key] of [
      ['labelled beats', int(e.labelled_beats), 'labelled_beats'],
      ['detections (TP / FP / FN)', `${int(e.detections)} (${int(e.true_positives)} / ${int(e.false_positives)} / ${int(e.false_negatives)}), ±${num(e.tolerance_seconds, 3)} s`, 'true_positives'],
      ['sensitivity', pct(e.sensitivity), 'sensitivity'],
      ['positive predictivity', pct(e.positive_predictivity), 'positive_predictivity'],
      ['labelled beats scored', int(e.scored_beats), 'scored_beats']])
      factRow(table, name, text, 'evaluation.' + key, e[key]);
    // Each class against every other labelled beat; unscored beats rank lowest.
    for (const cls of ['V', 'S', 'abnormal']) {
      const c = e.classes[cls];
      const what = c.undefined ? `undefined: ${c.undefined}` : `AUROC ${num(c.auroc, 4)}, average precision ${num(c.average_precision, 4)}`;
      factRow(table, `${cls} beats`, `${int(c.beats)} (${int(c.unscored_beats)} unscored) · ${what}`, `evaluation.classes.${cls}.auroc`, c.auroc);
    }
  }

  return { draw };
})();
