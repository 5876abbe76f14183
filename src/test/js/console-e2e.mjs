// The console in a real browser: Debian's Chromium driven by playwright-core, headless, with a
// fresh user data directory and no background networking. Run by ConsoleBrowserTest, which
// starts the two applications and passes their addresses and tokens in the environment.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const RW = env('CONSOLE_URL');
const RO = env('CONSOLE_READ_ONLY_URL');
const ADMIN = env('ADMIN_TOKEN');
const READER = env('READER_TOKEN');
const SHOTS = env('SCREENSHOTS');
const CHROMIUM = env('CHROMIUM');
const LETTERS = Number(env('DEAD_LETTERS'));
const SUBSCRIPTION = env('SUBSCRIPTION');
const ATTEMPTS = Number(env('ATTEMPTS'));
const TIMEOUT = 15000;

mkdirSync(SHOTS, { recursive: true });
const browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'bothy-chromium-')), {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
  viewport: { width: 1280, height: 900 },
});
browser.setDefaultTimeout(TIMEOUT);

let passed = 0;
let failed = 0;
async function scenario(name, body) {
  const page = await browser.newPage();
  const problems = [];
  // A refused request is logged by Chromium as "Failed to load resource"; the scenarios make
  // such requests on purpose. Anything else (a script error, a CSP refusal) fails the scenario.
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => d.accept());
  try {
    await body(page);
    assert.deepEqual(problems, [], 'the page logged no error and broke no CSP rule');
    passed++;
    console.log(`ok ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAILED ${name}: ${e.stack}`);
    await page.screenshot({ path: join(SHOTS, `failed-${name}.png`), fullPage: true }).catch(() => {});
  } finally {
    await page.close();
  }
}

async function login(page, base, token) {
  await page.goto(`${base}/console`);
  await page.fill('#token', token);
  await page.click('#login-button');
  await page.waitForSelector('#main:not([hidden])');
}

async function open(page, view) {
  await page.click(`nav#views a[data-view="${view}"]`);
  await page.waitForSelector(`.view[data-view="${view}"]:not([hidden])`);
  assert.equal(await page.getAttribute(`nav#views a[data-view="${view}"]`, 'aria-current'), 'page');
}

await scenario('a wrong token is refused at login', async (page) => {
  await page.goto(`${RW}/console`);
  // A browser asks for /favicon.ico unless the page names its icon; the admin port has none.
  assert.equal(await page.evaluate(() => document.querySelector('link[rel="icon"]')?.href), 'data:,');
  await page.screenshot({ path: join(SHOTS, 'login.png'), fullPage: true });
  await page.fill('#token', 'not-a-configured-token');
  await page.click('#login-button');
  await page.waitForFunction(() => document.getElementById('login-error').textContent.length > 0);
  assert.match(await page.textContent('#login-error'), /not one of api.tokens/);
  assert.equal(await page.isVisible('#main'), false);
});

await scenario('log in and see a consumer lag, the log and the charts', async (page) => {
  await login(page, RW, ADMIN);
  assert.match(await page.textContent('#who'), /robin-admin/);
  const lag = await page.textContent('tr[data-consumer="webhooks"] td.lag');
  assert.match(lag, /^\d+$/);
  assert.match(await page.textContent('#head-seq'), /^[1-9]\d*$/);
  assert.match(await page.textContent('#seq-lock'), /^p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms \(this process, [1-9]\d* units?\)$/);
  // The log transport: no NATS durable, and the page says so.
  assert.equal(await page.isVisible('#no-durables'), true);
  assert.equal(await page.isVisible('#durable-table'), false);
  // A flat line (a lag of 0 all along) has no height, which Playwright calls hidden: wait for
  // the polylines to exist and check they have points.
  for (const chart of [
    'tr[data-consumer="webhooks"] .lag-chart',
    'tr[data-consumer="webhooks"] .age-chart',
    '#append-chart',
    '#created-chart',
    '#completed-chart',
    '#discarded-chart',
  ]) {
    await page.waitForSelector(`${chart} svg polyline`, { state: 'attached' });
    const points = await page.getAttribute(`${chart} svg polyline`, 'points');
    assert.ok(points.split(' ').length >= 2, `${chart} draws at least two points`);
  }
  assert.match(await page.textContent('#status'), /updated .*every 5 s/);
  await page.click('#pause');
  assert.equal(await page.textContent('#status'), 'paused');
  assert.equal(await page.getAttribute('#pause', 'aria-pressed'), 'true');
  await page.screenshot({ path: join(SHOTS, 'overview.png'), fullPage: true });
});

