/**
 * The credential kinds a route may require (docs/api.md "Credentials") and the resolver the router asks. They
 * live in auth/, not in the router, so the dependency points one way: http/router → auth.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ConnectPrincipal, Principal } from './principal';

/** Credential kinds of docs/api.md "Credentials". */
export type CredentialKind =
  | 'none'
  | 'apiKeyUsername' // header `username: <api-key>`
  | 'apiKey' // `Authorization: <api-key>` (or `Bearer <api-key>`)
  | 'clientBasic' // `Authorization: Basic base64(app_key:app_secret)`
  | 'vendorBasic' // `Authorization: Basic base64(username:password)` of V2
  | 'connectSession' // the Connect session cookie, only (docs/connect.md "The session")
  | 'admin'; // HRX_ADMIN_TOKEN

/**
 * Resolves a credential; throws `AppError` AUTH_MISSING / AUTH_INVALID, or THROTTLED past the
 * failed-authentication limit of `source` (the request's source address, auth/source.ts).
 * Resolves `null` only for `none`.
 */
export type Authenticator = (kind: CredentialKind, headers: IncomingHttpHeaders, source?: string) => Promise<Principal | null>;

/**
 * The kind of org a route's credential must belong to (docs/api.md "Credentials": each
 * credential is of a vendor org or of a client org). A credential of another kind of org is the wrong credential: 401 `Invalid token.`.
 */
export type OrgRole = 'vendor' | 'client';

/** A principal of a vendor org (`R` = 'vendor'), of a client org ('client'), or of either (undefined). */
export type PrincipalOfRole<R extends OrgRole | undefined> = R extends 'vendor'
  ? Principal & { isVendor: true }
  : R extends 'client'
    ? Principal & { isClient: true }
    : Principal;

/**
 * The principal a route's handler gets for its credential kind `K` and role `R`: `null` for
 * `none` and `admin` (the admin token names no org), a resolved principal for every other kind
 * (the authenticator throws rather than resolve those to null), of the route's role when it
 * declares one (the router checks it, see {@link hasRole}; handlers never do), and carrying its
 * Connect grant for `connectSession` (the router checks that too).
 */
export type PrincipalFor<K extends CredentialKind, R extends OrgRole | undefined = undefined> = K extends 'none' | 'admin'
  ? null
  : K extends 'connectSession'
    ? ConnectPrincipal & PrincipalOfRole<R>
    : PrincipalOfRole<R>;

/** Whether `principal`'s org is of `role`. */
export function hasRole(principal: Principal, role: OrgRole): boolean {
  return role === 'vendor' ? principal.isVendor : principal.isClient;
}
