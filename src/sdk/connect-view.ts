/**
 * What the Connect page shows of its session (`GET /api/sdk/connect/`, docs/connect.md "Data point labels"): the request,
 * the notice ("What the HR admin is told"), the data points by their human labels, the HRMS
 * products to choose from with the fields of each, and where the session stands (e-mail
 * verified, proof given, lock, decision and when). Pure: the flow (connect.ts) loads the rows.
 */
import type { ConnectionDecider, ConnectionStatus, Connection, Org } from '../db/entities';
import { dataPointLabel, DATA_POINT_CATEGORIES, ALWAYS_SHARED_LABELS, type DataPointCategory } from '../domain/data-point-labels';
import type { HrmsFieldInfo, HrmsFieldTarget, HrmsProductInfo } from '../hrms/products';
import { requestSplit, dataPointLists } from '../connections/requested-points';

/** The three data point lists of a connection (docs/api.md "Vendor connections"). */
export interface DataPointLists {
  shared_data_points: string[];
  not_shared_data_points: string[];
  not_requested_data_points: string[];
}

/** One requested data point as the page lists it. */
export interface RequestedDataPoint {
  name: string;
  /** Human label (src/domain/data-point-labels.ts). */
  label: string;
  category: DataPointCategory;
  sensitive: boolean;
  /** Required by the vendor (flag -1), else optional. */
  required: boolean;
}

/** One input of a product's form, in wire form. */
/** One field of a sign-in; `multiline`: a text area (a PEM certificate or key), line breaks kept. */
export type ConnectHrmsField = {
  target: HrmsFieldTarget;
  label: string;
  help: string;
  required: boolean;
  secret: boolean;
  placeholder: string | null;
  multiline: boolean;
};

/**
 * An HRMS product of the HRMS step (src/hrms/products.ts), as the page builds its form:
 * `grant_type` and `fields` of its usual sign-in (named `grant_label`, null when it offers no
 * other), and `other_grants`, the other sign-ins it offers (empty for most), the employer's choice.
 */
export interface ConnectHrmsProduct {
  hrms_id: string;
  display_name: string;
  grant_type: string;
  grant_label: string | null;
  fields: ConnectHrmsField[];
  other_grants: { grant_type: string; label: string; fields: ConnectHrmsField[] }[];
}

/** What the Connect page shows (`GET /api/sdk/connect/`). Fields up to `proof` are the first version's. */
export interface ConnectSession extends DataPointLists {
  connection_id: string;
  status: ConnectionStatus;
  vendor: { org_id: string; org_name: string };
  org: { org_id: string; org_name: string; invite_status: string };
  /**
   * `fullname`: the name the request of this session's own SDK token gave, the issuing vendor's
   * words (docs/connect.md "Whose name the page shows"), or null when none was kept.
   */
  user: { email: string; fullname: string | null };
  required_data_points: string[];
  optional_data_points: string[];
  /**
   * `supported`: the connectors' `hrms_id`s; `configured`: the org's `hrms_id`, or null (none, or not
   * shown: a connection not approved shows it only after this session's proof, docs/connect.md
   * "What a pending connection sees"); `entered`:
   * this session entered the org's configuration; `products`: each supported product's display
   * name, grant type and fields, in the order the page lists them.
   */
  hrms: { supported: string[]; configured: string | null; entered: boolean; products: ConnectHrmsProduct[] };
  /** `required`: the org is established (approval needs proof); `proven`: this session gave it. */
  proof: { required: boolean; proven: boolean };
  /**
   * E-mail verification (docs/connect.md "What an e-mail code can set up"): `required` while the org is not
   * established; `available` when a code can set this org up (this service sends codes and
   * `establishes`); `establishes`: `sent_to` is on the org's own e-mail domain, so a code proves
   * something (false: only the operator or proof (b) can set the org up, docs/connect.md "What an
   * e-mail code can set up"); `verified` by this session; `sent_to` the token's e-mail;
   * `code_expires_at` the waiting code's expiry (ISO), or null.
   */
  email_verification: {
    required: boolean;
    available: boolean;
    establishes: boolean;
    verified: boolean;
    sent_to: string;
    code_expires_at: string | null;
  };
  /** Until when failed proofs lock approval for this vendor and org (ISO), or null. */
  lock: { locked_until: string | null };
  /** The notice of docs/connect.md "The notice (DPDP Act 2023)": the vendor's purpose and privacy link (null: none given), the operator, how often syncs run. */
  notice: { vendor_purpose: string | null; vendor_privacy_url: string | null; operator_name: string; operator_contact: string | null; sync_frequency: string };
  /** The requested data points with their labels, in record order. */
  data_points: RequestedDataPoint[];
  /** Category headings, in display order. */
  data_point_categories: { id: DataPointCategory; title: string }[];
  /** The identifiers shared with every connection (docs/data-points.md). */
  always_shared: { name: string; label: string }[];
  /** When the connection was approved, rejected or terminated (ISO); null while pending. */
  decided_at: string | null;
  /**
   * Who decided (docs/connect.md "After the decision"): `admin` (an HR admin of the org on this
   * page), `operator` (the hrx operator, from the command line), `vendor` (the vendor ended it);
   * null while pending, or when not recorded (decisions older than the record: the page names no one).
   */
  decided_by: ConnectionDecider | null;
  /**
   * "Update credentials" mode (docs/connect.md "Updating refused credentials"): the org's HRMS
   * refused the stored credentials; `hrms_id` and `product_name` name that HRMS, `refused_at`
   * (ISO) is when the refused sync ended. Null otherwise (also for a rejected or ended connection,
   * and for a pending one until this session gave proof, docs/connect.md "What a pending connection sees").
   */
  reauth: { hrms_id: string; product_name: string; refused_at: string } | null;
}

