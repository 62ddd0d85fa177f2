// The Connect page's script, part 2 of 3 (see connect-base.js): building the page from the
// Connect view, and showing each state (steps, what is enabled, the decision).
// ---- building the page from the view (once) ----
function pointLabel(p) {
  return el('span', null, p.label, p.sensitive ? el('span', { class: 'badge', text: 'Sensitive' }) : null);
}
function byCategory(points) {
  return view.data_point_categories.map((c) => ({ c, points: points.filter((p) => p.category === c.id) })).filter((g) => g.points.length);
}
function buildRequired() {
  const box = $('required');
  box.replaceChildren();
  const required = view.data_points.filter((p) => p.required);
  if (!required.length) {
    box.append(el('p', { text: 'Nothing is required: everything asked for is optional (step below).' }));
    return;
  }
  for (const g of byCategory(required)) {
    box.append(el('h4', { text: g.c.title }), el('ul', null, ...g.points.map((p) => el('li', null, pointLabel(p)))));
  }
}
/** Checkbox groups, one fieldset per category: the optional points (pending) or every requested point (decided, read-only). */
function buildChoices(decided) {
  const box = $('optional');
  box.replaceChildren();
  const points = decided ? view.data_points : view.data_points.filter((p) => !p.required);
  if (!points.length) {
    box.append(el('p', { text: 'Nothing optional was asked for.' }));
    return;
  }
  const shared = new Set(view.shared_data_points);
  for (const g of byCategory(points)) {
    const fs = el('fieldset', null, el('legend', { text: g.c.title }));
    for (const p of g.points) {
      const id = 'dp-' + p.name;
      const box2 = el('input', { type: 'checkbox', id, name: 'optional', value: p.name, disabled: decided, checked: decided && shared.has(p.name) });
      if (decided) box2.checked = shared.has(p.name);
      const state = decided ? el('span', { class: shared.has(p.name) ? 'state on' : 'state', text: shared.has(p.name) ? 'shared' : 'not shared' }) : null;
      fs.append(
        el('div', { class: 'check' }, box2, el('label', { for: id }, pointLabel(p), decided && p.required ? ' (required)' : null, state ? ': ' : null, state)),
      );
    }
    box.append(fs);
  }
}
function buildFields() {
  const box = $('hrms-fields');
  box.replaceChildren();
  for (const f of product().fields) {
    const id = fid(f);
    const host = f.target.endsWith('hrms_host');
    box.append(
      el(
        'div',
        { class: 'field' },
        el('label', { for: id, text: f.label + (f.required ? '' : ' (optional)') }),
        el('p', { class: 'help', id: id + '-help', text: f.help }),
        el('input', {
          id,
          name: f.target,
          type: f.secret ? 'password' : 'text',
          inputmode: host ? 'url' : null,
          autocomplete: 'off',
          spellcheck: 'false',
          autocapitalize: 'none',
          placeholder: f.placeholder,
          'aria-describedby': id + '-help',
          'aria-required': f.required ? 'true' : null,
        }),
        el('p', { class: 'field-error', id: id + '-error', hidden: true }),
      ),
    );
  }
}
function buildNotice() {
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
  $('user').textContent = view.user.fullname + ' <' + view.user.email + '>';
  $('n-operator').textContent = view.notice.operator_name + ', which runs this hrx service and keeps the data on ' + org() + "'s behalf.";
  $('always').textContent = 'Always shared with every connection: ' + view.always_shared.map((a) => a.label).join(' and ') + '.';
  const often = FREQUENCY[view.notice.sync_frequency] || view.notice.sync_frequency;
  $('n-sync').textContent = established()
    ? org() + "'s employee data already comes from its HRMS; " + vendor() + ' can read what you share as soon as you approve. It is refreshed ' + often + '.'
    : 'The first sync reads your employees from the HRMS as soon as you connect it or approve (it usually takes a few minutes), then ' +
      often +
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
  for (const p of view.hrms.products) $('hrms_id').append(el('option', { value: p.hrms_id, text: p.display_name }));
  if (view.hrms.configured) $('hrms_id').value = view.hrms.configured;
  buildFields();
  buildRequired();
}

