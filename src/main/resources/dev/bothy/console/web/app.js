// The console page: log in with a token, then poll the overview, the history and the page shown
// (overview, jobs, dead letters or webhooks, picked by the URL's fragment) at the chosen interval
// (or not, while paused); retry or cancel jobs and replay dead letters after a confirmation.
import { ApiError, call, forget, remember, token } from './api.js';
import { format, sparkline } from './charts.js';
import { $, cell, countText } from './dom.js';
import { initLetters, loadLetters } from './letters.js';
import { initWebhooks, loadWebhooks } from './webhooks.js';

const VIEWS = ['overview', 'jobs', 'dead-letters', 'webhooks'];

const state = {
  timer: null,
  paused: false,
  canAct: false,
  filter: { state: '', kind: '' },
  pages: [''], // the "before" of each page seen, so "First page" and paging by key work
  jobs: [],
};

function show(loggedIn) {
  $('login').hidden = loggedIn;
  $('main').hidden = !loggedIn;
  $('controls').hidden = !loggedIn;
}

async function login(event) {
  event.preventDefault();
  remember($('token').value.trim());
  $('token').value = '';
  try {
    await refresh();
    show(true);
    $('login-error').textContent = '';
    schedule();
  } catch (e) {
    forget();
    show(false);
    $('login-error').textContent = e.message;
  }
}

function logout() {
  forget();
  clearTimeout(state.timer);
  show(false);
}

function schedule() {
  clearTimeout(state.timer);
  if (state.paused || !token()) {
    return;
  }
  state.timer = setTimeout(async () => {
    try {
      await refresh();
    } catch (e) {
      status(`refresh failed: ${e.message}`);
      if (e instanceof ApiError && e.status === 401) {
        logout();
        $('login-error').textContent = e.message;
        return;
      }
    }
    schedule();
  }, Number($('interval').value));
}

function status(text) {
  $('status').textContent = text;
}

