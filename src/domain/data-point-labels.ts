/**
 * Human labels of the data points (docs/connect.md "The notice (DPDP Act 2023)"): every data point of
 * `ALL_DATA_POINTS` (and the always-shared `id`, `employeeId`) with the plain words an HR admin
 * reads, the category it is shown under, and whether it is sensitive (identity numbers and bank
 * details). One table shared by the Connect page (through `GET /api/sdk/connect/`), the docs and
 * the OpenAPI descriptions: the raw names are never the only text a person sees.
 *
 * Categories (docs/connect.md "Reference: the SDK token and the Connect endpoints"): personal, contact, bank, employment, annual CTC, monthly pay,
 * dependants. They are finer than the three `data_model_flags` groups of docs/api.md
 * "SDK token and the Connect flow": `annual_ctc` and `monthly_pay` make up `ctc_details_fields`,
 * `dependants` is `dependent_details_fields`, the rest is `detail_info_fields`.
 */
import { ALL_DATA_POINTS, ALWAYS_SHARED } from './data-points';

/** The categories a data point is shown under, in display order. */
export type DataPointCategory = 'personal' | 'contact' | 'bank' | 'employment' | 'annual_ctc' | 'monthly_pay' | 'dependants';

/** One category: its id and its heading on the page. */
export interface DataPointCategoryInfo {
  id: DataPointCategory;
  /** Heading, e.g. "Annual CTC". */
  title: string;
}

/** Every category, in the order the Connect page and the docs show them. */
export const DATA_POINT_CATEGORIES: readonly DataPointCategoryInfo[] = Object.freeze([
  { id: 'personal', title: 'Personal details' },
  { id: 'contact', title: 'Contact details and addresses' },
  { id: 'bank', title: 'Bank account' },
  { id: 'employment', title: 'Employment' },
  { id: 'annual_ctc', title: 'Annual CTC (cost to company)' },
  { id: 'monthly_pay', title: 'Monthly pay' },
  { id: 'dependants', title: 'Dependants' },
]);

/** The human label of one data point. */
export interface DataPointLabel {
  /** The data point name of docs/data-points.md, e.g. `ctc_deductions_esi`. */
  name: string;
  /** Plain words, e.g. "ESI deduction (annual CTC)"; unique across the table. */
  label: string;
  category: DataPointCategory;
  /** Identity numbers and bank details (docs/connect.md "Reference: the SDK token and the Connect endpoints"): the page marks them. */
  sensitive: boolean;
}

type Row = [name: string, label: string, sensitive?: boolean];

const PERSONAL: Row[] = [
  ['name', 'Full name'],
  ['gender', 'Gender'],
  ['dob', 'Date of birth'],
  ['maritalStatus', 'Marital status'],
  ['employeeMetadata_marriageDate', 'Date of marriage'],
  ['fatherName', "Father's name"],
  ['nationality', 'Nationality'],
  ['bloodGroup', 'Blood group'],
  ['pan', 'PAN (Permanent Account Number)', true],
  ['aadhar', 'Aadhaar number', true],
  ['uan', 'UAN (Universal Account Number, EPF)', true],
];

const CONTACT: Row[] = [
  ['email', 'Work e-mail address'],
  ['personalEmail', 'Personal e-mail address'],
  ['countryCode', 'Phone country code'],
  ['mobileNumber', 'Mobile number'],
  ...(['current', 'permanent'] as const).flatMap((kind): Row[] => [
    [`${kind}Address_addressLine`, `${kind === 'current' ? 'Current' : 'Permanent'} address: street`],
    [`${kind}Address_addressCity`, `${kind === 'current' ? 'Current' : 'Permanent'} address: city`],
    [`${kind}Address_addressState`, `${kind === 'current' ? 'Current' : 'Permanent'} address: state`],
    [`${kind}Address_addressPincode`, `${kind === 'current' ? 'Current' : 'Permanent'} address: PIN code`],
    [`${kind}Address_addressCountry`, `${kind === 'current' ? 'Current' : 'Permanent'} address: country`],
  ]),
];

const BANK: Row[] = [
  ['bankDetails_accountNumber', 'Bank account number', true],
  ['bankDetails_ifscCode', 'Bank IFSC code', true],
  ['bankDetails_bankName', 'Bank name', true],
];

const EMPLOYMENT: Row[] = [
  ['companyName', 'Company name'],
  ['doj', 'Date of joining'],
  ['status', 'Employment status (active, inactive, left)'],
  ['employmentType', 'Employment type (full time, part time, contract, intern)'],
  ['terminationDate', 'Date of leaving'],
  ['designation', 'Designation'],
  ['department', 'Department'],
  ['grade', 'Grade'],
  ['groupName', 'Group'],
  ['costCenter', 'Cost centre'],
  ['jobLocation_city', 'Work location: city'],
  ['jobLocation_pincode', 'Work location: PIN code'],
  ['manager', "Manager's name"],
  ['managerEmail', "Manager's e-mail address"],
  ...[2, 3, 4, 5].map((n): Row => [`managerEmail${n}`, `Manager's e-mail address (level ${n})`]),
];

