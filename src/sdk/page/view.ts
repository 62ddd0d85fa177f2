// The Connect page built from the Connect view (`GET /api/sdk/connect/`, ../connect-view.ts):
// the notice once, then after every change which steps show, their wording, and what is enabled.
import type { ConnectSession } from '../connect-view';
import { $, button, clock, current, el, established, longDate, often, org, productName, ready, say, select, setText, state, vendor } from './dom';
import { syncDecided } from './decided';
import { buildFields } from './hrms';
import { buildRequired } from './points';

/** The review step's notice (docs/connect.md "The notice (DPDP Act 2023)"), the HRMS choice and the required points; once. */
export function buildNotice(): void {
  const view = current();
  setText('.v-name', vendor());
  setText('.o-name', org());
  $('n-vendor').textContent = vendor();
  $('n-purpose').textContent = view.notice.vendor_purpose || vendor() + ' has not said what it uses this data for. Ask them before you approve.';
  const privacy = $('n-privacy');
  privacy.replaceChildren();
  const url = view.notice.vendor_privacy_url;
  if (url && /^https?:\/\//i.test(url))
    privacy.append(el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', text: vendor() + "'s privacy policy" }), ' (opens in a new tab)');
  else privacy.textContent = vendor() + ' has given no privacy policy.';
  $('n-org').textContent = org();
  // The name is the vendor's words, not something hrx checked (docs/connect.md "Whose name the page shows").
  $('user').textContent = view.user.email + (view.user.fullname ? ' (named \u201c' + view.user.fullname + '\u201d by ' + vendor() + ')' : '');
  $('n-operator').textContent = view.notice.operator_name + ', which runs this hrx service and keeps the data on ' + org() + "'s behalf.";
  $('always').textContent = 'Always shared with every connection: ' + view.always_shared.map((a) => a.label).join(' and ') + '.';
  const every = often(view.notice.sync_frequency);
  $('n-sync').textContent = established()
    ? org() + "'s employee data already comes from its HRMS; " + vendor() + ' can read what you share as soon as you approve. It is refreshed ' + every + '.'
    : 'The first sync reads your employees from the HRMS as soon as you connect it or approve (it usually takes a few minutes), then ' +
      every +
      '. ' +
      vendor() +
      ' can read nothing before you approve.';
  const contact = view.notice.operator_contact ? ' (' + view.notice.operator_contact + ')' : '';
  $('n-withdraw').textContent =
    'You can withdraw at any time: ask ' +
    vendor() +
    ' to end this connection, or ask ' +
    view.notice.operator_name +
    contact +
    ' to end it. An employee\u2019s consent can also be withdrawn on its own; reads of that employee stop at once.';
  for (const p of view.hrms.products) select('hrms_id').append(el('option', { value: p.hrms_id, text: p.display_name }));
  if (view.hrms.configured) select('hrms_id').value = view.hrms.configured;
  buildFields();
  buildRequired();
}

// ---- state: what shows, what is enabled (after every change) ----
const visibleSteps = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('.step')].filter((s) => !s.hidden);
function numberSteps(): void {
  const steps = visibleSteps();
  steps.forEach((s, i) => {
    const num = s.querySelector('.num');
    if (num) num.textContent = 'Step ' + (i + 1) + ' of ' + steps.length + ': ';
  });
}
/** The number the step `id` shows (0: hidden). */
export const stepNo = (id: string): number => visibleSteps().indexOf($(id)) + 1;

/** The button's own label, unless its request runs (then it keeps saying what it does). */
const label = (id: string, text: string): void => {
  if (!state.busy.has(id)) button(id).textContent = text;
};

/** The legend of the HRMS form (the step's first; the proof form's is its own). */
const hrmsLegend = (text: string): void => {
  const legend = $('hrms-form').querySelector('legend');
  if (legend) legend.textContent = text;
};

/** The e-mail step's form, its confirmation and the waiting code, from `ev` (the view's `email_verification`). */
function syncEmailStep(ev: ConnectSession['email_verification']): void {
  $('email-form').hidden = ev.verified || !ev.available;
  $('email-intro').hidden = ev.verified;
  $('email-done').hidden = !ev.verified;
  $('email-done').textContent = 'E-mail address confirmed: ' + ev.sent_to + '.';
  $('step-email').classList.toggle('done', ev.verified);
  if (ev.code_expires_at && !$('send-status').textContent)
    say('send-status', 'A code was sent to ' + ev.sent_to + '. It works until ' + clock(ev.code_expires_at) + '.', 'ok');
}

/** The "update credentials" mode (docs/connect.md "Updating refused credentials"): proof first, then the new details. */
function syncReauth(r: NonNullable<ConnectSession['reauth']>): void {
  const view = current();
  const ev = view.email_verification;
  const name = r.product_name;
  const proven = view.proof.proven || (ev.verified && ev.establishes);
  $('heading').textContent = 'Update the ' + name + ' details of ' + org();
  document.title = $('heading').textContent ?? '';
  $('lede').textContent =
    name +
    ' refused the details hrx had stored for ' +
    org() +
    ' on ' +
    longDate(r.refused_at) +
    ', so employee data has not been refreshed since then. Prove that you manage ' +
    org() +
    ', then enter the details ' +
    name +
    ' accepts now. They are checked with ' +
    name +
    ', stored encrypted and used only to sync.';
  for (const id of ['step-review', 'step-choose', 'step-decide', 'outcome', 'hrms-done']) $(id).hidden = true;
  $('step-email').hidden = !ev.available;
  $('email-intro').textContent =
    'Instead of the application key and secret (step ' +
    stepNo('step-hrms') +
    '), you can confirm that you read ' +
    ev.sent_to +
    ', an address on ' +
    org() +
    "'s own e-mail domain: we send a 6-digit code there.";
  syncEmailStep(ev);
  $('hrms-title').textContent = proven ? 'Enter the new ' + name + ' details' : 'Prove that you manage ' + org();
  $('hrms-intro').textContent = proven
    ? 'hrx replaces the refused details once ' +
      name +
      ' accepts the new ones, and the next sync starts at once. The address stays the one ' +
      org() +
      ' was set up with.'
    : 'Enter ' +
      org() +
      "'s application key and secret" +
      (ev.available ? ', or confirm your e-mail address (step ' + stepNo('step-email') + ')' : '') +
      '. The old ' +
      name +
      ' details cannot prove it: they are the ones that stopped working.';
  $('hrms-intro').hidden = false;
  $('hrms-form').hidden = !proven;
  $('proof-alt').hidden = proven;
  $('proof-h').textContent = 'Application key and secret';
  const choice = select('hrms_id');
  if (choice.value !== r.hrms_id) {
    choice.value = r.hrms_id;
    buildFields();
  }
  choice.disabled = true;
  hrmsLegend('New ' + name + ' details');
  label('hrms-submit', 'Save new details');
  numberSteps();
}

/** After new details replaced the refused ones: says so above whatever the page shows next. */
function syncSaved(): void {
  const saved = state.saved;
  if (!saved) return;
  if (current().status === 'approved') {
    $('heading').textContent = 'The ' + saved.product_name + ' details of ' + org() + ' are updated';
    document.title = $('heading').textContent ?? '';
  }
  $('lede').textContent =
    saved.product_name +
    ' accepted the new details and hrx saved them, encrypted, in place of the refused ones. The sync of ' +
    org() +
    "'s employees has started.";
}

/** The e-mail step's intro for a new org: a code can set it up, or who can. */
function emailIntro(ev: ConnectSession['email_verification'], ownerOnly: boolean): string {
  const op = current().notice.operator_name;
  if (ev.available) return org() + ' is not yet connected to hrx. To set it up, confirm that you read ' + ev.sent_to + ': we send a 6-digit code there.';
  if (ownerOnly)
    return (
      org() +
      ' is not yet connected to hrx, and a code sent to ' +
      ev.sent_to +
      ' cannot set it up: that address is not on ' +
      org() +
      "'s own e-mail domain. Ask " +
      op +
      ' to approve this connection for you, or, if hrx gave ' +
      org() +
      ' an application key and secret, enter them below.'
    );
  return (
    org() +
    ' is not yet connected to hrx, and this service cannot send e-mail, so ' +
    org() +
    ' cannot be set up from this page. Ask ' +
    op +
    ' to approve this connection for you.'
  );
}

/** Why approve is off, or what approving does (the note beside the button). */
function decideNote(ev: ConnectSession['email_verification'], ownerOnly: boolean): string {
  const view = current();
  const op = view.notice.operator_name;
  const proofMode = view.proof.required;
  const locked = view.lock.locked_until;
  const done = ready();
  if (locked) return 'Too many wrong tries: approving is locked until ' + clock(locked) + '. Try again then.';
  if (!done && ownerOnly)
    return 'Only ' + op + ', or someone with ' + org() + "'s application key and secret, can approve this connection (step " + stepNo('step-hrms') + ').';
  if (!done && !proofMode && !ev.available) return 'Only ' + op + ' can approve this connection (step ' + stepNo('step-email') + ').';
  if (done) return 'Approving shares the required data and what you ticked in step ' + stepNo('step-choose') + ' with ' + vendor() + '.';
  const what = proofMode
    ? 'prove that you manage ' + org()
    : ev.verified || !ev.available
      ? 'connect your HRMS'
      : 'confirm your e-mail address and connect your HRMS';
  return 'To approve, first ' + what + ' (step ' + stepNo(ev.verified || proofMode || !ev.available ? 'step-hrms' : 'step-email') + ').';
}

/** Shows the page's current state (after every change). */
export function sync(): void {
  const view = current();
  if (view.reauth) return syncReauth(view.reauth);
  select('hrms_id').disabled = false;
  $('step-review').hidden = false;
  $('step-choose').hidden = false;
  $('step-decide').hidden = view.status !== 'pending';
  $('proof-h').textContent = 'Or use the application key and secret';
  if (view.status !== 'pending') return (syncDecided(), syncSaved());
  $('heading').textContent = 'Share employee data of ' + org() + ' with ' + vendor() + '?';
  document.title = 'Connect ' + vendor() + ' to ' + org() + "'s HRMS";
  $('lede').textContent =
    vendor() + ' asks to read employee data of ' + org() + ' through hrx. Review the request, then approve or reject it. Nothing is shared until you approve.';
  const ev = view.email_verification;
  // Shown for a new org, and kept (done) once this session's e-mail is verified.
  $('step-email').hidden = established() && !ev.verified;
  // No code can set this org up (the address is not on its own domain): the operator approves, or the app key and secret prove control.
  const ownerOnly = !ev.establishes && !established();
  $('email-intro').textContent = emailIntro(ev, ownerOnly);
  syncEmailStep(ev);
  // The HRMS step: set up a new org, or prove control of an established one (docs/connect.md "Reference: the SDK token and the Connect endpoints").
  const proofMode = view.proof.required;
  const op = view.notice.operator_name;
  $('hrms-title').textContent = proofMode ? 'Prove that you manage ' + org() : 'Connect your HRMS';
  $('hrms-intro').textContent = proofMode
    ? org() +
      ' is already connected to hrx' +
      (view.hrms.configured ? ' (' + productName(view.hrms.configured) + ')' : '') +
      '. To approve, enter the HRMS details ' +
      org() +
      ' was set up with: they are compared with the stored ones, not saved again.'
    : ev.available
      ? 'Choose the HR software ' + org() + ' uses and enter the details hrx needs to read employee data. hrx checks them with the HRMS before saving them.'
      : ownerOnly
        ? 'Without ' + org() + "'s application key and secret the HRMS cannot be connected here; ask " + op + ' to set it up with you.'
        : 'Without an e-mail code the HRMS cannot be connected here; ask ' + op + ' to set it up with you.';
  hrmsLegend(proofMode ? org() + "'s HRMS details" : 'Your HRMS');
  label('hrms-submit', proofMode ? 'Check details' : 'Connect HRMS');
  const done = ready();
  $('hrms-form').hidden = done || (!proofMode && !ev.available);
  $('proof-alt').hidden = done || !(proofMode || ownerOnly);
  $('hrms-done').hidden = !done;
  $('step-hrms').classList.toggle('done', done);
  $('hrms-done-name').textContent = view.hrms.entered ? 'Connected to ' + productName(view.hrms.configured) : 'You proved that you manage ' + org() + '.';
  $('hrms-intro').hidden = done;
  $('hrms-change').hidden = !view.hrms.entered;
  $('hrms-change-info').textContent =
    'hrx keeps the HRMS first set up for ' +
    org() +
    '; this page cannot replace it. To connect a different HRMS, your IT team can send a new setup through hrx\u2019s setup API, or contact ' +
    op +
    '.';
  // Choose and decide.
  $('choose-intro').textContent = vendor() + ' also asks for these. Tick what you agree to share; ' + vendor() + ' gets nothing you leave unticked.';
  button('approve').disabled = !done || !!view.lock.locked_until || state.busy.has('approve');
  $('decide-note').textContent = decideNote(ev, ownerOnly);
  numberSteps();
  syncSaved();
}
