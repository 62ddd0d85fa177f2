/**
 * SAP SuccessFactors' OAuth 2.0 login with a SAML 2.0 bearer assertion (`grant_type`
 * `saml2_bearer`; src/hrms/sap_sf/README.md "Signing in"). The employer registers an OAuth client
 * application in SuccessFactors with an X.509 certificate and gives hrx its API key and the
 * certificate's private key; hrx signs a fresh assertion with that key for each token request,
 * because SAP's server-side generator `/oauth/idp` is deprecated and not to be used (KBA 3239495,
 * https://userapps.support.sap.com/sap/support/knowledge/en/3239495; KBA 3462403 "DO NOT USE
 * /oauth/idp API to generate SAML assertions",
 * https://userapps.support.sap.com/sap/support/knowledge/en/3462403).
 *
 * The assertion is the one of SAP's "Generating a SAML Assertion"
 * (https://help.sap.com/docs/SAP_SUCCESSFACTORS_PLATFORM/d599f15995d348a1b45ba5603e2aba9b/4e27e8f6ae2748ab9f23228dd6a31b06.html):
 * `Issuer`, `Subject/NameID` the SuccessFactors user ID (format unspecified), bearer subject
 * confirmation for the token URL, `Conditions` `NotBefore`/`NotOnOrAfter` with the audience
 * `www.successfactors.com`, an `AuthnStatement`, and the attribute `api_key` (the OAuth client's
 * API key); signed enveloped, RSA-SHA256 over exclusive c14n (XML-DSig, by xml-crypto: nothing here
 * canonicalises or signs by hand). The token request is `POST {API server}/oauth/token`, form
 * `company_id`, `client_id` (the API key), `grant_type=urn:ietf:params:oauth:grant-type:saml2-bearer`
 * and `assertion` (base64 of the signed XML); the answer is RFC 6749 §5.1 JSON `{access_token,
 * token_type, expires_in}` (SAP's tokens last 24 h).
 */
import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { z } from 'zod';
import { apiConfigHost, HrmsError, type HrmsAccess } from '../connector';
import { parseJson, statusError, type HrmsHttpClient } from '../http-client';
import { TokenCache, type IssuedToken } from '../token-cache';
import { cachedTokens, type TokenSource } from '../token-session';

/** The `grant_type` of the token request (RFC 7522 §2.1). */
export const SAML2_BEARER = 'urn:ietf:params:oauth:grant-type:saml2-bearer';
/** The audience SAP's assertion names. */
export const SAP_SF_AUDIENCE = 'www.successfactors.com';
/** How long a signed assertion is valid: short, as it is used at once (SAP's offline tool defaults to 10 minutes). */
export const ASSERTION_TTL_MS = 10 * 60_000;
/** The `api_configs` entry whose `client_id` is the OAuth client's API key (and whose `hrms_host`, when given, serves `/oauth/token`). */
export const OAUTH_API_ID = 'oauth';
/** The smallest RSA modulus accepted, in bits (NIST SP 800-131A: below 2048 is disallowed for signatures). */
export const MIN_RSA_BITS = 2048;

const NS = {
  saml: 'urn:oasis:names:tc:SAML:2.0:assertion',
  xs: 'http://www.w3.org/2001/XMLSchema',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
};
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

const TokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive().optional() });

/** Tokens of every sap_sf connector of this process, one per credentials (token-cache.ts). */
const tokens = new TokenCache();

/** Text as XML character data or an attribute value. */
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
/** An instant as SAML's `xs:dateTime` in UTC, whole seconds. */
const instant = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * `text` as a PEM block with its lines restored: a key pasted into a one-line form field loses
 * its line breaks (or has them turned into spaces), which Node's PEM reader refuses. Text that is
 * no PEM block is returned as it is.
 */
export function pemLines(text: string): string {
  const m = /^\s*-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\s]+)-----END \1-----\s*$/.exec(text);
  if (!m) return text;
  const body = m[2]!.replace(/\s+/g, '');
  return `-----BEGIN ${m[1]}-----\n${body.replace(/.{1,64}/g, '$&\n')}-----END ${m[1]}-----\n`;
}

/**
 * The private key of `pem`, or why it cannot sign SAP's assertion: not a PEM private key, not
 * RSA, or shorter than {@link MIN_RSA_BITS}. The reason never quotes the key.
 */
export function samlSigningKey(pem: string): KeyObject | string {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pemLines(pem), format: 'pem' });
  } catch {
    return 'must be a PEM private key (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----), unencrypted';
  }
  if (key.asymmetricKeyType !== 'rsa') return 'must be an RSA private key (SAP signs assertions with RSA-SHA256)';
  if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return `must be an RSA key of at least ${MIN_RSA_BITS} bits`;
  return key;
}

/** What one assertion says. */
export interface AssertionInput {
  /** The SuccessFactors user ID the token acts as (`NameID`). */
  userId: string;
  /** The OAuth client application's API key (`Issuer` and the `api_key` attribute). */
  apiKey: string;
  /** The token URL the assertion is presented to (`Recipient`). */
  tokenUrl: string;
  /** Its signing key (PEM or parsed). */
  privateKey: KeyObject | string;
  /** Issue instant (ms since the epoch); default now. */
  now?: number;
  /** Validity from `now` in ms; default {@link ASSERTION_TTL_MS}. */
  ttlMs?: number;
}

