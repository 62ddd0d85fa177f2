// The Connect page's script, its entry (docs/connect.md "How the page is built"): src/sdk/page.ts
// bundles this module and what it imports with esbuild into one script inlined under the page's
// CSP nonce. Run once. The SDK token is read from the URL fragment, dropped from the address bar
// and history at once, and exchanged once for the HttpOnly session cookie every later call
// carries (docs/connect.md "Reference: the SDK token and the Connect endpoints"). This module:
// what each step's controls do, the busy guard, and the start.
import type { ConnectSession } from '../connect-view';
import {
  $,
  anchor,
  asCallError,
  button,
  call,
  CallError,
  clearErrors,
  clock,
  current,
  general,
  entry,
  input,
  invalid,
  org,
  refresh,
  say,
  showErrors,
  state,
  vendor,
  type Problem,
} from './dom';
import { buildFields, fid, hrmsBody, hrmsFailure, product } from './hrms';
import { buildChoices } from './points';
import { buildNotice, stepNo, sync } from './view';

const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
if (location.hash) history.replaceState(null, '', location.pathname + location.search);
// No operator contact configured: the footer links this site's root; show which site that is.
if (anchor('operator-contact').dataset.origin) anchor('operator-contact').textContent = location.origin;

/** Runs `fn` once at a time for `btn`: disabled and busy meanwhile, its status beside it. */
async function run(btn: HTMLButtonElement, statusId: string, busyText: string, fn: () => Promise<void>): Promise<void> {
  if (state.busy.has(btn.id)) return;
  state.busy.add(btn.id);
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
    state.busy.delete(btn.id);
    btn.removeAttribute('aria-busy');
    btn.textContent = label;
    btn.disabled = false;
    if (state.view) sync();
  }
}

/** After a 409 (decided meanwhile) or a 403 (perhaps locked now): the view again. */
async function reconcile(err: CallError): Promise<void> {
  if (err.status === 409 || err.status === 403) {
    try {
      await refresh();
      sync();
    } catch {
      /* the message stands */
    }
  }
}

/** Binds `handler` to a form's submit, the browser's own submit prevented. */
const onSubmit = (id: string, handler: () => Promise<void>): void =>
  $(id).addEventListener('submit', (e) => {
    e.preventDefault();
    void handler();
  });
const emailFirst = (): string => 'First confirm your e-mail address (step ' + stepNo('step-email') + '), then connect the HRMS.';
const lockedText = (until: string): string => 'Too many wrong tries: approving is locked until ' + clock(until) + '. Try again then.';

// ---- e-mail step ----
$('send-code').addEventListener('click', () => {
  const send = button('send-code');
  void run(send, 'send-status', 'Sending\u2026', async () => {
    try {
      const d = await call<{ sent_to: string; expires_at: string }>('POST', '/email-code/');
      await refresh();
      say('send-status', 'Code sent to ' + d.sent_to + '. It works until ' + clock(d.expires_at) + '.', 'ok');
      send.dataset.sent = '1';
      input('code').focus();
    } catch (e) {
      const err = asCallError(e);
      const text =
        err.status === 429
          ? 'A code was sent a moment ago. Wait ' + (err.retryAfter || 30) + ' seconds before asking for a new one.'
          : err.status === 503
            ? 'We could not send the e-mail just now. Try again in a minute.'
            : err.status === 400
              ? 'No code can be sent: ' + (err.errors[0]?.message ?? err.message) + '.'
              : general(err);
      say('send-status', text, 'error');
      await reconcile(err);
    }
  }).then(() => {
    if (send.dataset.sent) send.textContent = 'Send a new code';
  });
});

