// stampede's dashboard: the runs, a run, a live run, a comparison. Every
// figure shown comes from the JSON API (/api/...); this page computes none,
// it only formats them and draws them with uPlot.
'use strict';

const main = document.getElementById('main');
const statusLine = document.getElementById('status');
const palette = ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5', '#d53f8c', '#319795', '#b7791f', '#4a5568', '#e53e3e', '#3182ce', '#9c4221', '#276749'];
// A page saved by `stampede report --chart x.html` carries the answers of
// its requests (dashboard.WriteStatic): it needs no server.
const staticEl = document.getElementById('stampede-static');
const saved = staticEl ? JSON.parse(staticEl.textContent) : null;
if (saved) document.getElementById('saved').textContent = `saved by ${saved.saved}: every figure is in this file (stampede serve shows every run)`;
// What the test and a curious user can read: when each page was ready,
// in milliseconds since the navigation started, and the charts drawn.
window.stampedeTiming = {};
window.stampedeCharts = [];
let cleanup = [];

// el builds an element: el('td', {class: 'l'}, 'text', child...).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// chartsLib loads uPlot (vendored, served by stampede) the first time a
// page draws charts: the runs page does without it.
let uplotLoading = null;
function chartsLib() {
  if (window.uPlot) return Promise.resolve();
  if (!uplotLoading) {
    uplotLoading = new Promise((resolve, reject) => {
      const s = el('script', { src: 'vendor/uplot/uPlot.iife.min.js' });
      s.onload = resolve;
      s.onerror = () => reject(new Error('cannot load vendor/uplot/uPlot.iife.min.js'));
      document.head.append(s);
    });
  }
  return uplotLoading;
}

// api fetches a JSON endpoint; its error, if any, is the server's one line.
async function api(path) {
  if (saved) {
    if (saved.docs[path] === undefined) throw new Error(`${path} is not in this saved page: stampede serve shows it`);
    return saved.docs[path];
  }
  const r = await fetch(path);
  let body;
  try { body = await r.json(); } catch (e) { throw new Error(`${path}: ${r.status} ${r.statusText}`); }
  if (!r.ok) throw new Error(body.error || `${path}: ${r.status}`);
  return body;
}

// fmtMs formats milliseconds as stampede's text report does (report.FormatMs).
function fmtMs(v) {
  if (v === undefined || v === null) return '';
  if (v === 0) return '0.0';
  if (v < 0.1) return v.toFixed(3);
  if (v < 1) return v.toFixed(2);
  return v.toFixed(1);
}
const fmtRate = v => (v === undefined || v === null) ? '' : v.toFixed(1);
const fmtInt = v => (v === undefined || v === null) ? '' : String(v);
const fmtTime = t => t ? new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
const fmtSecs = s => s === undefined ? '' : `${s.toFixed(1)}s`;

function setStatus(text) { statusLine.textContent = text || ''; }

function showError(err, where) {
  (where || main).append(el('div', { class: 'error', role: 'alert' }, err.message || String(err)));
}

function ready(page) {
  window.stampedeTiming[page] = performance.now();
  document.body.dataset.ready = page;
}

// route shows the page the URL's fragment names.
async function route() {
  for (const f of cleanup) f();
  cleanup = [];
  window.stampedeCharts = [];
  delete document.body.dataset.ready;
  main.replaceChildren();
  setStatus('');
  const hash = location.hash.slice(1) || (saved ? saved.page.slice(1) : '/');
  const [path, query] = hash.split('?');
  const params = new URLSearchParams(query || '');
  try {
    if (path.startsWith('/run/')) await showRun(decodeURIComponent(path.slice(5)));
    else if (path === '/compare') await showCompare(params.getAll('run'));
    else if (path === '/merge') await showMerge(params);
    else if (path.startsWith('/sweep/')) await showSweep(decodeURIComponent(path.slice(7)));
    else await showRuns(params);
  } catch (err) {
    showError(err);
    document.body.dataset.ready = 'error';
  }
}
window.addEventListener('hashchange', route);

// ---- runs ----

const runColumns = [
  ['id', 'run', 'l'], ['workload', 'workload', 'l'], ['status', 'status', 'l'], ['start', 'start', 'l'],
  ['seconds', 'seconds'], ['concurrency', 'workers'], ['count', 'ops'], ['errors', 'errors'],
  ['ops_per_sec', 'ops/s'], ['p50_ms', 'p50 ms'], ['p95_ms', 'p95 ms'], ['p99_ms', 'p99 ms'], ['max_ms', 'max ms'],
  ['group', 'group', 'l'],
];

async function showRuns(params) {
  const page = await api('/api/runs?' + params.toString());
  const go = changes => {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      p.delete(k);
      for (const x of [].concat(v)) if (x !== '' && x !== undefined) p.append(k, x);
    }
    if (!('page' in changes)) p.delete('page');
    location.hash = '#/?' + p.toString();
  };
  const select = (name, values) => el('select', { name, onchange: e => go({ [name]: e.target.value }) },
    el('option', { value: '' }, 'all'),
    values.map(v => el('option', { value: v, selected: params.get(name) === v }, v)));
  const tagInput = el('input', { name: 'tag', placeholder: 'key=value ...', value: params.getAll('tag').join(' '), size: 24 });
  const since = el('input', { name: 'since', placeholder: '2026-11-22 or 24h', value: params.get('since') || '', size: 14 });
  const until = el('input', { name: 'until', placeholder: 'RFC 3339 or 1h', value: params.get('until') || '', size: 14 });
  const apply = () => go({ tag: tagInput.value.split(/\s+/).filter(Boolean), since: since.value, until: until.value });
  for (const i of [tagInput, since, until]) i.addEventListener('keydown', e => { if (e.key === 'Enter') apply(); });
  main.append(el('h1', {}, 'Runs'),
    el('div', { class: 'filters' },
      el('label', {}, 'workload', select('workload', page.workloads)),
      el('label', {}, 'status', select('status', page.statuses)),
      el('label', {}, 'group', select('group', page.groups)),
      el('label', {}, 'tags', tagInput), el('label', {}, 'since', since), el('label', {}, 'until', until),
      el('button', { onclick: apply }, 'filter'),
      el('button', { onclick: () => { location.hash = '#/'; } }, 'clear')));
  for (const w of page.warnings || []) main.append(el('div', { class: 'warn' }, w));
  const group = params.get('group') || '';
  if (group.startsWith('job=')) {
    main.append(el('p', {}, el('a', { id: 'merged', href: '#/merge?tag=' + encodeURIComponent(group) },
      `the clients of ${group} merged, as stampede report --tag ${group}`)));
  }

  if (group.startsWith('sweep=')) {
    main.append(el('p', {}, el('a', { id: 'sweep-link', href: '#/sweep/' + encodeURIComponent(group.slice(6)) },
      `the sweep ${group.slice(6)} as curves: throughput against the swept value, latency against throughput`)));
  }

  const sort = page.sort;
  const selected = new Set();
  const compareBtn = el('button', { id: 'compare', disabled: true, onclick: () => {
    location.hash = '#/compare?' + [...selected].map(id => 'run=' + encodeURIComponent(id)).join('&');
  } }, 'compare selected');
  const head = el('tr', {}, el('th', {}, ''), runColumns.map(([key, label, cls]) => {
    const cur = sort === key ? 'sorted-asc' : sort === '-' + key ? 'sorted-desc' : '';
    return el('th', { class: `sortable ${cls || ''} ${cur}`, dataset: { sort: key },
      onclick: () => go({ sort: sort === '-' + key ? key : '-' + key }) }, label);
  }));
  const rows = page.runs.map(r => el('tr', { dataset: { run: r.id } },
    el('td', {}, el('input', { type: 'checkbox', 'aria-label': 'select ' + r.id, onchange: e => {
      if (e.target.checked) selected.add(r.id); else selected.delete(r.id);
      compareBtn.disabled = selected.size < 2;
    } })),
    runColumns.map(([key, , cls]) => {
      let v = r[key];
      if (key === 'id') v = el('a', { href: '#/run/' + encodeURIComponent(r.id) }, r.id);
      else if (key === 'status') v = el('span', { class: 'badge ' + r.status }, r.status);
      else if (key === 'start') v = fmtTime(r.start);
      else if (key.endsWith('_ms')) v = fmtMs(v);
      else if (key === 'ops_per_sec') v = fmtRate(v);
      else if (key === 'seconds') v = fmtSecs(v);
      return el('td', { class: cls || '', dataset: { field: key } }, v);
    })));
  const pages = Math.max(1, Math.ceil(page.total / page.per_page));
  main.append(el('table', { id: 'runs' }, el('thead', {}, head), el('tbody', {}, rows)),
    el('div', { class: 'pager' },
      el('button', { disabled: page.page <= 1, onclick: () => go({ page: page.page - 1 }) }, '< previous'),
      el('span', { id: 'pageinfo' }, `page ${page.page} of ${pages}, ${page.total} runs`),
      el('button', { disabled: page.page >= pages, onclick: () => go({ page: page.page + 1 }) }, 'next >'),
      compareBtn));
  ready('runs');
}

