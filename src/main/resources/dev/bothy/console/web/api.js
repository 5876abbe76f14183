// The console's calls to its JSON API: every request carries the token in the Authorization
// header (never a cookie), so another site cannot make the browser act with it.

const KEY = 'bothy-console-token';

/** The token of this tab, or null. */
export function token() {
  return sessionStorage.getItem(KEY);
}

/** Keeps the token for this tab only; it is gone when the tab closes. */
export function remember(value) {
  sessionStorage.setItem(KEY, value);
}

/** Forgets the token. */
export function forget() {
  sessionStorage.removeItem(KEY);
}

/** A problem document answered by the API, with its status and type. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.type = problem.type || 'unknown';
  }
}

/** Calls the API: GET without a body, POST with a JSON body. */
export async function call(path, { method = 'GET', body } = {}) {
  const headers = { Authorization: `Bearer ${token()}`, Accept: 'application/json' };
  const init = { method, headers, credentials: 'omit', cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`/console/api${path}`, init);
  const text = await response.text();
  const json = text ? JSON.parse(text) : {};
  if (!response.ok) {
    throw new ApiError(response.status, json);
  }
  return json;
}
