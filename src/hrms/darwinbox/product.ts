/** What an employer enters for Darwinbox (docs/hrms/connectors.md), in Darwinbox's own words; help from Merge's and Unified.to's Darwinbox guides (the sources in src/hrms/darwinbox/README.md). */
import type { HrmsProductInfo } from '../product-info';

/** Darwinbox's entry of `HRMS_PRODUCTS`. */
export const DARWINBOX_PRODUCT: HrmsProductInfo = {
  hrmsId: 'darwinbox',
  displayName: 'Darwinbox',
  grantType: 'basic',
  fields: [
    {
      target: 'hrms_host',
      label: 'Instance domain',
      help: 'The address you sign in to Darwinbox at, such as https://acme.darwinbox.in.',
      required: true,
      secret: false,
      placeholder: 'https://acme.darwinbox.in',
    },
    {
      target: 'client_id',
      label: 'API username',
      help: 'The API user Darwinbox sets up for integrations. Darwinbox gives API access on request: ask your Darwinbox representative (or your Darwinbox admin) for the API username, password and API key.',
      required: true,
      secret: false,
    },
    { target: 'client_secret', label: 'API password', help: 'The password of that API user, given with it.', required: true, secret: true },
    {
      target: 'api_key',
      label: 'API key',
      help: 'The API key Darwinbox issues with the Employee Master API, given with the API user (ask your Darwinbox representative).',
      required: true,
      secret: true,
    },
    {
      target: 'api_configs.employees_active.api_key',
      label: 'Dataset key (active employees)',
      help: 'The dataset key of the Employee Master dataset of active employees, with the fields hrx should read enabled (Darwinbox creates datasets on request).',
      required: true,
      secret: true,
    },
    {
      target: 'api_configs.employees_inactive.api_key',
      label: 'Dataset key (inactive employees)',
      help: 'Optional: the dataset key of the dataset of inactive (exited) employees, so hrx also keeps their records.',
      required: false,
      secret: true,
    },
    {
      target: 'api_configs.payroll.api_key',
      label: 'Payroll API key',
      help: 'Optional: the API key of the Darwinbox payroll API (a key of its own, apart from the Employee Master API key), so hrx also reads salaries (CTC). Without it salaries stay empty.',
      required: false,
      secret: true,
    },
  ],
};
