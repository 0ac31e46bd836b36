// idem console: plain JavaScript against the admin API beside it (api/...). No library, no CDN.
// Every value from the server is set as text, never as markup.
'use strict';

const state = { settings: { readOnly: true }, tab: 'records', timer: null };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'onclick') e.addEventListener('click', v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c === null || c === undefined ? '' : String(c)));
  return e;
}

function say(text, error) {
  const m = document.getElementById('message');
  m.textContent = text;
  m.className = error ? 'error' : '';
}

async function call(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: { 'Accept': 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  // Tokens exceed JavaScript's exact integers: read them as strings before parsing.
  const text = (await response.text()).replace(/"token":(\d+)/g, '"token":"$1"');
  const answer = text ? JSON.parse(text) : {};
  if (!response.ok) throw new Error(answer.detail || answer.title || ('HTTP ' + response.status));
  return answer;
}

function confirmAction(text, offerForce) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-force-row').hidden = !offerForce;
  document.getElementById('confirm-force').checked = false;
  return new Promise(resolve => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'
        ? { force: document.getElementById('confirm-force').checked } : null), { once: true });
    dialog.showModal();
  });
}

function ago(iso) {
  if (!iso) return '';
  const ms = Date.now() - Date.parse(iso);
  return ms >= 0 ? seconds(ms) + ' ago' : 'in ' + seconds(-ms);
}

function seconds(ms) {
  if (ms === null || ms === undefined) return '';
  return ms < 1000 ? ms + ' ms' : ms < 120000 ? (ms / 1000).toFixed(1) + ' s' : Math.round(ms / 60000) + ' min';
}

// ---- records --------------------------------------------------------------------------------

async function loadStuck() {
  const answer = await call('GET', 'api/records/stuck?limit=200');
  const filter = document.getElementById('stuck-filter').value.trim();
  const body = document.querySelector('#stuck-table tbody');
  body.replaceChildren();
  const rows = answer.expiredLeases.filter(r => !filter || r.scope.includes(filter));
  for (const r of rows) {
    body.append(el('tr', { 'data-key': r.key },
      el('td', { class: 'mono' }, r.scope), el('td', { class: 'mono' }, r.key), el('td', { class: 'mono' }, r.token),
      el('td', {}, r.attempt), el('td', {}, ago(r.leaseUntil)), el('td', {}, r.phasesDone.join(', ')),
      el('td', {},
        el('button', { onclick: () => showRecord(r.scope, r.key) }, 'Details'), ' ',
        el('button', { class: 'danger release', disabled: state.settings.readOnly, onclick: () => release(r) }, 'Release'))));
  }
  if (rows.length === 0) body.append(el('tr', {}, el('td', { colspan: 7 }, 'No record is stuck past its lease.')));
  const oldest = answer.oldestInProgress;
  document.getElementById('oldest').textContent = oldest
    ? 'Oldest in progress: created ' + ago(oldest.createdAt) + ', lease ' + (oldest.leaseExpired ? 'over' : 'running') + '.'
    : 'Nothing is in progress.';
}

async function release(r) {
  const live = !r.leaseExpired;
  const choice = await confirmAction('Release the record of key ' + r.key + ' (token ' + r.token + ')? It starts afresh on the next retry:'
      + ' the phases it finished (' + (r.phasesDone.join(', ') || 'none') + ') run again.', live);
  if (!choice) return;
  try {
    const answer = await call('POST', 'api/records/release', { scope: r.scope, key: r.key, token: String(r.token), force: choice.force });
    say(answer.released ? 'Released.' : 'Not released: ' + answer.result, !answer.released);
  } catch (e) {
    say(e.message, true);
  }
  await loadStuck();
}

async function showRecord(scope, key) {
  const detail = document.getElementById('record-detail');
  detail.replaceChildren();
  try {
    const r = (await call('GET', 'api/records?scope=' + encodeURIComponent(scope) + '&key=' + encodeURIComponent(key))).record;
    const dl = el('dl', { id: 'record' });
    for (const [k, v] of Object.entries(r)) {
      dl.append(el('dt', {}, k), el('dd', { class: 'mono', 'data-field': k }, Array.isArray(v) ? v.join(', ') : v));
    }
    const button = el('button', { class: 'danger release', disabled: state.settings.readOnly || r.state !== 'IN_PROGRESS',
      onclick: () => release(r) }, 'Release');
    detail.append(dl, button);
  } catch (e) {
    detail.append(el('p', {}, e.message));
  }
}

