/** What an employer enters for BambooHR (docs/hrms/connectors.md), in BambooHR's own words (https://documentation.bamboohr.com/docs/getting-started). */
import type { HrmsProductInfo } from '../product-info';

/** BambooHR's entry of `HRMS_PRODUCTS`. */
export const BAMBOOHR_PRODUCT: HrmsProductInfo = {
  hrmsId: 'bamboohr',
  displayName: 'BambooHR',
  grantType: 'api_key',
  fields: [
    {
      target: 'hrms_host',
      label: 'Company domain',
      help: 'Your BambooHR address, https://{company domain}.bamboohr.com: the part before .bamboohr.com is your company domain.',
      required: true,
      secret: false,
      placeholder: 'https://acme.bamboohr.com',
    },
    {
      target: 'api_key',
      label: 'API key',
      help: 'In BambooHR, click your name in the upper right corner, choose "API Keys", then "Add New Key"; copy the key when it is shown (it is shown once). The key acts with your access level.',
      required: true,
      secret: true,
    },
  ],
};