// ---- one run ----

const figureFields = [['count', 'ops'], ['errors', 'errors'], ['ops_per_sec', 'ops/s'], ['mean_ms', 'avg ms'], ['p50_ms', 'p50 ms'],
  ['p95_ms', 'p95 ms'], ['p99_ms', 'p99 ms'], ['p99_9_ms', 'p99.9 ms'], ['max_ms', 'max ms']];

// figuresTable is a report's figures: one row per operation and the total
// (__result), each cell with its exact value in data-value.
function figuresTable(id, rep) {
  const t = opsTable(id, 'operation', rep.ops, rep.total);
  const taken = (rep.taken || []).map(t => `${t.intervals} intervals from ${t.from_offset_s.toFixed(3)}s to ${t.to_offset_s.toFixed(3)}s (${t.seconds.toFixed(3)}s)`).join('; ');
  const extra = [];
  if (rep.reconnects !== undefined) extra.push(`reconnects: ${rep.reconnects}`);
  for (const [k, v] of Object.entries(rep.error_codes || {})) extra.push(`${k}: ${v}`);
  for (const [k, v] of Object.entries(rep.figures || {})) extra.push(`${k}: ${v}`);
  return el('div', {}, el('div', { class: 'muted', dataset: { window: rep.window } }, `${rep.window}: ${taken}`), t,
    extra.length ? el('div', { class: 'muted extra' }, extra.join(' · ')) : null,
    (rep.warnings || []).map(w => el('div', { class: 'warn' }, w)));
}

// opsTable is a table of figures per operation (and the total, when
// given, as __result), each cell with its exact value in data-value.
function opsTable(id, what, ops, total) {
  const fmt = (k, v) => k.endsWith('_ms') ? fmtMs(v) : k === 'ops_per_sec' ? fmtRate(v) : fmtInt(v);
  const row = (name, s, cls) => el('tr', { class: cls, dataset: { op: name } }, el('td', { class: 'l' }, name),
    figureFields.map(([k]) => el('td', { dataset: { field: k, value: s[k] } }, fmt(k, s[k]))));
  return el('table', { id, class: 'figures' },
    el('thead', {}, el('tr', {}, el('th', { class: 'l' }, what), figureFields.map(([, l]) => el('th', {}, l)))),
    el('tbody', {}, ops.map(o => row(o.name, o)), total ? row('__result', total, 'total') : null));
}

// auditsTable is a workload's audits (or consistency checks) as the run
// judged them: what is audited, the value measured, what is required and
// the result, one row each.
function auditsTable(id, audits, check) {
  const name = a => check ? `${a.clause} ${a.name}` : `${a.name}${a.clause ? ' (' + a.clause + ')' : ''}`;
  return el('table', { id, class: 'audits' },
    el('thead', {}, el('tr', {}, el('th', { class: 'l' }, check ? 'check' : 'audit'), el('th', { class: 'l' }, 'value'),
      el('th', { class: 'l' }, 'required'), el('th', { class: 'l' }, 'result'))),
    el('tbody', {}, audits.map(a => el('tr', { dataset: { audit: name(a) } },
      el('td', { class: 'l', dataset: { field: 'name' } }, name(a)), el('td', { class: 'l', dataset: { field: 'value' } }, a.value || ''),
      el('td', { class: 'l', dataset: { field: 'required' } }, a.required || ''),
      el('td', { class: 'l', dataset: { field: 'result' } }, el('span', { class: 'badge ' + a.result.toLowerCase() }, a.result))))));
}

// auditsSection is a report's audits and consistency checks, if any.
function auditsSection(rep) {
  const out = [];
  if (rep.audits && rep.audits.length) out.push(el('h2', {}, 'Audits (as the run judged them, over the whole run after the ramp)'), auditsTable('audits', rep.audits, false));
  if ((rep.checks && rep.checks.length) || rep.checks_error) {
    out.push(el('h2', {}, 'Consistency checks (after the run' + (rep.checks_run && rep.runs && rep.runs.length > 1 ? `, by ${rep.checks_run}, once for the benchmark` : '') + ')'));
    if (rep.checks && rep.checks.length) out.push(auditsTable('checks', rep.checks, true));
    if (rep.checks_error) out.push(el('div', { class: 'error', id: 'checks-error' }, 'the checks failed: ' + rep.checks_error));
  }
  return out;
}

function headerList(run) {
  const items = [['workload', `${run.workload} ${run.workload_version || ''}`], ['status', el('span', { class: 'badge ' + run.status }, run.status)],
    ['error', run.error], ['start', fmtTime(run.start)], ['ramp end', run.ramp_end ? fmtTime(run.ramp_end) : ''], ['end', fmtTime(run.end)],
    ['server', run.server_version], ['endpoints', (run.endpoints || []).join(', ')], ['database', run.database],
    ['host', run.host ? `${run.host.hostname} (${run.host.os}/${run.host.arch}, ${run.host.cpus} CPUs, ${((run.host.memory_bytes || 0) / 2 ** 30).toFixed(1)} GiB, kernel ${run.host.kernel || '?'})` : ''],
    ['stampede', run.stampede_version], ['seed', run.seed],
    ['tags', Object.entries(run.tags || {}).map(([k, v]) => `${k}=${v}`).join(' ')],
    ['limits', run.limits ? JSON.stringify(run.limits) : ''], ['telemetry', run.telemetry ? JSON.stringify(run.telemetry) : ''],
    ['command', el('code', {}, (run.command || []).join(' '))]];
  const dl = el('dl', { class: 'header', id: 'header' });
  for (const [k, v] of items) if (v !== '' && v !== undefined && v !== null) dl.append(el('dt', {}, k), el('dd', { dataset: { field: k } }, v));
  const flags = el('details', {}, el('summary', {}, 'flags'),
    el('table', {}, el('tbody', {}, Object.entries(run.flags || {}).map(([k, v]) => el('tr', {}, el('td', { class: 'l' }, k), el('td', { class: 'l' }, v))))));
  return [dl, flags];
}

