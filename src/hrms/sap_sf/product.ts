/**
 * What an employer enters for SAP SuccessFactors (src/hrms/sap_sf/README.md), in SAP's own words
 * ("API server", "company ID": https://help.sap.com/docs/SAP_SUCCESSFACTORS_PLATFORM/d599f15995d348a1b45ba5603e2aba9b/af2b8d5437494b12be88fe374eba75b6.html).
 */
import type { HrmsProductInfo } from '../product-info';

/** SAP SuccessFactors' entry of `HRMS_PRODUCTS`. */
export const SAP_SF_PRODUCT: HrmsProductInfo = {
  hrmsId: 'sap_sf',
  displayName: 'SAP SuccessFactors',
  grantType: 'basic',
  fields: [
    {
      target: 'hrms_host',
      label: 'API server',
      help: 'The API server of your company\'s data centre, as listed in SAP\'s "List of API Servers in SAP SuccessFactors" (for example https://api4.successfactors.com); not the address you sign in at.',
      required: true,
      secret: false,
      placeholder: 'https://api4.successfactors.com',
    },
    {
      target: 'client_id',
      label: 'Company ID',
      help: 'Shown in SuccessFactors under your name (top right) → "Show version information"; it is also the company ID you enter at sign-in.',
      required: true,
      secret: false,
    },
    {
      target: 'api_key',
      label: 'API user name',
      help: 'A SuccessFactors user with the "Employee Central API" permissions to read Person and Employment information (an integration user, not a person).',
      required: true,
      secret: false,
    },
    { target: 'client_secret', label: 'Password', help: "That API user's password.", required: true, secret: true },
  ],
};
