/**
 * What the Connect page and the docs show for Personio (docs/hrms/connectors.md), in Personio's own words:
 * API credentials are generated under Settings > Integrations > API credentials ("Generate new
 * credential", in newer accounts "Create custom integration"), with Read access to Employees and
 * the "Readable employee attributes" chosen for them
 * (https://support.personio.de/hc/en-us/articles/4404623630993).
 */
import type { HrmsProductInfo } from '../product-info';

/** Personio's fields. */
export const PERSONIO_PRODUCT: HrmsProductInfo = {
  hrmsId: 'personio',
  displayName: 'Personio',
  grantType: 'client_credentials',
  fields: [
    {
      target: 'hrms_host',
      label: 'API address',
      required: true,
      secret: false,
      placeholder: 'https://api.personio.de',
      help: "Personio's API address, the same for every company: https://api.personio.de.",
    },
    {
      target: 'client_id',
      label: 'Client ID',
      required: true,
      secret: false,
      help: 'In Personio, go to Settings > Integrations > API credentials and click Generate new credential (or Create custom integration). Choose Other as the integration, Read for Employees, and under Readable employee attributes the attributes to share (birth date, phone, bank and ID attributes included).',
    },
    {
      target: 'client_secret',
      label: 'Client secret',
      required: true,
      secret: true,
      help: 'Shown next to the Client ID when the credential is generated; copy it then. If it was not copied, generate a new credential.',
    },
  ],
};
