/**
 * What the Connect page and the docs show for greytHR (docs/hrms/connectors.md), in greytHR's own words:
 * its admin creates an "API user" (Settings > My Account > API users) whose password is shown once
 * (https://greythr.freshdesk.com/support/solutions/articles/1060000049431).
 */
import type { HrmsProductInfo } from '../product-info';

/** greytHR's fields. */
export const GREYTHR_PRODUCT: HrmsProductInfo = {
  hrmsId: 'greythr',
  displayName: 'greytHR',
  grantType: 'client_credentials',
  fields: [
    {
      target: 'hrms_host',
      label: 'greytHR URL',
      required: true,
      secret: false,
      placeholder: 'https://yourcompany.greythr.com',
      help: 'The address you open to sign in to greytHR, e.g. https://yourcompany.greythr.com.',
    },
    {
      target: 'client_id',
      label: 'API user name',
      required: true,
      secret: false,
      help: 'In the greytHR Admin portal, go to Settings > My Account > API users, click Create API User, give it a user name and the roles to read employee data.',
    },
    {
      target: 'client_secret',
      label: 'API user password',
      required: true,
      secret: true,
      help: 'The system-generated password greytHR shows once, when the API user is created. If it was not copied, create a new API user.',
    },
    {
      target: 'api_configs.api.hrms_host',
      label: 'greytHR API URL',
      required: false,
      secret: false,
      placeholder: 'https://api.greythr.com',
      help: 'Leave empty unless greytHR gave your company another API address; the default is https://api.greythr.com.',
    },
  ],
};