onSubmit('email-form', () => {
  const field = input('code');
  return run(button('verify'), 'email-status', 'Checking\u2026', async () => {
    clearErrors($('email-form'));
    const code = field.value.replace(/\s/g, '');
    if (!/^[0-9]{6}$/.test(code)) {
      say('email-status', 'Enter the code first.', 'error');
      return showErrors([[field, 'Enter the 6 digits from the e-mail, for example 123456.']]);
    }
    try {
      await call('POST', '/verify-email/', { code });
      await refresh();
      say('email-status', '', '');
      sync();
      $('email-done').focus();
    } catch (e) {
      const err = asCallError(e);
      await reconcile(err);
      const locked = current().lock.locked_until;
      const text = locked
        ? 'Too many wrong codes: this is locked until ' + clock(locked) + '. Try again then.'
        : err.status === 403
          ? 'That code is not right. Check the latest e-mail and type its 6 digits. After 5 wrong tries this is locked for 15 minutes.'
          : err.status === 400
            ? 'This code has expired or was used up. Ask for a new code, then enter it.'
            : general(err);
      const onField = err.status === 403 || err.status === 400;
      say('email-status', onField ? 'The code was not accepted.' : text, 'error');
      if (onField) showErrors([[field, text]]);
    }
  });
});

// ---- HRMS step ----
$('hrms_id').addEventListener('change', () => {
  buildFields();
  say('hrms-status', '', '');
});

onSubmit('hrms-form', () =>
  run(button('hrms-submit'), 'hrms-status', 'Checking with your HRMS\u2026', async () => {
    clearErrors($('hrms-form'));
    const p = product();
    const view = current();
    if (view.email_verification.required && !view.email_verification.verified && !view.proof.required) {
      say('hrms-status', emailFirst(), 'error');
      button('send-code').focus();
      return;
    }
    const { problems, body, order } = hrmsBody(p);
    if (problems.length) {
      say('hrms-status', 'Some details are missing or malformed: see the marked fields.', 'error');
      return showErrors(problems);
    }
    try {
      const replacing = view.reauth;
      const d = await call<{ proven: boolean }>('POST', '/hrms/', body);
      for (const f of p.fields) if (f.secret) entry(fid(f)).value = '';
      await refresh();
      say('hrms-status', '', '');
      if (replacing) {
        state.saved = replacing;
        sync();
        return $('heading').focus();
      }
      sync();
      say('decide-status', d.proven ? 'Control proven. Choose what to share, then approve.' : 'HRMS connected. Choose what to share, then approve.', 'ok');
      $('hrms-done-text').focus();
    } catch (e) {
      const err = asCallError(e);
      await reconcile(err);
      if (err.status === 400 && err.errors.some((x) => x.field === 'email')) {
        say('hrms-status', emailFirst(), 'error');
        return;
      }
      const locked = current().lock.locked_until;
      const list = locked ? null : hrmsFailure(err, p, order);
      const many = list && list.length > 1 ? 's' : '';
      say('hrms-status', locked ? lockedText(locked) : list ? 'Not connected: see the message under the marked field' + many + '.' : general(err), 'error');
      if (list) showErrors(list);
    }
  }),
);

$('hrms-change').addEventListener('click', () => {
  const change = button('hrms-change');
  const open = change.getAttribute('aria-expanded') !== 'true';
  change.setAttribute('aria-expanded', String(open));
  $('hrms-change-info').hidden = !open;
});