/** The pay components shared by the annual CTC and the monthly pay, in record order within each. */
const PAY_PARTS: Record<string, string> = {
  basic: 'Basic pay',
  dearnessAllowance: 'Dearness allowance (DA)',
  hra: 'House rent allowance (HRA)',
  gratuity: 'Gratuity',
  medicalAllowance: 'Medical allowance',
  travelAllowance: 'Travel allowance',
  specialAllowance: 'Special allowance',
  otherAllowance: 'Other allowances',
  flexiBasketAllowance: 'Flexible benefits (flexi basket)',
  grossPay: 'Gross pay',
  fixedPay: 'Fixed pay',
  taxRegime: 'Income tax regime',
  bonus_joining: 'Joining bonus',
  bonus_referral: 'Referral bonus',
  bonus_retention: 'Retention bonus',
  bonus_performance: 'Performance bonus',
  bonus_relocation: 'Relocation bonus',
  bonus_misc: 'Other bonuses',
  deductions_pf: 'Provident fund (PF) deduction',
  deductions_esi: 'ESI deduction',
  deductions_professionalTax: 'Professional tax deduction',
  deductions_labourWelfareFund: 'Labour welfare fund deduction',
  deductions_misc: 'Other deductions',
  deductions_nps: 'NPS deduction',
  deductions_tds: 'Income tax deducted at source (TDS)',
  deductions_medicalClaimDeduction: 'Medical claim deduction',
  deductions_groupTermInsuranceDeductions: 'Group term insurance deduction',
  deductions_earlyWageDeduction: 'Early wage (salary advance) deduction',
  month: 'Pay month',
  year: 'Pay year',
  reimbursements: 'Reimbursements',
  netPay: 'Net pay',
  paidOn: 'Pay date',
};

const DEPENDANT: Record<string, string> = {
  name: 'name',
  relation: 'relationship',
  dob: 'date of birth',
  email: 'e-mail address',
  gender: 'gender',
  mobileNumber: 'mobile number',
  profession: 'profession',
};

/** The label row of a point no list above names: pay parts and dependants, derived by prefix. */
function derived(name: string): [DataPointCategory, string] | undefined {
  const [prefix, ...rest] = name.split('_');
  const part = rest.join('_');
  if (prefix === 'ctc' && PAY_PARTS[part]) return ['annual_ctc', `${PAY_PARTS[part]} (annual CTC)`];
  if (prefix === 'monthly' && PAY_PARTS[part]) return ['monthly_pay', `${PAY_PARTS[part]} (monthly pay)`];
  if (prefix === 'dependentDetails' && DEPENDANT[part]) return ['dependants', `Dependant's ${DEPENDANT[part]}`];
  return undefined;
}

const LISTED = new Map<string, DataPointLabel>();
for (const [category, rows] of [
  ['personal', PERSONAL],
  ['contact', CONTACT],
  ['bank', BANK],
  ['employment', EMPLOYMENT],
] as const) {
  for (const [name, label, sensitive] of rows) LISTED.set(name, { name, label, category, sensitive: sensitive ?? false });
}

/**
 * The label of every data point of `ALL_DATA_POINTS`, in record order. A data point without a
 * label fails here, at module load (and in test/unit/data-point-labels.unit.test.ts).
 */
export const DATA_POINT_LABELS: readonly DataPointLabel[] = Object.freeze(
  ALL_DATA_POINTS.map((name): DataPointLabel => {
    const listed = LISTED.get(name);
    if (listed) return listed;
    const d = derived(name);
    if (!d) throw new Error(`data point ${name} has no human label (src/domain/data-point-labels.ts)`);
    return { name, label: d[1], category: d[0], sensitive: false };
  }),
);

/** Labels of the always-shared identifiers (docs/data-points.md), shown as "always shared". */
export const ALWAYS_SHARED_LABELS: readonly { name: string; label: string }[] = Object.freeze(
  [...ALWAYS_SHARED].map((name) => ({ name, label: name === 'employeeId' ? 'Employee ID (from your HRMS)' : 'hrx record ID' })),
);

const BY_NAME = new Map(DATA_POINT_LABELS.map((l) => [l.name, l]));

/** The label of data point `name`, or undefined for a name that is no data point. */
export function dataPointLabel(name: string): DataPointLabel | undefined {
  return BY_NAME.get(name);
}