// marksPlugin shades the ramp-up and marks the intervals with errors, read
// from the series s at every draw (a live view's grow).
function marksPlugin(s) {
  return { hooks: { drawClear: u => {
    const ctx = u.ctx, rampEnd = s.ramp_end_s;
    if (rampEnd > 0) {
      const x0 = u.valToPos(u.scales.x.min, 'x', true), x1 = u.valToPos(Math.min(rampEnd, u.scales.x.max), 'x', true);
      if (x1 > x0) { ctx.fillStyle = 'rgba(120, 120, 140, 0.15)'; ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height); }
    }
    ctx.fillStyle = 'rgba(197, 48, 48, 0.85)';
    for (const [from, to] of errorsAt(s)) {
      if (to < u.scales.x.min || from > u.scales.x.max) continue;
      const x0 = u.valToPos(from, 'x', true), x1 = u.valToPos(to, 'x', true);
      ctx.fillRect(x0, u.bbox.top, Math.max(2, x1 - x0), 6 * devicePixelRatio);
    }
  } } };
}

function chartWidth(box) { return Math.max(400, (box.clientWidth || 620) - 16); }

// logTicks labels a log axis's ticks with the fewest significant digits
// (at least as many as uPlot's own labels would show) that give distinct
// ticks distinct labels: 0.0009 and 0.001 are not both "0.001".
function logTicks(u, splits) {
  const fmt = (v, d) => {
    const n = Number(v.toPrecision(d));
    return Math.abs(n) >= 1000 ? n.toLocaleString('en-US') : String(n);
  };
  for (let d = 1; d <= 17; d++) {
    const labels = splits.map(v => v === null || v === undefined ? '' : fmt(v, d));
    const shown = labels.filter(l => l !== '');
    if (new Set(shown).size === shown.length) return labels;
  }
  return splits.map(v => String(v));
}
window.stampedeLogTicks = logTicks;

// makeChart draws a chart into a new panel and returns it.
function makeChart(box, title, data, series, opts) {
  const panel = el('div', { class: 'chart', dataset: { chart: title } }, el('h3', {}, title));
  box.append(panel);
  const cfg = Object.assign({
    width: chartWidth(panel), height: 260,
    cursor: { sync: { key: 'run' }, drag: { x: true, y: false } },
    scales: { x: { time: false } },
    axes: [{ label: 'seconds since start' }, { label: opts.yLabel, size: 60 }],
    series: [{ label: 's', value: (u, v) => v === null ? '' : v.toFixed(3) }, ...series],
  }, opts.uplot || {});
  // Every log-scale value axis labels its ticks apart.
  cfg.axes = cfg.axes.map((a, i) => i > 0 && cfg.scales[a.scale || 'y'] && cfg.scales[a.scale || 'y'].distr === 3 ? Object.assign({ values: logTicks }, a) : a);
  const u = new uPlot(cfg, data, panel);
  window.stampedeCharts.push(u);
  cleanup.push(() => u.destroy());
  return u;
}

const opsSeries = (name, color, extra) => Object.assign({ label: name, stroke: color, width: 1.5, spanGaps: false, value: (u, v) => v === null ? '' : fmtRate(v) }, extra);
const msSeries = (name, color, dash, extra) => Object.assign({ label: name, stroke: color, width: dash ? 1 : 1.5, dash, value: (u, v) => v === null ? '' : fmtMs(v) }, extra);

// chartsData turns the columns of /api/runs/ID/series into uPlot's data.
function throughputData(s) {
  const data = [s.to_s];
  for (const o of s.ops) data.push(o.ops_per_sec);
  const errs = s.to_s.map((_, i) => { let n = 0; for (const o of s.ops) n += o.errors[i]; return n > 0 ? n / (s.to_s[i] - s.from_s[i]) : null; });
  data.push(errs);
  return data;
}
function latencyData(s) {
  const data = [s.to_s];
  const nz = a => a.map(v => v > 0 ? v : null); // a log scale has no 0: an interval without operations has no latency
  for (const o of s.ops) data.push(nz(o.p50_ms), nz(o.p95_ms), nz(o.p99_ms), nz(o.max_ms));
  return data;
}
function errorsAt(s) {
  const out = [];
  s.to_s.forEach((to, i) => { if (s.ops.some(o => o.errors[i] > 0)) out.push([s.from_s[i], to]); });
  return out;
}

function drawRunCharts(box, s, onSelect, what) {
  what = what || '';
  const marks = marksPlugin(s);
  const select = { hooks: { setSelect: [u => {
    if (u.select.width < 2) return;
    const from = u.posToVal(u.select.left, 'x'), to = u.posToVal(u.select.left + u.select.width, 'x');
    onSelect(Math.max(0, from), to);
  }] } };
  const tp = makeChart(box, `throughput${what} (ops/s per interval; errors/s in red)`, throughputData(s),
    [...s.ops.map((o, i) => opsSeries(o.name, palette[i % palette.length])),
      { label: 'errors/s', stroke: '#c53030', width: 0, points: { show: true, size: 7, fill: '#c53030' }, value: (u, v) => v === null ? '' : fmtRate(v) }],
    { yLabel: 'ops/s', uplot: { plugins: [marks, select] } });
  const lat = makeChart(box, `latency${what} per interval (ms, log scale): p50 dotted, p95 dashed, p99 solid, max thin`, latencyData(s),
    s.ops.flatMap((o, i) => {
      const c = palette[i % palette.length];
      return [msSeries(o.name + ' p50', c, [2, 3]), msSeries(o.name + ' p95', c, [6, 3]), msSeries(o.name + ' p99', c), msSeries(o.name + ' max', c, [1, 1], { width: 0.7, show: s.ops.length <= 4 })];
    }),
    { yLabel: 'ms', uplot: { scales: { x: { time: false }, y: { distr: 3 } }, plugins: [marksPlugin(s), select] } });
  return [tp, lat];
}

// workloadUnits shows a workload series' unit: bytes as MB (10^6, as the
// run's figures print them), the rest as they are.
const workloadUnits = { 'bytes': ['MB', 1e6], 'bytes/s': ['MB/s', 1e6] };

// drawWorkloadSeries draws the workload's own series over the run (from
// its run log's records: churn's database size, tables alive, rows/s and
// bytes/s), one chart each, first among the telemetry's.
function drawWorkloadSeries(charts, ws, workload) {
  window.stampedeWorkloadCharts = {};
  ws.forEach((w, i) => {
    const [unit, div] = workloadUnits[w.unit] || [w.unit, 1];
    const title = w.name.replace(/_per_s$/, '/s').replace(/_bytes$/, '').replace(/_/g, ' ');
    const u = makeChart(charts, `${workload}: ${title} (${unit}, from the run's records)`, [w.at_s, w.values.map(v => v / div)],
      [{ label: w.name, stroke: palette[i % palette.length], width: 1.5, points: { show: true }, value: (u, v) => v === null || v === undefined ? '' : div === 1 && unit === 'tables' ? String(v) : v.toFixed(div === 1 ? 1 : 3) }],
      { yLabel: unit });
    u.root.parentElement.dataset.series = w.name;
    window.stampedeWorkloadCharts[w.name] = u;
  });
}

