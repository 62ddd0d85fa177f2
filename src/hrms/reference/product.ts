/** What an employer enters to connect the reference HRMS: hrx's own simulator API, for trials and tests. */
import type { HrmsProductInfo } from '../product-info';

/** The reference HRMS (client credentials; its API-key grant is accepted too but not offered on the page). */
export const REFERENCE_PRODUCT: HrmsProductInfo = {
  hrmsId: 'reference',
  displayName: 'Reference HRMS (test)',
  grantType: 'client_credentials',
  fields: [
    {
      target: 'hrms_host',
      label: 'HRMS address',
      help: 'The address you open to sign in to your HRMS.',
      required: true,
      secret: false,
      placeholder: 'https://hrms.example.com',
    },
    { target: 'client_id', label: 'Client ID', help: 'The API client created for hrx in the HRMS.', required: true, secret: false },
    { target: 'client_secret', label: 'Client secret', help: 'The secret shown when that API client was created.', required: true, secret: true },
  ],
};