// ---- state: what shows, what is enabled (after every change) ----
function numberSteps() {
  const steps = [...document.querySelectorAll('.step')].filter((s) => !s.hidden);
  steps.forEach((s, i) => {
    s.querySelector('.num').textContent = 'Step ' + (i + 1) + ' of ' + steps.length + ': ';
  });
}
const stepNo = (id) => [...document.querySelectorAll('.step')].filter((s) => !s.hidden).indexOf($(id)) + 1;

function syncDecided() {
  const approved = view.status === 'approved';
  const words = {
    approved: 'You approved ' + vendor() + "'s request",
    rejected: 'You rejected ' + vendor() + "'s request",
    terminated: vendor() + "'s connection to " + org() + ' has ended',
  };
  $('heading').textContent = words[view.status] || words.rejected;
  document.title = $('heading').textContent;
  $('lede').textContent = 'This page is now a record of the decision; nothing on it can be changed.';
  for (const id of ['step-email', 'step-hrms', 'step-decide']) $(id).hidden = true;
  $('outcome').hidden = false;
  $('outcome-h').textContent = approved ? 'Approved' : view.status === 'rejected' ? 'Rejected' : 'Ended';
  const on = view.decided_at ? ' on ' + longDate(view.decided_at) : '';
  $('outcome-text').textContent = approved
    ? 'Approved' + on + '. ' + vendor() + ' receives the ' + view.shared_data_points.length + ' data points ticked below, and nothing else.'
    : view.status === 'rejected'
      ? 'Rejected' + on + '. ' + vendor() + ' receives no data from ' + org() + '. If they ask again, you will get a new link.'
      : 'Ended' + on + '. ' + vendor() + ' no longer receives data from ' + org() + '.';
  $('choose-title').textContent = approved ? 'What is shared' : 'What was asked for';
  $('choose-intro').textContent = approved ? 'Ticked: shared with ' + vendor() + '. Unticked: not shared.' : 'Nothing of this is shared.';
  if (!$('optional').dataset.decided) {
    buildChoices(true);
    $('optional').dataset.decided = '1';
  }
  $('review-h').lastChild.textContent = 'The request';
  $('n-sync').textContent = approved
    ? 'hrx reads ' +
      org() +
      "'s employees from its HRMS " +
      (FREQUENCY[view.notice.sync_frequency] || view.notice.sync_frequency) +
      '; the first sync started when you approved.'
    : 'Nothing is read from your HRMS for ' + vendor() + '.';
  for (const n of document.querySelectorAll('.num')) n.textContent = '';
}

/** The e-mail step's form, its confirmation and the waiting code, from `ev` (the view's `email_verification`). */
function syncEmailStep(ev) {
  $('email-form').hidden = ev.verified || !ev.available;
  $('email-intro').hidden = ev.verified;
  $('email-done').hidden = !ev.verified;
  $('email-done').textContent = 'E-mail address confirmed: ' + ev.sent_to + '.';
  $('step-email').classList.toggle('done', ev.verified);
  if (ev.code_expires_at && !$('send-status').textContent)
    say('send-status', 'A code was sent to ' + ev.sent_to + '. It works until ' + clock(ev.code_expires_at) + '.', 'ok');
}

/** The "update credentials" mode (docs/connect.md "Updating refused credentials"): proof first, then the new details. */
function syncReauth() {
  const r = view.reauth;
  const ev = view.email_verification;
  const name = r.product_name;
  const proven = view.proof.proven || (ev.verified && ev.establishes);
  $('heading').textContent = 'Update the ' + name + ' details of ' + org();
  document.title = $('heading').textContent;
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
  if ($('hrms_id').value !== r.hrms_id) {
    $('hrms_id').value = r.hrms_id;
    buildFields();
  }
  $('hrms_id').disabled = true;
  $('step-hrms').querySelector('legend').textContent = 'New ' + name + ' details';
  $('hrms-submit').textContent = busy.has('hrms-submit') ? $('hrms-submit').textContent : 'Save new details';
  numberSteps();
}

