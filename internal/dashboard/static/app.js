// BarrHawk dashboard: plain ES2020, no dependencies, no build step.
// Pages are small functions that render into <main> and may return
// {refresh, onEvent}; the live stream (/api/events) feeds onEvent.
'use strict';

// ---------- DOM and format helpers ----------

const $ = (sel, root = document) => root.querySelector(sel);
const DASH = '–';
const SVGNS = 'http://www.w3.org/2000/svg';

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false || k === 'value') continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function add(el, kids) {
  for (const k of kids.flat(Infinity)) {
    if (k != null && k !== false) el.append(k instanceof Node ? k : String(k));
  }
  return el;
}

// h('td', {class: 'x'}, 'text', child...) — attrs may be left out.
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  if (attrs == null || typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs)) {
    kids.unshift(attrs);
    attrs = {};
  }
  setAttrs(el, attrs);
  add(el, kids);
  if ('value' in attrs) el.value = attrs.value ?? '';
  return el;
}

// fill replaces el's children; like add, it skips null and false.
function fill(el, ...kids) {
  el.replaceChildren();
  return add(el, kids);
}

function s(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(SVGNS, tag);
  setAttrs(el, attrs);
  return add(el, kids);
}

const missing = v => v == null || v === '' || (typeof v === 'number' && !isFinite(v));
const dash = v => (missing(v) ? DASH : v);
const pad = n => String(n).padStart(2, '0');
const fmtNum = n => (missing(n) ? DASH : Number(n).toLocaleString());

function fmtDur(us) {
  if (missing(us)) return DASH;
  if (us < 1000) return `${Math.round(us)} µs`;
  const ms = us / 1000;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const sec = ms / 1000;
  if (sec < 60) return `${sec.toFixed(sec < 10 ? 2 : 1)} s`;
  const m = Math.floor(sec / 60);
  if (m < 60) return `${m}m ${pad(Math.floor(sec % 60))}s`;
  return `${Math.floor(m / 60)}h ${pad(m % 60)}m`;
}
const fmtMs = ms => (missing(ms) ? DASH : fmtDur(ms * 1000));