await scenario('filter jobs by state, retry a discarded job and see it leave the list', async (page) => {
  await login(page, RW, ADMIN);
  await page.click('#pause');
  await open(page, 'jobs');
  await page.selectOption('#job-state', 'discarded');
  await page.click('#job-filter button[type=submit]');
  await page.waitForFunction(() => {
    const states = [...document.querySelectorAll('#job-rows td.state')].map((td) => td.textContent);
    return states.length > 0 && states.every((s) => s === 'discarded');
  });
  const before = await page.$$eval('#job-rows tr', (rows) => rows.map((r) => r.dataset.job));
  assert.match(await page.textContent('#job-count'), /^\d+ jobs$/);
  await page.screenshot({ path: join(SHOTS, 'jobs-discarded.png'), fullPage: true });
  const id = before[0];
  await page.click(`tr[data-job="${id}"] button:has-text("Retry")`);
  await page.waitForFunction((gone) => !document.querySelector(`tr[data-job="${gone}"]`), id);
  assert.equal(await page.textContent('#action-message'), 'retry: 1 of 1 done');
  const after = await page.$$eval('#job-rows tr', (rows) => rows.map((r) => r.dataset.job));
  assert.deepEqual(after, before.slice(1));
  await page.screenshot({ path: join(SHOTS, 'jobs-after-retry.png'), fullPage: true });
});

await scenario('a finished job offers no action, and a new filter clears the last message', async (page) => {
  await login(page, RW, ADMIN);
  await page.click('#pause');
  await open(page, 'jobs');
  await page.selectOption('#job-state', 'completed');
  await page.click('#job-filter button[type=submit]');
  await page.waitForFunction(() => {
    const states = [...document.querySelectorAll('#job-rows td.state')].map((td) => td.textContent);
    return states.length > 0 && states.every((s) => s === 'completed');
  });
  assert.equal(await page.isDisabled('#job-rows tr:first-child button:has-text("Retry")'), true);
  assert.equal(await page.isDisabled('#job-rows tr:first-child button:has-text("Cancel")'), true);
  // The bulk buttons still ask the server, which refuses each finished job and says why.
  await page.check('#job-rows tr:first-child input[type=checkbox]');
  await page.click('#bulk-cancel');
  await page.waitForFunction(() => document.querySelector('#action-message').textContent.startsWith('cancel: 0 of 1 done'));
  assert.match(await page.textContent('#action-message'), /is already completed/);
  await page.selectOption('#job-state', 'discarded');
  await page.click('#job-filter button[type=submit]');
  await page.waitForFunction(() => document.querySelector('#action-message').textContent === '');
});

