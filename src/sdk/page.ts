/**
 * The Connect page (decisions §8): plain HTML and one small inline script, no framework, no
 * external assets. The server renders only escaped text (vendor and org names, the API path);
 * the script fills in the rest through the Connect JSON endpoints with `textContent`, never
 * markup, and Trusted Types forbid string-to-DOM sinks altogether. Inline script and style run by
 * a per-response nonce under a Content-Security-Policy that allows nothing else.
 */
import { randomBytes } from 'node:crypto';

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The response headers of a Connect page carrying `nonce` (CSP Level 3). */
export function pageHeaders(nonce: string, frameAncestors: string): Record<string, string> {
  const csp = [
    "default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src 'nonce-${nonce}'`, "connect-src 'self'",
    "img-src 'self'", "base-uri 'none'", "form-action 'none'", `frame-ancestors ${frameAncestors}`,
    "require-trusted-types-for 'script'", "trusted-types 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    // Never cache the page, never send its URL (with the token's fragment) on as a referrer.
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    ...(frameAncestors === "'none'" ? { 'x-frame-options': 'DENY' } : {}),
  };
}

const STYLE = `
body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1d2733}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}fieldset{border:1px solid #c9d3de;border-radius:6px;margin:1rem 0}
label{display:block;margin:.4rem 0}input,select{font:inherit;padding:.25rem;min-width:18rem}input[type=checkbox]{min-width:0;margin-right:.4rem}
button{font:inherit;padding:.4rem 1rem;margin-right:.6rem}ul{padding-left:1.2rem}
#status{padding:.5rem;min-height:1.2rem}.error{color:#a1160a}.ok{color:#1c6b2a}[hidden]{display:none}`;

// Plain ES2020, run once. Every value from the API goes through textContent or .value. The SDK
// token is read from the URL fragment, dropped from the address bar and history at once, and
// exchanged once for the HttpOnly session cookie every later call carries.
const SCRIPT = `(() => {
  const api = document.body.dataset.api;
  const $ = (id) => document.getElementById(id);
  const status = (text, bad) => { const s = $('status'); s.textContent = text; s.className = bad ? 'error' : 'ok'; };
  const item = (text) => { const li = document.createElement('li'); li.textContent = text; return li; };
  const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  let state = { required: false, ready: false };
  async function call(method, path, body) {
    const headers = {};
    if (body) headers['content-type'] = 'application/json';
    const res = await fetch(api + path, { method, headers, body: body ? JSON.stringify(body) : undefined, cache: 'no-store', credentials: 'same-origin' });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) { const e = new Error(json.message || 'Request failed (' + res.status + ')'); e.status = res.status; throw e; }
    return json.data;
  }
  function invalid() { $('main').hidden = true; $('invalid').hidden = false; document.title = 'Link expired'; }
  function decided(d) {
    $('decide').hidden = true; $('hrms-form').hidden = true; $('proof-form').hidden = true;
    status(d.status === 'approved' ? 'Approved. Shared: ' + (d.shared_data_points.join(', ') || 'none') : 'This connection is ' + d.status + '.', false);
  }
  function ready() { state.ready = true; $('approve').disabled = false; $('proof-form').hidden = true; }
  async function load() {
    if (token) {
      try { await call('POST', '/session/', { token }); } catch (err) { if (err.status === 401) return invalid(); throw err; }
    }
    let s;
    try { s = await call('GET', '/'); } catch (err) { if (err.status === 401) return invalid(); throw err; }
    $('main').hidden = false;
    $('vendor').textContent = s.vendor.org_name; $('org').textContent = s.org.org_name;
    document.title = 'Connect ' + s.vendor.org_name + ' to your HRMS';
    $('user').textContent = s.user.fullname + ' <' + s.user.email + '>';
    for (const p of s.required_data_points) $('required').append(item(p));
    for (const p of s.optional_data_points) {
      const label = document.createElement('label'); const box = document.createElement('input');
      box.type = 'checkbox'; box.name = 'optional'; box.value = p; label.append(box, ' ' + p); $('optional').append(label);
    }
    if (!s.required_data_points.length) $('required').append(item('none'));
    if (!s.optional_data_points.length) $('optional').append(item('none'));
    for (const h of s.hrms.supported) { const o = document.createElement('option'); o.value = h; o.textContent = h; $('hrms_id').append(o); }
    if (s.hrms.configured) $('hrms_id').value = s.hrms.configured;
    state.required = s.proof.required;
    $('proof-note').hidden = !state.required;
    $('proof-form').hidden = !state.required;
    if (s.hrms.entered || s.proof.proven) ready();
    if (s.status !== 'pending') decided(s); else $('decide').hidden = false;
  }
  $('hrms-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const grant = $('grant_type').value;
    const creds = { grant_type: grant, hrms_host: $('hrms_host').value.trim() };
    if (grant === 'api_key') creds.api_key = $('api_key').value; else { creds.client_id = $('client_id').value.trim(); creds.client_secret = $('client_secret').value; }
    status('Checking the credentials with the HRMS...', false);
    try {
      const d = await call('POST', '/hrms/', { hrms_id: $('hrms_id').value, access_credentials: creds });
      $('client_secret').value = ''; $('api_key').value = '';
      ready();
      status(d.proven ? 'Control of the organisation proven. Review the data points and approve or reject.' : 'HRMS connected. Review the data points and approve or reject.', false);
    } catch (err) { status(err.message, true); }
  });
  $('proof-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await call('POST', '/proof/', { app_key: $('app_key').value.trim(), app_secret: $('app_secret').value });
      $('app_secret').value = '';
      ready(); status('Control of the organisation proven. Review the data points and approve or reject.', false);
    } catch (err) { $('app_secret').value = ''; status(err.message, true); }
  });
  $('grant_type').addEventListener('change', () => { const k = $('grant_type').value === 'api_key'; $('key-fields').hidden = !k; $('client-fields').hidden = k; });
  $('approve').addEventListener('click', async () => {
    const boxes = [...document.querySelectorAll('input[name=optional]')];
    try { decided(await call('POST', '/approve/', { opted_in: boxes.filter((b) => b.checked).map((b) => b.value), opted_out: boxes.filter((b) => !b.checked).map((b) => b.value) })); }
    catch (err) { status(err.message, true); }
  });
  $('reject').addEventListener('click', async () => {
    try { decided(await call('POST', '/reject/')); } catch (err) { status(err.message, true); }
  });
  load().catch((err) => status(err.message, true));
})();`;

