/**
 * What an e-mail code proves (docs/connect.md "What an e-mail code can set up"): that the
 * approver reads the token's address, nothing more. It may set a new org up only when that
 * address is on the org's own `email_domain`. An org without one (made by the name rule, by a
 * `remote_org_id` with a common address, or by the operator without `--domain`) is set up by the operator (`hrx
 * connection approve`) or after proof (b), the org's application key and secret.
 */
import type { Org } from '../db/entities';
import { AppError } from '../errors';

/** Whether a code sent to `email` may establish `org`: the address's domain is the org's `email_domain` (both compared lower-cased). */
export function codeEstablishes(org: Pick<Org, 'emailDomain'>, email: string): boolean {
  const at = email.lastIndexOf('@');
  return org.emailDomain !== null && at > 0 && email.slice(at + 1).toLowerCase() === org.emailDomain.toLowerCase();
}

/**
 * The 400 (field `email`) of a new org that no e-mail code can set up: names the true cause (the
 * org has no e-mail domain of its own, or the token's address is on another) and says who can
 * (docs/connect.md "What an e-mail code can set up").
 */
export function codeCannotEstablish(org: Pick<Org, 'emailDomain'> | null): AppError {
  const cause =
    org?.emailDomain == null
      ? 'the organisation has no e-mail domain of its own (it was made by its name, by a remote_org_id with a common e-mail address, or by the operator without --domain)'
      : "the token's address is not on the organisation's own e-mail domain";
  return AppError.validation([
    {
      field: 'email',
      message: `an e-mail code cannot set up this organisation, because ${cause}: the operator must approve this connection (hrx connection approve), or prove control with the organisation's application key and secret`,
    },
  ]);
}
