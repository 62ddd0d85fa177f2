// The Connect page's script, part 3 of 3 (see connect-base.js): what each step's controls do,
// and the start.
// ---- e-mail step ----
$('send-code').addEventListener('click', () =>
  run($('send-code'), 'send-status', 'Sending\u2026', async () => {
    try {
      const d = await call('POST', '/email-code/');
      await refresh();
      say('send-status', 'Code sent to ' + d.sent_to + '. It works until ' + clock(d.expires_at) + '.', 'ok');
      $('send-code').dataset.sent = '1';
      $('code').focus();
    } catch (err) {
      const text =
        err.status === 429
          ? 'A code was sent a moment ago. Wait ' + (err.retryAfter || 30) + ' seconds before asking for a new one.'
          : err.status === 503
            ? 'We could not send the e-mail just now. Try again in a minute.'
            : err.status === 400
              ? 'No code can be sent: ' + ((err.errors[0] && err.errors[0].message) || err.message) + '.'
              : general(err);
      say('send-status', text, 'error');
      await reconcile(err);
    }
  }).then(() => {
    if ($('send-code').dataset.sent) $('send-code').textContent = 'Send a new code';
  }),
);

$('email-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = $('code');
  run($('verify'), 'email-status', 'Checking\u2026', async () => {
    clearErrors($('email-form'));
    const code = input.value.replace(/\s/g, '');
    if (!/^[0-9]{6}$/.test(code)) {
      say('email-status', 'Enter the code first.', 'error');
      return showErrors([[input, 'Enter the 6 digits from the e-mail, for example 123456.']]);
    }
    try {
      await call('POST', '/verify-email/', { code });
      await refresh();
      say('email-status', '', '');
      sync();
      $('email-done').focus();
    } catch (err) {
      await reconcile(err);
      const locked = view.lock.locked_until;
      const text = locked
        ? 'Too many wrong codes: this is locked until ' + clock(locked) + '. Try again then.'
        : err.status === 403
          ? 'That code is not right. Check the latest e-mail and type its 6 digits. After 5 wrong tries this is locked for 15 minutes.'
          : err.status === 400
            ? 'This code has expired or was used up. Ask for a new code, then enter it.'
            : general(err);
      say('email-status', err.status === 403 || err.status === 400 ? 'The code was not accepted.' : text, 'error');
      if (err.status === 403 || err.status === 400) showErrors([[input, text]]);
    }
  });
});

// ---- HRMS step ----
$('hrms_id').addEventListener('change', () => {
  buildFields();
  say('hrms-status', '', '');
});

/** The setup-config body of the product's form (targets of src/hrms/products.ts), and what is missing or malformed. */
function hrmsBody(p) {
  const creds = { grant_type: p.grant_type };
  const apis = new Map();
  const problems = [];
  for (const f of p.fields) {
    const input = $(fid(f));
    let v = input.value.trim();
    if (!v) {
      if (f.required) problems.push([input, 'Enter the ' + f.label.charAt(0).toLowerCase() + f.label.slice(1) + '.']);
      continue;
    }
    const key = f.target.split('.').pop();
    if (key === 'hrms_host') {
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) v = 'https://' + v;
      input.value = v;
      let ok;
      try {
        const u = new URL(v);
        ok = (u.protocol === 'https:' || u.protocol === 'http:') && !!u.hostname;
      } catch {
        ok = false;
      }
      if (!ok) {
        problems.push([input, 'Enter a web address like ' + (f.placeholder || 'https://hrms.example.com') + '.']);
        continue;
      }
    }
    if (f.target.startsWith('api_configs.')) {
      const apiId = f.target.split('.')[1];
      if (!apis.has(apiId)) apis.set(apiId, {});
      apis.get(apiId)[key] = v;
    } else creds[key] = v;
  }
  const order = [...apis.keys()];
  const api_configs = order.map((api_id) => ({ api_id, access_credentials: { grant_type: p.grant_type, hrms_host: creds.hrms_host, ...apis.get(api_id) } }));
  return { problems, order, body: { hrms_id: p.hrms_id, access_credentials: creds, ...(api_configs.length ? { api_configs } : {}) } };
}

