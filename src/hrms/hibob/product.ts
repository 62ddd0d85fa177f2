/**
 * What the Connect page and the docs show for HiBob (src/hrms/hibob/README.md), in HiBob's own
 * words: the API is used through a service user, created in Bob under Settings > Integrations >
 * Automation > Service users, which shows its ID and token once; the service user's permission
 * group decides which employees (by lifecycle status) and which categories of fields it may read
 * (https://apidocs.hibob.com/docs/api-service-users, https://apidocs.hibob.com/reference/permissions).
 */
import type { HrmsProductInfo } from '../product-info';

/** HiBob's entry of `HRMS_PRODUCTS`. */
export const HIBOB_PRODUCT: HrmsProductInfo = {
  hrmsId: 'hibob',
  displayName: 'HiBob',
  grantType: 'basic',
  fields: [
    {
      target: 'hrms_host',
      label: 'API address',
      help: "HiBob's API address, the same for every company: https://api.hibob.com (https://api.sandbox.hibob.com for a sandbox account).",
      required: true,
      secret: false,
      placeholder: 'https://api.hibob.com',
    },
    {
      target: 'client_id',
      label: 'Service user ID',
      help: "In Bob, go to Settings > Integrations > Automation > Service users and create a service user; copy its ID (it starts with SERVICE-). Add it to a permission group whose People's data covers every lifecycle status (Employed, Terminated and the others) with the default employee fields and the Work section.",
      required: true,
      secret: false,
    },
    {
      target: 'client_secret',
      label: 'Service user token',
      help: 'Shown next to the ID when the service user is created; copy it then. If it was not copied, reset the token from the service user’s menu.',
      required: true,
      secret: true,
    },
  ],
};
