// iobench report: draws the charts of window.IOBENCH_DATA with Chart.js. Every text from the
// records reaches the page through textContent or Chart.js's canvas, never as HTML.
(function () {
  'use strict';
  var fail = window.iobenchFail || function (m) { throw new Error(m); };
  var DATA = window.IOBENCH_DATA || {};
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];
  var color = function (i) { return palette[i % palette.length]; };
  var drawn = 0;

  // reveal opens the folds around the element the address names, where the browser does not
  // (Chromium does): a link to a run leads to it.
  function reveal() {
    var el = null;
    try { el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1))); } catch (e) { return; }
    for (var d = el && el.parentElement; d; d = d.parentElement) {
      if (d.tagName === 'DETAILS') { d.open = true; }
    }
  }
  window.addEventListener('hashchange', reveal);
  reveal();

  if (typeof Chart === 'undefined') {
    fail('Chart.js did not load');
    return;
  }
  Chart.defaults.animation = false; // a report, not a show: and screenshots see the final state
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.plugins.legend.labels.boxWidth = 14;

  function fmt(v) {
    if (v === null || v === undefined) { return ''; }
    var a = Math.abs(v);
    if (a >= 100) { return Math.round(v).toLocaleString('en-US'); }
    if (a >= 1) { return v.toFixed(2); }
    return String(Math.round(v * 10000) / 10000);
  }

  // figure adds a titled chart box to the container with the given id and returns its canvas.
  function figure(containerId, title, anchor, height) {
    var box = document.getElementById(containerId);
    if (!box) { return null; }
    var fig = document.createElement('figure');
    fig.className = 'chart';
    var cap = document.createElement('figcaption');
    if (anchor) {
      var a = document.createElement('a');
      a.href = '#' + anchor;
      a.textContent = title;
      cap.appendChild(a);
    } else {
      cap.textContent = title;
    }
    var holder = document.createElement('div');
    holder.className = 'canvas-box';
    if (height) { holder.style.height = height + 'px'; }
    var canvas = document.createElement('canvas');
    holder.appendChild(canvas);
    fig.appendChild(cap);
    fig.appendChild(holder);
    box.appendChild(fig);
    return canvas;
  }

  function draw(canvas, config) {
    if (!canvas) { return; }
    try {
      new Chart(canvas, config);
      drawn++;
    } catch (e) {
      fail('chart failed: ' + e);
    }
  }

  // whiskers draws each bar's [min, max] spread over the bars of dataset 0.
  var whiskers = {
    id: 'whiskers',
    afterDatasetsDraw: function (chart) {
      var ds = chart.data.datasets[0];
      if (!ds || !ds.spread) { return; }
      var y = chart.scales.y, ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = '#1d232b';
      ctx.lineWidth = 1.5;
      chart.getDatasetMeta(0).data.forEach(function (bar, i) {
        var lo = ds.spread[i][0], hi = ds.spread[i][1];
        var w = Math.min(bar.width / 4, 12), y1 = y.getPixelForValue(lo), y2 = y.getPixelForValue(hi);
        ctx.beginPath();
        ctx.moveTo(bar.x, y1); ctx.lineTo(bar.x, y2);
        ctx.moveTo(bar.x - w, y1); ctx.lineTo(bar.x + w, y1);
        ctx.moveTo(bar.x - w, y2); ctx.lineTo(bar.x + w, y2);
        ctx.stroke();
      });
      ctx.restore();
    }
  };

  (DATA.bars || []).forEach(function (b) {
    draw(figure('bars', b.title + ' (' + b.unit + ')'), {
      type: 'bar',
      data: {
        labels: b.labels,
        datasets: [{
          label: 'median ' + b.unit, data: b.median, spread: b.spread, repeats: b.repeats,
          backgroundColor: b.colors.map(function (c) { return color(c) + 'cc'; }),
          borderColor: b.colors.map(color), borderWidth: 1
        }]
      },
      options: {
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { afterLabel: function (ctx) {
            var s = ctx.dataset.spread[ctx.dataIndex], r = ctx.dataset.repeats[ctx.dataIndex];
            return 'min ' + fmt(s[0]) + ', max ' + fmt(s[1]) + '\nrepeats: ' + r.map(fmt).join(', ');
          } } }
        },
        scales: { y: { beginAtZero: true, title: { display: true, text: b.unit } } }
      },
      plugins: [whiskers]
    });
  });

  if ((DATA.ratios || []).length) {
    draw(figure('ratio-chart', 'async ÷ sync (1 = no difference)', '', 90 + 60 * DATA.ratios.length), {
      type: 'bar',
      data: {
        labels: DATA.ratios.map(function (r) { return r.label; }),
        datasets: [
          { label: 'throughput', data: DATA.ratios.map(function (r) { return r.throughput; }), backgroundColor: '#2ca02ccc' },
          { label: 'p99 latency', data: DATA.ratios.map(function (r) { return r.p99 || null; }), backgroundColor: '#d62728cc' }
        ]
      },
      options: {
        indexAxis: 'y',
        scales: { x: { beginAtZero: true, title: { display: true, text: 'ratio (×)' } } },
        plugins: { tooltip: { callbacks: { label: function (ctx) { return ctx.dataset.label + ': ' + fmt(ctx.parsed.x) + '×'; } } } }
      }
    });
  }

  // pct labels a 1/(1-p) tick as a percentile: 10 -> 90%, 1000 -> 99.9%.
  function pct(v) {
    if (v <= 1) { return '0%'; }
    var p = 100 * (1 - 1 / v);
    return String(Math.round(p * 10000) / 10000) + '%';
  }

  (DATA.spectra || []).forEach(function (s) {
    var maxX = 10;
    s.lines.forEach(function (l) { l.points.forEach(function (p) { maxX = Math.max(maxX, p[0]); }); });
    draw(figure('spectra', s.title + ' latency (' + s.unit + ')'), {
      type: 'line',
      data: {
        datasets: s.lines.map(function (l) {
          var c = color(l.color) + ['ff', 'a6', '70', '50'][Math.min(l.repeat, 3)];
          return {
            label: l.label, data: l.points.map(function (p) { return { x: p[0], y: p[1] }; }),
            borderColor: c, backgroundColor: c, borderDash: l.dashed ? [6, 4] : [],
            borderWidth: 1.6, pointRadius: 0, stepped: 'after'
          };
        })
      },
      options: {
        parsing: false,
        interaction: { mode: 'nearest', intersect: false },
        scales: {
          x: {
            type: 'logarithmic', min: 1, max: maxX,
            title: { display: true, text: 'percentile (log scale of 1/(1−p))' },
            afterBuildTicks: function (axis) {
              var t = [];
              for (var v = 1; v <= axis.max * 1.0001; v *= 10) { t.push({ value: v }); if (v === 1) { t.push({ value: 2 }); } }
              axis.ticks = t;
            },
            ticks: { callback: function (v) { return pct(v); } }
          },
          y: { beginAtZero: true, title: { display: true, text: s.unit } }
        },
        plugins: { tooltip: { callbacks: {
          title: function (items) { return items.length ? 'p' + pct(items[0].parsed.x) : ''; },
          label: function (ctx) { return ctx.dataset.label + ': ' + fmt(ctx.parsed.y) + ' ' + s.unit; }
        } } }
      }
    });
  });

  // The capacity curves (DATA.curves): latency percentiles against the achieved rate, log y.
  (DATA.curves || []).forEach(function (cv) {
    var minX = Infinity, maxX = 0;
    cv.lines.forEach(function (l) { l.points.forEach(function (p) { minX = Math.min(minX, p[0]); maxX = Math.max(maxX, p[0]); }); });
    var sets = cv.lines.map(function (l) {
      var c = color(l.color);
      return {
        label: l.label, data: l.points.map(function (p) { return { x: p[0], y: Math.max(p[1], 0.001) }; }),
        borderColor: c, backgroundColor: c, borderDash: [[], [2, 3], [6, 4]][l.dash] || [],
        showLine: true, borderWidth: l.dash === 0 ? 2 : 1.2, pointRadius: 2, tension: 0
      };
    });
    if (cv.slo > 0 && maxX > 0) {
      sets.push({ label: 'SLO ' + fmt(cv.slo) + ' ms', data: [{ x: minX, y: cv.slo }, { x: maxX, y: cv.slo }],
        borderColor: '#5d6673', backgroundColor: '#5d6673', borderDash: [8, 4], showLine: true, pointRadius: 0, borderWidth: 1.5 });
    }
    (cv.knees || []).forEach(function (k) {
      sets.push({ label: 'knee ' + k.label, data: [{ x: k.point[0], y: Math.max(k.point[1], 0.001) }],
        borderColor: color(k.color), backgroundColor: color(k.color), pointRadius: 7, pointStyle: 'rectRot', showLine: false });
    });
    draw(figure('curves', cv.title), {
      type: 'scatter',
      data: { datasets: sets },
      options: {
        parsing: false,
        scales: {
          x: { type: 'linear', title: { display: true, text: 'achieved rate (req/s)' } },
          y: { type: 'logarithmic', title: { display: true, text: 'latency (ms, log scale)' } }
        },
        plugins: { tooltip: { callbacks: {
          label: function (ctx) { return ctx.dataset.label + ': ' + fmt(ctx.parsed.y) + ' ms at ' + fmt(ctx.parsed.x) + ' req/s'; }
        } } }
      }
    });
  });

  // The charts of the workloads' tables (DATA.tables): lines against x, dashed for a
  // prediction, in the box under their table.
  (DATA.tables || []).forEach(function (tc) {
    draw(figure(tc.box, tc.title), {
      type: 'scatter',
      data: { datasets: tc.lines.map(function (l) {
        var c = color(l.color);
        return {
          label: l.label, data: l.points.map(function (p) { return { x: p[0], y: p[1] }; }),
          borderColor: c, backgroundColor: c, borderDash: l.dashed ? [6, 4] : [],
          showLine: true, borderWidth: l.dashed ? 1.2 : 2, pointRadius: l.dashed ? 0 : 3, tension: 0
        };
      }) },
      options: {
        parsing: false,
        scales: {
          x: { type: 'linear', title: { display: true, text: tc.x } },
          y: { type: tc.logy ? 'logarithmic' : 'linear', title: { display: true, text: tc.y } }
        },
        plugins: { tooltip: { callbacks: {
          label: function (ctx) { return ctx.dataset.label + ': ' + fmt(ctx.parsed.y) + ' at ' + fmt(ctx.parsed.x); }
        } } }
      }
    });
  });

  var multi = ['#1f77b4', '#2ca02c', '#ff7f0e', '#7f7f7f', '#9467bd'];
  (DATA.series || []).forEach(function (s) {
    var right = s.lines.some(function (l) { return l.right; });
    var scales = {
      x: { type: 'linear', title: { display: true, text: 'second of the measured phase' }, ticks: { precision: 0 } },
      y: { beginAtZero: true, title: { display: true, text: s.unit } }
    };
    if (right) {
      scales.y2 = { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: 'messages queued' } };
    }
    draw(figure('series', s.title, s.anchor), {
      type: 'line',
      data: {
        datasets: s.lines.map(function (l, i) {
          var c = i === 0 && s.lines.length < 3 ? color(s.color) : multi[i % multi.length];
          if (l.label.indexOf('errors') === 0) { c = '#d62728'; }
          return {
            label: l.label, data: l.points.map(function (p) { return { x: p[0], y: p[1] }; }),
            borderColor: c, backgroundColor: c, borderDash: l.right ? [5, 4] : [],
            yAxisID: l.right ? 'y2' : 'y', borderWidth: 1.6, pointRadius: 2, tension: 0
          };
        })
      },
      options: { parsing: false, interaction: { mode: 'index', intersect: false }, scales: scales }
    });
  });

  // The verdict board (DATA.board): a strip per claim on one log axis, shared by every strip.
  // The band the claim holds in is shaded, the seed's ratio is a diamond, ours a dot in the
  // verdict's colour with our repeats' interval as a bar; a value past the axis (a side at 0)
  // sits at the edge as an arrow, with its value beside it.
  var outcomeColor = { 'holds': '#1a7f37', 'direction only': '#9a6700', 'does not hold': '#cf222e' };
  var seedColor = '#0b5cad';

  function stripCanvas(id) {
    var box = document.getElementById(id);
    if (!box) { fail('no element for the board strip ' + id); return null; }
    var canvas = document.createElement('canvas');
    box.appendChild(canvas);
    return canvas;
  }

  // arrow draws an arrowhead at x pointing off (-1 left, 1 right).
  function arrow(ctx, x, y, off) {
    ctx.beginPath();
    ctx.moveTo(x + off * 6, y);
    ctx.lineTo(x - off * 3, y - 6);
    ctx.lineTo(x - off * 3, y + 6);
    ctx.closePath();
    ctx.fill();
  }

  var stripLayer = {
    id: 'strip',
    beforeDatasetsDraw: function (chart) {
      var s = chart.config.options.strip, x = chart.scales.x, a = chart.chartArea, ctx = chart.ctx;
      var mid = (a.top + a.bottom) / 2, c = outcomeColor[s.outcome] || '#5d6673';
      ctx.save();
      if (s.band) {
        var b0 = x.getPixelForValue(s.band[0]), b1 = x.getPixelForValue(s.band[1]);
        ctx.fillStyle = seedColor + '26';
        ctx.strokeStyle = seedColor + '55';
        ctx.fillRect(b0, a.top + 3, b1 - b0, a.bottom - a.top - 6);
        ctx.strokeRect(b0, a.top + 3, b1 - b0, a.bottom - a.top - 6);
      }
      var one = x.getPixelForValue(1);
      ctx.strokeStyle = '#8c959f';
      ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.moveTo(one, a.top); ctx.lineTo(one, a.bottom); ctx.stroke();
      if (s.lo && s.hi) {
        var p0 = x.getPixelForValue(s.lo.x), p1 = x.getPixelForValue(s.hi.x);
        ctx.strokeStyle = c;
        ctx.fillStyle = c;
        ctx.lineWidth = 4;
        ctx.beginPath(); ctx.moveTo(p0, mid); ctx.lineTo(p1, mid); ctx.stroke();
        [s.lo, s.hi].forEach(function (m) {
          if (m.off && m.x !== s.ours.x) { arrow(ctx, x.getPixelForValue(m.x) - m.off * 4, mid, m.off); }
        });
      }
      ctx.restore();
    },
    afterDatasetsDraw: function (chart) {
      var s = chart.config.options.strip, x = chart.scales.x, a = chart.chartArea, ctx = chart.ctx;
      ctx.save();
      ctx.font = '11px ' + Chart.defaults.font.family;
      ctx.fillStyle = '#5d6673';
      ctx.textBaseline = 'middle';
      if (!s.ours) {
        ctx.textAlign = 'left';
        ctx.fillText('not measured: no ratio of ours', a.left + 4, a.top + 8);
      }
      [[s.ours, outcomeColor[s.outcome] || '#5d6673'], [s.seed, seedColor]].forEach(function (mc) {
        var m = mc[0];
        if (!m || !m.off) { return; }
        var px = x.getPixelForValue(m.x), mid = (a.top + a.bottom) / 2;
        ctx.fillStyle = mc[1];
        arrow(ctx, px - m.off * 4, mid, m.off);
        ctx.fillStyle = '#5d6673';
        ctx.textAlign = m.off < 0 ? 'left' : 'right';
        ctx.fillText(m.text, px - m.off * 14, mid - 9);
      });
      ctx.restore();
    }
  };

  function decades(axis) {
    var t = [];
    for (var k = Math.round(Math.log10(axis.min)); k <= Math.round(Math.log10(axis.max)); k++) {
      t.push({ value: Number(Math.pow(10, k).toPrecision(1)) });
    }
    axis.ticks = t;
  }

  // point is a mark's dataset: drawn as style, or, past the axis, left to stripLayer's arrow and
  // kept for its tooltip. Chart.js draws a lower order on top: ours over the seed's.
  function point(m, label, text, style, color, radius, order) {
    var past = m && m.off;
    return {
      label: label, data: m ? [{ x: m.x, y: 0, text: text }] : [], pointStyle: style, clip: false, order: order,
      pointRadius: past ? 0 : radius, pointHoverRadius: past ? 0 : radius + 2, pointHitRadius: radius + 4,
      backgroundColor: color, borderColor: '#fff', borderWidth: 1
    };
  }

  if (DATA.board) {
    var board = DATA.board;
    board.strips.forEach(function (s) {
      var c = outcomeColor[s.outcome] || '#5d6673';
      var ours = s.ours ? s.ours.text + (s.lo && s.lo.text !== s.hi.text ? ' (repeats ' + s.lo.text + '–' + s.hi.text + ')' : '') : '';
      var seed = s.seed ? s.seed.text + (s.band ? ', holds within ' + fmt(s.band[0]) + '×–' + fmt(s.band[1]) + '×' : '') : '';
      draw(stripCanvas(s.id), {
        type: 'scatter',
        data: { datasets: [point(s.seed, "the seed's ratio", seed, 'rectRot', seedColor, 6, 2), point(s.ours, 'ours', ours, 'circle', c, 6, 1)] },
        options: {
          strip: s,
          parsing: false,
          layout: { padding: { left: 4, right: 4 } },
          scales: {
            x: { type: 'logarithmic', min: board.min, max: board.max, afterBuildTicks: decades,
              ticks: { font: { size: 10 }, maxRotation: 0, autoSkip: false, callback: function (v) { return String(v) + '×'; } },
              grid: { color: '#e6e9ee' } },
            y: { display: false, min: -1, max: 1 }
          },
          plugins: { legend: { display: false }, tooltip: { callbacks: {
            label: function (ctx) { return ctx.dataset.label + ': ' + ctx.raw.text; }
          } } }
        },
        plugins: [stripLayer]
      });
    });
  }

  document.body.setAttribute('data-charts', String(drawn));
  document.documentElement.setAttribute('data-ready', 'yes');
})();