/** The SAML 2.0 assertion SAP's `/oauth/token` takes, unsigned, as XML text (see the module comment). */
export function assertionXml(a: Omit<AssertionInput, 'privateKey'>): string {
  const now = a.now ?? Date.now();
  const until = instant(now + (a.ttlMs ?? ASSERTION_TTL_MS));
  const issued = instant(now);
  return (
    `<saml2:Assertion xmlns:saml2="${NS.saml}" xmlns:xs="${NS.xs}" xmlns:xsi="${NS.xsi}" ID="_${randomUUID()}" IssueInstant="${issued}" Version="2.0">` +
    `<saml2:Issuer>${esc(a.apiKey)}</saml2:Issuer>` +
    `<saml2:Subject><saml2:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${esc(a.userId)}</saml2:NameID>` +
    `<saml2:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml2:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${esc(a.tokenUrl)}"/></saml2:SubjectConfirmation></saml2:Subject>` +
    `<saml2:Conditions NotBefore="${instant(now - 60_000)}" NotOnOrAfter="${until}"><saml2:AudienceRestriction><saml2:Audience>${SAP_SF_AUDIENCE}</saml2:Audience></saml2:AudienceRestriction></saml2:Conditions>` +
    `<saml2:AuthnStatement AuthnInstant="${issued}" SessionIndex="_${randomUUID()}"><saml2:AuthnContext><saml2:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml2:AuthnContextClassRef></saml2:AuthnContext></saml2:AuthnStatement>` +
    `<saml2:AttributeStatement><saml2:Attribute Name="api_key"><saml2:AttributeValue xsi:type="xs:string">${esc(a.apiKey)}</saml2:AttributeValue></saml2:Attribute></saml2:AttributeStatement>` +
    `</saml2:Assertion>`
  );
}

/**
 * `xml` (an `Assertion` root with an `Issuer`) with an enveloped XML-DSig signature by `privateKey`:
 * RSA-SHA256, SHA-256 digest, exclusive c14n, referencing the root's `ID`, placed right after the
 * `Issuer` as SAML's schema orders it (SAML 2.0 Core §2.3.3). Throws xml-crypto's error on XML it cannot sign.
 */
export function signXml(xml: string, privateKey: KeyObject | string): string {
  const sig = new SignedXml({
    privateKey: typeof privateKey === 'string' ? createPrivateKey(pemLines(privateKey)) : privateKey,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: EXC_C14N,
  });
  sig.addReference({
    xpath: "/*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', EXC_C14N],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, { location: { reference: "/*/*[local-name(.)='Issuer']", action: 'after' } });
  return sig.getSignedXml();
}

/** The signed assertion SAP's `/oauth/token` takes, as XML text. */
export const signedAssertion = (a: AssertionInput): string => signXml(assertionXml(a), a.privateKey);

/** The parts of a `saml2_bearer` setup the token request needs; `auth` when one is missing. */
function samlParts(access: HrmsAccess): { company: string; user: string; apiKey: string; pem: string } {
  const { client_id: company, api_key: user, client_secret: pem } = access.credentials;
  const apiKey = access.apiConfigs.find((a) => a.api_id === OAUTH_API_ID)?.access_credentials.client_id;
  if (!company || !user || !pem || !apiKey) throw new HrmsError('auth', 'sap_sf OAuth needs a company ID, a user ID, the API key and the private key');
  return { company, user, apiKey, pem };
}

/** The token URL: `/oauth/token` on the `oauth` entry's `hrms_host`, else on the API server (without `/odata/v2`). */
function tokenUrl(client: HrmsHttpClient, access: HrmsAccess): URL {
  const host = apiConfigHost(access, OAUTH_API_ID, () => access.credentials.hrms_host)
    .replace(/\/+$/, '')
    .replace(/\/odata\/v2$/, '');
  return client.url(`${host}/`, 'oauth/token');
}

/**
 * One token request with a freshly signed assertion. A refusal (400, 401, 403) is `auth` naming
 * only the status; an answer that is not the token JSON (an HTML page, an error body) is
 * `bad_response`; neither quotes the answer or a credential.
 */
async function requestToken(client: HrmsHttpClient, access: HrmsAccess): Promise<IssuedToken> {
  const { company, user, apiKey, pem } = samlParts(access);
  const key = samlSigningKey(pem);
  if (typeof key === 'string') throw new HrmsError('auth', 'the sap_sf private key cannot sign an assertion');
  const url = tokenUrl(client, access);
  const assertion = Buffer.from(signedAssertion({ userId: user, apiKey, tokenUrl: url.href, privateKey: key })).toString('base64');
  const res = await client.tokenRequest(url, { company_id: company, client_id: apiKey, grant_type: SAML2_BEARER, assertion });
  if (res.statusCode === 400 || res.statusCode === 401 || res.statusCode === 403) {
    throw new HrmsError('auth', `SAP SuccessFactors refused the OAuth token request (HTTP ${res.statusCode})`, res.statusCode);
  }
  if (res.statusCode !== 200) throw statusError(res.statusCode, 'token request', res.headers['retry-after']);
  const parsed = TokenAnswer.safeParse(parseJson(res, 'token request'));
  if (!parsed.success) throw new HrmsError('bad_response', 'SAP SuccessFactors token response lacks an access_token', res.statusCode);
  return { value: parsed.data.access_token, ttlMs: (parsed.data.expires_in ?? 86_400) * 1000 };
}

/**
 * The bearer tokens of a `saml2_bearer` setup: the process-wide cache under a digest of the token
 * URL, company, user, API key and key, filled by {@link requestToken}.
 */
export function sapSfTokens(client: HrmsHttpClient, access: HrmsAccess): TokenSource {
  return cachedTokens(tokens, {
    key: () => {
      const p = samlParts(access);
      return TokenCache.keyOf('sap_sf', tokenUrl(client, access).href, p.company, p.user, p.apiKey, p.pem);
    },
    issue: () => requestToken(client, access),
  });
}
