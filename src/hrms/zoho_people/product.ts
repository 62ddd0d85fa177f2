/**
 * What an employer enters to connect Zoho People (docs/hrms/connectors.md), in Zoho's own words. Where to
 * find each value: Zoho People's "Steps to Generate OAuth Token"
 * (https://www.zoho.com/people/api/oauth-steps.html) and its scopes
 * (https://www.zoho.com/people/api/scopes.html); the client is a Self Client of the Zoho API
 * Console (https://api-console.zoho.in in India).
 */
import type { HrmsProductInfo } from '../product-info';

/** Zoho People. */
export const ZOHO_PEOPLE_PRODUCT: HrmsProductInfo = {
  hrmsId: 'zoho_people',
  displayName: 'Zoho People',
  grantType: 'refresh_token',
  fields: [
    {
      target: 'hrms_host',
      label: 'Zoho People URL',
      required: true,
      secret: false,
      placeholder: 'https://people.zoho.in',
      help: 'The address of Zoho People for your data centre: https://people.zoho.in in India (people.zoho.com, people.zoho.eu, … elsewhere).',
    },
    {
      target: 'client_id',
      label: 'Client ID',
      required: true,
      secret: false,
      help: 'In the Zoho API Console (api-console.zoho.in), add a Self Client; its Client Secret tab shows the Client ID.',
    },
    {
      target: 'client_secret',
      label: 'Client Secret',
      required: true,
      secret: true,
      help: "Shown next to the Client ID in the Self Client's Client Secret tab.",
    },
    {
      target: 'api_key',
      label: 'Refresh token',
      required: true,
      secret: true,
      help: "In the Self Client's Generate Code tab, generate a code with the scope ZOHOPEOPLE.forms.READ, then exchange it for tokens: Zoho returns the refresh token once.",
    },
    {
      target: 'api_configs.token.hrms_host',
      label: 'Accounts URL',
      required: false,
      secret: false,
      placeholder: 'https://accounts.zoho.in',
      help: 'Zoho Accounts for your data centre. Leave empty to use the one that matches your Zoho People URL (https://accounts.zoho.in for India).',
    },
  ],
};