function fmtBytes(n) {
  if (missing(n)) return DASH;
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

// Parses a time; Go's zero time and garbage give null.
function toDate(v) {
  if (!v) return null;
  const d = new Date(v);
  return isNaN(d) || d.getFullYear() < 1971 ? null : d;
}
const hms = d => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

// Local HH:MM:SS (with the day when not today), full date on hover.
function timeEl(v) {
  const d = toDate(v);
  if (!d) return DASH;
  const today = d.toDateString() === new Date().toDateString();
  const text = today ? hms(d) : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${hms(d)}`;
  return h('time', { datetime: d.toISOString(), title: d.toLocaleString() }, text);
}

function fmtUptime(u) {
  if (missing(u)) return DASH;
  if (typeof u === 'string') return u.replace(/\.\d+s$/, 's');
  return fmtMs(u); // the front's health gives milliseconds
}

// Pretty-prints JSON text or a value; other text is left as it is.
function pretty(v) {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') {
    try { return JSON.stringify(JSON.parse(v), null, 2); } catch { return v; }
  }
  return JSON.stringify(v, null, 2);
}

// Maps a state word to a colour tone.
function tone(word) {
  const w = String(word || '').toLowerCase();
  if (/fail|error|crash|broken|dead|unhealthy|terminated|cancel/.test(w)) return 'bad';
  if (/flaky|retry|degraded|warn|queued|pending|starting|draining|restart/.test(w)) return 'warn';
  if (/busy|running|active|working|started|spawned/.test(w)) return 'info';
  if (/^(ok|passed|pass|succeeded|success|done|completed|merged|healthy|ready|idle)$|completed|registered|reloaded/.test(w)) return 'good';
  return '';
}
const badge = (text, t = tone(text)) => (missing(text) ? DASH : h('span', { class: `badge ${t}` }, text));
const emptyRow = (cols, text) => h('tr', { class: 'empty-row' }, h('td', { colspan: cols }, text));
// head('A', '~B'): a column marked ~ is optional and hides while a side panel is open.
const head = (...cols) => h('thead', h('tr', cols.map(c => (c.startsWith('~') ? h('th', { class: 'opt' }, c.slice(1)) : h('th', c)))));
const kv = pairs => h('dl', { class: 'kv' }, pairs.map(([k, v]) => [h('dt', k), h('dd', v)]));
const stat = (label, value) => h('span', { class: 'stat' }, h('b', dash(value)), ' ', label);
const safeHref = u => (/^https?:\/\//i.test(u || '') ? u : null);

// debounce calls fn ms after the last call; .cancel() drops a pending call.
function debounce(fn, ms) {
  let t;
  const d = (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
  d.cancel = () => clearTimeout(t);
  return d;
}

function trimList(list, max) {
  while (list.children.length > max) list.lastElementChild.remove();
}

// ---------- API ----------

const STALE = Symbol('stale');
let authFailed = false;

async function api(path, opts) {
  const res = await fetch(path, opts);
  if (res.status === 401) { authWall(); throw new Error('unauthorized'); }
  const text = await res.text();
  let body = null;
  try { body = text ? JSON.parse(text) : {}; } catch { /* not JSON */ }
  if (!res.ok) throw new Error((body && body.error) || `${res.status} ${res.statusText || 'error'} (${path})`);
  if (body === null) throw new Error(`${path} did not answer JSON`);
  return body;
}

const post = (path, data) => api(path, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(data),
});

// papi is api for a page: it throws STALE when the page was left meanwhile.
async function papi(path) {
  const g = gen;
  const r = await api(path);
  if (g !== gen) throw STALE;
  return r;
}

function showError(root, e) {
  if (e === STALE || authFailed) return;
  console.warn(e);
  clearError(root);
  root.prepend(h('div', { class: 'error-box', role: 'alert' }, String(e.message || e)));
}
const clearError = root => root.querySelectorAll(':scope > .error-box').forEach(el => el.remove());

function authWall() {
  if (authFailed) return;
  authFailed = true;
  if (stream) stream.close();
  runCleanups();
  document.body.replaceChildren(h('div', { id: 'auth-wall', class: 'auth-wall' },
    h('div', { class: 'auth-box' },
      h('div', { class: 'brand' }, 'Barr', h('b', 'Hawk')),
      h('p', 'This dashboard needs its token: open the URL BarrHawk printed on stderr (it ends in ?token=...).'))));
}

// ---------- router ----------

let gen = 0; // bumped on every navigation
let page = {}; // the current page's {refresh, onEvent}
let cleanups = [];
const onLeave = fn => cleanups.push(fn);
function runCleanups() {
  for (const fn of cleanups.splice(0)) { try { fn(); } catch (e) { console.warn(e); } }
}

const ROUTES = {
  igors: pageIgors, calls: pageCalls, tools: pageTools, jobs: pageJobs,
  runs: (root, id) => (id ? pageRun(root, id) : pageRuns(root)),
  tests: pageTest, charts: pageCharts,
};
const NAV_OF = { tests: 'runs' };

function route() {
  if (authFailed) return;
  runCleanups();
  gen++;
  const [name, ...rest] = location.hash.replace(/^#\/?/, '').split('?')[0].split('/');
  if (!ROUTES[name]) { location.replace('#/igors'); return; }
  let arg = rest.join('/');
  try { arg = decodeURIComponent(arg); } catch { /* keep it raw */ }
  const nav = NAV_OF[name] || name;
  document.querySelectorAll('a[data-nav]').forEach(a => a.classList.toggle('active', a.dataset.nav === nav));
  document.title = `${nav[0].toUpperCase()}${nav.slice(1)} · BarrHawk`;
  const main = $('#main');
  main.replaceChildren();
  main.dataset.page = name;
  page = ROUTES[name](main, arg) || {};
}

// ---------- live stream ----------

let stream = null;
let opens = 0;
let eventCount = 0; // live messages received since the page loaded

// The front's events: the latest of any type (busLog) and the latest igor:*
// (igorLog), newest first, filled from GET /api/events/recent and then live.
// An event is known by its time, type, Igor and task, so one that was both
// fetched and received live shows once.
const LOG_MAX = 200;
const igorLog = [], busLog = [];
const igorKeys = new Set(), busKeys = new Set();
const evKey = ev => [ev.time, ev.type, ev.igorId || '', ev.taskId || ''].join('\u0000');
const isIgorEvent = ev => String(ev.type).startsWith('igor:');
const evTime = ev => { const t = Date.parse(ev.time); return isNaN(t) ? 0 : t; };

function keepLog(log, keys) {
  while (log.length > LOG_MAX) keys.delete(evKey(log.pop()));
}

// logEvent adds a live event; false when it is already in the logs.
function logEvent(ev) {
  const k = evKey(ev);
  if (busKeys.has(k) || igorKeys.has(k)) return false;
  busLog.unshift(ev);
  busKeys.add(k);
  keepLog(busLog, busKeys);
  if (isIgorEvent(ev)) {
    igorLog.unshift(ev);
    igorKeys.add(k);
    keepLog(igorLog, igorKeys);
  }
  return true;
}

// mergeLog adds the events of evs (any order) that log lacks, keeping it
// newest first.
function mergeLog(log, keys, evs) {
  let added = false;
  for (const ev of evs) {
    const k = evKey(ev);
    if (keys.has(k)) continue;
    keys.add(k);
    log.push(ev);
    added = true;
  }
  if (!added) return;
  const order = new Map(log.map((ev, i) => [ev, i]));
  log.sort((a, b) => evTime(b) - evTime(a) || order.get(a) - order.get(b));
  keepLog(log, keys);
}

// loadRecent fills the logs with what the front saw before this page
// opened (or while the stream was down).
async function loadRecent() {
  const d = await api(`/api/events/recent?limit=${LOG_MAX}`);
  const evs = (Array.isArray(d.events) ? d.events : []).filter(ev => ev && ev.type).reverse(); // newest first
  mergeLog(busLog, busKeys, evs);
  mergeLog(igorLog, igorKeys, evs.filter(isIgorEvent));
}

function setLive(on) {
  const el = $('#live');
  if (!el) return;
  el.textContent = on ? 'live' : 'offline';
  el.className = `live ${on ? 'on' : 'off'}`;
}

function connect() {
  if (authFailed) return;
  const es = new EventSource('/api/events');
  stream = es;
  es.onopen = () => {
    setLive(true);
    if (opens++ > 0) { loadOverview(); if (page.refresh) page.refresh(); } // reconnected: catch up
  };
  es.onerror = () => {
    setLive(false);
    if (es.readyState === EventSource.CLOSED) { // a non-stream answer: find out why, then retry
      loadOverview();
      setTimeout(() => { if (stream === es) connect(); }, 3000);
    }
  };
  for (const kind of ['bus', 'call', 'test', 'job']) {
    es.addEventListener(kind, ev => {
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      eventCount++;
      const c = $('#event-count');
      if (c) c.textContent = String(eventCount);
      dispatch(kind, data);
    });
  }
}

// A page left open in the back-forward cache would keep its stream, and a
// browser opens only six connections to one host: close it on the way out,
// open it again if the page comes back.
window.addEventListener('pagehide', () => {
  if (stream) { stream.close(); stream = null; }
  runCleanups(); // a job's log stream among them
});
window.addEventListener('pageshow', ev => {
  if (!ev.persisted) return;
  if (!stream) connect();
  route();
});

function dispatch(kind, data) {
  if (kind === 'bus' && (!data || !logEvent(data))) return; // already shown (fetched with the recent events)
  if (kind === 'call' && overview) {
    overview.calls = (overview.calls || 0) + 1;
    if (data.outcome === 'error') overview.errors = (overview.errors || 0) + 1;
    renderOverview();
  }
  if (kind === 'test') debouncedOverview();
  if (page.onEvent) {
    try { page.onEvent(kind, data); } catch (e) { console.error(e); }
  }
}

// ---------- overview strip ----------

let overview = null;

async function loadOverview() {
  try { overview = await api('/api/overview'); renderOverview(); } catch (e) { if (!authFailed) console.warn(e); }
}
const debouncedOverview = debounce(loadOverview, 2000);

function renderOverview() {
  const el = $('#overview');
  if (!el || !overview) return;
  const hl = overview.health || {};
  const last = overview.lastRun;
  fill(el,
    h('span', { class: `health ${tone(hl.status)}`, title: hl.lastError ? `Last error: ${hl.lastError}` : 'Health' },
      h('i', { class: 'dot' }), dash(hl.status)),
    h('span', { class: 'stat', title: 'Uptime' }, 'up ', h('b', fmtUptime(hl.uptime))),
    stat('tools', hl.toolCount),
    h('span', { class: 'stat' }, h('b', fmtNum(overview.calls)), ' calls'),
    h('span', { class: `stat ${overview.errors > 0 ? 'bad-text' : ''}` }, h('b', fmtNum(overview.errors)), ' errors'),
    missing(overview.runs) ? null : stat('runs', overview.runs),
    overview.record && overview.record.paused ? h('span', { id: 'record-paused', class: 'stat bad-text',
      title: `${overview.record.error || ''}\nsince ${toDate(overview.record.pausedSince) ? toDate(overview.record.pausedSince).toLocaleString() : '?'}` },
      'recording paused, ', h('b', fmtNum(overview.record.pending)), ' waiting') : null,
    last && last.id != null ? h('a', { class: 'stat', href: `#/runs/${encodeURIComponent(last.id)}`, title: `Last run: ${last.name || last.id}` },
      'last run ', h('b', { class: 'good-text' }, fmtNum(last.passed)), ' passed ',
      h('b', { class: last.failed > 0 ? 'bad-text' : '' }, fmtNum(last.failed)), ' failed') : null);
}

// ---------- Igors ----------

function eventItem(ev) {
  const bits = [ev.taskId && `task ${ev.taskId}`, ev.tool, ev.server, ev.reason].filter(Boolean);
  return h('li', { class: tone(ev.type) },
    h('span', { class: 'etype' }, dash(ev.type)), ' ',
    ev.igorId ? [h('span', { class: 'mono' }, ev.igorId), ' '] : null,
    bits.map(b => [h('span', { class: 'muted' }, b), ' ']),
    missing(ev.durationMs) ? null : [h('span', { class: 'muted' }, fmtMs(ev.durationMs)), ' '],
    h('span', { class: 't' }, timeEl(ev.time)));
}