/**
 * The Connect page. `apiBase` is the path of the Connect JSON endpoints
 * (`{HRX_BASE_PATH}/api/sdk/connect`), the only server-rendered value (escaped); names and data
 * points come from the session endpoint through `textContent`. Returns the HTML and the nonce
 * its headers must carry.
 */
export function renderConnectPage(v: { apiBase: string }): { html: string; nonce: string } {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Connect your HRMS</title>
<style nonce="${nonce}">${STYLE}</style></head>
<body data-api="${escapeHtml(v.apiBase)}">
<div id="invalid" hidden><h1>This link is invalid or has expired</h1><p>Ask the service that sent you here for a new link.</p></div>
<div id="main" hidden>
<h1><span id="vendor"></span> asks for employee data of <span id="org"></span></h1>
<p>Signed in as <span id="user"></span>. Review what is requested, connect your HRMS, then approve or reject.</p>
<h2>Required data points</h2><ul id="required"></ul>
<h2>Optional data points (tick to share)</h2><div id="optional"></div>
<p id="proof-note" hidden>This organisation is already set up. To approve, prove that you control it: enter the HRMS credentials it is set up with, or its application key and secret.</p>
<form id="hrms-form" method="post" autocomplete="off"><fieldset><legend>Your HRMS</legend>
<label>HRMS <select id="hrms_id"></select></label>
<label>HRMS address <input id="hrms_host" type="url" required placeholder="https://hrms.example.com"></label>
<label>Access method <select id="grant_type"><option value="client_credentials">Client ID and secret</option><option value="api_key">API key</option></select></label>
<div id="client-fields"><label>Client ID <input id="client_id"></label><label>Client secret <input id="client_secret" type="password"></label></div>
<div id="key-fields" hidden><label>API key <input id="api_key" type="password"></label></div>
<button type="submit">Connect HRMS</button></fieldset></form>
<form id="proof-form" method="post" autocomplete="off" hidden><fieldset><legend>Or: the organisation's application credentials</legend>
<label>App key <input id="app_key"></label><label>App secret <input id="app_secret" type="password"></label>
<button type="submit">Prove control</button></fieldset></form>
<div id="decide" hidden><button id="approve" type="button" disabled>Approve</button><button id="reject" type="button">Reject</button></div>
</div>
<p id="status" role="status"></p>
<script nonce="${nonce}">${SCRIPT}</script>
</body></html>`;
  return { html, nonce };
}
