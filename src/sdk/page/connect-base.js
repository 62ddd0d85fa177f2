// The Connect page's script, part 1 of 3 (src/sdk/page.ts joins connect-base.js, connect-view.js
// and connect-steps.js inside one function and inlines it under a CSP nonce). Plain ES2020, run
// once. Every value from the API goes through textContent, .value or setAttribute, never markup
// (Trusted Types forbid string-to-DOM sinks). The SDK token is read from the URL fragment,
// dropped from the address bar and history at once, and exchanged once for the HttpOnly session
// cookie every later call carries (docs/connect.md "Reference: the SDK token and the Connect endpoints").
// This part: the API call, statuses, field errors, the busy guard, the view and its helpers.
const api = document.body.dataset.api;
const operatorName = document.body.dataset.operator;
const $ = (id) => document.getElementById(id);
const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
if (location.hash) history.replaceState(null, '', location.pathname + location.search);
// No operator contact configured: the footer links this site's root; show which site that is.
if ($('operator-contact').dataset.origin) $('operator-contact').textContent = location.origin;

/** A new element: `props` are attributes (`text`: its text, `class`), `kids` appended. */
function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
const setText = (selector, text) => {
  for (const n of document.querySelectorAll(selector)) n.textContent = text;
};
const longDate = (iso) => new Date(iso).toLocaleString('en-IN', { dateStyle: 'long', timeStyle: 'short' });
const clock = (iso) => new Date(iso).toLocaleTimeString('en-IN', { hour: 'numeric', minute: '2-digit' });
const FREQUENCY = { hourly: 'every hour', every_6_hours: 'every 6 hours', every_12_hours: 'every 12 hours', daily: 'once a day', weekly: 'once a week' };

async function call(method, path, body) {
  let res;
  try {
    res = await fetch(api + path, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    const e = new Error('network');
    e.network = true;
    throw e;
  }
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    const e = new Error(json.message || '');
    e.status = res.status;
    e.errors = (json.data && json.data.errors) || [];
    e.retryAfter = Number(res.headers.get('retry-after')) || 0;
    throw e;
  }
  return json.data;
}

let view = null;
/** The `reauth` of the view whose refused details this page replaced, else null. */
let saved = null;
const busy = new Set();
const product = () => view.hrms.products.find((p) => p.hrms_id === $('hrms_id').value) || view.hrms.products[0];
const fid = (f) => f.target.replace(/\./g, '-');
const vendor = () => view.vendor.org_name;
const org = () => view.org.org_name;
const established = () => view.proof.required || view.hrms.entered;
const ready = () => view.hrms.entered || view.proof.proven;
const productName = (id) => (view.hrms.products.find((p) => p.hrms_id === id) || {}).display_name || id;

function say(id, text, kind) {
  const s = $(id);
  s.textContent = text;
  s.className = 'status' + (kind ? ' ' + kind : '');
}

/** Plain words for a failure no step explains better, with what to do next. */
function general(err) {
  if (err.network) return 'We could not reach the service. Check your internet connection and try again.';
  if (err.status === 401)
    return 'Your session has ended (links work for one hour). Open the link from ' + (view ? vendor() : 'the service that sent you here') + ' again.';
  if (err.status === 429) return 'Too many tries. Wait ' + (err.retryAfter || 60) + ' seconds, then try again.';
  if (err.status === 503) return 'The service is busy. Try again in a minute.';
  if (err.status === 409) return 'This request was decided already. The page now shows the decision.';
  return 'Something went wrong (' + (err.message || 'error ' + err.status) + '). Try again, or contact ' + operatorName + '.';
}

function clearErrors(scope) {
  for (const i of scope.querySelectorAll('[aria-invalid]')) {
    i.removeAttribute('aria-invalid');
    i.setAttribute(
      'aria-describedby',
      (i.getAttribute('aria-describedby') || '')
        .split(' ')
        .filter((x) => x && !x.endsWith('-error'))
        .join(' '),
    );
  }
  for (const p of scope.querySelectorAll('.field-error')) {
    p.textContent = '';
    p.hidden = true;
  }
}
/** Marks each `[input, text]` invalid, tells why under it, and moves focus to the first. */
function showErrors(list) {
  for (const [input, text] of list) {
    input.setAttribute('aria-invalid', 'true');
    const p = $(input.id + '-error');
    p.textContent = text;
    p.hidden = false;
    const ids = (input.getAttribute('aria-describedby') || '').split(' ').filter(Boolean);
    if (!ids.includes(p.id)) input.setAttribute('aria-describedby', [...ids, p.id].join(' '));
  }
  // The field, its message and the step's status beside the button below it, all in the window.
  if (list.length) {
    list[0][0].focus({ preventScroll: true });
    list[0][0].scrollIntoView({ block: 'center' });
  }
}

/** Runs `fn` once at a time for `btn`: disabled and busy meanwhile, its status beside it. */
async function run(btn, statusId, busyText, fn) {
  if (busy.has(btn.id)) return;
  busy.add(btn.id);
  const label = btn.textContent;
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  btn.textContent = busyText;
  say(statusId, busyText, 'busy');
  // The status sits beside the button: bring it into the window if the button was at its edge.
  $(statusId).scrollIntoView({ block: 'nearest' });
  try {
    await fn();
  } finally {
    busy.delete(btn.id);
    btn.removeAttribute('aria-busy');
    btn.textContent = label;
    btn.disabled = false;
    if (view) sync();
  }
}

async function refresh() {
  view = await call('GET', '/');
}

function invalid() {
  $('loading').hidden = true;
  $('main').hidden = true;
  $('invalid').hidden = false;
  document.title = 'Link invalid or expired';
}
