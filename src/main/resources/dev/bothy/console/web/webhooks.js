// The webhooks page: subscriptions in creation order, paged by id, and the attempt log of the one
// picked, newest first, paged by key. Read only: subscriptions change through the public API.
import { call } from './api.js';
import { $, button, cell, countText } from './dom.js';

const state = {
  pages: [''], // the "after" of each subscription page seen
  next: null,
  picked: null, // the subscription whose attempts are shown
  attemptPages: [''],
  attemptNext: null,
};

/** Loads the current page of subscriptions, and the picked one's attempts if any. */
export async function loadWebhooks() {
  const query = new URLSearchParams();
  const after = state.pages[state.pages.length - 1];
  if (after) query.set('after', after);
  const page = await call(`/webhooks/subscriptions?${query}`);
  state.next = page.next_after;
  $('subscription-next').disabled = !page.next_after;
  $('subscription-first').disabled = state.pages.length === 1;
  $('subscription-rows').replaceChildren(...page.subscriptions.map(row));
  if (state.picked) {
    await loadAttempts();
  }
}

function row(s) {
  const tr = document.createElement('tr');
  tr.dataset.subscription = s.id;
  if (s.id === state.picked) tr.className = 'selected';
  const pick = document.createElement('td');
  pick.append(button('Attempts', () => pickSubscription(s.id)));
  tr.append(
    cell(s.id, 'id'),
    cell(s.url),
    cell(s.event_types.join(', ')),
    cell(s.state === 'active' ? 'active' : `disabled (${s.disabled_reason})`, 'state'),
    cell(s.last_delivered_seq, 'num'),
    cell(s.failing_since || ''),
    pick,
  );
  return tr;
}

function pickSubscription(id) {
  state.picked = id;
  state.attemptPages = [''];
  for (const tr of $('subscription-rows').children) {
    tr.className = tr.dataset.subscription === id ? 'selected' : '';
  }
  return loadAttempts();
}

async function loadAttempts() {
  const query = new URLSearchParams();
  const before = state.attemptPages[state.attemptPages.length - 1];
  if (before) query.set('before', before);
  const page = await call(`/webhooks/subscriptions/${state.picked}/attempts?${query}`);
  state.attemptNext = page.next_before;
  $('attempts-of').textContent = state.picked;
  $('attempt-count').textContent = countText(page.count, 'attempts');
  $('attempt-next').disabled = !page.next_before;
  $('attempt-first').disabled = state.attemptPages.length === 1;
  $('attempt-rows').replaceChildren(
    ...page.attempts.map((a) => {
      const tr = document.createElement('tr');
      tr.dataset.attempt = a.id;
      tr.append(
        cell(a.attempted_at),
        cell(`#${a.event_seq}`, 'num'),
        cell(a.attempt, 'num'),
        cell(a.outcome, 'outcome'),
        cell(a.response_status === null ? '' : a.response_status, 'num'),
        cell(`${a.duration_ms} ms`, 'num'),
        cell(a.error_kind || a.response_body || ''),
      );
      return tr;
    }),
  );
  $('attempts').hidden = false;
}

/** Wires the page's controls; onError shows a failed load. */
export function initWebhooks(onError) {
  const reload = () => loadWebhooks().catch((e) => onError(e));
  const reloadAttempts = () => loadAttempts().catch((e) => onError(e));
  $('subscription-next').addEventListener('click', () => {
    if (state.next) {
      state.pages.push(state.next);
      reload();
    }
  });
  $('subscription-first').addEventListener('click', () => {
    state.pages = [''];
    reload();
  });
  $('attempt-next').addEventListener('click', () => {
    if (state.attemptNext) {
      state.attemptPages.push(state.attemptNext);
      reloadAttempts();
    }
  });
  $('attempt-first').addEventListener('click', () => {
    state.attemptPages = [''];
    reloadAttempts();
  });
}
