// The dead letters page: open dead letters of bus handlers (or all), newest death first, paged by
// key; one dead letter's error history; replay after a confirmation.
import { call } from './api.js';
import { $, button, cell, countText } from './dom.js';

const state = {
  pages: [''], // the "before" of each page seen
  next: null,
  shown: null, // the id whose error history is open
  canAct: false,
};

/** Loads the current page of dead letters, and the open error history if any. */
export async function loadLetters(canAct) {
  state.canAct = canAct;
  const query = new URLSearchParams();
  if ($('letter-all').checked) query.set('all', 'true');
  const before = state.pages[state.pages.length - 1];
  if (before) query.set('before', before);
  const page = await call(`/dead-letters?${query}`);
  state.next = page.next_before;
  $('letter-count').textContent = countText(page.count, 'dead letters');
  $('letter-next').disabled = !page.next_before;
  $('letter-first').disabled = state.pages.length === 1;
  $('letter-rows').replaceChildren(...page.dead_letters.map(row));
  if (state.shown) {
    await showLetter(state.shown);
  }
}

function row(l) {
  const tr = document.createElement('tr');
  tr.dataset.letter = l.id;
  if (l.id === state.shown) tr.className = 'selected';
  const actions = document.createElement('td');
  actions.append(
    button('History', () => showLetter(l.id).catch((e) => message(e.message, true))),
    button('Replay', () => replay(l.id), { enabled: state.canAct && l.open, className: 'act' }),
  );
  tr.append(
    cell(l.id, 'id'),
    cell(l.handler),
    cell(`${l.event_type} #${l.event_seq}`),
    cell(`${l.error_kind}: ${l.error_message}`),
    cell(l.deliveries, 'num'),
    cell(l.dead_at),
    cell(l.open ? l.replays : `${l.replays} (replayed ${l.replayed_at})`, 'num replays'),
    actions,
  );
  return tr;
}

async function showLetter(id) {
  const letter = await call(`/dead-letters/${id}`);
  state.shown = id;
  for (const tr of $('letter-rows').children) {
    tr.className = tr.dataset.letter === id ? 'selected' : '';
  }
  $('letter-detail-id').textContent = id;
  $('letter-errors').replaceChildren(
    ...letter.errors.map((e) => {
      const tr = document.createElement('tr');
      tr.append(cell(e.at), cell(e.deliveries, 'num'), cell(e.kind), cell(e.error), cell(e.message));
      return tr;
    }),
  );
  $('letter-detail').hidden = false;
}

async function replay(id) {
  if (!window.confirm(`Replay dead letter ${id}? Its handler runs again for its event.`)) {
    return;
  }
  try {
    const after = await call(`/dead-letters/${id}/replay`, { method: 'POST' });
    message(`replay: ${after.handler} queued again for event #${after.event_seq}`, false);
  } catch (e) {
    message(`replay refused: ${e.message}`, true);
  }
  await loadLetters(state.canAct);
}

function message(text, error) {
  $('letter-message').textContent = text;
  $('letter-message').className = error ? 'error' : '';
}

/** Wires the page's controls; onError shows a failed load. */
export function initLetters(onError) {
  const reload = () => loadLetters(state.canAct).catch((e) => onError(e));
  $('letter-all').addEventListener('change', () => {
    state.pages = [''];
    reload();
  });
  $('letter-next').addEventListener('click', () => {
    if (state.next) {
      state.pages.push(state.next);
      reload();
    }
  });
  $('letter-first').addEventListener('click', () => {
    state.pages = [''];
    reload();
  });
}