function igorRow(g) {
  return h('tr', { 'data-igor-id': g.id },
    h('td', { class: 'id mono' }, dash(g.id)),
    h('td', { class: 'state' }, badge(g.state)),
    h('td', { class: 'lane' }, dash(g.lane)),
    h('td', { class: 'pid num' }, dash(g.pid)),
    h('td', { class: 'memory num' }, missing(g.memoryMB) ? DASH : `${Math.round(g.memoryMB)} MB`),
    h('td', { class: 'tasks num' }, dash(g.tasks)),
    h('td', { class: 'completed num' }, fmtNum(g.completed)),
    h('td', { class: `failed num ${g.failed > 0 ? 'bad-text' : ''}` }, fmtNum(g.failed)),
    h('td', { class: `restarts num ${g.restarts > 0 ? 'warn-text' : ''}` }, dash(g.restarts)),
    h('td', { class: 'pages num' }, dash(g.browserPages)),
    h('td', { class: 'uptime num' }, fmtMs(g.uptimeMs)));
}

function pageIgors(root) {
  const info = h('div', { class: 'stats' });
  const tbody = h('tbody');
  const events = h('ul', { id: 'igor-events', class: 'log' }, igorLog.slice(0, 100).map(eventItem));
  const bus = h('ul', { id: 'bus-events', class: 'log' }, busLog.slice(0, 100).map(eventItem));
  const showLogs = () => {
    events.replaceChildren(...igorLog.slice(0, 100).map(eventItem));
    bus.replaceChildren(...busLog.slice(0, 100).map(eventItem));
  };
  root.append(
    h('div', { class: 'toolbar' }, h('h1', 'Igors'), info),
    h('table', { id: 'igors-table', class: 'grid' },
      head('ID', 'State', 'Lane', 'PID', 'Memory', 'In flight', 'Done', 'Failed', 'Restarts', 'Pages', 'Uptime'), tbody),
    h('div', { class: 'cols' },
      h('section', h('h2', 'Igor events'), events),
      h('section', h('h2', 'Front activity'), bus)));

  async function recent() {
    const g = gen;
    try {
      await loadRecent();
      if (g === gen) showLogs();
    } catch (e) { if (g === gen) showError(root, e); }
  }

  async function table() {
    try {
      const d = await papi('/api/igors');
      clearError(root);
      const list = d.igors || [];
      fill(info, stat('running', list.length), stat('max', d.maxIgors),
        missing(d.queued) ? null : stat('queued', d.queued),
        missing(d.restarts) ? null : stat('restarts', d.restarts),
        h('span', { class: 'stat' }, 'strategy ', h('b', dash(d.strategy))));
      tbody.replaceChildren(...list.map(igorRow));
      if (!list.length) tbody.append(emptyRow(11, 'No Igors are running.'));
    } catch (e) { showError(root, e); }
  }
  const later = debounce(table, 300);
  const refresh = () => { table(); recent(); };
  refresh();
  return {
    refresh,
    onEvent(kind, ev) {
      if (kind !== 'bus') return;
      const type = String(ev.type);
      if (type.startsWith('igor:')) {
        events.prepend(eventItem(ev));
        trimList(events, 100);
      }
      if (/^(igor|task):/.test(type)) later();
      bus.prepend(eventItem(ev));
      trimList(bus, 100);
    },
  };
}

// ---------- Calls ----------

const callFilters = { tool: '', outcome: '' };
const MAX_CALL_ROWS = 500;

function callMatches(c) {
  const f = callFilters.tool.trim().toLowerCase();
  const t = String(c.tool || '').toLowerCase();
  return (!f || t.includes(f)) && (!callFilters.outcome || c.outcome === callFilters.outcome);
}

function callRow(c) {
  return h('tr', { 'data-call-id': c.id, class: c.outcome === 'error' ? 'err' : null, title: c.message || null },
    h('td', { class: 'time' }, timeEl(c.time)),
    h('td', { class: 'tool mono' }, dash(c.tool)),
    h('td', { class: 'args mono', title: c.args || null }, c.args || ''),
    h('td', { class: 'duration num' }, fmtDur(c.durationUs)),
    h('td', { class: 'outcome' }, badge(c.outcome, c.outcome === 'ok' ? 'good' : 'bad')),
    h('td', { class: 'code mono' }, c.code || ''),
    h('td', { class: 'igor mono opt' }, dash(c.igor)),
    h('td', { class: 'session mono opt', title: c.session || null }, c.session ? String(c.session).slice(0, 8) : DASH),
    h('td', { class: 'bytes num opt' }, fmtBytes(c.resultBytes)));
}

function callDetail(c, close) {
  return h('div', { id: 'call-detail', class: 'panel' },
    h('div', { class: 'panel-head' },
      h('h2', h('span', { class: 'mono' }, dash(c.tool)), ' ', h('span', { class: 'muted' }, `#${c.id}`)),
      h('button', { type: 'button', class: 'close', title: 'Close (Esc)', onclick: close }, '×')),
    kv([
      ['Time', timeEl(c.time)], ['Outcome', badge(c.outcome, c.outcome === 'ok' ? 'good' : 'bad')],
      ['Code', dash(c.code)], ['Duration', fmtDur(c.durationUs)], ['Igor', dash(c.igor)],
      ['Session', dash(c.session)], ['Result size', fmtBytes(c.resultBytes)],
    ]),
    c.message ? h('div', { class: 'message bad' }, c.message) : null,
    h('h3', 'Arguments'),
    h('pre', { class: 'args-full' }, pretty(c.fullArgs ?? c.args)),
    h('h3', 'Result', c.truncated ? h('span', { class: 'warn-text' }, ' (truncated)') : null),
    h('pre', { class: 'result' }, pretty(c.result)));
}