/** `[input, text]` pairs for a refused HRMS step, or null when no field is to blame. */
function hrmsFailure(err, p, order) {
  const input = (target) => {
    const f = p.fields.find((x) => x.target === target);
    return f ? $(fid(f)) : null;
  };
  const host = input('hrms_host');
  const secrets = p.fields.filter((f) => f.secret);
  const secret = secrets.length ? $(fid(secrets[0])) : host;
  const names = secrets.map((f) => f.label.toLowerCase()).join(' and ') || 'the details';
  if (err.status === 400 && /^HRMS credentials rejected: /.test(err.message)) {
    const reason = err.message.slice('HRMS credentials rejected: '.length);
    if (/host not allowed/.test(reason))
      return [[host, 'hrx cannot connect to this address. Enter the public https:// address of your ' + p.display_name + '.']];
    if (/could not be reached/.test(reason))
      return [[host, 'We could not reach ' + p.display_name + ' at this address. Check the address, or try again in a minute.']];
    if (/refused the credentials/.test(reason)) return [[secret, p.display_name + ' did not accept these details. Check the ' + names + ', then try again.']];
    // Busy, down or an answer hrx could not read: the details were not judged, so no field is wrong.
    if (/answered (5\d\d|429)\b|could not read/.test(reason))
      return [
        [
          host,
          p.display_name +
            ' could not check these details just now (' +
            reason.replace(/^the HRMS /, 'it ') +
            '). Nothing is wrong with them that we know of: try again in a few minutes.',
        ],
      ];
    return [
      [host, p.display_name + ' at this address gave an unexpected answer (' + reason.replace(/^the HRMS /, 'it ') + '). Check the address, then try again.'],
    ];
  }
  if (err.status === 403) {
    return [
      [
        secret,
        'These details do not match the ones ' + org() + ' was set up with. Check them and try again; after 5 wrong tries approving is locked for 15 minutes.',
      ],
    ];
  }
  if (err.status === 400 && err.errors.length) {
    const out = [];
    for (const e of err.errors) {
      const m = /^(?:api_configs\.(\d+)\.)?access_credentials\.(\w+)$/.exec(e.field);
      const target = m ? (m[1] !== undefined ? 'api_configs.' + order[Number(m[1])] + '.' + m[2] : m[2]) : null;
      const where = target ? input(target) : e.field === 'hrms_id' ? $('hrms_id') : null;
      if (where) out.push([where, 'Check this value: ' + e.message + '.']);
    }
    return out.length ? out : null;
  }
  return null;
}

$('hrms-form').addEventListener('submit', (e) => {
  e.preventDefault();
  run($('hrms-submit'), 'hrms-status', 'Checking with your HRMS\u2026', async () => {
    clearErrors($('hrms-form'));
    const p = product();
    if (view.email_verification.required && !view.email_verification.verified && !view.proof.required) {
      say('hrms-status', 'First confirm your e-mail address (step ' + stepNo('step-email') + '), then connect the HRMS.', 'error');
      $('send-code').focus();
      return;
    }
    const { problems, body, order } = hrmsBody(p);
    if (problems.length) {
      say('hrms-status', 'Some details are missing or malformed: see the marked fields.', 'error');
      return showErrors(problems);
    }
    try {
      const replacing = view.reauth;
      const d = await call('POST', '/hrms/', body);
      for (const f of p.fields) if (f.secret) $(fid(f)).value = '';
      await refresh();
      say('hrms-status', '', '');
      if (replacing) {
        saved = replacing;
        sync();
        return $('heading').focus();
      }
      sync();
      say('decide-status', d.proven ? 'Control proven. Choose what to share, then approve.' : 'HRMS connected. Choose what to share, then approve.', 'ok');
      $('hrms-done-text').focus();
    } catch (err) {
      await reconcile(err);
      if (err.status === 400 && err.errors.some((x) => x.field === 'email')) {
        say('hrms-status', 'First confirm your e-mail address (step ' + stepNo('step-email') + '), then connect the HRMS.', 'error');
        return;
      }
      const list = view.lock.locked_until ? null : hrmsFailure(err, p, order);
      say(
        'hrms-status',
        view.lock.locked_until
          ? 'Too many wrong tries: approving is locked until ' + clock(view.lock.locked_until) + '. Try again then.'
          : list
            ? 'Not connected: see the message under the marked field' + (list.length > 1 ? 's' : '') + '.'
            : general(err),
        'error',
      );
      if (list) showErrors(list);
    }
  });
});

