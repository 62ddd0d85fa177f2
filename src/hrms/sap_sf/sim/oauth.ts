/**
 * The SAP SuccessFactors simulator's `POST /oauth/token` (../oauth.ts names SAP's sources): it
 * takes the form `company_id`, `client_id` (the API key), `grant_type=urn:ietf:params:oauth:grant-type:saml2-bearer`
 * and `assertion` (base64 of a signed SAML 2.0 assertion), and checks the assertion by a path of
 * its own, not the signer's: the XML is parsed here (@xmldom/xmldom), the one enveloped signature
 * is verified by xml-crypto against the registered certificate's public key only (a key the
 * assertion carries in `KeyInfo` is never trusted), and every value is then read from the XML
 * that signature covers (so an element added beside the signed one counts for nothing): the
 * root is the signed `Assertion`, its `Audience` is `www.successfactors.com`, `NotBefore` has
 * come and `NotOnOrAfter` has not (in `Conditions` and in the bearer confirmation), `NameID` is
 * the registered user and the `api_key` attribute the request's API key, `company_id` the
 * company's. It answers RFC 6749 §5.1 JSON with a 24-hour token, or an RFC 6749 §5.2 error.
 */
import type { KeyObject } from 'node:crypto';
import { DOMParser, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const GRANT = 'urn:ietf:params:oauth:grant-type:saml2-bearer';
const AUDIENCE = 'www.successfactors.com';
/** The most text an assertion may be (base64 included): far above a real one (about 4 KiB). */
const MAX_ASSERTION = 32 * 1024;

/** What the employer registered: the company, the OAuth client's API key and certificate key, the API user. */
export interface SamlRegistration {
  companyId: string;
  apiKey: string;
  userId: string;
  /** The public key of the X.509 certificate registered with the OAuth client application. */
  publicKey: KeyObject;
}

/** A refused token request: the HTTP status and the RFC 6749 §5.2 error code, with the simulator's reason. */
export interface TokenRefusal {
  status: 400 | 401;
  error: 'invalid_request' | 'unsupported_grant_type' | 'invalid_client' | 'invalid_grant';
  reason: string;
}

/** An XML document of `text`, or undefined when it does not parse (errors are not thrown by default). */
function parse(text: string): Document | undefined {
  let failed = false;
  const doc = new DOMParser({
    onError: (level) => {
      if (level !== 'warning') failed = true;
    },
  }).parseFromString(text, 'text/xml');
  return failed || !doc.documentElement ? undefined : doc;
}

const all = (root: Element | Document, ns: string, name: string): Element[] => Array.from(root.getElementsByTagNameNS(ns, name));
const only = (root: Element | Document, ns: string, name: string): Element | undefined => {
  const found = all(root, ns, name);
  return found.length === 1 ? found[0] : undefined;
};
const textOf = (e: Element | undefined): string | undefined => e?.textContent?.trim();
/** Whether `now` is in `[NotBefore, NotOnOrAfter)` of `e` (an absent `NotBefore` has come; an absent or unreadable `NotOnOrAfter` never holds). */
function current(e: Element | undefined, now: number): boolean {
  if (!e) return false;
  const before = e.getAttribute('NotBefore');
  const until = Date.parse(e.getAttribute('NotOnOrAfter') ?? '');
  return Number.isFinite(until) && now < until && (!before || Date.parse(before) <= now);
}

/** The signed assertion of `xml` verified against `key`: the XML its one signature covers, or why not. */
function signedAssertionXml(xml: string, key: KeyObject): string | string[] {
  const doc = parse(xml);
  const root = doc?.documentElement;
  if (!doc || !root || root.namespaceURI !== SAML || root.localName !== 'Assertion') return ['not a SAML 2.0 assertion'];
  const signatures = all(doc, DSIG, 'Signature');
  if (signatures.length !== 1 || signatures[0]!.parentNode !== root) return ['not one enveloped signature'];
  const sig = new SignedXml({ publicCert: key.export({ type: 'spki', format: 'pem' }).toString(), getCertFromKeyInfo: () => null });
  try {
    // As text: xml-crypto reads it with its own copy of xmldom.
    sig.loadSignature(new XMLSerializer().serializeToString(signatures[0]!));
    if (!sig.checkSignature(xml)) return ['signature does not verify'];
  } catch {
    return ['signature does not verify'];
  }
  const signed = sig.getSignedReferences();
  if (signed.length !== 1) return ['not one signed reference'];
  return signed[0]!;
}

/**
 * Why the token request `form` is refused under `reg` at `now` (ms), or undefined when it is
 * good. Never throws on any input.
 */
export function tokenRefusal(form: URLSearchParams, reg: SamlRegistration, now = Date.now()): TokenRefusal | undefined {
  if (form.get('grant_type') !== GRANT) return { status: 400, error: 'unsupported_grant_type', reason: 'grant_type' };
  const assertion = form.get('assertion') ?? '';
  if (!assertion || assertion.length > MAX_ASSERTION || !/^[A-Za-z0-9+/=\s]+$/.test(assertion)) {
    return { status: 400, error: 'invalid_request', reason: 'assertion is not base64' };
  }
  if (form.get('client_id') !== reg.apiKey || form.get('company_id') !== reg.companyId) {
    return { status: 401, error: 'invalid_client', reason: 'unknown client_id or company_id' };
  }
  const signed = signedAssertionXml(Buffer.from(assertion, 'base64').toString('utf8'), reg.publicKey);
  if (Array.isArray(signed)) return { status: 401, error: 'invalid_grant', reason: signed[0]! };
  const doc = parse(signed);
  const root = doc?.documentElement;
  if (!doc || !root || root.namespaceURI !== SAML || root.localName !== 'Assertion')
    return { status: 401, error: 'invalid_grant', reason: 'the signature does not cover the assertion' };
  const refuse = (reason: string): TokenRefusal => ({ status: 401, error: 'invalid_grant', reason });
  const audiences = all(doc, SAML, 'Audience').map((a) => textOf(a));
  if (!audiences.includes(AUDIENCE)) return refuse('audience');
  if (!current(only(doc, SAML, 'Conditions'), now)) return refuse('expired or not yet valid');
  const confirmation = only(doc, SAML, 'SubjectConfirmationData');
  if (confirmation && !current(confirmation, now)) return refuse('expired or not yet valid');
  if (textOf(only(doc, SAML, 'NameID')) !== reg.userId) return refuse('unknown user');
  const apiKeys = all(doc, SAML, 'Attribute')
    .filter((a) => a.getAttribute('Name') === 'api_key')
    .flatMap((a) => all(a, SAML, 'AttributeValue').map((v) => textOf(v)));
  if (apiKeys.length !== 1 || apiKeys[0] !== reg.apiKey) return refuse('api_key attribute');
  if (!only(doc, SAML, 'AuthnStatement')) return refuse('no AuthnStatement');
  return undefined;
}