/** The page named by the URL's fragment, the overview by default. */
function currentView() {
  const name = location.hash.replace(/^#/, '');
  return VIEWS.includes(name) ? name : 'overview';
}

function showView() {
  const view = currentView();
  for (const element of document.querySelectorAll('.view')) {
    element.hidden = element.dataset.view !== view;
  }
  for (const link of document.querySelectorAll('nav#views a')) {
    if (link.dataset.view === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

/** Loads the data of the page shown; the overview's comes with every refresh. */
async function loadView() {
  switch (currentView()) {
    case 'jobs':
      return loadJobs();
    case 'dead-letters':
      return loadLetters(state.canAct);
    case 'webhooks':
      return loadWebhooks();
    default:
      return undefined;
  }
}

async function refresh() {
  const [overview, history] = await Promise.all([call('/overview'), call('/history')]);
  renderOverview(overview);
  renderHistory(history);
  await loadView();
  const every = $('interval').selectedOptions[0].textContent;
  status(state.paused ? 'paused' : `updated ${new Date().toLocaleTimeString()}, every ${every}`);
}

function renderOverview(o) {
  $('who').textContent = `token ${o.token.name}`;
  state.canAct = o.token.can_act;
  const note = $('mode-note');
  if (o.token.read_only) {
    note.textContent = 'Read-only: console.readOnly is true, so every action is refused.';
  } else if (!o.token.can_act) {
    note.textContent = `Look only: the token ${o.token.name} lacks the scope admin:write.`;
  }
  note.hidden = o.token.can_act;
  for (const button of document.querySelectorAll('#jobs button.act')) {
    button.disabled = !state.canAct;
  }
  $('head-seq').textContent = o.log.head_seq;
  $('oldest-seq').textContent = o.log.oldest_retained_seq;
  $('append-rate').textContent =
    o.log.append_rate_per_second === null ? 'collecting samples' : `${format(o.log.append_rate_per_second)} events/s`;
  const lock = o.log.seq_lock_held;
  $('seq-lock').textContent =
    lock === null ? 'this process has not appended' : `p50 ${format(lock.p50_ms)} ms, p99 ${format(lock.p99_ms)} ms, max ${format(lock.max_ms)} ms (this process, ${lock.units} ${lock.units === 1 ? 'unit' : 'units'})`;
  $('relay').textContent = o.relay === null ? 'no bus configured' : `${o.relay.mode}, lag ${o.relay.lag}${o.relay.halt ? `, halted: ${o.relay.halt}` : ''}`;
  const rows = o.consumers.map((c) => {
    const tr = document.createElement('tr');
    tr.dataset.consumer = c.name;
    tr.append(
      cell(c.name),
      cell(c.lag, 'num lag'),
      cell(`${format(c.pending_age_seconds)} s`, 'num age'),
      cell(c.last_seq, 'num'),
      chartCell('lag-chart'),
      chartCell('age-chart'),
    );
    return tr;
  });
  $('consumer-rows').replaceChildren(...rows);
  const durables = o.bus_consumers.map((d) => {
    const tr = document.createElement('tr');
    tr.dataset.durable = d.durable;
    tr.append(
      cell(d.durable),
      cell(d.pending, 'num pending'),
      cell(d.ack_pending, 'num'),
      cell(d.redelivered, 'num'),
      chartCell('pending-chart'),
    );
    return tr;
  });
  $('durable-rows').replaceChildren(...durables);
  $('no-durables').hidden = durables.length > 0;
  $('durable-table').hidden = durables.length === 0;
}

function renderHistory(h) {
  const samples = h.samples;
  sparkline($('append-chart'), samples.map((s) => s.append_rate_per_second), { label: 'events per second' });
  const rate = (member) => samples.map((s) => (s.job_rates ? s.job_rates[member] : null));
  sparkline($('created-chart'), rate('created_per_second'), { label: 'jobs created per second' });
  sparkline($('completed-chart'), rate('completed_per_second'), { label: 'jobs completed per second' });
  sparkline($('discarded-chart'), rate('discarded_per_second'), { label: 'jobs discarded per second' });
  for (const tr of $('consumer-rows').children) {
    const name = tr.dataset.consumer;
    const points = samples.map((s) => s.consumers.find((c) => c.name === name) || null);
    sparkline(tr.querySelector('.lag-chart'), points.map((p) => (p ? p.lag : null)), { label: `${name} lag` });
    sparkline(tr.querySelector('.age-chart'), points.map((p) => (p ? p.pending_age_seconds : null)), { label: `${name} pending age` });
  }
  for (const tr of $('durable-rows').children) {
    const name = tr.dataset.durable;
    const points = samples.map((s) => s.bus_consumers.find((d) => d.durable === name) || null);
    sparkline(tr.querySelector('.pending-chart'), points.map((p) => (p ? p.pending : null)), { label: `${name} pending` });
  }
}

async function loadJobs() {
  const before = state.pages[state.pages.length - 1];
  const query = new URLSearchParams();
  if (state.filter.state) query.set('state', state.filter.state);
  if (state.filter.kind) query.set('kind', state.filter.kind);
  if (before) query.set('before', before);
  const page = await call(`/jobs?${query}`);
  state.jobs = page.jobs;
  state.next = page.next_before;
  $('job-count').textContent = countText(page.count, 'jobs');
  $('next-page').disabled = !page.next_before;
  $('first-page').disabled = state.pages.length === 1;
  const checked = new Set([...document.querySelectorAll('#job-rows input:checked')].map((i) => i.value));
  $('job-rows').replaceChildren(...page.jobs.map((j) => jobRow(j, checked.has(j.id))));
}

function jobRow(j, checked) {
  const tr = document.createElement('tr');
  tr.dataset.job = j.id;
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.value = j.id;
  box.checked = checked;
  box.setAttribute('aria-label', `select ${j.id}`);
  const pick = document.createElement('td');
  pick.append(box);
  const last = j.errors.length ? j.errors[j.errors.length - 1] : null;
  const actions = document.createElement('td');
  for (const verb of ['retry', 'cancel']) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'act';
    b.textContent = verb === 'retry' ? 'Retry' : 'Cancel';
    // The server says what the job's state allows; a finished job offers no cancel.
    const allowed = j.actions.includes(verb);
    b.disabled = !state.canAct || !allowed;
    if (!allowed) b.title = `a ${j.state} job cannot be ${verb === 'retry' ? 'retried' : 'cancelled'}`;
    b.addEventListener('click', () => act(verb, [j.id]));
    actions.append(b);
  }
  tr.append(
    pick,
    cell(j.id, 'id'),
    cell(j.kind),
    cell(j.queue),
    cell(j.state, 'state'),
    cell(`${j.attempt}/${j.max_attempts}`, 'num'),
    cell(last ? `${last.kind}: ${last.message}` : ''),
    actions,
  );
  return tr;
}

async function act(verb, ids) {
  if (ids.length === 0) {
    $('action-message').textContent = 'Select jobs first.';
    return;
  }
  const question = verb === 'retry'
    ? `Retry ${ids.length} job(s) now? OK retries them.`
    : `Stop ${ids.length} job(s) for good? OK cancels them; the dialog's Cancel keeps them.`;
  if (!window.confirm(question)) {
    return;
  }
  try {
    const result = await call(`/jobs/${verb}`, { method: 'POST', body: { ids } });
    const done = result.results.filter((r) => r.outcome === 'done').length;
    const refused = result.results.filter((r) => r.outcome !== 'done').map((r) => `${r.id}: ${r.detail}`);
    $('action-message').textContent = `${verb}: ${done} of ${ids.length} done${refused.length ? `; ${refused.join('; ')}` : ''}`;
    $('action-message').className = refused.length ? 'error' : '';
  } catch (e) {
    $('action-message').textContent = `${verb} refused: ${e.message}`;
    $('action-message').className = 'error';
  }
  await loadJobs();
}

function chartCell(className) {
  const td = document.createElement('td');
  const div = document.createElement('div');
  div.className = `chart ${className}`;
  td.append(div);
  return td;
}

function selected() {
  return [...document.querySelectorAll('#job-rows input:checked')].map((i) => i.value);
}

function init() {
  showView();
  window.addEventListener('hashchange', () => {
    showView();
    if (token()) loadView().catch((e) => status(e.message));
  });
  initLetters((e) => status(e.message));
  initWebhooks((e) => status(e.message));
  $('login-form').addEventListener('submit', login);
  $('logout').addEventListener('click', logout);
  $('pause').addEventListener('click', () => {
    state.paused = !state.paused;
    $('pause').textContent = state.paused ? 'Resume' : 'Pause';
    $('pause').setAttribute('aria-pressed', String(state.paused));
    status(state.paused ? 'paused' : 'resumed');
    schedule();
  });
  $('interval').addEventListener('change', schedule);
  $('job-filter').addEventListener('submit', async (event) => {
    event.preventDefault();
    state.filter = { state: $('job-state').value, kind: $('job-kind').value.trim() };
    state.pages = [''];
    // A new list: the message of an action on the old one no longer applies.
    $('action-message').textContent = '';
    $('action-message').className = '';
    await loadJobs().catch((e) => status(e.message));
  });
  $('next-page').addEventListener('click', async () => {
    if (state.next) {
      state.pages.push(state.next);
      await loadJobs().catch((e) => status(e.message));
    }
  });
  $('first-page').addEventListener('click', async () => {
    state.pages = [''];
    await loadJobs().catch((e) => status(e.message));
  });
  $('select-all').addEventListener('change', (event) => {
    for (const box of document.querySelectorAll('#job-rows input')) box.checked = event.target.checked;
  });
  $('bulk-retry').addEventListener('click', () => act('retry', selected()));
  $('bulk-cancel').addEventListener('click', () => act('cancel', selected()));
  if (token()) {
    refresh()
      .then(() => {
        show(true);
        schedule();
      })
      .catch(() => logout());
  } else {
    show(false);
  }
}

init();
