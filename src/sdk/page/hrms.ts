// The Connect page's HRMS form (docs/connect.md "The steps", step 3): the chosen product's own
// fields (src/hrms/products.ts through the view), the setup-config body they make, and which
// field a refusal points at.
import type { ConnectHrmsProduct } from '../connect-view';
import { $, current, el, entry, org, select, type CallError, type Problem } from './dom';

type Field = ConnectHrmsProduct['fields'][number];

/** The product chosen in the select (else the first), as offered: every sign-in it has. */
function offered(): ConnectHrmsProduct {
  const products = current().hrms.products;
  const p = products.find((x) => x.hrms_id === select('hrms_id').value) ?? products[0];
  if (!p) throw new Error('no HRMS product');
  return p;
}

/** The id of the sign-in choice, shown only for a product that offers several sign-ins. */
const GRANT_CHOICE = 'hrms-grant';

/** The product chosen, with the `grant_type` and fields of the sign-in chosen (its usual one unless another is). */
export function product(): ConnectHrmsProduct {
  const p = offered();
  const chosen = document.getElementById(GRANT_CHOICE);
  const other = chosen instanceof HTMLSelectElement ? p.other_grants.find((g) => g.grant_type === chosen.value) : undefined;
  return other ? { ...p, grant_type: other.grant_type, fields: other.fields } : p;
}
/** The element id of a field: its target with dots as dashes. */
export const fid = (f: Field): string => f.target.replace(/\./g, '-');

/** The sign-in choice of a product that offers several (its usual sign-in first), rebuilding the fields on change. */
function grantChoice(p: ConnectHrmsProduct, value: string): HTMLElement {
  const choice = el(
    'select',
    { id: GRANT_CHOICE, name: 'grant_type', 'aria-describedby': GRANT_CHOICE + '-help' },
    el('option', { value: p.grant_type, text: p.grant_label ?? p.grant_type }),
    ...p.other_grants.map((g) => el('option', { value: g.grant_type, text: g.label })),
  );
  choice.value = value;
  choice.addEventListener('change', () => buildFields(choice.value));
  return el(
    'div',
    { class: 'field' },
    el('label', { for: GRANT_CHOICE, text: 'Sign-in method' }),
    el('p', { class: 'help', id: GRANT_CHOICE + '-help', text: 'How hrx signs in to ' + p.display_name + '; the fields below follow your choice.' }),
    choice,
  );
}