// ---- inbox ----------------------------------------------------------------------------------

async function loadInbox() {
  const answer = await call('GET', 'api/inbox?limit=200');
  const select = document.getElementById('consumer-filter');
  const chosen = select.value;
  if (select.options.length === 1) {
    for (const c of answer.consumers) select.append(el('option', { value: c.consumer }, c.consumer));
  }
  const box = document.getElementById('consumers');
  box.replaceChildren();
  for (const c of answer.consumers.filter(c => !chosen || c.consumer === chosen)) {
    const rows = c.quarantined.map(m => el('tr', { 'data-message': m.messageId },
      el('td', { class: 'mono' }, m.messageId), el('td', {}, m.attempts), el('td', {}, ago(m.firstFailure)),
      el('td', {}, ago(m.lastFailure)), el('td', { class: 'mono' }, m.errorClass), el('td', {}, m.payloadBytes + ' B'),
      el('td', {},
        el('button', { class: 'replay', disabled: state.settings.readOnly, onclick: () => replay(c.consumer, m.messageId) }, 'Replay'), ' ',
        el('button', { class: 'danger drop', disabled: state.settings.readOnly, onclick: () => drop(c.consumer, m.messageId) }, 'Drop'))));
    if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: 7 }, 'Nothing is quarantined.')));
    box.append(el('div', { class: 'consumer', 'data-consumer': c.consumer },
      el('h3', {}, c.consumer, ' ', el('span', { class: c.quarantined.length ? 'badge bad' : 'badge' }, c.quarantined.length + ' quarantined'), ' ',
        el('button', { class: 'replay-all', disabled: state.settings.readOnly || c.quarantined.length === 0,
          onclick: () => replayAll(c.consumer, c.quarantined.length) }, 'Replay all')),
      el('table', {}, el('thead', {}, el('tr', {}, ...['Message', 'Attempts', 'First failure', 'Last failure', 'Error', 'Payload', '']
        .map(h => el('th', {}, h)))), el('tbody', {}, ...rows))));
  }
}

async function replay(consumer, messageId) {
  if (!await confirmAction('Replay message ' + messageId + ' of ' + consumer + ' with its handler now?', false)) return;
  await act(() => call('POST', 'api/inbox/replay', { consumer, messageId }),
    a => 'Replayed: ' + a.results.map(r => r.messageId + ' ' + r.status).join(', '));
  await loadInbox();
}

async function replayAll(consumer, count) {
  if (!await confirmAction('Replay all ' + count + ' quarantined messages of ' + consumer + ', oldest failure first?', false)) return;
  await act(() => call('POST', 'api/inbox/replay', { consumer, all: true }),
    a => 'Replayed ' + a.results.filter(r => r.status === 'PROCESSED').length + ' of ' + a.results.length + '.');
  await loadInbox();
}

async function drop(consumer, messageId) {
  if (!await confirmAction('Drop message ' + messageId + ' of ' + consumer + '? It will never be processed; its redeliveries are ignored.', false)) return;
  await act(() => call('POST', 'api/inbox/drop', { consumer, messageId }), a => a.dropped ? 'Dropped.' : 'It was not quarantined any more.');
  await loadInbox();
}

async function act(request, describe) {
  try {
    say(describe(await request()), false);
  } catch (e) {
    say(e.message, true);
  }
}

// ---- outbox, sweepers, store -------------------------------------------------------------------

async function loadOutbox() {
  const answer = await call('GET', 'api/outbox');
  const filter = document.getElementById('destination-filter').value.trim();
  const box = document.getElementById('outboxes');
  box.replaceChildren();
  for (const o of answer.outboxes) {
    const destinations = o.destinations.filter(d => !filter || d.aggregateType.includes(filter));
    box.append(el('div', { class: 'outbox', 'data-outbox': o.name },
      el('h3', {}, o.name, ' ', el('span', { class: 'badge pending', 'data-pending': o.pending }, o.pending + ' pending'),
        ' ', o.oldestAgeMs === null ? '' : 'oldest ' + seconds(o.oldestAgeMs)),
      el('table', {}, el('thead', {}, el('tr', {}, ...['Destination', 'Pending', 'Oldest', 'Most attempts'].map(h => el('th', {}, h)))),
        el('tbody', {}, ...destinations.map(d => el('tr', {}, el('td', { class: 'mono' }, d.aggregateType), el('td', {}, d.pending),
          el('td', {}, seconds(d.oldestAgeMs)), el('td', {}, d.maxAttempts))))),
      o.failing.length === 0 ? el('p', {}, 'No event is failing.') :
        el('table', {}, el('thead', {}, el('tr', {}, ...['Failing event', 'Aggregate', 'Type', 'Attempts', 'Next attempt']
          .map(h => el('th', {}, h)))), el('tbody', {}, ...o.failing.map(f => el('tr', {},
          el('td', { class: 'mono' }, f.messageId), el('td', { class: 'mono' }, f.aggregateType + '/' + f.aggregateId + ' #' + f.sequence),
          el('td', {}, f.eventType), el('td', {}, f.attempts), el('td', {}, ago(f.nextAttemptAt))))))));
  }
}

