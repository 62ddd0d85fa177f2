/**
 * What the Connect page and the docs show for ADP Workforce Now (src/hrms/adp_wfn/README.md), in
 * ADP's own words: an API client's credentials ("client ID" and "client secret") come from the
 * company's practitioner, who grants the partner's application access to Workers in ADP
 * Marketplace / API Central; ADP's API address is the same for every company.
 */
import type { HrmsProductInfo } from '../product-info';

/** ADP Workforce Now's fields. */
export const ADP_WFN_PRODUCT: HrmsProductInfo = {
  hrmsId: 'adp_wfn',
  displayName: 'ADP Workforce Now',
  grantType: 'client_credentials',
  fields: [
    {
      target: 'hrms_host',
      label: 'API address',
      required: true,
      secret: false,
      placeholder: 'https://api.adp.com',
      help: "ADP's API address, the same for every company: https://api.adp.com (or the address of the certificate proxy your IT team runs for ADP).",
    },
    {
      target: 'client_id',
      label: 'Client ID',
      required: true,
      secret: false,
      help: 'In ADP API Central (or ADP Marketplace), open the project or app that is allowed to read Workers and copy its Client ID.',
    },
    {
      target: 'client_secret',
      label: 'Client secret',
      required: true,
      secret: true,
      help: 'Shown with the Client ID in ADP API Central; if it is lost, generate a new one there.',
    },
  ],
};