await scenario('show a dead letter with its error history, replay it and see it leave the list', async (page) => {
  await login(page, RW, ADMIN);
  await page.click('#pause');
  await open(page, 'dead-letters');
  await page.waitForSelector('#letter-rows tr');
  const before = await page.$$eval('#letter-rows tr', (rows) => rows.map((r) => r.dataset.letter));
  assert.equal(before.length, LETTERS);
  assert.equal(await page.textContent('#letter-count'), `${LETTERS} dead letters`);
  const id = before[0];
  await page.click(`tr[data-letter="${id}"] button:has-text("History")`);
  await page.waitForSelector('#letter-detail:not([hidden]) #letter-errors tr');
  assert.equal(await page.textContent('#letter-detail-id'), id);
  const kinds = await page.$$eval('#letter-errors tr td:nth-child(3)', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(kinds, ['unavailable', 'invalid'], 'the history, oldest death first');
  await page.screenshot({ path: join(SHOTS, 'dead-letters.png'), fullPage: true });
  await page.click(`tr[data-letter="${id}"] button:has-text("Replay")`);
  await page.waitForFunction((gone) => !document.querySelector(`tr[data-letter="${gone}"]`), id);
  assert.match(await page.textContent('#letter-message'), /^replay: console\.fixture1 queued again for event #1$/);
  const after = await page.$$eval('#letter-rows tr', (rows) => rows.map((r) => r.dataset.letter));
  assert.deepEqual(after, before.slice(1));
  await page.check('#letter-all');
  await page.waitForSelector(`tr[data-letter="${id}"]`);
  assert.equal(await page.isDisabled(`tr[data-letter="${id}"] button:has-text("Replay")`), true);
  await page.screenshot({ path: join(SHOTS, 'dead-letters-after-replay.png'), fullPage: true });
});

await scenario('the webhooks page shows a subscription and its attempts', async (page) => {
  await login(page, RW, ADMIN);
  await page.click('#pause');
  await open(page, 'webhooks');
  await page.waitForSelector(`tr[data-subscription="${SUBSCRIPTION}"]`);
  assert.match(await page.textContent(`tr[data-subscription="${SUBSCRIPTION}"]`), /https:\/\/hooks\.example\.com\/alex/);
  await page.click(`tr[data-subscription="${SUBSCRIPTION}"] button:has-text("Attempts")`);
  await page.waitForSelector('#attempts:not([hidden]) #attempt-rows tr');
  assert.equal(await page.textContent('#attempt-count'), `${ATTEMPTS} attempts`);
  assert.equal(await page.$$eval('#attempt-rows tr', (rows) => rows.length), ATTEMPTS);
  assert.equal(await page.textContent('#attempt-rows tr:first-child td.outcome'), 'failed');
  assert.match(await page.textContent('#attempt-rows tr:first-child'), /503.*try later/);
  assert.equal(await page.isDisabled('#attempt-next'), true);
  await page.screenshot({ path: join(SHOTS, 'webhooks.png'), fullPage: true });
});

await scenario('a token without admin:write cannot act', async (page) => {
  await login(page, RW, READER);
  await open(page, 'jobs');
  await page.waitForSelector('#mode-note:not([hidden])');
  assert.match(await page.textContent('#mode-note'), /lacks the scope admin:write/);
  await page.waitForSelector('#job-rows tr');
  assert.equal(await page.isDisabled('#job-rows tr:first-child button:has-text("Retry")'), true);
  assert.equal(await page.isDisabled('#bulk-retry'), true);
  const refused = await page.evaluate(async (token) => {
    const id = document.querySelector('#job-rows tr').dataset.job;
    const r = await fetch(`/console/api/jobs/${id}/retry`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    return { status: r.status, type: (await r.json()).type };
  }, READER);
  assert.deepEqual(refused, { status: 403, type: 'forbidden' });
  await page.screenshot({ path: join(SHOTS, 'no-write-scope.png'), fullPage: true });
  await open(page, 'dead-letters');
  await page.waitForSelector('#letter-rows tr');
  assert.equal(await page.isDisabled('#letter-rows tr:first-child button:has-text("Replay")'), true);
  const replay = await page.evaluate(async (token) => {
    const id = document.querySelector('#letter-rows tr').dataset.letter;
    const r = await fetch(`/console/api/dead-letters/${id}/replay`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    return { status: r.status, type: (await r.json()).type };
  }, READER);
  assert.deepEqual(replay, { status: 403, type: 'forbidden' });
});

await scenario('a read-only console refuses every action, even with admin:write', async (page) => {
  await login(page, RO, ADMIN);
  await page.waitForSelector('#mode-note:not([hidden])');
  assert.match(await page.textContent('#mode-note'), /Read-only/);
  await open(page, 'jobs');
  await page.selectOption('#job-state', 'discarded');
  await page.click('#job-filter button[type=submit]');
  await page.waitForSelector('#job-rows tr');
  assert.equal(await page.isDisabled('#job-rows tr:first-child button:has-text("Retry")'), true);
  const refused = await page.evaluate(async (token) => {
    const id = document.querySelector('#job-rows tr').dataset.job;
    const r = await fetch(`/console/api/jobs/${id}/retry`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    return { status: r.status, type: (await r.json()).type };
  }, ADMIN);
  assert.deepEqual(refused, { status: 403, type: 'read_only' });
  assert.match(await page.textContent('#job-rows tr:first-child td.state'), /discarded/);
  await page.screenshot({ path: join(SHOTS, 'read-only.png'), fullPage: true });
  await open(page, 'dead-letters');
  await page.waitForSelector('#letter-rows tr');
  assert.equal(await page.isDisabled('#letter-rows tr:first-child button:has-text("Replay")'), true);
  const replay = await page.evaluate(async (token) => {
    const id = document.querySelector('#letter-rows tr').dataset.letter;
    const r = await fetch(`/console/api/dead-letters/${id}/replay`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    return { status: r.status, type: (await r.json()).type };
  }, ADMIN);
  assert.deepEqual(replay, { status: 403, type: 'read_only' });
});

await browser.close();
console.log(`console browser tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