function pageCalls(root, openId) {
  const tool = h('input', { id: 'filter-tool', type: 'search', placeholder: 'Tool contains…', autocomplete: 'off', value: callFilters.tool });
  const outcome = h('select', { id: 'filter-outcome', value: callFilters.outcome },
    h('option', { value: '' }, 'Any outcome'), h('option', { value: 'ok' }, 'ok'), h('option', { value: 'error' }, 'error'));
  const total = h('span', { class: 'muted', id: 'calls-total' });
  const tbody = h('tbody');
  const empty = h('p', { class: 'empty', hidden: true }, 'No calls match.');
  const more = h('button', { id: 'calls-more', type: 'button', hidden: true }, 'Load older');
  const detail = h('div', { class: 'side' });
  const split = h('div', { class: 'split' },
    h('div', { class: 'split-main' },
      h('table', { id: 'calls-table', class: 'grid' },
        head('Time', 'Tool', 'Args', 'Duration', 'Outcome', 'Code', '~Igor', '~Session', '~Result'), tbody),
      empty, more),
    detail);
  root.append(h('div', { class: 'toolbar' }, h('h1', 'Calls'), tool, outcome, total), split);

  let next = 0, count = null, seq = 0, detailSeq = 0, selected = openId || null;
  const footer = () => {
    total.textContent = count == null ? `${fmtNum(tbody.rows.length)} shown${next ? ', more older' : ''}`
      : `${fmtNum(tbody.rows.length)} shown of ${fmtNum(count)}`;
    empty.hidden = tbody.rows.length > 0;
    more.hidden = !next;
  };
  const markSelected = () => {
    for (const tr of tbody.rows) tr.classList.toggle('sel', tr.dataset.callId === String(selected));
  };

  async function load(older) {
    const q = new URLSearchParams({ limit: '100' });
    if (callFilters.tool.trim()) q.set('tool', callFilters.tool.trim());
    if (callFilters.outcome) q.set('outcome', callFilters.outcome);
    if (older && next) q.set('before', String(next));
    const mine = ++seq;
    more.disabled = true;
    try {
      const d = await papi(`/api/calls?${q}`);
      if (mine !== seq) return;
      clearError(root);
      const rows = (d.calls || []).map(callRow);
      if (older) tbody.append(...rows); else tbody.replaceChildren(...rows);
      next = d.next || 0;
      count = missing(d.total) ? null : d.total;
      markSelected();
      footer();
    } catch (e) { showError(root, e); } finally { more.disabled = false; }
  }

  function close() {
    selected = null;
    detailSeq++;
    detail.replaceChildren();
    split.classList.remove('open');
    markSelected();
    history.replaceState(null, '', '#/calls');
  }

  async function open(id) {
    selected = id;
    markSelected();
    split.classList.add('open');
    history.replaceState(null, '', `#/calls/${encodeURIComponent(id)}`);
    const mine = ++detailSeq;
    detail.replaceChildren(h('div', { id: 'call-detail', class: 'panel' }, h('p', { class: 'muted' }, 'Loading…')));
    try {
      const c = await papi(`/api/calls/${encodeURIComponent(id)}`);
      if (mine === detailSeq) detail.replaceChildren(callDetail(c, close));
    } catch (e) {
      if (e !== STALE && mine === detailSeq) detail.replaceChildren(h('div', { id: 'call-detail', class: 'panel' }, h('div', { class: 'error-box' }, String(e.message || e))));
    }
  }

  const refilter = () => { callFilters.tool = tool.value; callFilters.outcome = outcome.value; load(false); };
  const typed = debounce(refilter, 250); // refetch once the user stops typing
  const now = () => { typed.cancel(); refilter(); };
  tool.addEventListener('input', typed);
  tool.addEventListener('keydown', e => { if (e.key === 'Enter') now(); });
  outcome.addEventListener('change', now); // a choice refetches at once
  onLeave(typed.cancel);
  more.addEventListener('click', () => load(true));
  tbody.addEventListener('click', e => {
    const tr = e.target.closest('tr[data-call-id]');
    if (tr && !getSelection().toString()) open(tr.dataset.callId);
  });
  const onKey = e => { if (e.key === 'Escape' && selected) close(); };
  document.addEventListener('keydown', onKey);
  onLeave(() => document.removeEventListener('keydown', onKey));

  load(false);
  if (selected) open(selected);
  return {
    refresh: () => load(false),
    onEvent(kind, c) {
      if (kind !== 'call' || !callMatches(c)) return;
      if (tbody.querySelector(`tr[data-call-id="${CSS.escape(String(c.id))}"]`)) return;
      const tr = callRow(c);
      tr.classList.add('new');
      tbody.prepend(tr);
      if (count != null) count++;
      if (tbody.rows.length > MAX_CALL_ROWS) {
        trimList(tbody, MAX_CALL_ROWS);
        next = Number(tbody.lastElementChild.dataset.callId) || next; // older ones load again on demand
      }
      footer();
    },
  };
}

// ---------- Tools ----------

// profileMatcher turns a profile's entries (names, globs such as "assert_*",
// "category:browser") into a test of a tool.
function profileMatcher(entries) {
  const globs = [], cats = new Set();
  for (const e of entries || []) {
    const m = /^category:(.*)$/.exec(e);
    if (m) cats.add(m[1]);
    else globs.push(new RegExp(`^${e.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`));
  }
  return t => cats.has(t.category) || globs.some(g => g.test(t.name));
}

function pageTools(root) {
  const search = h('input', { type: 'search', id: 'tools-search', placeholder: 'Filter tools…', autocomplete: 'off' });
  const profile = h('select', { id: 'tools-profile' }, h('option', { value: '' }, 'All profiles'));
  const count = h('span', { class: 'muted' });
  const tbody = h('tbody');
  const dyn = h('ul', { id: 'dynamic-tools', class: 'list' });
  const snaps = h('tbody');
  const answer = h('div', { id: 'rollback-result' });
  root.append(
    h('div', { class: 'toolbar' }, h('h1', 'Tools'), search, profile, count),
    h('div', { class: 'cols wide-left' },
      h('section', h('table', { id: 'tools-table', class: 'grid' }, head('Name', 'Category', 'Group', '', 'Description'), tbody)),
      h('section',
        h('h2', 'Dynamic tools'), dyn,
        h('h2', 'Snapshots'),
        h('table', { id: 'snapshots-table', class: 'grid' }, head('ID', 'Name', 'Time', 'Tools', ''), snaps),
        answer)));
  let data = {};

  function filter() {
    const q = search.value.trim().toLowerCase();
    const prof = (data.profiles || {})[profile.value];
    const inProfile = Array.isArray(prof) ? profileMatcher(prof) : () => true;
    const byName = new Map((data.tools || []).map(t => [t.name, t]));
    let shown = 0;
    for (const tr of tbody.rows) {
      const t = byName.get(tr.dataset.tool) || {};
      tr.hidden = Boolean((q && !tr.textContent.toLowerCase().includes(q)) || !inProfile(t));
      if (!tr.hidden) shown++;
    }
    count.textContent = `${shown} of ${(data.tools || []).length} tools`;
  }

  async function rollback(id) {
    if (!confirm(`Roll back the dynamic tools to snapshot ${id}?`)) return;
    answer.replaceChildren(h('p', { class: 'muted' }, `Rolling back to ${id}…`));
    try {
      const r = await post('/api/rollback', { snapshot: id });
      answer.replaceChildren(h('div', { class: `answer ${r.error ? 'bad' : 'good'}` },
        r.error ? `Rollback failed: ${r.error}` : `Rolled back to snapshot ${id}.`, h('pre', pretty(r))));
      refresh();
    } catch (e) {
      if (!authFailed) answer.replaceChildren(h('div', { class: 'answer bad' }, `Rollback failed: ${e.message || e}`));
    }
  }

  async function refresh() {
    try {
      const d = await papi('/api/tools');
      clearError(root);
      data = d;
      tbody.replaceChildren(...(d.tools || []).map(t => h('tr', { 'data-tool': t.name },
        h('td', { class: 'name mono' }, t.name),
        h('td', { class: 'category' }, dash(t.category)),
        h('td', { class: 'group' }, dash(t.group)),
        h('td', t.dynamic ? badge('dynamic', 'info') : ''),
        h('td', { class: 'desc' }, t.description || ''))));
      const keep = profile.value;
      profile.replaceChildren(h('option', { value: '' }, 'All profiles'),
        ...Object.entries(d.profiles || {}).sort(([a], [b]) => a.localeCompare(b)).map(([name, list]) =>
          h('option', { value: name }, `${name} (${(d.tools || []).filter(profileMatcher(list)).length})`)));
      profile.value = keep in (d.profiles || {}) ? keep : '';
      const dl = d.dynamic || [];
      dyn.replaceChildren(...dl.map(t => h('li', { 'data-dynamic': t.name, class: t.error ? 'bad' : null },
        h('span', { class: 'mono' }, t.name), ' ', h('span', { class: 'muted mono' }, t.file || ''),
        t.modified ? h('span', { class: 'muted' }, timeEl(t.modified)) : null,
        t.error ? h('div', { class: 'bad-text' }, t.error) : null)));
      if (d.dynamicError) dyn.append(h('li', { class: 'bad' }, h('div', { class: 'bad-text' }, d.dynamicError)));
      if (!dl.length) dyn.append(h('li', { class: 'muted' }, d.dynamicEnabled === false ? 'Dynamic tools are off (tools.enableDynamic).' : 'No dynamic tools.'));
      const sl = d.snapshots || [];
      snaps.replaceChildren(...sl.map(sn => h('tr', { 'data-snapshot': sn.id },
        h('td', { class: 'mono' }, sn.id), h('td', dash(sn.name)), h('td', timeEl(sn.time)),
        h('td', { class: 'num' }, dash(sn.tools)),
        h('td', h('button', { type: 'button', class: 'rollback', onclick: () => rollback(sn.id) }, 'Roll back')))));
      if (d.snapshotsError) snaps.append(h('tr', h('td', { colspan: 5, class: 'bad-text' }, d.snapshotsError)));
      if (!sl.length) snaps.append(emptyRow(5, 'No snapshots.'));
      filter();
    } catch (e) { showError(root, e); }
  }

  search.addEventListener('input', filter);
  profile.addEventListener('change', filter);
  const later = debounce(refresh, 500);
  refresh();
  return {
    refresh,
    onEvent(kind, ev) { if (kind === 'bus' && /^(tool|snapshot):/.test(ev.type)) later(); },
  };
}