/** Replaces the form's fields with those of the chosen product (and of `grant`, its sign-in, when it offers several). */
export function buildFields(grant?: string): void {
  const box = $('hrms-fields');
  const p = offered();
  box.replaceChildren();
  if (p.other_grants.length) box.append(grantChoice(p, grant ?? p.grant_type));
  for (const f of product().fields) {
    const id = fid(f);
    const host = f.target.endsWith('hrms_host');
    box.append(
      el(
        'div',
        { class: 'field' },
        el('label', { for: id, text: f.label + (f.required ? '' : ' (optional)') }),
        el('p', { class: 'help', id: id + '-help', text: f.help }),
        el(f.multiline ? 'textarea' : 'input', {
          id,
          name: f.target,
          // A text area has no password kind: a secret one is emptied once sent (main.ts).
          type: f.multiline ? null : f.secret ? 'password' : 'text',
          rows: f.multiline ? 6 : null,
          class: f.multiline ? 'pem' : null,
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

/** The setup-config body of the product's form (targets of src/hrms/products.ts), and what is missing or malformed. */
export function hrmsBody(p: ConnectHrmsProduct): { problems: Problem[]; order: string[]; body: Record<string, unknown> } {
  const creds: Record<string, string> = { grant_type: p.grant_type };
  const apis = new Map<string, Record<string, string>>();
  const problems: Problem[] = [];
  for (const f of p.fields) {
    const field = entry(fid(f));
    let v = field.value.trim();
    if (!v) {
      if (f.required) problems.push([field, 'Enter the ' + f.label.charAt(0).toLowerCase() + f.label.slice(1) + '.']);
      continue;
    }
    const key = f.target.split('.').pop() ?? f.target;
    if (key === 'hrms_host') {
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) v = 'https://' + v;
      field.value = v;
      let ok: boolean;
      try {
        const u = new URL(v);
        ok = (u.protocol === 'https:' || u.protocol === 'http:') && !!u.hostname;
      } catch {
        ok = false;
      }
      if (!ok) {
        problems.push([field, 'Enter a web address like ' + (f.placeholder || 'https://hrms.example.com') + '.']);
        continue;
      }
    }
    if (f.target.startsWith('api_configs.')) {
      const apiId = f.target.split('.')[1] ?? '';
      const one = apis.get(apiId) ?? {};
      one[key] = v;
      apis.set(apiId, one);
    } else creds[key] = v;
  }
  const order = [...apis.keys()];
  const api_configs = order.map((api_id) => ({ api_id, access_credentials: { grant_type: p.grant_type, hrms_host: creds.hrms_host, ...apis.get(api_id) } }));
  return { problems, order, body: { hrms_id: p.hrms_id, access_credentials: creds, ...(api_configs.length ? { api_configs } : {}) } };
}

/** `[input, text]` pairs for a refused HRMS step, or null when no field is to blame. */
export function hrmsFailure(err: CallError, p: ConnectHrmsProduct, order: string[]): Problem[] | null {
  const fieldOf = (target: string): HTMLInputElement | HTMLTextAreaElement | null => {
    const f = p.fields.find((x) => x.target === target);
    return f ? entry(fid(f)) : null;
  };
  const host = fieldOf('hrms_host');
  const secrets = p.fields.filter((f) => f.secret);
  const secret = secrets[0] ? entry(fid(secrets[0])) : host;
  const names = secrets.map((f) => f.label.toLowerCase()).join(' and ') || 'the details';
  const on = (field: HTMLInputElement | HTMLTextAreaElement | null, text: string): Problem[] | null => (field ? [[field, text]] : null);
  if (err.status === 400 && /^HRMS credentials rejected: /.test(err.message)) {
    const reason = err.message.slice('HRMS credentials rejected: '.length);
    if (/host not allowed/.test(reason))
      return on(host, 'hrx cannot connect to this address. Enter the public https:// address of your ' + p.display_name + '.');
    if (/could not be reached/.test(reason))
      return on(host, 'We could not reach ' + p.display_name + ' at this address. Check the address, or try again in a minute.');
    if (/refused the credentials/.test(reason)) return on(secret, p.display_name + ' did not accept these details. Check the ' + names + ', then try again.');
    // Busy, down or an answer hrx could not read: the details were not judged, so no field is wrong.
    if (/answered (5\d\d|429)\b|could not read/.test(reason))
      return on(
        host,
        p.display_name +
          ' could not check these details just now (' +
          reason.replace(/^the HRMS /, 'it ') +
          '). Nothing is wrong with them that we know of: try again in a few minutes.',
      );
    return on(
      host,
      p.display_name + ' at this address gave an unexpected answer (' + reason.replace(/^the HRMS /, 'it ') + '). Check the address, then try again.',
    );
  }
  if (err.status === 403) {
    return on(
      secret,
      'These details do not match the ones ' + org() + ' was set up with. Check them and try again; after 5 wrong tries approving is locked for 15 minutes.',
    );
  }
  if (err.status === 400 && err.errors.length) {
    const out: Problem[] = [];
    for (const e of err.errors) {
      const m = /^(?:api_configs\.(\d+)\.)?access_credentials\.(\w+)$/.exec(e.field);
      const target = m ? (m[1] !== undefined ? 'api_configs.' + order[Number(m[1])] + '.' + m[2] : (m[2] ?? '')) : null;
      const where = target ? fieldOf(target) : e.field === 'hrms_id' ? select('hrms_id') : null;
      if (where) out.push([where, 'Check this value: ' + e.message + '.']);
    }
    return out.length ? out : null;
  }
  return null;
}