$('hrms-change').addEventListener('click', () => {
  const open = $('hrms-change').getAttribute('aria-expanded') !== 'true';
  $('hrms-change').setAttribute('aria-expanded', String(open));
  $('hrms-change-info').hidden = !open;
});

$('proof-form').addEventListener('submit', (e) => {
  e.preventDefault();
  run($('proof-submit'), 'proof-status', 'Checking\u2026', async () => {
    clearErrors($('proof-form'));
    const key = $('app_key');
    const secret = $('app_secret');
    const missing = [
      [key, 'Enter the application key.'],
      [secret, 'Enter the application secret.'],
    ].filter(([i]) => !i.value.trim());
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
      if (view.reauth) {
        say('hrms-status', 'Control proven. Now enter the new details.', 'ok');
        return $('hrms-intro').focus();
      }
      say('decide-status', 'Control proven. Choose what to share, then approve.', 'ok');
      $('hrms-done-text').focus();
    } catch (err) {
      secret.value = '';
      await reconcile(err);
      const locked = view.lock.locked_until;
      const text = locked
        ? 'Too many wrong tries: approving is locked until ' + clock(locked) + '. Try again then.'
        : err.status === 403
          ? 'This key and secret do not belong to ' + org() + '. Check them and try again; after 5 wrong tries approving is locked for 15 minutes.'
          : general(err);
      const onField = err.status === 403 && !locked;
      say('proof-status', onField ? 'Not accepted: see the message under the marked field.' : text, 'error');
      if (onField) showErrors([[key, text]]);
    }
  });
});

// ---- decide ----
/** A decision's request, then the read-only view with focus on its heading; `failed(err)` words a refusal. */
const decide = (btn, busyText, path, body, failed) =>
  run(btn, 'decide-status', busyText, async () => {
    try {
      await call('POST', path, body);
      await refresh();
      say('decide-status', '', '');
      sync();
      $('heading').focus();
    } catch (err) {
      await reconcile(err);
      if (view.status !== 'pending') {
        $('heading').focus();
        return;
      }
      failed(err);
    }
  });
$('approve').addEventListener('click', () => {
  const boxes = [...document.querySelectorAll('input[name=optional]')];
  const body = { opted_in: boxes.filter((b) => b.checked).map((b) => b.value), opted_out: boxes.filter((b) => !b.checked).map((b) => b.value) };
  return decide($('approve'), 'Approving\u2026', '/approve/', body, (err) => {
    say(
      'decide-status',
      view.lock.locked_until
        ? 'Too many wrong tries: approving is locked until ' + clock(view.lock.locked_until) + '.'
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
  $('reject-no').focus();
});
$('reject-no').addEventListener('click', () => {
  $('reject-confirm').hidden = true;
  $('decide').hidden = false;
  $('reject').focus();
});
$('reject-yes').addEventListener('click', () =>
  decide($('reject-yes'), 'Rejecting\u2026', '/reject/', undefined, (err) => {
    say('decide-status', general(err), 'error');
    $('reject-no').focus();
  }),
);

load().catch((err) => {
  $('loading-status').textContent = general(err);
  $('loading-status').className = 'status error';
});