function drawTelemetry(box, t, ws, workload) {
  ws = ws || [];
  if (!t.cpu && !t.disks.length && !t.procs.length && !t.cgroup && !ws.length) return;
  box.append(el('h2', {}, 'Telemetry'));
  const charts = el('div', { class: 'charts', id: 'telemetry' });
  box.append(charts);
  drawWorkloadSeries(charts, ws, workload);
  if (t.cpu) makeChart(charts, 'host CPU (% of all CPUs)', [t.cpu.to_s, t.cpu.user_pct, t.cpu.system_pct, t.cpu.iowait_pct, t.cpu.steal_pct],
    [opsSeries('user', palette[0]), opsSeries('system', palette[1]), opsSeries('iowait', palette[2]), opsSeries('steal', palette[3])], { yLabel: '%' });
  const mib = a => a.map(v => v / 2 ** 20);
  if (t.memory && t.memory.to_s) makeChart(charts, 'host memory (MiB, as free: used, buff/cache, swap used)', [t.memory.to_s, mib(t.memory.used_bytes), mib(t.memory.cache_bytes), mib(t.memory.swap_used_bytes)],
    [opsSeries('used', palette[0]), opsSeries('buff/cache', palette[1]), opsSeries('swap used', palette[2])], { yLabel: 'MiB' });
  const g = t.cgroup;
  if (g) {
    makeChart(charts, 'cgroup of the limits: CPU (cores used, cores waiting when throttled) and throttled periods (%)', [g.to_s, g.cpu_cores, g.throttled_cores, g.throttled_pct],
      [opsSeries('cores used', palette[0]), opsSeries('cores throttled', palette[1]), opsSeries('throttled %', palette[2], { scale: 'pct' })],
      { yLabel: 'cores', uplot: { axes: [{ label: 'seconds since start' }, { label: 'cores', size: 60 }, { scale: 'pct', side: 1, label: '%', grid: { show: false } }] } });
    makeChart(charts, 'cgroup of the limits: memory (MiB; limit dashed; OOM kills and failcnt per sample on the right)', [g.to_s, mib(g.memory_bytes), mib(g.memory_limit_bytes).map(v => v > 2 ** 40 ? null : v), g.oom_kills, g.memory_failcnt],
      [opsSeries('memory', palette[0]), opsSeries('limit', palette[0], { dash: [6, 3] }), opsSeries('OOM kills', palette[8], { scale: 'n' }), opsSeries('failcnt', palette[1], { scale: 'n' })],
      { yLabel: 'MiB', uplot: { axes: [{ label: 'seconds since start' }, { label: 'MiB', size: 60 }, { scale: 'n', side: 1, label: 'events', grid: { show: false } }] } });
    makeChart(charts, 'cgroup of the limits: block IO (kB/s)', [g.to_s, g.read_bytes_s.map(v => v / 1024), g.write_bytes_s.map(v => v / 1024)],
      [opsSeries('read kB/s', palette[0]), opsSeries('write kB/s', palette[1])], { yLabel: 'kB/s' });
  }
  for (const d of t.disks) makeChart(charts, `disk ${d.name} (kB/s, as iostat -x)`, [d.to_s, d.rkB_s, d.wkB_s],
    [opsSeries('rkB/s', palette[0]), opsSeries('wkB/s', palette[1])], { yLabel: 'kB/s' });
  for (const p of t.procs) makeChart(charts, `processes ${p.name} (dirtied: pidstat -d's kB_wr/s, the bytes the processes dirtied as the kernel charges them, whole page-cache folios; the disk's wkB/s is what reached storage)`, [p.to_s, p.cpu_cores, p.read_bytes_s.map(v => v / 1024), p.write_bytes_s.map(v => v / 1024)],
    [opsSeries('CPU cores', palette[0], { scale: 'cores' }), opsSeries('read kB/s', palette[1]), opsSeries('dirtied kB/s (pidstat kB_wr/s)', palette[2])],
    { yLabel: 'kB/s', uplot: { axes: [{ label: 'seconds since start' }, { label: 'kB/s', size: 60 }, { scale: 'cores', side: 1, label: 'cores', grid: { show: false } }] } });
  for (const p of t.procs) if (p.rss_bytes) makeChart(charts, `processes ${p.name}: memory (RSS, MiB) and count`, [p.to_s, mib(p.rss_bytes), p.processes],
    [opsSeries('RSS MiB', palette[0]), opsSeries('processes', palette[1], { scale: 'n' })],
    { yLabel: 'MiB', uplot: { axes: [{ label: 'seconds since start' }, { label: 'MiB', size: 60 }, { scale: 'n', side: 1, label: 'processes', grid: { show: false } }] } });
}

async function showRun(id) {
  const enc = encodeURIComponent(id);
  // The series are asked for at once, with the rest (a live run's come
  // from its stream instead).
  const seriesReq = api(`/api/runs/${enc}/series`);
  seriesReq.catch(() => {});
  const [doc, tel] = await Promise.all([api(`/api/runs/${enc}`), api(`/api/runs/${enc}/telemetry`), chartsLib()]);
  const run = doc.run;
  main.append(el('h1', {}, `${run.id} `, el('span', { class: 'badge ' + run.status, id: 'run-status' }, run.status)));
  main.append(...headerList(run));
  const dl = saved ? el('div', { class: 'muted downloads' }, `downloads (HDR interval log, summary.json, series CSV): from stampede serve, or in the run directory ${run.dir}`) : el('div', { class: 'downloads' }, 'downloads: ',
    el('a', { href: `/api/runs/${enc}/files/intervals.hlog`, download: true }, 'HDR interval log'),
    run.status !== 'running' ? el('a', { href: `/api/runs/${enc}/files/summary.json`, download: true }, 'summary.json') : null,
    el('a', { href: `/api/runs/${enc}/files/series.csv`, download: true }, 'series CSV'));
  main.append(dl);
  main.append(el('h2', {}, 'Figures (as stampede report)'));
  const figs = el('div', { id: 'report' });
  if (doc.report) figs.append(figuresTable('figures', doc.report));
  else figs.append(el('div', { class: doc.report_error ? 'warn' : 'muted', id: 'report-error' }, doc.report_error || 'no figures yet'));
  main.append(figs);
  if (doc.report && doc.report.endpoints && doc.report.endpoints.length) {
    main.append(el('h2', {}, 'Per endpoint (as stampede report --by-endpoint)'), opsTable('endpoint-figures', 'operation@endpoint', doc.report.endpoints));
  }
  if (doc.report) main.append(...auditsSection(doc.report));
  const win = el('div', { id: 'window', class: 'window', hidden: true });
  main.append(win);
  main.append(el('h2', {}, 'Over time'));
  const charts = el('div', { class: 'charts', id: 'charts' });
  main.append(charts);

  if (run.status === 'running' && !saved) {
    await followLive(id, charts);
  } else {
    const s = await seriesReq;
    for (const w of s.warnings || []) charts.before(el('div', { class: 'warn' }, w));
    let seq = 0;
    // runCharts are the charts of the operations over time, and per
    // endpoint when the run has them: a zoom zooms them all.
    const runCharts = [];
    const zoom = async (from, to) => {
      const mine = ++seq;
      win.hidden = false;
      // Every chart of the operations zooms to the window, the one
      // dragged across (uPlot zoomed it) and the others.
      for (const u of runCharts) if (u.scales.x.min !== from || u.scales.x.max !== to) u.setScale('x', { min: from, max: to });
      if (saved) {
        // The window's figures are recomputed from the histograms, which
        // this file does not hold.
        const qfrom = from.toFixed(3) + 's', qto = to.toFixed(3) + 's';
        win.dataset.qfrom = qfrom; win.dataset.qto = qto;
        win.replaceChildren(el('h2', {}, `Window ${from.toFixed(3)}s to ${to.toFixed(3)}s`),
          el('p', { id: 'window-note' }, 'The charts are zoomed to this window. Its figures are recomputed from the histograms, which this file does not hold: stampede serve recomputes them when you zoom, or run ',
            el('code', {}, `stampede report ${id} --from ${qfrom} --to ${qto}`)),
          el('button', { onclick: () => { for (const u of runCharts) u.setScale('x', { min: s.to_s[0], max: s.to_s[s.to_s.length - 1] }); win.hidden = true; } }, 'reset zoom'));
        document.body.dataset.window = `${from}-${to}`;
        return;
      }
      win.replaceChildren(el('h2', {}, `Window ${from.toFixed(3)}s to ${to.toFixed(3)}s (recomputed from the histograms, as report --from --to)`),
        el('div', { class: 'muted' }, 'computing...'));
      try {
        const qfrom = from.toFixed(6) + 's', qto = to.toFixed(6) + 's';
        win.dataset.qfrom = qfrom; win.dataset.qto = qto;
        const rep = await api(`/api/runs/${enc}/window?from=${qfrom}&to=${qto}`);
        if (mine !== seq) return;
        win.replaceChildren(win.firstChild, figuresTable('window-figures', rep),
          el('button', { onclick: () => { for (const u of window.stampedeCharts) u.setScale('x', { min: s.to_s[0], max: s.to_s[s.to_s.length - 1] }); win.hidden = true; } }, 'reset zoom'));
        win.dataset.from = from; win.dataset.to = to;
        document.body.dataset.window = `${from}-${to}`;
      } catch (err) {
        if (mine !== seq) return;
        win.replaceChildren(win.firstChild);
        showError(err, win);
        document.body.dataset.window = 'error';
      }
    };
    window.stampedeZoom = (from, to) => {
      for (const u of runCharts) u.setScale('x', { min: from, max: to });
      return zoom(from, to);
    };
    if (s.to_s.length) runCharts.push(...drawRunCharts(charts, s, zoom));
    else charts.append(el('div', { class: 'muted' }, 'no complete interval'));
    if (s.to_s.length && s.endpoints && s.endpoints.length) {
      const eps = el('div', { class: 'charts', id: 'endpoint-charts' });
      charts.after(el('h2', {}, 'Over time, per endpoint'), eps);
      runCharts.push(...drawRunCharts(eps, Object.assign({}, s, { ops: s.endpoints }), zoom, ' per endpoint'));
    }
  }
  drawTelemetry(main, tel, doc.report && (doc.report.workload_series || []).filter(w => w.run === run.id), run.workload);
  ready('run');
}

