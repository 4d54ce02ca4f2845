// Training: loss per beat on the training beats after each epoch, and the test beats' loss as a
// dashed line.
/* global zf */
zf.figures.loss = (() => {
  const { colour, num, finiteRange } = zf.format;

  function draw() {
    const el = document.getElementById('loss-chart'), { S } = zf.run, loss = S.loss_per_epoch || [];
    if (!loss.length) {
      zf.chart.message(el, S.parameters.model ? 'scored with a saved model: no training in this run' : 'no training in this run');
      zf.chart.legend(document.getElementById('loss-legend'), []);
      return;
    }
    const test = S.test_loss !== null && S.test_loss !== undefined ? S.test_loss : null;
    const range = finiteRange([loss.concat(test === null ? [] : [test])], 0.08);
    const epochs = loss.map((_, i) => i + 1), last = Math.max(2, loss.length);
    const series = [{}, { label: 'training beats', stroke: colour.signal, width: 2,
      points: { show: loss.length <= 60, size: 5, fill: colour.signal, stroke: colour.signal } }];
    const data = [epochs, loss];
    if (test !== null) {
      series.push({ label: 'test beats', stroke: colour.filtered, width: 1.6, dash: [6, 4], points: { show: false } });
      data.push(epochs.map(() => test));
    }
    zf.chart.make(el, {
      scales: { x: { time: false, range: () => [1, last] }, y: { range: () => range } },
      axes: [zf.chart.axis('epoch', { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], space: 40, fmt: (v) => String(v) }),
        zf.chart.axis('loss per beat', { size: 64 })],
      series,
    }, data);
    const items = [{ colour: colour.signal, text: 'training beats' }];
    if (test !== null) items.push({ colour: colour.filtered, text: `test beats: ${num(test, 4)}`, dash: true });
    zf.chart.legend(document.getElementById('loss-legend'), items);
  }

  return { draw };
})();
