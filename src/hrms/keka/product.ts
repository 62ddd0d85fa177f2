/**
 * What an employer enters to connect Keka (docs/hrms/connectors.md), in Keka's own words. Where to find each
 * value: Keka's help "How can an admin create an API access key on Keka?"
 * (https://help.keka.com/hc/en-us/articles/39946599180177) and the developer guide for customers
 * (https://developers.keka.com/reference/getting-started-for-customers).
 */
import type { HrmsProductInfo } from '../product-info';

const KEY_WINDOW =
  'In Keka, open Global Settings (the gear icon next to your organisation name) → Integrations and Automation → API Access and click Create New Key (Global admins only; the API is a paid add-on).';

/** Keka HR. */
export const KEKA_PRODUCT: HrmsProductInfo = {
  hrmsId: 'keka',
  displayName: 'Keka',
  grantType: 'kekaapi',
  fields: [
    {
      target: 'hrms_host',
      label: 'Keka URL',
      required: true,
      secret: false,
      placeholder: 'https://acme.keka.com',
      help: 'The address you open to sign in to Keka, with your company name in it (a sandbox is on kekademo.com).',
    },
    {
      target: 'client_id',
      label: 'Client ID',
      required: true,
      secret: false,
      help: `${KEY_WINDOW} The Create API Key window shows the Client ID once: copy it then.`,
    },
    {
      target: 'client_secret',
      label: 'Client Secret',
      required: true,
      secret: true,
      help: 'Shown once, next to the Client ID, in the Create API Key window.',
    },
    {
      target: 'api_key',
      label: 'API Key',
      required: true,
      secret: true,
      help: 'The key itself, shown once in the same window; give it a scope that can read employee data (HRIS).',
    },
    {
      target: 'api_configs.token.hrms_host',
      label: 'Login URL',
      required: false,
      secret: false,
      placeholder: 'https://login.keka.com',
      help: "Keka's sign-in service that issues API tokens. Leave empty for https://login.keka.com (https://login.kekademo.com for a sandbox).",
    },
  ],
};
