// The Connect page's data point lists (docs/connect.md "Long lists: groups that fold"): the
// required points of the review step, and the checkboxes of the optional ones (pending) or of
// every requested one (decided, read-only). One group per category; each checkbox group is a
// native <details> whose summary counts what is (to be) shared, folded when the group is long.
import type { RequestedDataPoint } from '../connect-view';
import { $, current, el } from './dom';

/** A group with more points than this starts folded, unless the whole list is short. */
export const FOLD_OVER = 6;
/** A list of at most this many points shows every group open. */
export const SHORT_LIST = 12;

function pointLabel(p: RequestedDataPoint): HTMLElement {
  return el('span', null, p.label, p.sensitive ? el('span', { class: 'badge', text: 'Sensitive' }) : null);
}

/** `points` by category, in the view's category order; empty categories left out. */
function byCategory(points: RequestedDataPoint[]): { title: string; points: RequestedDataPoint[] }[] {
  return current()
    .data_point_categories.map((c) => ({ title: c.title, points: points.filter((p) => p.category === c.id) }))
    .filter((g) => g.points.length);
}

/** The review step's list of what the vendor requires, by category. */
export function buildRequired(): void {
  const box = $('required');
  box.replaceChildren();
  const required = current().data_points.filter((p) => p.required);
  if (!required.length) {
    box.append(el('p', { text: 'Nothing is required: everything asked for is optional (step below).' }));
    return;
  }
  for (const g of byCategory(required)) {
    box.append(el('h4', { text: g.title }), el('ul', null, ...g.points.map((p) => el('li', null, pointLabel(p)))));
  }
}

/** "3 of 11 shared" (decided) or "3 of 11 to share" (pending: nothing is shared before approval). */
const countText = (on: number, of: number, decided: boolean): string => `${on} of ${of} ${decided ? 'shared' : 'to share'}`;

/** Updates the count in the summary of `group` (its ticked boxes of all). */
function recount(group: HTMLDetailsElement, decided: boolean): void {
  const boxes = [...group.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
  const count = group.querySelector('.count');
  if (count) count.textContent = countText(boxes.filter((b) => b.checked).length, boxes.length, decided);
}

/**
 * Checkbox groups, one per category, each a <details> with its count in the summary and a
 * fieldset (its legend for screen readers) inside: the optional points (pending) or every
 * requested point (decided, read-only).
 */
export function buildChoices(decided: boolean): void {
  const view = current();
  const box = $('optional');
  box.replaceChildren();
  const points = decided ? view.data_points : view.data_points.filter((p) => !p.required);
  if (!points.length) {
    box.append(el('p', { text: 'Nothing optional was asked for.' }));
    return;
  }
  const shared = new Set(view.shared_data_points);
  const groups = byCategory(points);
  groups.forEach((g, i) => {
    const fs = el('fieldset', null, el('legend', { class: 'vh', text: g.title }));
    for (const p of g.points) {
      const id = 'dp-' + p.name;
      const on = decided && shared.has(p.name);
      const check = el('input', { type: 'checkbox', id, name: 'optional', value: p.name, disabled: decided, checked: on });
      check.checked = on;
      const state = decided ? el('span', { class: on ? 'state on' : 'state', text: on ? 'shared' : 'not shared' }) : null;
      fs.append(
        el('div', { class: 'check' }, check, el('label', { for: id }, pointLabel(p), decided && p.required ? ' (required)' : null, state ? ': ' : null, state)),
      );
    }
    const open = points.length <= SHORT_LIST || g.points.length <= FOLD_OVER;
    const group = el(
      'details',
      { class: 'group', id: 'group-' + i, open },
      el('summary', null, el('span', { class: 'g-title', text: g.title }), ' ', el('span', { class: 'count' })),
      fs,
    );
    recount(group, decided);
    if (!decided) fs.addEventListener('change', () => recount(group, decided));
    box.append(group);
  });
}
