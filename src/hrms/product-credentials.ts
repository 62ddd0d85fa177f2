/**
 * The credential checks products share at setup-config (docs/api.md "Setup config", docs/hrms/connectors.md): the product's
 * `grant_type`, its required `access_credentials` fields, and `api_configs` entries only of the
 * `api_id`s it knows, each at most once. Problems name the body field, e.g.
 * `access_credentials.api_key` "required for <hrms_id>"; they never quote a value.
 */
import type { CredentialProblem, HrmsAccess, HrmsCredentials } from './connector';
import type { GrantType } from './grant-types';
import { clientCertificateProblems, TLS_CLIENT_FIELDS } from './tls-client';

/**
 * The optional `access_credentials` fields only some products take: a TLS client certificate
 * (`tls_client_cert` with `tls_client_key`, src/hrms/tls-client.ts) and `payroll_currency`.
 */
export type OptionalCredentialField = (typeof TLS_CLIENT_FIELDS)[number] | 'payroll_currency';
const OPTIONAL_FIELDS: readonly OptionalCredentialField[] = [...TLS_CLIENT_FIELDS, 'payroll_currency'];

/** What one product requires. */
export interface ProductCredentialRule {
  hrmsId: string;
  grantType: GrantType;
  /** `access_credentials` fields that must be non-blank. */
  required: readonly (keyof Pick<HrmsCredentials, 'client_id' | 'client_secret' | 'api_key'>)[];
  /** The `api_id`s the product's `api_configs` may carry. */
  apiIds: readonly string[];
  /**
   * The optional fields the product takes (in the main `access_credentials` only); any other given
   * is "not used by" it. A TLS client certificate is checked here; `payroll_currency`'s values are the product's.
   */
  optional?: readonly OptionalCredentialField[];
  /** The problems of `access_credentials.enum_labels` (given); absent: the product takes none. */
  enumLabelProblems?: (labels: NonNullable<HrmsCredentials['enum_labels']>) => CredentialProblem[];
}

/** The problems of `access` under `rule`, in body order (empty when usable). Shape only: no call. */
export function productCredentialProblems(access: HrmsAccess, rule: ProductCredentialRule): CredentialProblem[] {
  const problems: CredentialProblem[] = [];
  const c = access.credentials;
  if (c.grant_type !== rule.grantType) {
    problems.push({ field: 'access_credentials.grant_type', message: `must be ${rule.grantType} for ${rule.hrmsId}` });
  }
  for (const field of rule.required) {
    if (!c[field]?.trim()) problems.push({ field: `access_credentials.${field}`, message: `required for ${rule.hrmsId}` });
  }
  problems.push(...enumLabelProblems(access, rule.hrmsId, rule.enumLabelProblems));
  problems.push(...optionalFieldProblems(access, rule.hrmsId, rule.optional));
  const seen = new Set<string>();
  access.apiConfigs.forEach((a, i) => {
    if (!rule.apiIds.includes(a.api_id)) {
      const allowed = rule.apiIds.length ? `one of ${rule.apiIds.join(', ')}` : 'none';
      problems.push({ field: `api_configs.${i}.api_id`, message: `not an api_id of ${rule.hrmsId} (${allowed})` });
    } else if (seen.has(a.api_id)) {
      problems.push({ field: `api_configs.${i}.api_id`, message: `${a.api_id} given twice` });
    }
    seen.add(a.api_id);
  });
  return problems;
}

/**
 * The problems of `access` for a product that speaks several grant types (`rules`, one per grant
 * type, the usual first): those of the rule of `access_credentials.grant_type`; for another
 * grant type, the usual rule's, its grant problem naming every grant type the product speaks
 * (`must be basic or saml2_bearer for <hrms_id>`).
 */
export function grantRuleProblems(access: HrmsAccess, rules: readonly [ProductCredentialRule, ...ProductCredentialRule[]]): CredentialProblem[] {
  const rule = rules.find((r) => r.grantType === access.credentials.grant_type);
  if (rule) return productCredentialProblems(access, rule);
  const names = rules.map((r) => r.grantType);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0];
  return productCredentialProblems(access, rules[0]).map((p) =>
    p.field === 'access_credentials.grant_type' ? { ...p, message: `must be ${list} for ${rules[0].hrmsId}` } : p,
  );
}

/**
 * The problems of `enum_labels`: refused in `api_configs` entries, and in the main
 * `access_credentials` unless the product checks them (`check`); a product without label tables
 * answers "not used by" it rather than ignoring them.
 */
export function enumLabelProblems(access: HrmsAccess, hrmsId: string, check?: ProductCredentialRule['enumLabelProblems']): CredentialProblem[] {
  const labels = access.credentials.enum_labels;
  const problems = labels === undefined ? [] : check ? check(labels) : [{ field: 'access_credentials.enum_labels', message: `not used by ${hrmsId}` }];
  access.apiConfigs.forEach((a, i) => {
    if (a.access_credentials.enum_labels !== undefined) {
      problems.push({ field: `api_configs.${i}.access_credentials.enum_labels`, message: 'only in the main access_credentials' });
    }
  });
  return problems;
}

/**
 * The problems of the optional fields ({@link OptionalCredentialField}): each given but not in
 * `taken` is "not used by" `hrmsId` (every product's check calls this, so none stores a field it
 * ignores); a client certificate taken is checked; none is taken in an `api_configs` entry.
 */
export function optionalFieldProblems(access: HrmsAccess, hrmsId: string, taken: readonly OptionalCredentialField[] = []): CredentialProblem[] {
  const given = (c: HrmsCredentials, f: OptionalCredentialField): boolean => c[f] !== undefined && c[f].trim() !== '';
  const problems: CredentialProblem[] = OPTIONAL_FIELDS.filter((f) => !taken.includes(f) && given(access.credentials, f)).map((f) => ({
    field: `access_credentials.${f}`,
    message: `not used by ${hrmsId}`,
  }));
  if (TLS_CLIENT_FIELDS.some((f) => taken.includes(f))) problems.push(...clientCertificateProblems(access.credentials));
  access.apiConfigs.forEach((a, i) => {
    for (const f of OPTIONAL_FIELDS) {
      if (given(a.access_credentials, f)) problems.push({ field: `api_configs.${i}.access_credentials.${f}`, message: 'only in the main access_credentials' });
    }
  });
  return problems;
}