// ---------- Jobs ----------

function prLink(url) {
  const href = safeHref(url);
  if (!href) return url ? String(url) : '';
  const m = href.match(/\/pull\/(\d+)/);
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, m ? `#${m[1]}` : 'PR');
}

// shortPath shows the end of a long path (the part that tells worktrees apart).
function shortPath(p) {
  const parts = String(p).split('/').filter(Boolean);
  return parts.length > 3 ? `…/${parts.slice(-2).join('/')}` : String(p);
}

function jobRow(j) {
  const fin = toDate(j.finalizedAt), made = toDate(j.createdAt);
  return h('tr', { 'data-job-id': j.id, class: tone(j.state) === 'bad' ? 'err' : null },
    h('td', { class: 'id mono' }, j.id),
    h('td', { class: 'title', title: j.title || null }, j.title || h('span', { class: 'muted' }, `job ${j.id}`)),
    h('td', { class: 'state' }, badge(j.state), j.status && j.status !== j.state ? [' ', h('span', { class: 'muted' }, j.status)] : null),
    h('td', { class: 'kind' }, dash(j.kind)),
    h('td', { class: 'branch mono', title: j.branch || null }, dash(j.branch)),
    h('td', { class: 'pr' }, prLink(j.prUrl) || DASH),
    h('td', { class: 'worktree mono', title: j.worktree || null }, j.worktree ? shortPath(j.worktree) : DASH),
    h('td', { class: 'attempt num opt' }, dash(j.attempt)),
    h('td', { class: 'repo mono opt', title: j.repo || null }, j.repo ? shortPath(j.repo) : DASH),
    h('td', { class: 'created opt' }, timeEl(j.createdAt)),
    h('td', { class: 'took num opt' }, fin && made ? fmtMs(fin - made) : DASH));
}

function jobMeta(j) {
  return h('div', { id: 'job-meta' },
    j.title ? h('p', { class: 'job-title' }, j.title) : null,
    kv([
      ['State', badge(j.state)], ['Status', dash(j.status)], ['Kind', dash(j.kind)], ['Attempt', dash(j.attempt)],
      ['Repo', dash(j.repo)], ['Branch', dash(j.branch)], ['Worktree', dash(j.worktree)],
      ['PR', j.prUrl ? prLink(j.prUrl) : DASH], ['Created', timeEl(j.createdAt)], ['Finalized', timeEl(j.finalizedAt)],
    ]),
    j.errors && j.errors.length ? h('ul', { class: 'list errors' }, j.errors.map(e => h('li', { class: 'bad' }, e))) : null);
}

// jobOutcome goes below the log: the log is what one follows.
const jobOutcome = j => h('div', { id: 'job-outcome' },
  j.outcome ? [h('h3', 'Outcome'), h('pre', { class: 'outcome-json' }, pretty(j.outcome))] : null);

function pageJobs(root, openId) {
  const tbody = h('tbody');
  const detail = h('div', { class: 'side' });
  const split = h('div', { class: 'split' },
    h('div', { class: 'split-main' }, h('table', { id: 'jobs-table', class: 'grid' },
      head('ID', 'Title', 'State', 'Kind', 'Branch', 'PR', 'Worktree', '~Try', '~Repo', '~Created', '~Took'), tbody)),
    detail);
  root.append(h('div', { class: 'toolbar' }, h('h1', 'Jobs')), split);
  let jobs = [], selected = openId || null, logStream = null;
  const stopLog = () => { if (logStream) logStream.close(); logStream = null; };
  onLeave(stopLog);

  const markSelected = () => {
    for (const tr of tbody.rows) tr.classList.toggle('sel', tr.dataset.jobId === String(selected));
  };

  function follow(id, pre, status) {
    stopLog();
    const es = new EventSource(`/api/jobs/${encodeURIComponent(id)}/log`);
    logStream = es;
    es.onopen = () => { pre.textContent = ''; status.textContent = 'following…'; }; // the log starts over on (re)connect
    es.addEventListener('log', e => {
      let d;
      try { d = JSON.parse(e.data); } catch { return; }
      const stick = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 24;
      pre.append(String(d.text ?? '')); // raw chunks of the log file, not lines
      if (stick) pre.scrollTop = pre.scrollHeight;
    });
    es.addEventListener('end', e => {
      let d = {};
      try { d = JSON.parse(e.data); } catch { /* keep {} */ }
      status.textContent = d.error ? `ended with an error: ${d.error}` : `ended: ${d.state || 'done'}`;
      status.className = d.error || tone(d.state) === 'bad' ? 'bad-text' : 'muted';
      es.close();
      if (logStream === es) logStream = null;
    });
    es.onerror = () => { if (es.readyState === EventSource.CLOSED) status.textContent = 'log stream closed'; };
  }

  function close() {
    stopLog();
    selected = null;
    detail.replaceChildren();
    split.classList.remove('open');
    markSelected();
    history.replaceState(null, '', '#/jobs');
  }

  function open(id) {
    selected = id;
    markSelected();
    split.classList.add('open');
    history.replaceState(null, '', `#/jobs/${encodeURIComponent(id)}`);
    const j = jobs.find(x => String(x.id) === String(id)) || { id };
    const pre = h('pre', { id: 'job-log', class: 'log-pre' });
    const status = h('span', { class: 'muted' }, 'connecting…');
    detail.replaceChildren(h('div', { id: 'job-detail', class: 'panel' },
      h('div', { class: 'panel-head' }, h('h2', 'Job ', h('span', { class: 'mono' }, id)),
        h('button', { type: 'button', class: 'close', title: 'Close (Esc)', onclick: close }, '×')),
      jobMeta(j), h('h3', 'Log ', status), pre, jobOutcome(j)));
    follow(id, pre, status);
  }

  async function refresh() {
    try {
      const d = await papi('/api/jobs?limit=50');
      clearError(root);
      jobs = d.jobs || [];
      tbody.replaceChildren(...jobs.map(jobRow));
      if (!jobs.length) tbody.append(emptyRow(11, 'No jobs yet.'));
      markSelected();
      const j = selected && jobs.find(x => String(x.id) === String(selected));
      const meta = $('#job-meta', detail), out = $('#job-outcome', detail);
      if (j && meta) meta.replaceWith(jobMeta(j));
      if (j && out) out.replaceWith(jobOutcome(j));
    } catch (e) { showError(root, e); }
  }

  tbody.addEventListener('click', e => {
    if (e.target.closest('a')) return;
    const tr = e.target.closest('tr[data-job-id]');
    if (tr) open(tr.dataset.jobId);
  });
  const onKey = e => { if (e.key === 'Escape' && selected) close(); };
  document.addEventListener('keydown', onKey);
  onLeave(() => document.removeEventListener('keydown', onKey));

  refresh().then(() => { if (selected) open(selected); });
  const later = debounce(refresh, 300);
  return { refresh, onEvent(kind) { if (kind === 'job') later(); } };
}