/** After new details replaced the refused ones: says so above whatever the page shows next. */
function syncSaved() {
  if (!saved) return;
  if (view.status === 'approved') {
    $('heading').textContent = 'The ' + saved.product_name + ' details of ' + org() + ' are updated';
    document.title = $('heading').textContent;
  }
  $('lede').textContent =
    saved.product_name +
    ' accepted the new details and hrx saved them, encrypted, in place of the refused ones. The sync of ' +
    org() +
    "'s employees has started.";
}

function sync() {
  if (view.reauth) return syncReauth();
  $('hrms_id').disabled = false;
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
  $('email-intro').textContent = ev.available
    ? org() + ' is not yet connected to hrx. To set it up, confirm that you read ' + ev.sent_to + ': we send a 6-digit code there.'
    : ownerOnly
      ? org() +
        ' is not yet connected to hrx, and a code sent to ' +
        ev.sent_to +
        ' cannot set it up: that address is not on ' +
        org() +
        "'s own e-mail domain. Ask " +
        view.notice.operator_name +
        ' to approve this connection for you, or, if hrx gave ' +
        org() +
        ' an application key and secret, enter them below.'
      : org() +
        ' is not yet connected to hrx, and this service cannot send e-mail, so ' +
        org() +
        ' cannot be set up from this page. Ask ' +
        view.notice.operator_name +
        ' to approve this connection for you.';
  syncEmailStep(ev);
  // The HRMS step: set up a new org, or prove control of an established one (docs/connect.md "Reference: the SDK token and the Connect endpoints").
  const proofMode = view.proof.required;
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
        ? 'Without ' + org() + "'s application key and secret the HRMS cannot be connected here; ask " + view.notice.operator_name + ' to set it up with you.'
        : 'Without an e-mail code the HRMS cannot be connected here; ask ' + view.notice.operator_name + ' to set it up with you.';
  $('step-hrms').querySelector('legend').textContent = proofMode ? org() + "'s HRMS details" : 'Your HRMS';
  $('hrms-submit').textContent = busy.has('hrms-submit') ? $('hrms-submit').textContent : proofMode ? 'Check details' : 'Connect HRMS';
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
    view.notice.operator_name +
    '.';
  // Choose and decide.
  $('choose-intro').textContent = vendor() + ' also asks for these. Tick what you agree to share; ' + vendor() + ' gets nothing you leave unticked.';
  const locked = view.lock.locked_until;
  $('approve').disabled = !done || !!locked || busy.has('approve');
  $('decide-note').textContent = locked
    ? 'Too many wrong tries: approving is locked until ' + clock(locked) + '. Try again then.'
    : !done && ownerOnly
      ? 'Only ' +
        view.notice.operator_name +
        ', or someone with ' +
        org() +
        "'s application key and secret, can approve this connection (step " +
        stepNo('step-hrms') +
        ').'
      : !done && !proofMode && !ev.available
        ? 'Only ' + view.notice.operator_name + ' can approve this connection (step ' + stepNo('step-email') + ').'
        : done
          ? 'Approving shares the required data and what you ticked in step ' + stepNo('step-choose') + ' with ' + vendor() + '.'
          : 'To approve, first ' +
            (proofMode
              ? 'prove that you manage ' + org()
              : ev.verified || !ev.available
                ? 'connect your HRMS'
                : 'confirm your e-mail address and connect your HRMS') +
            ' (step ' +
            stepNo(ev.verified || proofMode || !ev.available ? 'step-hrms' : 'step-email') +
            ').';
  numberSteps();
  syncSaved();
}

async function load() {
  if (token) {
    try {
      await call('POST', '/session/', { token });
    } catch (err) {
      if (err.status === 401 || err.status === 400) return invalid();
      throw err;
    }
  }
  try {
    await refresh();
  } catch (err) {
    if (err.status === 401) return invalid();
    throw err;
  }
  buildNotice();
  if (view.status === 'pending') buildChoices(false);
  $('loading').hidden = true;
  $('main').hidden = false;
  sync();
}

/** After a 409 (decided meanwhile) or a 403 (perhaps locked now): the view again. */
async function reconcile(err) {
  if (err.status === 409 || err.status === 403) {
    try {
      await refresh();
      sync();
    } catch {
      /* the message stands */
    }
  }
}