// followLive draws a running run from its live stream: every interval as
// it is committed, then the batch view when the run ends.
function followLive(id, charts) {
  const enc = encodeURIComponent(id);
  const s = { to_s: [], from_s: [], ramp_end_s: 0, ops: [] };
  let tp = null, lat = null;
  const status = document.getElementById('run-status');
  status.textContent = 'running (live)';
  const es = new EventSource(`/api/runs/${enc}/live`);
  cleanup.push(() => es.close());
  let count = 0;
  es.addEventListener('interval', e => {
    const iv = JSON.parse(e.data);
    s.from_s.push(iv.from_s); s.to_s.push(iv.to_s);
    for (const p of iv.ops) {
      let o = s.ops.find(x => x.name === p.name);
      if (!o) {
        o = { name: p.name, count: [], errors: [], ops_per_sec: [], p50_ms: [], p95_ms: [], p99_ms: [], max_ms: [] };
        for (let i = 0; i < s.to_s.length - 1; i++) for (const k of ['count', 'errors', 'ops_per_sec', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms']) o[k].push(null);
        s.ops.push(o);
        if (tp) { tp.destroy(); lat.destroy(); tp = lat = null; charts.replaceChildren(); window.stampedeCharts = []; }
      }
      for (const k of ['count', 'errors', 'ops_per_sec', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms']) o[k].push(p[k]);
    }
    for (const o of s.ops) for (const k of ['count', 'errors', 'ops_per_sec', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms']) while (o[k].length < s.to_s.length) o[k].push(null);
    if (!tp) [tp, lat] = drawRunCharts(charts, s, () => {});
    else { tp.setData(throughputData(s)); lat.setData(latencyData(s)); }
    count++;
    document.body.dataset.live = String(count);
    setStatus(`live: ${count} intervals, last at ${iv.to_s.toFixed(1)}s`);
  });
  es.addEventListener('end', e => {
    es.close();
    const end = JSON.parse(e.data);
    setStatus(`the run ended: ${end.status}${end.error ? ' (' + end.error + ')' : ''}`);
    document.body.dataset.liveEnd = end.status;
    route(); // the batch view, recomputed from the run directory
  });
  for (const name of ['gone', 'damaged']) {
    es.addEventListener(name, e => {
      es.close();
      showError(new Error(JSON.parse(e.data).error), charts);
      document.body.dataset.liveEnd = name;
    });
  }
}

// ---- a job's clients merged ----

async function showMerge(params) {
  const doc = await api('/api/merge?' + params.toString());
  const tags = params.getAll('tag').join(' ');
  main.append(el('h1', {}, `Merged: ${tags}`),
    el('p', { class: 'muted' }, `${doc.clients.length} runs merged as stampede report --tag ${tags} merges them`));
  main.append(figuresTable('figures', doc.report));
  main.append(...auditsSection(doc.report));
  main.append(el('h2', {}, 'Each client'));
  main.append(el('table', { id: 'clients' },
    el('thead', {}, el('tr', {}, el('th', { class: 'l' }, 'run'), el('th', {}, 'ops'), el('th', {}, 'errors'), el('th', {}, 'ops/s'),
      el('th', {}, 'p50 ms'), el('th', {}, 'p99 ms'), el('th', {}, 'share of the operations'))),
    el('tbody', {}, doc.clients.map(c => el('tr', { dataset: { run: c.id } },
      el('td', { class: 'l' }, el('a', { href: '#/run/' + encodeURIComponent(c.id) }, c.id), c.error ? el('div', { class: 'warn' }, c.error) : null),
      el('td', {}, fmtInt(c.total.count)), el('td', {}, fmtInt(c.total.errors)), el('td', {}, fmtRate(c.total.ops_per_sec)),
      el('td', {}, fmtMs(c.total.p50_ms)), el('td', {}, fmtMs(c.total.p99_ms)),
      el('td', { dataset: { field: 'share', value: c.share } }, (100 * c.share).toFixed(1) + '%'))))));
  ready('merge');
}

// ---- a sweep ----

// noneAxis is a swept value's axis with none (a limit's step without the
// limit) at its right end, at (the server's none_at), labelled none, and
// no tick of a number past the highest value; {} without none.
const noneAxis = at => !at ? {} : {
  splits: (u, i, min, max, incr) => {
    const out = [];
    for (let v = Math.ceil(min / incr) * incr; v <= max && v < at * 0.9; v += incr) out.push(+v.toPrecision(12));
    return [...out, at];
  },
  values: (u, splits) => splits.map(v => v === at ? 'none' : uPlot.fmtNum(v)),
};

// showSweep draws a sweep's steps as curves: throughput against the swept
// value, latency against throughput, with the SLO's latency bound and the
// answer (the highest value that met it; under a limit flag such as
// --cpus, the lowest) marked, and the sweep's table.
async function showSweep(id) {
  const [doc] = await Promise.all([api(`/api/sweeps/${encodeURIComponent(id)}`), chartsLib()]);
  if (doc.param2) return showSweepGrid(doc);
  const flag = '--' + doc.param;
  main.append(el('h1', {}, `Sweep ${doc.id}`),
    el('p', { class: 'muted' }, `${doc.steps.length} steps over ${flag}${doc.search ? ' (a search)' : ''}${doc.slo ? ', SLO ' + doc.slo : ', no SLO'}`),
    el('pre', { id: 'conclusion' }, doc.conclusion));
  // With --repeat, the curves are each value's medians over its runs
  // (what the sweep judged); the answer is the value of its point.
  const pointOf = n => (doc.points || []).find(p => p.runs.includes(n));
  const byN = Object.fromEntries(doc.steps.map(s => [s.step, doc.points ? pointOf(s.step) : s]));
  const best = byN[doc.best], miss = byN[doc.miss], peak = byN[doc.peak];
  const done = doc.points ? doc.points.filter(p => p.completed > 0) : doc.steps.filter(s => s.total && s.total.count > 0);
  const charts = el('div', { class: 'charts', id: 'charts' });
  main.append(charts);
  const verdictColor = s => !s.judged ? palette[7] : s.met ? '#38a169' : '#c53030';
  // marks draws vertical lines at x values, labelled.
  const vlines = lines => ({ hooks: { draw: u => {
    const ctx = u.ctx;
    for (const [i, [x, color, text]] of lines.entries()) {
      if (x === undefined || x < u.scales.x.min || x > u.scales.x.max) continue;
      const px = u.valToPos(x, 'x', true);
      ctx.save(); ctx.strokeStyle = color; ctx.setLineDash([5, 4]); ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.beginPath(); ctx.moveTo(px, u.bbox.top); ctx.lineTo(px, u.bbox.top + u.bbox.height); ctx.stroke();
      // Each label on a line of its own, left of its line when it
      // would leave the plot on the right.
      ctx.fillStyle = color; ctx.font = `${11 * devicePixelRatio}px sans-serif`; ctx.textBaseline = 'top';
      const right = px + ctx.measureText(text).width + 8 * devicePixelRatio > u.bbox.left + u.bbox.width;
      ctx.textAlign = right ? 'right' : 'left';
      ctx.fillText(text, px + (right ? -4 : 4) * devicePixelRatio, u.bbox.top + (4 + 14 * i) * devicePixelRatio);
      ctx.restore();
    }
  } } });
  // Each value at its x: the number, or none (no limit) at the axis's
  // right end (doc.none_at), as the server orders them.
  const answerLines = [];
  if (best) answerLines.push([best.x, '#38a169', `met: ${best.value_text}`]);
  if (miss) answerLines.push([miss.x, '#c53030', `missed: ${miss.value_text}`]);
  if (!doc.slo && peak) answerLines.push([peak.x, palette[0], `peak: ${peak.value_text}`]);

  // Throughput against the swept value.
  const byValue = [...done].sort((a, b) => a.x - b.x);
  const xs = byValue.map(s => s.x);
  const textAt = Object.fromEntries(byValue.map(s => [s.x, s.value_text]));
  const ptsOnly = pred => byValue.map(s => pred(s) ? s.total.ops_per_sec : null);
  const tpSeries = [
    { label: flag, value: (u, v) => v === null ? '' : textAt[v] ?? String(v) },
    opsSeries('ops/s', palette[0]),
    { label: 'met', stroke: '#38a169', width: 0, points: { show: true, size: 10, fill: '#38a169' }, value: (u, v) => v === null ? '' : fmtRate(v) },
    { label: 'missed', stroke: '#c53030', width: 0, points: { show: true, size: 10, fill: '#c53030' }, value: (u, v) => v === null ? '' : fmtRate(v) },
  ];
  const tpData = [xs, byValue.map(s => s.total.ops_per_sec), ptsOnly(s => s.judged && s.met), ptsOnly(s => s.judged && !s.met)];
  if (doc.param === 'max-rate') {
    tpSeries.push(opsSeries('scheduled', palette[7], { dash: [4, 4], width: 1 }));
    tpData.push(xs);
  }
  makeChart(charts, `throughput against ${flag}`, tpData, [], { yLabel: 'ops/s', uplot: {
    cursor: { drag: { x: true, y: false } }, series: tpSeries, plugins: [vlines(answerLines)],
    axes: [Object.assign({ label: flag }, noneAxis(doc.none_at)), { label: 'ops/s', size: 70 }] } });

  // Latency against throughput, the SLO's bound as a line.
  const byRate = [...done].sort((a, b) => a.total.ops_per_sec - b.total.ops_per_sec);
  const rx = byRate.map(s => s.total.ops_per_sec);
  const pos = v => v > 0 ? v : null;
  const latSeries = [{ label: 'ops/s', value: (u, v) => v === null ? '' : fmtRate(v) },
    msSeries('p50', palette[0], [2, 3]), msSeries('p95', palette[1], [6, 3]), msSeries('p99', palette[2]), msSeries('p99.9', palette[3], [1, 1])];
  const latData = [rx, byRate.map(s => pos(s.total.p50_ms)), byRate.map(s => pos(s.total.p95_ms)), byRate.map(s => pos(s.total.p99_ms)), byRate.map(s => pos(s.total.p99_9_ms))];
  for (const [m, limit] of Object.entries(doc.slo_latency_ms || {})) {
    latSeries.push(msSeries(`SLO ${m} <= ${fmtMs(limit)} ms`, '#c53030', [8, 4], { width: 2 }));
    latData.push(rx.map(() => limit));
  }
  const lines = [];
  if (best) lines.push([best.total.ops_per_sec, '#38a169', `answer: ${flag} ${best.value_text}`]);
  if (!doc.slo && peak) lines.push([peak.total.ops_per_sec, palette[0], `peak: ${flag} ${peak.value_text}`]);
  makeChart(charts, `latency against throughput (ms, log scale), ${doc.points ? 'each value a point: the median of its completed runs' : 'each step a point'}`, latData, [], { yLabel: 'ms', uplot: {
    scales: { x: { time: false }, y: { distr: 3 } }, cursor: { drag: { x: true, y: false } }, series: latSeries.map(x => Object.assign({ points: { show: true } }, x)),
    plugins: [vlines(lines)], axes: [{ label: doc.points ? 'ops/s (each value\'s median throughput)' : 'ops/s (each step\'s throughput)' }, { label: 'ms', size: 60 }] } });

  // The workload's figures (tpmC, efficiency(%)): a column each, keyed
  // by the name before the unit, "-" where a step has none.
  const figures = (doc.figures || []).map(h => [h.split('(')[0], h]);
  const figureCells = f => figures.map(([k]) => el('td', { dataset: { field: 'figure', figure: k, value: f && f[k] !== undefined ? f[k] : '' } },
    f && f[k] !== undefined ? f[k].toFixed(1) : '-'));

  // With --repeat: the values' medians, as stampede sweep prints them.
  if (doc.points) {
    main.append(el('h2', {}, 'Medians over each value\'s runs (spread: lowest-highest)'));
    main.append(el('table', { id: 'points' },
      el('thead', {}, el('tr', {}, [flag, 'runs', 'ops/s', 'ops/s spread', 'p50 ms', 'p99 ms', 'p99 spread', ...figures.map(f => f[1]), 'met in'].map(h => el('th', {}, h)), el('th', { class: 'l' }, 'SLO'))),
      el('tbody', {}, doc.points.map(p => el('tr', { dataset: { value: p.value } },
        el('td', { dataset: { field: 'value' } }, p.value_text), el('td', { dataset: { field: 'runs' } }, p.completed + (p.interrupted ? ` (+${p.interrupted.length} interrupted)` : '')),
        el('td', { dataset: { field: 'ops_per_sec', value: p.total.ops_per_sec } }, fmtRate(p.total.ops_per_sec)),
        el('td', { dataset: { field: 'ops_spread' } }, `${fmtRate(p.ops_per_sec_min)}-${fmtRate(p.ops_per_sec_max)}`),
        el('td', { dataset: { field: 'p50_ms', value: p.total.p50_ms } }, fmtMs(p.total.p50_ms)),
        el('td', { dataset: { field: 'p99_ms', value: p.total.p99_ms } }, fmtMs(p.total.p99_ms)),
        el('td', { dataset: { field: 'p99_spread' } }, `${fmtMs(p.p99_ms_min)}-${fmtMs(p.p99_ms_max)}`),
        figureCells(p.figures),
        el('td', { dataset: { field: 'met_in' } }, doc.slo ? `${p.met_runs}/${p.completed}` : '-'),
        el('td', { class: 'l', dataset: { field: 'slo' }, style: `color: ${verdictColor(p)}` }, !p.judged ? (p.why || '-') : p.met ? 'met' : 'missed: ' + p.why))))));
  }

  // The sweep's table, with the telemetry's columns when it ran.
  const telHead = doc.telemetry ? ['cpu%', 'disk MB/s', 'watched cores'] : [];
  const telCells = t => !doc.telemetry ? [] : !t ? [el('td', {}, '-'), el('td', {}, '-'), el('td', {}, '-')] : [
    el('td', { dataset: { field: 'cpu_pct', value: t.cpu_pct } }, t.cpu_pct.toFixed(1)),
    el('td', { dataset: { field: 'disk_mb_s', value: t.disk_mb_s } }, t.disk_mb_s.toFixed(1)),
    el('td', { class: 'l', dataset: { field: 'watched', value: (t.watched || []).map(w => w.cores).join(',') } },
      t.watched ? t.watched.map(w => `${w.name} ${w.cores.toFixed(2)}`).join(', ') : '-')];
  main.append(el('h2', {}, 'Steps (as stampede sweep)'));
  main.append(el('table', { id: 'steps' },
    el('thead', {}, el('tr', {}, ['step', 'rep', flag, 'workers', 'ops/s', 'p50 ms', 'p95 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'errors', ...figures.map(f => f[1]), ...telHead].map(h => el('th', {}, h)), el('th', { class: 'l' }, 'run'), el('th', { class: 'l' }, 'SLO'), noteHead(doc))),
    el('tbody', {}, doc.steps.map(s => el('tr', { dataset: { step: s.step }, class: (best && best.runs ? best.runs.includes(s.step) : s.step === doc.best) ? 'total' : '' },
      el('td', {}, s.step), el('td', {}, s.rep), el('td', { dataset: { field: 'value', value: s.value } }, s.value_text), el('td', {}, s.workers), el('td', { dataset: { field: 'ops_per_sec', value: s.total.ops_per_sec } }, fmtRate(s.total.ops_per_sec)),
      ['p50_ms', 'p95_ms', 'p99_ms', 'p99_9_ms', 'max_ms'].map(k => el('td', { dataset: { field: k, value: s.total[k] } }, fmtMs(s.total[k]))),
      el('td', {}, s.total.errors),
      figureCells(s.figures), telCells(s.telemetry),
      el('td', { class: 'l' }, el('a', { href: '#/run/' + encodeURIComponent(s.run) }, s.run)),
      el('td', { class: 'l', dataset: { field: 'slo' }, style: `color: ${verdictColor(s)}` }, !s.judged ? (s.status === 'completed' ? (s.why || '-') : s.status) : s.met ? 'met' : 'missed: ' + s.why),
      noteCell(doc, s))))));
  ready('sweep');
}

// The figures a grid's table and chart can show: each cell's median over
// its runs.
const gridFigures = [['ops_per_sec', 'ops/s', fmtRate], ['p50_ms', 'p50 ms', fmtMs], ['p95_ms', 'p95 ms', fmtMs],
  ['p99_ms', 'p99 ms', fmtMs], ['p99_9_ms', 'p99.9 ms', fmtMs], ['max_ms', 'max ms', fmtMs], ['errors', 'errors', String]];

// showSweepGrid shows a sweep of two flags (a grid): a table with the
// first flag's values down and the second's across, the chosen figure (a
// cell's median over its runs) in each cell, coloured by the SLO's
// verdict; a chart of that figure against the second flag, a line per
// value of the first; and the steps as stampede sweep printed them.
function showSweepGrid(doc) {
  const flag = '--' + doc.param, flag2 = '--' + doc.param2;
  main.append(el('h1', {}, `Sweep ${doc.id}`),
    el('p', { class: 'muted' }, `${doc.steps.length} steps over ${flag} and ${flag2} (a grid)${doc.slo ? ', SLO ' + doc.slo : ', no SLO'}`),
    el('pre', { id: 'conclusion' }, doc.conclusion));
  // The cells come in the sweep's order (none, no limit, after every
  // number); the columns are ordered by their place on the axis (x2).
  const rows = [...new Set(doc.cells.map(c => c.value))];
  const cols = [...new Set([...doc.cells].sort((a, b) => a.x2 - b.x2).map(c => c.value2))];
  const cell = (v, w) => doc.cells.find(c => c.value === v && c.value2 === w);
  const text = v => doc.cells.find(c => c.value === v).value_text, text2 = w => doc.cells.find(c => c.value2 === w).value2_text;
  const x2 = w => doc.cells.find(c => c.value2 === w).x2;
  const verdictColor = c => !c || !c.judged ? '' : c.met ? 'color: #38a169' : 'color: #c53030';
  const select = el('select', { id: 'grid-figure' }, gridFigures.map(([k, label]) => el('option', { value: k }, label)));
  const box = el('div', {});
  main.append(el('h2', {}, 'Grid (each cell the median of its runs)'), el('p', {}, 'figure: ', select), box);
  const charts = el('div', { class: 'charts', id: 'charts' });
  main.append(charts);
  const draw = () => {
    const [key, label, fmt] = gridFigures.find(f => f[0] === select.value);
    box.replaceChildren(el('table', { id: 'grid', dataset: { figure: key } },
      el('thead', {}, el('tr', {}, el('th', {}, `${flag} \\ ${flag2}`), cols.map(w => el('th', { dataset: { value2: w } }, text2(w))))),
      el('tbody', {}, rows.map(v => el('tr', { dataset: { value: v } }, el('th', {}, text(v)), cols.map(w => {
        const c = cell(v, w);
        if (!c) return el('td', { dataset: { value2: w } }, '-');
        const x = c.total[key];
        return el('td', { dataset: { value2: w, field: key, number: x, runs: c.runs.join(',') }, style: verdictColor(c),
          title: `${flag} ${text(v)}, ${flag2} ${text2(w)}: ${c.runs.length} run(s), steps ${c.runs.join(', ')}${c.judged ? (c.met ? ', met the SLO' : ', missed: ' + c.why) : ''}` }, fmt(x));
      }))))));
    for (const u of window.stampedeCharts) u.destroy();
    window.stampedeCharts = [];
    charts.replaceChildren();
    const series = rows.map((v, i) => Object.assign({ label: `${flag} ${text(v)}`, stroke: palette[i % palette.length], width: 1.5, points: { show: true },
      value: (u, x) => x === null || x === undefined ? '' : fmt(x) }));
    const xs = cols.map(x2), textAt = Object.fromEntries(cols.map(w => [x2(w), text2(w)]));
    const data = [xs, ...rows.map(v => cols.map(w => { const c = cell(v, w); return c ? c.total[key] : null; }))];
    makeChart(charts, `${label} against ${flag2}, a line per ${flag}`, data, [], { yLabel: label, uplot: {
      series: [{ label: flag2, value: (u, x) => x === null ? '' : textAt[x] ?? String(x) }, ...series],
      axes: [Object.assign({ label: flag2 }, noneAxis(doc.none_at2)), { label, size: 70 }] } });
  };
  select.addEventListener('change', () => { draw(); ready('sweep-grid-' + select.value); });
  draw();

  main.append(el('h2', {}, 'Steps (as stampede sweep)'));
  main.append(el('table', { id: 'steps' },
    el('thead', {}, el('tr', {}, ['step', 'rep', flag, flag2, 'workers', 'ops/s', 'p50 ms', 'p95 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'errors'].map(h => el('th', {}, h)), el('th', { class: 'l' }, 'run'), el('th', { class: 'l' }, 'SLO'), noteHead(doc))),
    el('tbody', {}, doc.steps.map(s => el('tr', { dataset: { step: s.step } },
      el('td', {}, s.step), el('td', {}, s.rep), el('td', { dataset: { field: 'value' } }, s.value_text), el('td', { dataset: { field: 'value2' } }, s.value2_text), el('td', {}, s.workers),
      el('td', { dataset: { field: 'ops_per_sec', value: s.total.ops_per_sec } }, fmtRate(s.total.ops_per_sec)),
      ['p50_ms', 'p95_ms', 'p99_ms', 'p99_9_ms', 'max_ms'].map(k => el('td', { dataset: { field: k, value: s.total[k] } }, fmtMs(s.total[k]))),
      el('td', {}, s.total.errors),
      el('td', { class: 'l' }, el('a', { href: '#/run/' + encodeURIComponent(s.run) }, s.run)),
      el('td', { class: 'l', dataset: { field: 'slo' } }, !s.judged ? (s.status === 'completed' ? (s.why || '-') : s.status) : s.met ? 'met' : 'missed: ' + s.why),
      noteCell(doc, s))))));
  ready('sweep');
}

// A sweep's note column, when a step ran under a CPU limit: where the
// limit never bound, the step says so (as stampede sweep's note column).
function noteHead(doc) {
  return doc.notes ? el('th', { class: 'l' }, 'note') : [];
}
function noteCell(doc, s) {
  return doc.notes ? el('td', { class: 'l', dataset: { field: 'note' } }, s.limit_note || '-') : [];
}

// ---- compare ----

async function showCompare(ids) {
  if (ids.length < 2) throw new Error('select two runs or more to compare them');
  const q = ids.map(id => 'run=' + encodeURIComponent(id)).join('&');
  const all = await Promise.all([api('/api/compare?' + q), ...ids.map(id => api(`/api/runs/${encodeURIComponent(id)}/series`)), chartsLib()]);
  const cmp = all[0], series = all.slice(1, 1 + ids.length);
  main.append(el('h1', {}, `Compare ${ids.length} runs`));
  const label = i => String.fromCharCode(65 + i);
  main.append(el('ul', {}, ids.map((id, i) => el('li', {}, `${label(i)}: `, el('a', { href: '#/run/' + encodeURIComponent(id) }, id)))));
  const charts = el('div', { class: 'charts', id: 'charts' });
  main.append(charts);
  // Each run timed from its own start, joined on one x axis.
  const tpData = uPlot.join(series.map(s => [s.to_s, ...s.ops.map(o => o.ops_per_sec)]));
  const tpSeries = series.flatMap((s, r) => s.ops.map((o, i) => opsSeries(`${label(r)} ${o.name}`, palette[r % palette.length], { dash: i ? [4 + 2 * i, 3] : undefined, spanGaps: true })));
  makeChart(charts, 'throughput (ops/s per interval)', tpData, tpSeries, { yLabel: 'ops/s' });
  const latData = uPlot.join(series.map(s => [s.to_s, ...s.ops.map(o => o.p99_ms.map(v => v > 0 ? v : null))]));
  const latSeries = series.flatMap((s, r) => s.ops.map((o, i) => msSeries(`${label(r)} ${o.name} p99`, palette[r % palette.length], i ? [4 + 2 * i, 3] : undefined, { spanGaps: true })));
  makeChart(charts, 'p99 latency per interval (ms, log scale)', latData, latSeries, { yLabel: 'ms', uplot: { scales: { x: { time: false }, y: { distr: 3 } } } });

  if (saved) {
    // A saved comparison carries each run's figures over report's window.
    for (const [i, id] of ids.entries()) {
      const doc = await api(`/api/runs/${encodeURIComponent(id)}`);
      main.append(el('h2', {}, `${label(i)} ${id}: figures (as stampede report)`));
      if (doc.report) main.append(figuresTable(`figures-${i}`, doc.report));
      else main.append(el('div', { class: 'muted' }, doc.report_error));
    }
  }
  for (const [k, c] of cmp.comparisons.entries()) {
    main.append(el('h2', {}, `A ${c.a.id} → ${label(k + 1)} ${c.b.id} (as stampede compare)`));
    const ratio = v => v === null || v === undefined ? '' : v.toFixed(2) + 'x';
    const row = (r, cls) => el('tr', { class: cls, dataset: { op: r.name } }, el('td', { class: 'l' }, r.name),
      el('td', { dataset: { field: 'a_ops_per_sec', value: r.a ? r.a.ops_per_sec : '' } }, r.a ? fmtRate(r.a.ops_per_sec) : '-'),
      el('td', { dataset: { field: 'b_ops_per_sec', value: r.b ? r.b.ops_per_sec : '' } }, r.b ? fmtRate(r.b.ops_per_sec) : '-'),
      el('td', { dataset: { field: 'ratio' } }, ratio(r.ratio.ops_per_sec)),
      el('td', { class: r.throughput.significant ? 'sig' : '', dataset: { field: 'verdict' } }, r.throughput.verdict),
      ...['p50', 'p95', 'p99'].flatMap(p => [el('td', {}, r.a ? fmtMs(r.a[p + '_ms']) : '-'), el('td', {}, r.b ? fmtMs(r.b[p + '_ms']) : '-'), el('td', {}, ratio(r.ratio[p]))]));
    main.append(el('table', { class: 'compare', dataset: { b: c.b.id } },
      el('thead', {}, el('tr', {}, el('th', { class: 'l' }, 'operation'), el('th', {}, 'A ops/s'), el('th', {}, 'B ops/s'), el('th', {}, 'B/A'), el('th', {}, 'noise?'),
        ...['p50', 'p95', 'p99'].flatMap(p => [el('th', {}, `A ${p}`), el('th', {}, `B ${p}`), el('th', {}, 'B/A')]))),
      el('tbody', {}, c.ops.map(r => row(r)), row(c.total, 'total'))));
    for (const w of c.warnings || []) main.append(el('div', { class: 'warn' }, w));
  }
  ready('compare');
}

route();
