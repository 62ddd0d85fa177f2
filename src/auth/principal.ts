/**
 * Who is calling, as resolved from a credential (docs/api.md "Credentials"). A plain value type, so services
 * can take it without knowing anything of HTTP.
 */
export interface Principal {
  orgId: number;
  orgUuid: string;
  isVendor: boolean;
  isClient: boolean;
  /** Id of the API key or Basic credential used, or the Connect session's id (for rate limits and audit). */
  credentialId: string;
  /**
   * Only for a Connect session (docs/connect.md "The session"): the one connection it may act on. The principal's
   * org is then the client org whose HR admin uses the Connect flow.
   */
  connect?: ConnectGrant;
}

/** What a Connect session allows: acting on one connection as one user of its client org. */
export interface ConnectGrant {
  /** The session's id (`connect_sessions.id`; not its secret). */
  sessionId: string;
  /** The SDK token the session was exchanged for. */
  jti: string;
  connectionId: string;
  vendorOrgId: number;
  userId: string;
}

/**
 * The principal of a request authenticated by a Connect session (credential kind
 * `connectSession`): its grant is always there. The router refuses such a request without one,
 * so Connect handlers never check it themselves.
 */
export type ConnectPrincipal = Principal & { connect: ConnectGrant };