// ---------- Runs ----------

const runFilters = { kind: '', host: '', branch: '', commit: '' };

const shortSHA = c => (c && /^[0-9a-f]{12,}$/i.test(c) ? c.slice(0, 10) : c || '');

// originEl shows where a run came from: host, branch, commit, and a link
// to its CI build.
function originEl(o) {
  const bits = [];
  if (o.host) bits.push(h('span', { class: 'host', title: o.dir ? `${o.host}:${o.dir}` : o.host }, o.host));
  if (o.branch) bits.push(h('span', { class: 'branch tag' }, o.branch));
  if (o.commit) bits.push(h('span', { class: 'commit mono', title: o.commit }, shortSHA(o.commit)));
  if (o.buildUrl && /^https?:\/\//.test(o.buildUrl)) {
    bits.push(h('a', { class: 'build', href: o.buildUrl, target: '_blank', rel: 'noopener' }, o.ci || 'build'));
  } else if (o.ci) bits.push(h('span', { class: 'ci muted' }, o.ci));
  return bits.length ? h('span', { class: 'origin' }, bits) : h('span', { class: 'muted' }, DASH);
}

function runRow(r) {
  const started = toDate(r.started), ended = toDate(r.ended);
  const href = `#/runs/${encodeURIComponent(r.id)}`;
  return h('tr', { 'data-run-id': r.id, class: r.failed > 0 ? 'err' : null },
    h('td', { class: 'time' }, timeEl(r.started)),
    h('td', { class: 'kind' }, dash(r.kind)),
    h('td', { class: 'name' }, h('a', { href }, r.name || `run ${r.id}`)),
    h('td', { class: 'session mono', title: r.session || null }, r.session ? String(r.session).slice(0, 8) : DASH),
    h('td', { class: 'took num' }, started && ended ? fmtMs(ended - started) : h('span', { class: 'muted' }, 'open')),
    h('td', { class: 'passed num good-text' }, fmtNum(r.passed)),
    h('td', { class: `failed num ${r.failed > 0 ? 'bad-text' : 'muted'}` }, fmtNum(r.failed)),
    h('td', { class: 'skipped num muted' }, fmtNum(r.skipped)),
    h('td', { class: 'origin-cell' }, originEl(r)),
    h('td', { class: 'source mono', title: r.source || null }, r.source || ''));
}

function pageRuns(root) {
  const kind = h('select', { id: 'filter-kind', value: runFilters.kind },
    ['', 'session', 'report', 'job'].map(k => h('option', { value: k }, k || 'Any kind')));
  const text = (key, label) => h('input', { id: `filter-${key}`, type: 'search', placeholder: label, value: runFilters[key], 'aria-label': label });
  const host = text('host', 'Machine'), branch = text('branch', 'Branch'), commit = text('commit', 'Commit');
  const tbody = h('tbody');
  const more = h('button', { id: 'runs-more', type: 'button', hidden: true }, 'Load older');
  root.append(h('div', { class: 'toolbar' }, h('h1', 'Runs'), kind, host, branch, commit),
    h('table', { id: 'runs-table', class: 'grid' },
      head('Started', 'Kind', 'Name', 'Session', 'Took', 'Passed', 'Failed', 'Skipped', 'Origin', 'Source'), tbody),
    more);
  let next = 0, seq = 0;

  async function load(older) {
    const q = new URLSearchParams({ limit: '50' });
    for (const k of ['kind', 'host', 'branch', 'commit']) if (runFilters[k]) q.set(k, runFilters[k]);
    if (older && next) q.set('before', String(next));
    const mine = ++seq;
    try {
      const d = await papi(`/api/runs?${q}`);
      if (mine !== seq) return;
      clearError(root);
      const rows = (d.runs || []).map(runRow);
      if (older) tbody.append(...rows); else tbody.replaceChildren(...rows);
      if (!tbody.rows.length) tbody.append(emptyRow(10, 'No runs yet.'));
      next = d.next || 0;
      more.hidden = !next;
    } catch (e) { showError(root, e); }
  }

  kind.addEventListener('change', () => { runFilters.kind = kind.value; load(false); });
  const typed = debounce(() => load(false), 300);
  for (const [key, el] of [['host', host], ['branch', branch], ['commit', commit]]) {
    el.addEventListener('input', () => { runFilters[key] = el.value.trim(); typed(); });
  }
  more.addEventListener('click', () => load(true));
  tbody.addEventListener('click', e => {
    const tr = e.target.closest('tr[data-run-id]');
    if (tr && !e.target.closest('a')) location.hash = `#/runs/${encodeURIComponent(tr.dataset.runId)}`;
  });
  load(false);
  const later = debounce(() => load(false), 500);
  return { refresh: () => load(false), onEvent(k) { if (k === 'test') later(); } };
}

const hasValue = v => v !== undefined && v !== null && v !== '';

function testCard(t) {
  const ev = t.evidence || [];
  return h('div', { class: 'test', 'data-test-id': t.id, 'data-status': t.status },
    h('div', { class: 'test-head' },
      badge(t.status, { passed: 'good', failed: 'bad', flaky: 'warn' }[t.status] || ''),
      h('a', { class: 'test-name', href: `#/tests/${encodeURIComponent(t.name)}`, title: 'History of this test' }, t.name),
      t.suite ? h('span', { class: 'suite muted' }, t.suite) : null,
      h('span', { class: 'kind tag' }, dash(t.kind)),
      t.tool ? h('span', { class: 'tool tag mono' }, t.tool) : null,
      h('span', { class: 'grow' }),
      t.callId ? h('a', { class: 'call-link', href: `#/calls/${encodeURIComponent(t.callId)}` }, `call #${t.callId}`) : null,
      h('span', { class: 'dur muted' }, fmtMs(t.durationMs))),
    t.message ? h('div', { class: 'message' }, t.message) : null,
    hasValue(t.expected) || hasValue(t.actual) ? h('div', { class: 'diff' },
      h('div', h('h4', 'Expected'), h('pre', { class: 'expected' }, pretty(t.expected))),
      h('div', h('h4', 'Actual'), h('pre', { class: 'actual' }, pretty(t.actual)))) : null,
    t.output ? h('pre', { class: 'output' }, t.output) : null,
    ev.length ? h('div', { class: 'evidence-list' }, ev.map(e => {
      const src = `/api/evidence/${encodeURIComponent(e.id)}`;
      const label = e.name || e.kind || `evidence ${e.id}`;
      return /^image\//.test(e.mimeType || '') || (!e.mimeType && e.kind === 'screenshot')
        ? h('a', { href: src, target: '_blank', title: label }, h('img', { class: 'evidence', src, alt: label }))
        : h('a', { class: 'evidence-file', href: src, target: '_blank' }, `${label} (${dash(e.kind)})`);
    })) : null);
}

