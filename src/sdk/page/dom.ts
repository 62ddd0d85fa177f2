// The Connect page's script (docs/connect.md "How the page is built"): the base every other
// module uses. The page's own state (the view the API returned, the busy buttons), the API call,
// element lookup and creation, statuses and field errors. Every value from the API goes through
// textContent, .value or setAttribute, never markup (Trusted Types forbid string-to-DOM sinks).
// Type-only imports from the server's view (../connect-view.ts): nothing of the server is bundled.
import type { ConnectSession } from '../connect-view';

/** An element by id; a missing one is a bug of the page, so it throws. */
export function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing`);
  return e;
}

/** A lookup by id that also checks the element's kind (throws on another). */
const typed =
  <T extends HTMLElement>(kind: new () => T) =>
  (id: string): T => {
    const e = $(id);
    if (!(e instanceof kind)) throw new Error(`#${id} is not a ${kind.name}`);
    return e;
  };
export const input = typed(HTMLInputElement);
export const textarea = typed(HTMLTextAreaElement);
/** A text input or a text area (a multi-line field) by id. */
export function entry(id: string): HTMLInputElement | HTMLTextAreaElement {
  const e = $(id);
  return e instanceof HTMLTextAreaElement ? e : input(id);
}
export const button = typed(HTMLButtonElement);
export const select = typed(HTMLSelectElement);
export const anchor = typed(HTMLAnchorElement);

/** Attributes of {@link el}: `text` sets its text, `class` its class; null, undefined and false leave one out. */
export type Props = Record<string, string | number | boolean | null | undefined>;
export type Kid = Node | string | null | undefined;

/** A new element: `props` are attributes (`text`: its text, `class`), `kids` appended. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...kids: Kid[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'class') e.className = String(v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

/** Sets the text of every element `selector` matches. */
export function setText(selector: string, text: string): void {
  for (const n of document.querySelectorAll(selector)) n.textContent = text;
}
/** An ISO instant as "28 November 2026 at 9:30 am" (the reader's time zone). */
export const longDate = (iso: string): string => new Date(iso).toLocaleString('en-IN', { dateStyle: 'long', timeStyle: 'short' });
/** An ISO instant as "9:30 am". */
export const clock = (iso: string): string => new Date(iso).toLocaleTimeString('en-IN', { hour: 'numeric', minute: '2-digit' });
const FREQUENCY: Record<string, string> = {
  hourly: 'every hour',
  every_6_hours: 'every 6 hours',
  every_12_hours: 'every 12 hours',
  daily: 'once a day',
  weekly: 'once a week',
};
/** A sync frequency in words ("once a day"); an unknown one as it is. */
export const often = (frequency: string): string => FREQUENCY[frequency] ?? frequency;

/** The API base path and the operator's name, rendered into `<body>` by the server (src/sdk/page.ts). */
export const api = document.body.dataset.api ?? '';
export const operatorName = document.body.dataset.operator ?? '';

/** A field error of the API's envelope (docs/api.md "Errors"). */
export interface FieldError {
  field: string;
  message: string;
}

/** A failed API call: `status` 0 with `network` when the service could not be reached. */
export class CallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly errors: FieldError[] = [],
    readonly retryAfter = 0,
    readonly network = false,
  ) {
    super(message);
  }
}

/** Any thrown value as a {@link CallError} (status 0: not an API answer). */
export const asCallError = (err: unknown): CallError => (err instanceof CallError ? err : new CallError(err instanceof Error ? err.message : String(err), 0));

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;
const text = (x: unknown): string => (typeof x === 'string' ? x : '');
const fieldErrors = (x: unknown): FieldError[] => (Array.isArray(x) ? x.filter(isRecord).map((e) => ({ field: text(e.field), message: text(e.message) })) : []);

/**
 * Calls the Connect endpoint `path` (JSON in, the envelope's `data` out, typed by the caller as
 * `T`: the server's types of ../connect-view.ts). Throws a {@link CallError} for a network
 * failure or a non-2xx answer.
 */