/** The connection's lists in wire form. */
export const listsOf = (c: Connection): DataPointLists => {
  const l = dataPointLists(c);
  return { shared_data_points: l.shared, not_shared_data_points: l.notShared, not_requested_data_points: l.notRequested };
};

/** The wire form of `p`. */
export function productView(p: HrmsProductInfo): ConnectHrmsProduct {
  return {
    hrms_id: p.hrmsId,
    display_name: p.displayName,
    grant_type: p.grantType,
    grant_label: p.grantLabel ?? null,
    fields: p.fields.map(fieldView),
    other_grants: (p.otherGrants ?? []).map((g) => ({ grant_type: g.grantType, label: g.label, fields: g.fields.map(fieldView) })),
  };
}

/** The wire form of one field. */
const fieldView = (f: HrmsFieldInfo): ConnectHrmsField => ({
  target: f.target,
  label: f.label,
  help: f.help,
  required: f.required,
  secret: f.secret,
  placeholder: f.placeholder ?? null,
  multiline: f.multiline === true,
});

/** Everything the view is made of, loaded by the flow. */
export interface ViewInput {
  connection: Connection;
  vendor: Org;
  org: Org;
  /** `fullName`: the session's own token's `fullname` (null: none kept), not the first one stored for the address. */
  user: { email: string; fullName: string | null };
  supported: readonly string[];
  products: ConnectHrmsProduct[];
  configured: string | null;
  /** The org has an HRMS configuration or employees. */
  established: boolean;
  /** The token's address is on the org's own e-mail domain (./establish-rule.ts). */
  codeEstablishes: boolean;
  /** This session entered the org's configuration. */
  entered: boolean;
  session: { provenAt: Date | null; emailVerifiedAt: Date | null } | null;
  lockedUntil: Date | null;
  codeExpiresAt: Date | null;
  mailer: boolean;
  operator: { name: string; contact: string | null };
  /** The org waits for new HRMS credentials: which HRMS refused, and when; else null. */
  refused: { hrmsId: string; refusedAt: Date } | null;
}

/** Builds the view (see {@link ConnectSession}). */
export function sessionView(v: ViewInput): ConnectSession {
  const c = v.connection;
  const { required, optional } = requestSplit(c.dataModelFlags);
  const requiredSet = new Set(required);
  const requested = [...required, ...optional];
  const data_points = requested.map((name): RequestedDataPoint => {
    const l = dataPointLabel(name);
    return { name, label: l?.label ?? name, category: l?.category ?? 'personal', sensitive: l?.sensitive ?? false, required: requiredSet.has(name) };
  });
  return {
    connection_id: c.id,
    status: c.status,
    vendor: { org_id: v.vendor.uuid, org_name: v.vendor.orgName },
    org: { org_id: v.org.uuid, org_name: v.org.orgName, invite_status: v.org.inviteStatus },
    user: { email: v.user.email, fullname: v.user.fullName },
    required_data_points: required,
    optional_data_points: optional,
    hrms: { supported: [...v.supported], configured: v.configured, entered: v.entered, products: v.products },
    proof: { required: v.established && !v.entered, proven: v.session?.provenAt != null },
    email_verification: {
      required: !v.established,
      available: v.mailer && v.codeEstablishes,
      establishes: v.codeEstablishes,
      verified: v.session?.emailVerifiedAt != null,
      sent_to: v.user.email,
      code_expires_at: v.codeExpiresAt?.toISOString() ?? null,
    },
    lock: { locked_until: v.lockedUntil?.toISOString() ?? null },
    notice: {
      vendor_purpose: v.vendor.purpose,
      vendor_privacy_url: v.vendor.privacyUrl,
      operator_name: v.operator.name,
      operator_contact: v.operator.contact,
      sync_frequency: c.syncFrequency,
    },
    data_points,
    data_point_categories: DATA_POINT_CATEGORIES.map((x) => ({ id: x.id, title: x.title })),
    always_shared: ALWAYS_SHARED_LABELS.map((x) => ({ ...x })),
    decided_at: c.status === 'pending' ? null : c.statusChangedAt.toISOString(),
    decided_by: c.status === 'pending' ? null : c.decidedBy,
    reauth: v.refused
      ? {
          hrms_id: v.refused.hrmsId,
          product_name: v.products.find((p) => p.hrms_id === v.refused?.hrmsId)?.display_name ?? v.refused.hrmsId,
          refused_at: v.refused.refusedAt.toISOString(),
        }
      : null,
    ...listsOf(c),
  };
}