function pageRun(root, id) {
  const wrap = h('div', { id: 'run-detail' }, h('p', { class: 'muted' }, 'Loading…'));
  root.append(wrap);
  let filter = 'all';
  const enc = encodeURIComponent(id);

  function render(d) {
    const r = d.run || {};
    const tests = d.tests || [];
    const n = st => tests.filter(t => t.status === st).length;
    const started = toDate(r.started), ended = toDate(r.ended);
    const list = h('div', { class: 'tests', 'data-filter': filter }, tests.map(testCard));
    const chip = (st, label, count, cls) => h('button', {
      type: 'button', class: `chip ${cls || ''} ${filter === st ? 'on' : ''}`, 'data-filter': st,
      onclick: e => {
        filter = st;
        list.dataset.filter = st;
        wrap.querySelectorAll('.chip').forEach(c => c.classList.toggle('on', c === e.currentTarget));
      },
    }, label, ' ', h('b', count));
    fill(wrap,
      h('div', { class: 'toolbar' },
        h('h1', r.name || `Run ${id}`),
        badge(r.kind, 'info'),
        h('span', { class: 'grow' }),
        h('a', { id: 'export-junit', class: 'button', href: `/api/runs/${enc}/junit`, download: `run-${id}.xml` }, 'JUnit XML'),
        h('a', { id: 'export-html', class: 'button', href: `/api/runs/${enc}/report.html`, target: '_blank' }, 'HTML report')),
      kv([
        ['Started', timeEl(r.started)],
        ['Took', started && ended ? fmtMs(ended - started) : 'still open'],
        ['Session', dash(r.session)], ['Source', dash(r.source)],
        ['Origin', originEl(r)],
      ]),
      h('div', { class: 'chips' },
        chip('all', 'All', tests.length), chip('passed', 'Passed', n('passed'), 'good'),
        chip('failed', 'Failed', n('failed'), 'bad'), chip('flaky', 'Flaky', n('flaky'), 'warn'),
        chip('skipped', 'Skipped', n('skipped'))),
      list,
      tests.length ? null : h('p', { class: 'empty' }, 'This run has no tests.'));
  }

  async function refresh() {
    try { render(await papi(`/api/runs/${enc}`)); } catch (e) { showError(root, e); }
  }
  refresh();
  const later = debounce(refresh, 500);
  return { refresh, onEvent(kind, t) { if (kind === 'test' && String(t.runId) === String(id)) later(); } };
}

// ---------- Test history ----------

const SQ = { passed: 'pass', failed: 'fail', flaky: 'flaky', skipped: 'skip' };

function pageTest(root, name) {
  const wrap = h('div', { id: 'test-history' }, h('p', { class: 'muted' }, 'Loading…'));
  root.append(wrap);
  const chartBox = h('figure', { id: 'chart-duration', class: 'chart' });
  let points = [];
  const draw = () => lineChart(chartBox, points.map(p => +new Date(p.time)),
    [{ name: 'duration', cls: 'c0', values: points.map(p => p.durationMs) }], 'ms');

  async function refresh() {
    try {
      const d = await papi(`/api/tests/history?name=${encodeURIComponent(name)}`);
      points = (d.points || []).slice().sort((a, b) => new Date(a.time) - new Date(b.time)); // oldest → newest
      const fl = Number(d.flakiness);
      const fig = (key, value, label) => h('div', { class: 'fig', 'data-fig': key }, h('b', value), h('span', label));
      fill(wrap,
        h('div', { class: 'toolbar' }, h('h1', h('span', { class: 'muted' }, 'Test '), d.name || name)),
        h('div', { class: 'figures' },
          fig('runs', fmtNum(d.runs), 'runs'),
          fig('failures', fmtNum(d.failures), 'failures'),
          fig('flips', fmtNum(d.flips), 'flips'),
          fig('flakiness', isFinite(fl) ? `${(fl * 100).toFixed(1)}%` : DASH, 'flakiness')),
        h('h2', 'Results, oldest to newest'),
        h('div', { class: 'squares' }, points.map(p => h('a', {
          class: `sq ${SQ[p.status] || 'unknown'}`, 'data-status': p.status, href: `#/runs/${encodeURIComponent(p.runId)}`,
          title: `${p.status} · ${fmtMs(p.durationMs)} · ${toDate(p.time) ? toDate(p.time).toLocaleString() : ''} · run ${p.runId}`,
        }))),
        points.length ? null : h('p', { class: 'empty' }, 'No results for this test.'),
        h('h2', 'Across machines and commits'), originChart(points),
        h('h2', 'Duration'), chartBox,
        h('table', { class: 'grid' }, head('Time', 'Status', 'Duration', 'Where', 'Run'),
          h('tbody', points.slice().reverse().slice(0, 50).map(p => h('tr',
            h('td', timeEl(p.time)), h('td', badge(p.status, { passed: 'good', failed: 'bad', flaky: 'warn' }[p.status] || '')),
            h('td', { class: 'num' }, fmtMs(p.durationMs)),
            h('td', originEl(p)),
            h('td', h('a', { href: `#/runs/${encodeURIComponent(p.runId)}` }, p.runName || `run ${p.runId}`)))))));
      draw();
    } catch (e) { showError(root, e); }
  }
  refresh();
  const onResize = debounce(draw, 150);
  window.addEventListener('resize', onResize);
  onLeave(() => window.removeEventListener('resize', onResize));
  const later = debounce(refresh, 500);
  return { refresh, onEvent(kind, t) { if (kind === 'test' && t.name === name) later(); } };
}

