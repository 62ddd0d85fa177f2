/**
 * The credential kinds a route may require (decisions §2) and the resolver the router asks. They
 * live in auth/, not in the router, so the dependency points one way: http/router → auth.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ConnectGrant, Principal } from './principal';

/** Credential kinds of decisions §2. */
export type CredentialKind =
  | 'none'
  | 'apiKeyUsername' // header `username: <api-key>`
  | 'apiKey' // `Authorization: <api-key>` (or `Bearer <api-key>`)
  | 'clientBasic' // `Authorization: Basic base64(app_key:app_secret)`
  | 'vendorBasic' // `Authorization: Basic base64(username:password)` of V2
  | 'connectSession' // the Connect session cookie, only (decisions §8)
  | 'admin'; // HRX_ADMIN_TOKEN

/**
 * Resolves a credential; throws `AppError` AUTH_MISSING / AUTH_INVALID, or THROTTLED past the
 * failed-authentication limit of `source` (the request's source address, auth/source.ts).
 * Resolves `null` only for `none`.
 */
export type Authenticator = (kind: CredentialKind, headers: IncomingHttpHeaders, source?: string) => Promise<Principal | null>;

/**
 * The principal a route's handler gets for its credential kind: `null` for `none` and `admin`
 * (the admin token names no org), a resolved principal for every other kind (the authenticator
 * throws rather than resolve those to null). Whether the org is a vendor or a client is a role
 * check left to the handler (`vendorPrincipal`).
 */
export type PrincipalFor<K extends CredentialKind> = K extends 'none' | 'admin' ? null : Principal;
