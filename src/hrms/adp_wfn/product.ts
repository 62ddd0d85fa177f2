/**
 * What the Connect page and the docs show for ADP Workforce Now (src/hrms/adp_wfn/README.md), in
 * ADP's own words: an API client's credentials ("client ID" and "client secret") come from the
 * company's practitioner, who grants the partner's application access to Workers in ADP
 * Marketplace / API Central; ADP's API address is the same for every company. ADP's production
 * hosts also ask for the partner's certificate (ADP's "Web Services certificate", issued on a
 * certificate signing request: developers.adp.com/articles/general/generate-a-certificate-signing-request)
 * and its private key, pasted as PEM; and the employer says whether the payroll pays in rupees.
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
    {
      target: 'tls_client_cert',
      label: 'Certificate',
      required: false,
      secret: false,
      multiline: true,
      placeholder: '-----BEGIN CERTIFICATE-----',
      help: 'The certificate ADP issued for this project (ADP calls it the Web Services or SSL certificate), opened in a text editor and pasted whole. ADP asks for it on every call; leave it empty only if your IT team runs a certificate proxy for ADP.',
    },
    {
      target: 'tls_client_key',
      label: 'Private key',
      required: false,
      secret: true,
      multiline: true,
      placeholder: '-----BEGIN PRIVATE KEY-----',
      help: "The private key made with the certificate's signing request, pasted whole. It is stored encrypted and never shown again.",
    },
    {
      target: 'payroll_currency',
      label: 'Payroll currency',
      required: false,
      secret: false,
      placeholder: 'INR',
      help: 'Enter INR if your ADP payroll pays salaries in Indian rupees: pay amounts are then read. Leave it empty otherwise; only the pay dates are read.',
    },
  ],
};
