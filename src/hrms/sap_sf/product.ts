/**
 * What an employer enters for SAP SuccessFactors (src/hrms/sap_sf/README.md "Signing in"), in SAP's
 * own words ("API server", "company ID":
 * https://help.sap.com/docs/SAP_SUCCESSFACTORS_PLATFORM/d599f15995d348a1b45ba5603e2aba9b/af2b8d5437494b12be88fe374eba75b6.html;
 * "Manage OAuth2 Client Applications", "Register Client Application", "API Key", "X.509
 * Certificate": KBA 3462403, https://userapps.support.sap.com/sap/support/knowledge/en/3462403).
 * Two sign-ins: an API user's password (HTTP Basic), or OAuth 2.0 with a SAML assertion hrx signs.
 */
import type { HrmsFieldInfo, HrmsProductInfo } from '../product-info';

const API_SERVER: HrmsFieldInfo = {
  target: 'hrms_host',
  label: 'API server',
  help: 'The API server of your company\'s data centre, as listed in SAP\'s "List of API Servers in SAP SuccessFactors" (for example https://api4.successfactors.com); not the address you sign in at.',
  required: true,
  secret: false,
  placeholder: 'https://api4.successfactors.com',
};
const COMPANY_ID: HrmsFieldInfo = {
  target: 'client_id',
  label: 'Company ID',
  help: 'Shown in SuccessFactors under your name (top right) → "Show version information"; it is also the company ID you enter at sign-in.',
  required: true,
  secret: false,
};

/** SAP SuccessFactors' entry of `HRMS_PRODUCTS`. */
export const SAP_SF_PRODUCT: HrmsProductInfo = {
  hrmsId: 'sap_sf',
  displayName: 'SAP SuccessFactors',
  grantType: 'basic',
  grantLabel: 'API user and password (HTTP Basic)',
  fields: [
    API_SERVER,
    COMPANY_ID,
    {
      target: 'api_key',
      label: 'API user name',
      help: 'A SuccessFactors user with the "Employee Central API" permissions to read Person and Employment information (an integration user, not a person).',
      required: true,
      secret: false,
    },
    { target: 'client_secret', label: 'Password', help: "That API user's password.", required: true, secret: true },
  ],
  otherGrants: [
    {
      grantType: 'saml2_bearer',
      label: 'OAuth 2.0 with a SAML assertion (recommended by SAP)',
      fields: [
        API_SERVER,
        COMPANY_ID,
        {
          target: 'api_configs.oauth.client_id',
          label: 'API Key',
          help: 'In Admin Center → "Manage OAuth2 Client Applications", register a client application for hrx with an X.509 certificate; SuccessFactors then shows its API Key (View).',
          required: true,
          secret: false,
        },
        {
          target: 'api_key',
          label: 'User ID',
          help: 'The user ID (not the user name or e-mail) of a SuccessFactors user with the "Employee Central API" permissions to read Person and Employment information; hrx signs in as this user.',
          required: true,
          secret: false,
        },
        {
          target: 'client_secret',
          label: 'Private key',
          help: 'The private key of the X.509 certificate registered with that client application (PEM, "-----BEGIN PRIVATE KEY-----", RSA of at least 2048 bits, without a passphrase). hrx signs each sign-in with it and keeps it encrypted.',
          required: true,
          secret: true,
          placeholder: '-----BEGIN PRIVATE KEY----- …',
        },
      ],
    },
  ],
};
