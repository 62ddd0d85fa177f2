/**
 * The Connect page (docs/connect.md "Reference: the SDK token and the Connect endpoints"): plain HTML, one inline script and one inline style sheet
 * (./page/main.ts and the modules it imports, bundled by esbuild: ./page-script.ts;
 * ./page/connect.css), no framework, no external assets. The server renders
 * only escaped text of its configuration (the API path, the operator's name and contact); the
 * script fills in the rest through the Connect JSON endpoints with `textContent`, never markup,
 * and Trusted Types forbid string-to-DOM sinks altogether. Inline script and style run by a
 * per-response nonce under a Content-Security-Policy that allows nothing else (and `data:`
 * images: the favicon).
 *
 * Every state of the page (loading, invalid or expired link, the steps, approved, rejected) has
 * the viewport meta, one `<main>`, the favicon and the operator's contact in the footer.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connectScript } from './page-script';

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The response headers of a Connect page carrying `nonce` (CSP Level 3). */
export function pageHeaders(nonce: string, frameAncestors: string): Record<string, string> {
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors}`,
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    // Never cache the page, never send its URL (with the token's fragment) on as a referrer.
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    ...(frameAncestors === "'none'" ? { 'x-frame-options': 'DENY' } : {}),
  };
}

const STYLE = readFileSync(new URL('./page/connect.css', import.meta.url), 'utf8');

/** A small square mark, inline (no request, nothing external). */
const FAVICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5cad"/><path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>',
  );

/**
 * The operator's contact as a link (`#operator-contact`, on every page): `mailto:` for an e-mail
 * address, else the URL itself (config-validated); with none configured, the site root of the
 * origin the page was served from (the script shows that origin as the link's text).
 */
function contactLink(contact: string | null): string {
  if (!contact) return '<a id="operator-contact" href="/" data-origin="1">this site</a>';
  const href = contact.includes('@') && !/^https?:\/\//.test(contact) ? `mailto:${contact}` : contact;
  return `<a id="operator-contact" href="${escapeHtml(href)}">${escapeHtml(contact)}</a>`;
}

/** What the page shows of the operator (config `HRX_OPERATOR_NAME`, and `operatorContact` of config.ts). */
export interface PageOperator {
  name: string;
  contact: string | null;
}

/**
 * The Connect page. `apiBase` is the path of the Connect JSON endpoints
 * (`{HRX_BASE_PATH}/api/sdk/connect`); it and `operator` are the only server-rendered values
 * (escaped); names and data points come from the session endpoint through `textContent`.
 * Returns the HTML and the nonce its headers must carry.
 */
export function renderConnectPage(v: { apiBase: string; operator: PageOperator }): { html: string; nonce: string } {
  const nonce = randomBytes(16).toString('base64');
  const op = escapeHtml(v.operator.name);
  const reach = `Questions about this page or this request? Contact ${op}: ${contactLink(v.operator.contact)}.`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Connect your HRMS</title>
<link rel="icon" type="image/svg+xml" href="${escapeHtml(FAVICON)}">
<style nonce="${nonce}">${STYLE}</style></head>
<body data-api="${escapeHtml(v.apiBase)}" data-operator="${op}">
<header class="site"><div class="wrap"><p><span class="mark"></span>hrx Connect, run by ${op}</p></div></header>
<main><div class="wrap">
<div id="loading"><h1>Connect your HRMS</h1><p id="loading-status" role="status">Loading the request&hellip;</p></div>
<section id="invalid" hidden aria-labelledby="invalid-h">
<h1 id="invalid-h" tabindex="-1">This link is invalid or has expired</h1>
<p>A Connect link works once, for one hour. Go back to the service that sent you here and ask it for a new link.</p>
</section>
<div id="main" hidden>
<h1 id="heading" tabindex="-1"></h1>
<p id="lede"></p>
<section id="outcome" class="outcome" hidden aria-labelledby="outcome-h" tabindex="-1"><h2 id="outcome-h"></h2><p id="outcome-text"></p></section>
<section id="step-review" class="step" aria-labelledby="review-h">
<h2 id="review-h"><span class="num"></span>Review the request</h2>
<dl class="facts">
<dt>Who asks</dt><dd id="n-vendor"></dd>
<dt>Why</dt><dd id="n-purpose"></dd>
<dt>Privacy policy</dt><dd id="n-privacy"></dd>
<dt>For</dt><dd id="n-org"></dd>
<dt>Signed in as</dt><dd id="user"></dd>
<dt>Run by</dt><dd id="n-operator"></dd>
</dl>
<h3 id="required-h">Data <span class="v-name"></span> needs (required)</h3>
<div id="required"></div>
<p id="always"></p>
<h3>What happens next</h3>
<ul id="next">
<li>Your HRMS details are stored encrypted and used only to read employee data for the connections you approve. No one at <span class="v-name"></span> sees them.</li>
<li id="n-sync"></li>
<li>Identity numbers and bank details (marked &ldquo;Sensitive&rdquo;) are stored encrypted and shown masked; only <span class="v-name"></span>&rsquo;s encrypted channel carries them in full.</li>
<li id="n-withdraw"></li>
</ul>
</section>
<section id="step-email" class="step" hidden aria-labelledby="email-h">
<h2 id="email-h"><span class="num"></span>Confirm your e-mail address</h2>
<p id="email-intro"></p>
<p id="email-done" class="status ok" hidden tabindex="-1"></p>
<form id="email-form" novalidate>
<div class="row"><button type="button" id="send-code">Send code</button><p id="send-status" class="status" role="status"></p></div>
<div class="field"><label for="code">6-digit code</label>
<p class="help" id="code-help">Find it in the e-mail (look in spam too). It works for 10 minutes.</p>
<input id="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="7" aria-describedby="code-help">
<p class="field-error" id="code-error" hidden></p></div>
<div class="row"><button type="submit" id="verify">Confirm code</button><p id="email-status" class="status" role="status"></p></div>
</form>
</section>
<section id="step-hrms" class="step" aria-labelledby="hrms-h">
<h2 id="hrms-h"><span class="num"></span><span id="hrms-title">Connect your HRMS</span></h2>
<p id="hrms-intro" tabindex="-1"></p>
<div id="hrms-done" hidden><p class="status ok" id="hrms-done-text" tabindex="-1"><span id="hrms-done-name"></span> <button type="button" id="hrms-change" class="link" aria-expanded="false" aria-controls="hrms-change-info">(change)</button></p>
<p id="hrms-change-info" hidden></p></div>
<form id="hrms-form" novalidate><fieldset><legend>Your HRMS</legend>
<div class="field"><label for="hrms_id">HRMS product</label><p class="help" id="hrms_id-help">The HR software your company uses.</p>
<select id="hrms_id" aria-describedby="hrms_id-help"></select></div>
<div id="hrms-fields"></div>
<div class="row"><button type="submit" id="hrms-submit">Connect HRMS</button><p id="hrms-status" class="status" role="status"></p></div>
</fieldset></form>
<div id="proof-alt" hidden>
<h3 id="proof-h">Or use the application key and secret</h3>
<p id="proof-note">hrx gave your company an application key and secret when it was set up. Enter them to prove that you manage <span class="o-name"></span>.</p>
<form id="proof-form" novalidate><fieldset><legend>Application key and secret</legend>
<div class="field"><label for="app_key">Application key</label><input id="app_key" type="text" autocomplete="off" spellcheck="false"><p class="field-error" id="app_key-error" hidden></p></div>
<div class="field"><label for="app_secret">Application secret</label><input id="app_secret" type="password" autocomplete="off"><p class="field-error" id="app_secret-error" hidden></p></div>
<div class="row"><button type="submit" id="proof-submit">Prove control</button><p id="proof-status" class="status" role="status"></p></div>
</fieldset></form>
</div>
</section>
<section id="step-choose" class="step" aria-labelledby="choose-h">
<h2 id="choose-h"><span class="num"></span><span id="choose-title">Choose what else to share</span></h2>
<p id="choose-intro"></p>
<div id="optional"></div>
</section>
<section id="step-decide" class="step" aria-labelledby="decide-h">
<h2 id="decide-h"><span class="num"></span>Approve or reject</h2>
<p id="decide-note"></p>
<div id="decide" class="row"><button id="approve" type="button" aria-describedby="decide-note">Approve and share</button><button id="reject" type="button" class="secondary">Reject&hellip;</button></div>
<div id="reject-confirm" class="confirm" role="group" aria-labelledby="reject-q" hidden>
<p id="reject-q"></p>
<div class="row"><button id="reject-yes" type="button" class="secondary">Yes, reject</button><button id="reject-no" type="button" class="secondary">No, go back</button></div>
</div>
<p id="decide-status" class="status" role="status"></p>
</section>
</div>
</div></main>
<footer><div class="wrap"><p id="reach">${reach}</p></div></footer>
<script nonce="${nonce}">${connectScript()}</script>
</body></html>`;
  return { html, nonce };
}