// originChart draws a test's latest results as inline SVG: a column per
// result (oldest on the left), a row per machine, the squares coloured by
// status and linked to their runs, and the commits labelled above their
// first result. A commit whose results differ (on one machine or across
// several) is marked ≠: a flip.
function originChart(points) {
  const box = h('figure', { id: 'chart-origins', class: 'chart' });
  const shown = points.slice(-60);
  if (!shown.length) return box;
  const hostOf = p => p.host || '(unknown machine)';
  const commitOf = p => p.commit || p.branch || '(no commit)';
  const hosts = [...new Set(shown.map(hostOf))];
  const statuses = new Map();
  for (const p of shown) {
    if (p.status === 'skipped') continue;
    const set = statuses.get(commitOf(p)) || new Set();
    statuses.set(commitOf(p), set.add(p.status === 'flaky' ? 'passed' : p.status));
  }
  const C = 16, L = Math.min(180, 8 + 7 * Math.max(...hosts.map(x => x.length))), T = 62;
  const W = L + shown.length * C + 40, H = T + hosts.length * C + 6;
  const svg = s('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'results by machine and commit' });
  hosts.forEach((host, r) => svg.append(s('text', { class: 'tick', x: L - 6, y: T + r * C + 12, 'text-anchor': 'end' }, host)));
  shown.forEach((p, c) => {
    const x = L + c * C, commit = commitOf(p);
    if (c === 0 || commitOf(shown[c - 1]) !== commit) {
      const flip = (statuses.get(commit) || new Set()).size > 1;
      svg.append(s('line', { class: 'axis', x1: x, x2: x, y1: T - 4, y2: H }),
        s('text', { class: `tick commit-label${flip ? ' bad-text' : ''}`, transform: `translate(${x + 11} ${T - 6}) rotate(-60)` },
          s('title', {}, flip ? `${commit}: its results differ` : commit), shortSHA(commit).slice(0, 8) + (flip ? ' ≠' : '')));
    }
    svg.append(s('a', { href: `#/runs/${encodeURIComponent(p.runId)}` },
      s('rect', { class: `cell ${SQ[p.status] || 'unknown'}`, 'data-status': p.status, x: x + 1, y: T + hosts.indexOf(hostOf(p)) * C + 1, width: C - 3, height: C - 3, rx: 3 },
        s('title', {}, `${hostOf(p)} · ${commit}${p.branch ? ` (${p.branch})` : ''}\n${p.status} · ${fmtMs(p.durationMs)} · ${p.runName || `run ${p.runId}`}`))));
  });
  box.append(svg);
  if (points.length > shown.length) box.append(h('figcaption', { class: 'muted' }, `the latest ${shown.length} of ${points.length} results`));
  return box;
}

// ---------- Charts ----------

function niceScale(maxv) {
  if (!(maxv > 0)) return { max: 1, step: 0.25 };
  const raw = maxv / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  return { max: Math.ceil(maxv / step - 1e-9) * step, step };
}
const fmtTick = v => (Math.abs(v) >= 1000 ? Math.round(v).toLocaleString() : String(+v.toFixed(2)));
const fmtClock = (t, secs) => { const d = new Date(t); return secs ? hms(d) : `${pad(d.getHours())}:${pad(d.getMinutes())}`; };

// lineChart draws series ({name, cls, values}) over times (ms) into box as SVG.
// A null value leaves a gap.
function lineChart(box, times, series, yLabel) {
  const legend = h('div', { class: 'legend' }, series.map(se => h('span', h('i', { class: `sw ${se.cls}` }), se.name)));
  if (!times.length) { box.replaceChildren(legend, h('p', { class: 'empty' }, 'No data yet.')); return; }
  const W = Math.max(360, box.clientWidth || 800), H = 240;
  const m = { l: 56, r: 16, t: 12, b: 40 };
  const iw = W - m.l - m.r, ih = H - m.t - m.b;
  const t0 = times[0], t1 = Math.max(times[times.length - 1], t0 + 1000);
  const vals = series.flatMap(se => se.values).filter(v => !missing(v));
  const { max, step } = niceScale(Math.max(0, ...vals));
  const x = t => m.l + ((t - t0) / (t1 - t0)) * iw;
  const y = v => m.t + ih - (v / max) * ih;
  const svg = s('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': yLabel });
  for (let i = 0; i * step <= max + 1e-9; i++) {
    const v = i * step;
    svg.append(s('line', { class: 'grid-line', x1: m.l, x2: W - m.r, y1: y(v), y2: y(v) }),
      s('text', { class: 'tick', x: m.l - 6, y: y(v) + 4, 'text-anchor': 'end' }, fmtTick(v)));
  }
  const n = Math.max(1, Math.min(8, Math.floor(iw / 100)));
  for (let i = 0; i <= n; i++) {
    const t = t0 + ((t1 - t0) * i) / n;
    svg.append(s('line', { class: 'axis', x1: x(t), x2: x(t), y1: m.t + ih, y2: m.t + ih + 4 }),
      s('text', { class: 'tick', x: x(t), y: m.t + ih + 16, 'text-anchor': i === 0 ? 'start' : i === n ? 'end' : 'middle' },
        fmtClock(t, t1 - t0 < 15 * 60e3)));
  }
  svg.append(
    s('line', { class: 'axis', x1: m.l, x2: m.l, y1: m.t, y2: m.t + ih }),
    s('line', { class: 'axis', x1: m.l, x2: W - m.r, y1: m.t + ih, y2: m.t + ih }),
    s('text', { class: 'axis-label', transform: `translate(14 ${m.t + ih / 2}) rotate(-90)`, 'text-anchor': 'middle' }, yLabel),
    s('text', { class: 'axis-label', x: m.l + iw / 2, y: H - 4, 'text-anchor': 'middle' }, 'local time'));
  for (const se of series) {
    let d = '', pen = false;
    se.values.forEach((v, i) => {
      if (missing(v)) { pen = false; return; }
      d += `${pen ? 'L' : 'M'}${x(times[i]).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    svg.append(s('path', { class: `series ${se.cls}`, d, 'data-series': se.name }));
    // A point with no neighbour draws no line: it gets a dot (and, when the
    // points are few, every point does).
    se.values.forEach((v, i) => {
      if (missing(v)) return;
      const lone = missing(se.values[i - 1]) && missing(se.values[i + 1]);
      if (lone || times.length <= 30) {
        svg.append(s('circle', { class: `pt ${se.cls}${lone ? ' lone' : ''}`, cx: x(times[i]).toFixed(1), cy: y(v).toFixed(1), r: lone ? 2.5 : 2 }));
      }
    });
  }
  const half = times.length > 1 ? iw / (times.length - 1) / 2 : iw / 2;
  times.forEach((t, i) => svg.append(s('rect', { class: 'hit', x: x(t) - half, y: m.t, width: 2 * half, height: ih },
    s('title', {}, [hms(new Date(t)), ...series.map(se => `${se.name}: ${missing(se.values[i]) ? DASH : fmtTick(se.values[i])}`)].join('\n')))));
  box.replaceChildren(legend, svg);
}

let chartMinutes = 10;

function pageCharts(root) {
  const minutes = h('select', { id: 'chart-minutes', value: String(chartMinutes) },
    [5, 10, 30, 60, 180].map(mn => h('option', { value: String(mn) }, `last ${mn} min`)));
  const updated = h('span', { class: 'muted' });
  const rate = h('figure', { id: 'chart-rate', class: 'chart' });
  const latency = h('figure', { id: 'chart-latency', class: 'chart' });
  root.append(h('div', { class: 'toolbar' }, h('h1', 'Charts'), minutes, updated),
    h('h2', 'Calls per second'), rate, h('h2', 'Latency (ms)'), latency);
  let last = null;

  function draw() {
    if (!last) return;
    const step = (Number(last.bucketSeconds) > 0 ? Number(last.bucketSeconds) : chartMinutes) * 1000;
    const byTime = new Map((last.buckets || []).map(b => [Math.floor(+new Date(b.time) / step) * step, b]));
    // The server leaves out empty buckets: fill the window so quiet time shows as zero.
    const end = Math.floor(Date.now() / step) * step;
    const times = [];
    for (let t = end - chartMinutes * 60e3 + step; t <= end; t += step) times.push(t);
    for (const t of byTime.keys()) if (t < times[0] || t > end) times.push(t);
    times.sort((a, b) => a - b);
    const at = t => byTime.get(t);
    const secs = step / 1000; // a bucket is bucketSeconds long: calls/s = calls / bucketSeconds
    lineChart(rate, times, [
      { name: 'calls/s', cls: 'c0', values: times.map(t => (at(t) ? (at(t).calls || 0) / secs : 0)) },
      { name: 'errors/s', cls: 'cbad', values: times.map(t => (at(t) ? (at(t).errors || 0) / secs : 0)) },
    ], 'calls / s');
    lineChart(latency, times, ['p50', 'p95', 'p99'].map((p, i) => (
      { name: p, cls: `c${i}`, values: times.map(t => (at(t) && at(t).calls ? at(t)[p] : null)) })), 'ms');
  }

  async function refresh() {
    try {
      last = await papi(`/api/stats?minutes=${chartMinutes}`);
      clearError(root);
      updated.textContent = `updated ${hms(new Date())} · every 5 s`;
      draw();
    } catch (e) { showError(root, e); }
  }

  minutes.addEventListener('change', () => { chartMinutes = Number(minutes.value) || 10; refresh(); });
  const timer = setInterval(refresh, 5000);
  const onResize = debounce(draw, 150);
  window.addEventListener('resize', onResize);
  onLeave(() => { clearInterval(timer); window.removeEventListener('resize', onResize); });
  refresh();
  return { refresh };
}

// ---------- boot ----------

window.addEventListener('hashchange', route);
route();
loadOverview();
setInterval(() => { if (!authFailed) loadOverview(); }, 15000);
connect();