onSubmit('proof-form', () =>
  run(button('proof-submit'), 'proof-status', 'Checking\u2026', async () => {
    clearErrors($('proof-form'));
    const key = input('app_key');
    const secret = input('app_secret');
    const missing = (
      [
        [key, 'Enter the application key.'],
        [secret, 'Enter the application secret.'],
      ] satisfies Problem[]
    ).filter(([i]) => !i.value.trim());
    if (missing.length) {
      say('proof-status', 'Enter both the key and the secret.', 'error');
      return showErrors(missing);
    }
    try {
      await call('POST', '/proof/', { app_key: key.value.trim(), app_secret: secret.value.trim() });
      secret.value = '';
      await refresh();
      say('proof-status', '', '');
      sync();
      if (current().reauth) {
        say('hrms-status', 'Control proven. Now enter the new details.', 'ok');
        return $('hrms-intro').focus();
      }
      say('decide-status', 'Control proven. Choose what to share, then approve.', 'ok');
      $('hrms-done-text').focus();
    } catch (e) {
      const err = asCallError(e);
      secret.value = '';
      await reconcile(err);
      const locked = current().lock.locked_until;
      const text = locked
        ? lockedText(locked)
        : err.status === 403
          ? 'This key and secret do not belong to ' + org() + '. Check them and try again; after 5 wrong tries approving is locked for 15 minutes.'
          : general(err);
      const onField = err.status === 403 && !locked;
      say('proof-status', onField ? 'Not accepted: see the message under the marked field.' : text, 'error');
      if (onField) showErrors([[key, text]]);
    }
  }),
);

// ---- decide ----
/** A decision's request, then the read-only view with focus on its heading; `failed(err)` words a refusal. */
const decide = (btn: HTMLButtonElement, busyText: string, path: string, body: unknown, failed: (err: CallError) => void): Promise<void> =>
  run(btn, 'decide-status', busyText, async () => {
    try {
      await call('POST', path, body);
      await refresh();
      say('decide-status', '', '');
      sync();
      $('heading').focus();
    } catch (e) {
      const err = asCallError(e);
      await reconcile(err);
      if (current().status !== 'pending') {
        $('heading').focus();
        return;
      }
      failed(err);
    }
  });
$('approve').addEventListener('click', () => {
  const boxes = [...document.querySelectorAll<HTMLInputElement>('input[name=optional]')];
  const body = { opted_in: boxes.filter((b) => b.checked).map((b) => b.value), opted_out: boxes.filter((b) => !b.checked).map((b) => b.value) };
  void decide(button('approve'), 'Approving\u2026', '/approve/', body, (err) => {
    const locked = current().lock.locked_until;
    say(
      'decide-status',
      locked
        ? 'Too many wrong tries: approving is locked until ' + clock(locked) + '.'
        : err.status === 403
          ? 'Approval was refused: first prove that you manage ' + org() + ' (step ' + stepNo('step-hrms') + ').'
          : err.status === 400
            ? 'Connect your HRMS first (step ' + stepNo('step-hrms') + '), then approve.'
            : general(err),
      'error',
    );
    $('decide-status').setAttribute('tabindex', '-1');
    $('decide-status').focus();
  });
});

$('reject').addEventListener('click', () => {
  $('reject-q').textContent =
    'Reject ' + vendor() + "'s request? " + vendor() + ' gets no data from ' + org() + '. This cannot be undone here; they can send you a new request.';
  $('decide').hidden = true;
  $('reject-confirm').hidden = false;
  button('reject-no').focus();
});
$('reject-no').addEventListener('click', () => {
  $('reject-confirm').hidden = true;
  $('decide').hidden = false;
  button('reject').focus();
});
$('reject-yes').addEventListener('click', () => {
  void decide(button('reject-yes'), 'Rejecting\u2026', '/reject/', undefined, (err) => {
    say('decide-status', general(err), 'error');
    button('reject-no').focus();
  });
});

/** Exchanges the token for the session (if the URL carried one), loads the view, shows the page. */
async function load(): Promise<void> {
  if (token) {
    try {
      await call('POST', '/session/', { token });
    } catch (err) {
      if (err instanceof CallError && (err.status === 401 || err.status === 400)) return invalid();
      throw err;
    }
  }
  try {
    await refresh();
  } catch (err) {
    if (err instanceof CallError && err.status === 401) return invalid();
    throw err;
  }
  buildNotice();
  const view: ConnectSession = current();
  if (view.status === 'pending') buildChoices(false);
  $('loading').hidden = true;
  $('main').hidden = false;
  sync();
}

load().catch((err: unknown) => {
  say('loading-status', general(asCallError(err)), 'error');
});
