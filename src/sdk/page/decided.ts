// The Connect page after a decision (docs/connect.md "After the decision"): a read-only record
// that says who decided, in words. Only a decision made on the Connect page says "You"; one the
// operator made from the command line names the operator, one the vendor made names the vendor,
// and an old one whose maker was never recorded names no one.
import type { ConnectSession } from '../connect-view';
import { $, current, longDate, often, org, vendor } from './dom';
import { buildChoices } from './points';

/** `s` with its first letter upper-case (an operator name like "the operator of this service" opens a sentence). */
const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The heading, the outcome box's title and text, and how the sync note ends, for a decided view. */
export function decisionWords(view: ConnectSession): { heading: string; title: string; text: string; syncSince: string } {
  const v = vendor();
  const o = org();
  const op = view.notice.operator_name;
  const by = view.decided_by;
  const on = view.decided_at ? ' on ' + longDate(view.decided_at) : '';
  const request = v + "'s request";
  if (view.status === 'approved') {
    const heading = by === 'admin' ? 'You approved ' + request : by === 'operator' ? capital(op) + ' approved ' + request : capital(request) + ' was approved';
    const who =
      by === 'operator'
        ? ' by ' + op + ', which runs this hrx service, for ' + o + ': no one approved it on this page. Ask ' + op + ' if that was not agreed with you.'
        : '.';
    return {
      heading,
      title: 'Approved',
      text: 'Approved' + on + who + ' ' + v + ' receives the ' + view.shared_data_points.length + ' data points ticked below, and nothing else.',
      syncSince: by === 'admin' ? 'the first sync started when you approved.' : 'the first sync started when it was approved.',
    };
  }
  if (view.status === 'rejected') {
    const heading = by === 'admin' ? 'You rejected ' + request : by === 'operator' ? capital(op) + ' rejected ' + request : capital(request) + ' was rejected';
    const who = by === 'operator' ? ' by ' + op + ', which runs this hrx service: no one rejected it on this page.' : '.';
    return {
      heading,
      title: 'Rejected',
      text: 'Rejected' + on + who + ' ' + v + ' receives no data from ' + o + '. If they ask again, you will get a new link.',
      syncSince: '',
    };
  }
  // Ended: the heading states the fact; the record below says who ended it, when that is known.
  const heading = v + "'s connection to " + o + ' has ended';
  const who = by === 'vendor' ? ' by ' + v + '.' : by === 'operator' ? ' by ' + op + ', which runs this hrx service.' : '.';
  return { heading, title: 'Ended', text: 'Ended' + on + who + ' ' + v + ' no longer receives data from ' + o + '.', syncSince: '' };
}

/** Shows the decided view: the record, every step but review and the data points hidden. */
export function syncDecided(): void {
  const view = current();
  const approved = view.status === 'approved';
  const words = decisionWords(view);
  $('heading').textContent = words.heading;
  document.title = words.heading;
  $('lede').textContent = 'This page is now a record of the decision; nothing on it can be changed.';
  for (const id of ['step-email', 'step-hrms', 'step-decide']) $(id).hidden = true;
  $('outcome').hidden = false;
  $('outcome-h').textContent = words.title;
  $('outcome-text').textContent = words.text;
  $('choose-title').textContent = approved ? 'What is shared' : 'What was asked for';
  $('choose-intro').textContent = approved ? 'Ticked: shared with ' + vendor() + '. Unticked: not shared.' : 'Nothing of this is shared.';
  if (!$('optional').dataset.decided) {
    buildChoices(true);
    $('optional').dataset.decided = '1';
  }
  const reviewTitle = $('review-h').lastChild;
  if (reviewTitle) reviewTitle.textContent = 'The request';
  $('n-sync').textContent = approved
    ? 'hrx reads ' + org() + "'s employees from its HRMS " + often(view.notice.sync_frequency) + '; ' + words.syncSince
    : 'Nothing is read from your HRMS for ' + vendor() + '.';
  for (const n of document.querySelectorAll('.num')) n.textContent = '';
}