async function loadSweepers() {
  const answer = await call('GET', 'api/sweepers');
  const body = document.querySelector('#sweeper-table tbody');
  body.replaceChildren(...answer.sweepers.map(s => el('tr', {},
    el('td', {}, s.name), el('td', {}, s.running ? 'yes' : 'no'), el('td', {}, s.removed), el('td', {}, ago(s.lastRun)),
    el('td', {}, s.lastRunRemoved), el('td', {}, s.lastRunFailed ? 'yes' : 'no'), el('td', {}, seconds(s.lagMs)))));
}

async function loadStore() {
  const s = await call('GET', 'api/store');
  const dl = document.getElementById('store-detail');
  dl.replaceChildren(
    el('dt', {}, 'Store'), el('dd', { class: 'mono' }, s.store),
    el('dt', {}, 'Healthy'), el('dd', {}, s.healthy ? 'yes (answered in ' + s.answeredInMs + ' ms)' : 'no: ' + s.error),
    el('dt', {}, 'Administration'), el('dd', {}, s.administration ? 'supported' : 'not supported by this store'),
    el('dt', {}, 'Durability'), el('dd', {}, s.durabilityFindings === undefined ? 'not checked for this store'
      : s.durabilityFindings === null ? 'could not be read: ' + s.durabilityError
      : s.durabilityFindings.length === 0 ? 'no setting can lose acknowledged writes' : s.durabilityFindings.join('; ')));
}

// ---- tabs -------------------------------------------------------------------------------------

const loaders = { records: loadStuck, inbox: loadInbox, outbox: loadOutbox, sweepers: loadSweepers, store: loadStore };

async function show(tab) {
  if (!loaders[tab]) tab = 'records';
  if (tab !== state.tab) say('', false);
  state.tab = tab;
  for (const b of document.querySelectorAll('.tab')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const p of document.querySelectorAll('.panel')) p.hidden = p.id !== tab;
  clearInterval(state.timer);
  if (tab === 'outbox') {
    state.timer = setInterval(() => { if (document.getElementById('outbox-auto').checked) loadOutbox().catch(e => say(e.message, true)); }, 2000);
  }
  try {
    await loaders[tab]();
  } catch (e) {
    say(e.message, true);
  }
}

document.addEventListener('DOMContentLoaded', async () => {
  try {
    state.settings = await call('GET', 'api/settings');
    document.getElementById('mode').textContent = state.settings.readOnly ? 'read-only' : '';
  } catch (e) {
    say(e.message, true);
  }
  for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => { location.hash = b.dataset.tab; });
  // A tab has its own address (#records, #inbox, ...): links and the back button open it.
  window.addEventListener('hashchange', () => show(location.hash.substring(1) || 'records'));
  document.getElementById('stuck-refresh').addEventListener('click', () => loadStuck().catch(e => say(e.message, true)));
  document.getElementById('stuck-filter').addEventListener('input', () => loadStuck().catch(e => say(e.message, true)));
  document.getElementById('inbox-refresh').addEventListener('click', () => loadInbox().catch(e => say(e.message, true)));
  document.getElementById('consumer-filter').addEventListener('change', () => loadInbox().catch(e => say(e.message, true)));
  document.getElementById('destination-filter').addEventListener('input', () => loadOutbox().catch(e => say(e.message, true)));
  document.getElementById('lookup').addEventListener('submit', ev => {
    ev.preventDefault();
    showRecord(document.getElementById('lookup-scope').value, document.getElementById('lookup-key').value);
  });
  await show(loaders[location.hash.substring(1)] ? location.hash.substring(1) : 'records');
});