export async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(api + path, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : null,
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    throw new CallError('network', 0, [], 0, true);
  }
  const json: unknown = await res.json().catch(() => ({}));
  const envelope = isRecord(json) ? json : {};
  if (!res.ok) {
    const data = isRecord(envelope.data) ? envelope.data : {};
    const message = typeof envelope.message === 'string' ? envelope.message : '';
    throw new CallError(message, res.status, fieldErrors(data.errors), Number(res.headers.get('retry-after')) || 0);
  }
  return envelope.data as T;
}

/** The page's state: the last view the API returned, and which buttons' requests run. */
export const state: {
  view: ConnectSession | null;
  /** The `reauth` of the view whose refused details this page replaced, else null. */
  saved: ConnectSession['reauth'];
  busy: Set<string>;
} = { view: null, saved: null, busy: new Set() };

/** The view; before the first one arrived, a bug of the page (throws). */
export function current(): ConnectSession {
  if (!state.view) throw new Error('no view yet');
  return state.view;
}
/** Loads the view again. */
export async function refresh(): Promise<void> {
  state.view = await call<ConnectSession>('GET', '/');
}

export const vendor = (): string => current().vendor.org_name;
export const org = (): string => current().org.org_name;
/** The org has an HRMS configuration or this session entered one. */
export const established = (): boolean => current().proof.required || current().hrms.entered;
/** This session may approve: it entered the org's configuration or proved control. */
export const ready = (): boolean => current().hrms.entered || current().proof.proven;
/** An HRMS product's display name by its id. */
export const productName = (id: string | null): string => current().hrms.products.find((p) => p.hrms_id === id)?.display_name ?? id ?? '';

/** Sets the status line `id` to `text`, styled as `kind` (ok, error, busy, or none). */
export function say(id: string, text: string, kind: '' | 'ok' | 'error' | 'busy'): void {
  const s = $(id);
  s.textContent = text;
  s.className = 'status' + (kind ? ' ' + kind : '');
}

/** Plain words for a failure no step explains better, with what to do next. */
export function general(err: CallError): string {
  if (err.network) return 'We could not reach the service. Check your internet connection and try again.';
  if (err.status === 401)
    return 'Your session has ended (links work for one hour). Open the link from ' + (state.view ? vendor() : 'the service that sent you here') + ' again.';
  if (err.status === 429) return 'Too many tries. Wait ' + (err.retryAfter || 60) + ' seconds, then try again.';
  if (err.status === 503) return 'The service is busy. Try again in a minute.';
  if (err.status === 409) return 'This request was decided already. The page now shows the decision.';
  return 'Something went wrong (' + (err.message || 'error ' + err.status) + '). Try again, or contact ' + operatorName + '.';
}

/** A form control and the message to show under it. */
export type Problem = [HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, string];

/** Clears every field error inside `scope`. */
export function clearErrors(scope: HTMLElement): void {
  for (const i of scope.querySelectorAll('[aria-invalid]')) {
    i.removeAttribute('aria-invalid');
    i.setAttribute(
      'aria-describedby',
      (i.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .filter((x) => x && !x.endsWith('-error'))
        .join(' '),
    );
  }
  for (const p of scope.querySelectorAll<HTMLElement>('.field-error')) {
    p.textContent = '';
    p.hidden = true;
  }
}
/** Marks each `[input, text]` invalid, tells why under it, and moves focus to the first. */
export function showErrors(list: Problem[]): void {
  for (const [field, text] of list) {
    field.setAttribute('aria-invalid', 'true');
    const p = $(field.id + '-error');
    p.textContent = text;
    p.hidden = false;
    const ids = (field.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
    if (!ids.includes(p.id)) field.setAttribute('aria-describedby', [...ids, p.id].join(' '));
  }
  // The field, its message and the step's status beside the button below it, all in the window.
  const first = list[0];
  if (first) {
    first[0].focus({ preventScroll: true });
    first[0].scrollIntoView({ block: 'center' });
  }
}

/** The page of an invalid or expired link. */
export function invalid(): void {
  $('loading').hidden = true;
  $('main').hidden = true;
  $('invalid').hidden = false;
  document.title = 'Link invalid or expired';
}
