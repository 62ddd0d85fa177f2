/**
 * Deterministic, realistic Indian HR data for the reference HRMS simulator (docs/behaviour.md "Sync").
 * Employee `i` (1-based, code `EMP00001`, ...) is generated from `(seed, i)` alone, so any page
 * can be produced without generating the earlier ones and nothing needs to be held in memory.
 * The native shape deliberately differs from hrx's record (snake_case, split names, DD/MM/YYYY
 * dates, enum codes) so the connector's mapping has real work to do.
 */

/** A native address of the simulated HRMS. */
export interface NativeAddress {
  line1: string;
  line2: string;
  city: string;
  state: string;
  pincode: string;
  country: string;
}
/** A native dependent; `relationship` is `SPOUSE|SON|DAUGHTER|FATHER|MOTHER`, gender `M|F|O`. */
export interface NativeDependent {
  full_name: string;
  relationship: string;
  date_of_birth: string | null;
  email: string | null;
  gender: string;
  phone: string | null;
  occupation: string | null;
}
/** Native pay components in INR; annual amounts per year, monthly amounts for one payroll month. */
export interface NativeComponents {
  basic: number;
  da: number;
  hra: number;
  gratuity: number;
  medical_allowance: number;
  lta: number;
  special_allowance: number;
  other_allowance: number;
  flexi_benefits: number;
  gross_salary: number;
  bonus: { joining: number; referral: number; retention: number; performance: number; relocation: number; other: number };
  deductions: {
    pf_employee: number;
    esic: number;
    professional_tax: number;
    lwf: number;
    nps_employee: number | null;
    other: number;
    tds?: number;
    mediclaim?: number;
    gtli?: number;
    ewa_recovery?: number;
  };
}
/** Native compensation block: `annual` adds `ctc` and `fixed_ctc`; `monthly` adds month/year. */
export interface NativeCompensation {
  currency: 'INR';
  tax_regime: 'NEW' | 'OLD';
  annual: NativeComponents & { ctc: number; fixed_ctc: number };
  monthly?: NativeMonth;
}

/** One payroll month: the components plus month/year, the net paid and the day it was paid (`YYYY-MM-DD`). */
export type NativeMonth = NativeComponents & { month: number; year: number; fixed_pay: number; reimbursements: number; net_pay: number; paid_on: string };

/** The last day of a month, `YYYY-MM-DD`: the day the simulated payroll pays. */
export function payDay(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(last).padStart(2, '0')}`;
}

/** The net pay of a month: gross, bonuses and reimbursements less every deduction, to the paisa. */
export function netPayOf(m: Omit<NativeMonth, 'net_pay' | 'paid_on'>): number {
  const sum = (o: Record<string, number | null | undefined>): number => Object.values(o).reduce<number>((a, b) => a + (b ?? 0), 0);
  return Math.round((m.gross_salary + sum(m.bonus) + m.reimbursements - sum(m.deductions)) * 100) / 100;
}
/** One employee as the simulated HRMS serves it (`GET /api/v1/employees`). */
export interface NativeEmployee {
  employee_code: string;
  first_name: string;
  middle_name: string;
  last_name: string;
  official_email: string;
  personal_email?: string | null;
  mobile: string;
  date_of_birth: string;
  date_of_joining: string;
  exit_date: string | null;
  employment_status: string;
  employment_type: string;
  gender: string;
  marital_status: string;
  marriage_date: string | null;
  pan_number: string;
  aadhaar_number: string;
  uan: string | null;
  nationality: string;
  father_name: string;
  blood_group: string | null;
  designation: string;
  department: string;
  grade: string;
  business_unit: string;
  cost_center: string;
  legal_entity: string;
  country: string;
  reporting_manager: { name: string; email: string } | null;
  skip_level_managers: string[];
  bank?: { account_number: string; ifsc: string; bank_name: string } | null;
  current_address: NativeAddress;
  permanent_address?: NativeAddress | null;
  work_location: { city: string; pincode: string | null };
  dependents: NativeDependent[];
  compensation: NativeCompensation | null;
}

// ---------------------------------------------------------------- PRNG (cyrb128 + sfc32)

function cyrb128(str: string): [number, number, number, number] {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < str.length; i++) {
    const k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** A small seeded PRNG (sfc32 seeded by cyrb128 of `key`) with helpers; same key, same stream. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(key: string) {
    [this.a, this.b, this.c, this.d] = cyrb128(key);
    for (let i = 0; i < 12; i++) this.next();
  }
  /** Uniform float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }
  /** Integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** A uniformly chosen item of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** `n` random decimal digits / `n` random uppercase letters. */
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }
  letters(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(65 + this.int(0, 25));
    return s;
  }
}

// ---------------------------------------------------------------- reference tables

const w = (s: string): string[] => s.split(' ');
const MALE = w(
  'Aarav Aditya Amit Anil Arjun Ashok Deepak Dinesh Gaurav Harish Karthik Kiran Manish Mohit Naveen Nikhil Pranav Rahul Rajesh Rakesh Ravi Rohan Sachin Sandeep Sanjay Saurabh Siddharth Sunil Suresh Tarun Varun Vijay Vikram Vinod Vivek Yash Abhishek Ankit Harsh Venkatesh',
);
const FEMALE = w(
  'Aishwarya Ananya Anjali Anusha Aparna Bhavna Deepika Divya Gayatri Isha Kavya Kavitha Lakshmi Meera Neha Nisha Pooja Priya Priyanka Radhika Rashmi Riya Sakshi Sandhya Shalini Shreya Shruti Sneha Sunita Swati Tanvi Uma Vandana Vidya Yamini Zoya Fatima Harpreet Ananya Keerthi',
);
const LAST = w(
  'Sharma Verma Gupta Agarwal Iyer Iyengar Nair Menon Pillai Reddy Rao Naidu Patel Shah Mehta Desai Joshi Kulkarni Deshpande Patil Chatterjee Banerjee Mukherjee Das Bose Singh Chauhan Yadav Mishra Tiwari Pandey Dubey Khan Qureshi Fernandes DSouza Gill Sandhu Bhatia Kapoor Malhotra Chopra Krishnan Subramanian Natarajan Hegde Shetty Kamath Jain Saxena',
);
const MIDDLE_M = w('Kumar Prasad Chandra Mohan Nath Lal');
const MIDDLE_F = w('Kumari Devi Rani Lata');
const OCCUPATIONS = w('Homemaker Teacher Doctor Engineer Accountant Business Retired Student Lawyer Nurse');
/** City, state, state code and real `locality:pincode` pairs. Offices are in the first seven. */
const CITIES: { city: string; state: string; code: string; areas: [string, string][] }[] = (
  [
    [
      'Bengaluru',
      'Karnataka',
      'KA',
      'Koramangala:560034 Indiranagar:560038 Whitefield:560066 HSR_Layout:560102 Jayanagar:560041 Electronic_City:560100 Marathahalli:560037',
    ],
    ['Mumbai', 'Maharashtra', 'MH', 'Andheri_East:400069 Powai:400076 Bandra_West:400050 Malad_West:400064 Goregaon_East:400063 Dadar:400014 Chembur:400071'],
    ['Pune', 'Maharashtra', 'MH', 'Hinjewadi:411057 Kharadi:411014 Kothrud:411038 Baner:411045 Hadapsar:411028 Viman_Nagar:411014'],
    ['Hyderabad', 'Telangana', 'TG', 'Gachibowli:500032 Madhapur:500081 Kondapur:500084 Banjara_Hills:500034 Kukatpally:500072 Begumpet:500016'],
    ['Chennai', 'Tamil Nadu', 'TN', 'Adyar:600020 Velachery:600042 T._Nagar:600017 Anna_Nagar:600040 Sholinganallur:600119 Guindy:600032'],
    ['Gurugram', 'Haryana', 'HR', 'DLF_Cyber_City:122002 Sector_56:122011 Sohna_Road:122018 Sector_45:122003'],
    ['Noida', 'Uttar Pradesh', 'UP', 'Sector_62:201309 Sector_18:201301 Sector_137:201305'],
    ['New Delhi', 'Delhi', 'DL', 'Dwarka:110075 Saket:110017 Rohini:110085 Lajpat_Nagar:110024 Karol_Bagh:110005'],
    ['Kolkata', 'West Bengal', 'WB', 'Salt_Lake:700091 Ballygunge:700019 New_Town:700156 Behala:700034'],
    ['Ahmedabad', 'Gujarat', 'GJ', 'Navrangpura:380009 Satellite:380015 Bopal:380058 Maninagar:380008'],
    ['Jaipur', 'Rajasthan', 'RJ', 'Malviya_Nagar:302017 Vaishali_Nagar:302021 C-Scheme:302001'],
    ['Kochi', 'Kerala', 'KL', 'Kakkanad:682030 Edappally:682024 Kadavanthra:682020'],
    ['Lucknow', 'Uttar Pradesh', 'UP', 'Gomti_Nagar:226010 Hazratganj:226001 Aliganj:226024'],
    ['Indore', 'Madhya Pradesh', 'MP', 'Vijay_Nagar:452010 Palasia:452001'],
    ['Bhubaneswar', 'Odisha', 'OD', 'Saheed_Nagar:751007 Patia:751024'],
    ['Patna', 'Bihar', 'BR', 'Boring_Road:800001 Kankarbagh:800020'],
    ['Coimbatore', 'Tamil Nadu', 'TN', 'RS_Puram:641002 Peelamedu:641004'],
  ] as const
).map(([city, state, code, areas]) => ({
  city,
  state,
  code,
  areas: areas.split(' ').map((a) => {
    const [l, p] = a.split(':');
    return [l!.replace(/_/g, ' '), p!] as [string, string];
  }),
}));
const OFFICE_CODES = w('BLR BOM PNQ HYD MAA GGN NOI');
const METROS = new Set(['Mumbai', 'New Delhi', 'Kolkata', 'Chennai']);
/** Annual professional tax (INR) and labour welfare fund (employee share, INR/year) by state. */
const PT: Record<string, number> = { KA: 2400, MH: 2500, TG: 2400, TN: 2500, WB: 2400, GJ: 2400, KL: 2500, MP: 2500, OD: 2400 };
const LWF: Record<string, number> = { KA: 50, MH: 24, TN: 20, WB: 6, GJ: 12, HR: 408, TG: 2, KL: 240 };
/** Bank name, IFSC prefix (RBI bank code) and account-number length. */
export const BANKS: readonly (readonly [string, string, number])[] = [
  ['HDFC Bank', 'HDFC', 14],
  ['ICICI Bank', 'ICIC', 12],
  ['State Bank of India', 'SBIN', 11],
  ['Axis Bank', 'UTIB', 15],
  ['Kotak Mahindra Bank', 'KKBK', 10],
  ['Yes Bank', 'YESB', 15],
  ['IndusInd Bank', 'INDB', 13],
  ['Punjab National Bank', 'PUNB', 16],
  ['Bank of Baroda', 'BARB', 14],
  ['Canara Bank', 'CNRB', 13],
  ['IDFC First Bank', 'IDFB', 11],
];
/** The six functions under the CEO: BU, CXO title, departments of their six sub-trees, role nouns. */
const FUNCTIONS: { bu: string; cxo: string; depts: [string, string, string][] }[] = (
  [
    [
      'Technology',
      'Chief Technology Officer',
      'Engineering/ENG/Software Engineer|Engineering/ENG/Software Engineer|Quality Assurance/QA/QA Engineer|DevOps/OPS/DevOps Engineer|Data Science/DS/Data Scientist|IT Support/IT/IT Support Engineer',
    ],
    [
      'Corporate',
      'Chief Financial Officer',
      'Finance/FIN/Financial Analyst|Accounts/ACC/Accountant|Legal/LEG/Legal Counsel|Administration/ADM/Admin Executive|Procurement/PRC/Procurement Executive|Finance/FIN/Financial Analyst',
    ],
    [
      'Corporate',
      'Chief Human Resources Officer',
      'Human Resources/HR/HR Executive|Talent Acquisition/TA/Recruiter|HR Operations/HRO/HR Operations Executive|Learning & Development/LND/L&D Specialist|Payroll/PAY/Payroll Executive|Human Resources/HR/HR Executive',
    ],
    [
      'Revenue',
      'Chief Revenue Officer',
      'Sales/SAL/Sales Executive|Sales/SAL/Sales Executive|Inside Sales/ISL/Inside Sales Representative|Marketing/MKT/Marketing Executive|Customer Success/CS/Customer Success Associate|Business Development/BD/Business Development Executive',
    ],
    [
      'Operations',
      'Chief Operating Officer',
      'Operations/OPR/Operations Executive|Customer Support/SUP/Support Executive|Customer Support/SUP/Support Executive|Implementation/IMP/Implementation Consultant|Supply Chain/SCM/Supply Chain Analyst|Facilities/FAC/Facilities Executive',
    ],
    [
      'Product',
      'Chief Product Officer',
      'Product Management/PM/Product Manager|Design/DES/Product Designer|Product Management/PM/Product Manager|Analytics/ANA/Data Analyst|Research/RES/UX Researcher|Documentation/DOC/Technical Writer',
    ],
  ] as const
).map(([bu, cxo, d]) => ({ bu, cxo, depts: d.split('|').map((x) => x.split('/') as [string, string, string]) }));
/** Annual CTC band (INR) per grade level L1..L8. */
const BANDS: [number, number][] = [
  [200_000, 450_000],
  [600_000, 1_000_000],
  [1_000_000, 1_600_000],
  [1_600_000, 2_600_000],
  [2_600_000, 4_000_000],
  [4_000_000, 6_000_000],
  [6_000_000, 9_000_000],
  [9_000_000, 15_000_000],
];
/** The simulator's "today" and payroll month: fixed so data never depends on the clock. */
export const SIM_TODAY = { year: 2025, month: 12, day: 31 } as const;
const BRANCHING = 6;

// ---------------------------------------------------------------- helpers

const pad = (n: number, len = 2): string => String(n).padStart(len, '0');
/** Employee code of 1-based index `i`: `EMP00001` (docs/behaviour.md "Sync"). */
export const employeeCode = (i: number): string => `EMP${pad(i, 5)}`;
/** 1-based index of an employee code, or `undefined` when it is not one. */
export function employeeIndex(code: string): number | undefined {
  const m = /^EMP(\d{5,})$/.exec(code);
  const n = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}
const DAY = 86_400_000;
const dayOf = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / DAY;
const TODAY = dayOf(SIM_TODAY.year, SIM_TODAY.month, SIM_TODAY.day);
function ddmmyyyy(day: number): string {
  const dt = new Date(day * DAY);
  return `${pad(dt.getUTCDate())}/${pad(dt.getUTCMonth() + 1)}/${dt.getUTCFullYear()}`;
}
const yearsAgo = (years: number): number => TODAY - Math.round(years * 365.25);
/** 1-based index of employee `i`'s reporting manager; `undefined` for `EMP00001` (no manager). */
export const managerOf = (i: number): number | undefined => (i <= 1 ? undefined : Math.floor((i - 2) / BRANCHING) + 1);
/** Chain of ancestors of `i`, nearest first. */
function chain(i: number): number[] {
  const out: number[] = [];
  for (let m = managerOf(i); m !== undefined; m = managerOf(m)) out.push(m);
  return out;
}
const round2 = (n: number): number => Math.round(n * 100) / 100;
const round100 = (n: number): number => Math.round(n / 100) * 100;

/** Verhoeff check digit of a digit string, as UIDAI uses for the 12th Aadhaar digit. */
export function verhoeff(num: string): string {
  const d = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
  ];
  const p = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
  ];
  const inv = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];
  let c = 0;
  const rev = num.split('').reverse();
  for (let i = 0; i < rev.length; i++) c = d[c]![p[(i + 1) % 8]![Number(rev[i])]!]!;
  return String(inv[c]);
}

/** Income tax for a year's taxable salary (FY 2025-26 slabs, 87A rebate, 4% cess), INR. */
function incomeTax(gross: number, regime: 'NEW' | 'OLD'): number {
  const slabs: [number, number][] =
    regime === 'NEW'
      ? [
          [400_000, 0],
          [800_000, 0.05],
          [1_200_000, 0.1],
          [1_600_000, 0.15],
          [2_000_000, 0.2],
          [2_400_000, 0.25],
          [Infinity, 0.3],
        ]
      : [
          [250_000, 0],
          [500_000, 0.05],
          [1_000_000, 0.2],
          [Infinity, 0.3],
        ];
  const taxable = Math.max(0, gross - (regime === 'NEW' ? 75_000 : 50_000 + 150_000));
  if (taxable <= (regime === 'NEW' ? 1_200_000 : 500_000)) return 0;
  let tax = 0,
    lo = 0;
  for (const [hi, rate] of slabs) {
    if (taxable > lo) tax += (Math.min(taxable, hi) - lo) * rate;
    lo = hi;
  }
  return Math.round(tax * 1.04);
}

// ---------------------------------------------------------------- generation

/** Org-level facts derived from the seed: brand, e-mail domain, legal entities, offices. */
export function orgProfile(seed: string | number): { brand: string; domain: string; entities: string[]; offices: number[] } {
  const r = new Rng(`${seed}|org`);
  const brand = r.pick(w('Kaveri Sahyadri Nilgiri Tatva Anvaya Prakriti Vayu Aranya Suvarna Ganga'));
  const suffix = r.pick(w('Technologies Systems Solutions Softworks'));
  return {
    brand,
    domain: `${brand.toLowerCase()}${r.pick(['.in', '.com', 'tech.in'])}`,
    entities: [`${brand} ${suffix} Private Limited`, `${brand} Services India Private Limited`, `${brand} Fintech Private Limited`].slice(0, r.int(2, 3)),
    offices: [0, 1, 2, 3, 4, 5, 6].filter((o) => o === 0 || r.chance(0.6)),
  };
}

interface Identity {
  first: string;
  middle: string;
  last: string;
  gender: 'M' | 'F' | 'O';
  email: string;
}
/** Name, gender and official e-mail of employee `i`: its own stream, so managers are cheap. */
function identity(seed: string | number, i: number, domain: string): Identity {
  const r = new Rng(`${seed}|id|${i}`);
  const g = r.next(),
    gender = g < 0.55 ? 'M' : g < 0.98 ? 'F' : 'O';
  const first = r.pick(gender === 'F' ? FEMALE : gender === 'M' ? MALE : r.chance(0.5) ? MALE : FEMALE);
  const middle = r.chance(0.15) ? r.pick(gender === 'F' ? MIDDLE_F : MIDDLE_M) : '';
  const last = r.pick(LAST);
  return { first, middle, last, gender, email: `${first}.${last}${i}@${domain}`.toLowerCase() };
}
const fullName = (id: Identity): string => [id.first, id.middle, id.last].filter(Boolean).join(' ');

function mobile(r: Rng): string {
  const n = `${r.int(6, 9)}${r.digits(9)}`,
    f = r.next();
  return f < 0.5 ? n : f < 0.75 ? `+91 ${n.slice(0, 5)} ${n.slice(5)}` : f < 0.9 ? `+91${n}` : `0${n}`;
}

function address(r: Rng, cityIdx: number): NativeAddress {
  const c = CITIES[cityIdx]!;
  const [locality, pincode] = r.pick(c.areas);
  const line1 = r.chance(0.6)
    ? `Flat ${r.int(1, 19)}0${r.int(1, 9)}, ${r.pick(w('Prestige Sobha Brigade Lodha Godrej DLF Mahindra Purva Shriram Tata'))} ${r.pick(w('Residency Heights Enclave Gardens Towers Park'))}`
    : `No. ${r.int(1, 250)}, ${r.pick(w('1st 2nd 3rd 4th 5th 6th 8th 10th 12th'))} Cross, ${r.pick(w('Main Temple Station Lake Market'))} Road`;
  return { line1, line2: r.chance(0.9) ? locality : '', city: c.city, state: c.state, pincode, country: 'India' };
}

/**
 * Native employee `i` (1-based) for `seed`: deterministic, independent of every other index and
 * of the org size. Organisation: a tree with `BRANCHING` reports per manager under `EMP00001`.
 */
export function generateEmployee(seed: string | number, i: number): NativeEmployee {
  const org = orgProfile(seed);
  const id = identity(seed, i, org.domain);
  const r = new Rng(`${seed}|emp|${i}`);
  const ancestors = chain(i);
  const depth = ancestors.length;
  const fn = FUNCTIONS[((depth >= 1 ? [i, ...ancestors][depth - 1]! : 2) - 2) % 6]!;
  const dept = depth >= 2 ? fn.depts[([i, ...ancestors][depth - 2]! - 8) % 6]! : (['Leadership', 'EXE', ''] as [string, string, string]);
  const leader = depth <= 1;
  // CEO, CXOs and directors by position; below them levels spread out, lower as the tree deepens.
  const level = depth <= 2 ? 8 - depth : depth === 3 ? r.int(1, 5) : depth === 4 ? r.int(1, 4) : r.int(1, 3);
  const t = depth < 3 ? 1 : r.next();
  const type = t < 0.04 ? 'CONTRACT' : t < 0.07 ? 'INTERN' : t < 0.08 ? 'PART_TIME' : 'FULL_TIME';
  const lvl = type === 'INTERN' ? 1 : level;
  const designation =
    depth === 0
      ? 'Chief Executive Officer'
      : leader
        ? fn.cxo
        : type === 'INTERN'
          ? `${dept[2]} Intern`
          : lvl >= 5
            ? `${['Manager', 'Director'][lvl - 5]} - ${dept[0]}`
            : `${['Associate ', '', 'Senior ', 'Lead '][lvl - 1]}${dept[2]}`;

  const age = type === 'INTERN' ? r.int(20, 24) : 22 + lvl * 3 + r.int(0, 8);
  const dob = yearsAgo(age) - r.int(0, 364);
  const tenure = type === 'INTERN' ? 0.5 : Math.min(age - 21, 1 + lvl * 2) * r.next();
  const doj = Math.min(TODAY - 1, Math.max(dob + 18 * 366, yearsAgo(tenure) - r.int(0, 30)));
  const s = r.next();
  const status = leader ? 'ACTIVE' : s < 0.86 ? 'ACTIVE' : s < 0.89 ? 'NOTICE_PERIOD' : s < 0.98 ? 'RESIGNED' : 'TERMINATED';
  const exit = status === 'ACTIVE' ? null : status === 'NOTICE_PERIOD' ? TODAY + r.int(5, 85) : Math.max(doj, Math.min(TODAY - 1, doj + r.int(60, 900)));
  const pMarried = age < 25 ? 0.1 : age < 30 ? 0.45 : age < 35 ? 0.75 : 0.9;
  const marital = r.chance(pMarried) ? 'MARRIED' : age > 35 && r.chance(0.1) ? r.pick(['DIVORCED', 'WIDOWED']) : 'SINGLE';
  const wedAge = Math.min(23, age - 1);
  const marriage = marital === 'SINGLE' ? null : Math.min(TODAY - 30, dob + r.int(wedAge, Math.max(wedAge, Math.min(age - 1, 34))) * 365 + r.int(0, 364));

  const office = org.offices[(i * 7 + r.int(0, 2)) % org.offices.length]!;
  const oc = CITIES[office]!;
  const [, officePin] = oc.areas[i % oc.areas.length]!;
  const home = r.chance(0.7) ? office : r.int(0, CITIES.length - 1);
  const bank = BANKS[r.int(0, BANKS.length - 1)]!;
  const bx = r.next(); // Indian ABO/Rh frequencies, roughly
  const blood = bx < 0.32 ? 'B+' : bx < 0.61 ? 'O+' : bx < 0.82 ? 'A+' : bx < 0.9 ? 'AB+' : bx < 0.93 ? 'B-' : bx < 0.96 ? 'O-' : bx < 0.985 ? 'A-' : 'AB-';
  const bloodGroup = r.pick([blood, `${blood}ve`, `${blood.slice(0, -1)} ${blood.endsWith('+') ? 'Positive' : 'Negative'}`]);

  const dependents: NativeDependent[] = [];
  const fatherFirst = r.pick(MALE);
  if (marital === 'MARRIED' && marriage !== null && r.chance(0.9)) {
    const sg = id.gender === 'F' ? 'M' : 'F',
      sf = r.pick(sg === 'M' ? MALE : FEMALE);
    dependents.push({
      full_name: `${sf} ${id.last}`,
      relationship: 'SPOUSE',
      date_of_birth: ddmmyyyy(dob + r.int(-1500, 1500)),
      email: r.chance(0.5) ? null : `${sf}.${id.last}${r.int(1, 99)}@gmail.com`.toLowerCase(),
      gender: sg,
      phone: r.chance(0.8) ? mobile(r) : null,
      occupation: r.pick(OCCUPATIONS),
    });
    for (let k = TODAY - marriage > 450 ? r.int(0, 2) : 0; k > 0; k--) {
      const kg = r.chance(0.5) ? 'M' : 'F',
        born = marriage + r.int(400, Math.min(4000, TODAY - 30 - marriage));
      dependents.push({
        full_name: `${r.pick(kg === 'M' ? MALE : FEMALE)} ${id.last}`,
        relationship: kg === 'M' ? 'SON' : 'DAUGHTER',
        date_of_birth: ddmmyyyy(born),
        email: null,
        gender: kg,
        phone: null,
        occupation: TODAY - born > 5 * 365 ? 'Student' : null,
      });
    }
  }
  if (r.chance(0.3))
    dependents.push({
      full_name: `${fatherFirst} ${id.last}`,
      relationship: 'FATHER',
      date_of_birth: ddmmyyyy(dob - r.int(24, 34) * 365),
      email: null,
      gender: 'M',
      phone: mobile(r),
      occupation: 'Retired',
    });
  if (r.chance(0.3))
    dependents.push({
      full_name: `${r.pick(FEMALE)} ${id.last}`,
      relationship: 'MOTHER',
      date_of_birth: ddmmyyyy(dob - r.int(21, 30) * 365),
      email: null,
      gender: 'F',
      phone: r.chance(0.5) ? mobile(r) : null,
      occupation: r.pick(['Homemaker', 'Retired', 'Teacher']),
    });

  const mgrs = ancestors.map((a) => identity(seed, a, org.domain));
  const aad = `${r.int(2, 9)}${r.digits(10)}`,
    aadhaar = aad + verhoeff(aad);
  return {
    employee_code: employeeCode(i),
    first_name: id.first,
    middle_name: id.middle,
    last_name: id.last,
    official_email: id.email,
    ...(r.chance(0.92)
      ? {
          personal_email:
            `${id.first}${id.last}${r.int(10, 99)}@${r.pick(['gmail.com', 'gmail.com', 'yahoo.co.in', 'outlook.com', 'rediffmail.com'])}`.toLowerCase(),
        }
      : r.chance(0.5)
        ? { personal_email: '' }
        : {}),
    mobile: mobile(r),
    date_of_birth: ddmmyyyy(dob),
    date_of_joining: ddmmyyyy(doj),
    exit_date: exit === null ? null : ddmmyyyy(exit),
    employment_status: status,
    employment_type: type,
    gender: id.gender,
    marital_status: marital,
    marriage_date: marriage !== null && r.chance(0.93) ? ddmmyyyy(marriage) : null,
    pan_number: `${r.letters(3)}P${id.last[0]!.toUpperCase()}${r.digits(4)}${r.letters(1)}`,
    aadhaar_number: r.chance(0.25) ? `${aadhaar.slice(0, 4)} ${aadhaar.slice(4, 8)} ${aadhaar.slice(8)}` : aadhaar,
    uan: type === 'INTERN' || r.chance(0.04) ? null : `10${r.int(0, 1)}${r.digits(9)}`,
    nationality: 'Indian',
    father_name: r.chance(0.95) ? `${fatherFirst} ${id.last}` : '',
    blood_group: r.chance(0.9) ? bloodGroup : null,
    designation: r.chance(0.98) ? designation : '',
    department: dept[0],
    grade: `L${lvl}`,
    business_unit: depth === 0 ? 'Corporate' : fn.bu,
    cost_center: r.chance(0.95) ? `CC-${dept[1]}-${OFFICE_CODES[office]}` : '',
    legal_entity: org.entities[leader ? 0 : (i + (type === 'INTERN' ? 0 : r.int(0, 3))) % org.entities.length]!,
    country: 'IN',
    reporting_manager: mgrs[0] ? { name: fullName(mgrs[0]), email: mgrs[0].email } : null,
    skip_level_managers: mgrs.slice(1, 5).map((m) => m.email),
    ...(r.chance(0.95)
      ? {
          bank: {
            account_number: `${r.int(1, 9)}${r.digits(bank[2] - 1)}`,
            ifsc: `${bank[1]}0${r.chance(0.85) ? r.digits(6) : r.letters(2) + r.digits(4)}`,
            bank_name: bank[0],
          },
        }
      : {}),
    current_address: address(r, r.chance(0.9) ? office : home),
    ...(r.chance(0.93) ? { permanent_address: address(r, home) } : {}),
    work_location: { city: oc.city, pincode: r.chance(0.97) ? officePin : null },
    dependents: r.chance(0.9) ? dependents : [],
    compensation: r.chance(0.97) ? compensation(r, lvl, type, oc.code, METROS.has(oc.city), doj) : null,
  };
}

function compensation(r: Rng, lvl: number, type: string, state: string, metro: boolean, doj: number): NativeCompensation {
  const [lo, hi] = BANDS[lvl - 1]!;
  const ctcTarget = Math.round(((lo + r.next() * (hi - lo)) * (type === 'PART_TIME' ? 0.5 : 1)) / 1000) * 1000;
  const variable = type === 'FULL_TIME' && lvl >= 3 ? r.pick([0.05, 0.1, 0.15, 0.2]) : 0;
  const performance = round100(ctcTarget * variable);
  const fixedTarget = ctcTarget - performance;
  const basic = round100(fixedTarget * r.pick([0.4, 0.45, 0.5]));
  const da = r.chance(0.1) ? round100(basic * 0.05) : 0;
  const hra = round100(basic * (metro ? 0.5 : 0.4));
  const pf = Math.round(basic * 0.12),
    gratuity = Math.round(basic * 0.0481);
  const medical = type === 'INTERN' ? 0 : 15_000,
    lta = round100(basic / 12);
  const flexi = lvl >= 4 ? r.pick([24_000, 36_000, 48_000, 60_000]) : 0;
  const other = r.chance(0.3) ? 12_000 : 0;
  const special = Math.max(0, fixedTarget - pf - gratuity - (basic + da + hra + medical + lta + flexi + other));
  const gross = basic + da + hra + medical + lta + special + flexi + other;
  const fixed = gross + pf + gratuity;
  const regime = r.chance(0.75) ? 'NEW' : 'OLD';
  const recent = TODAY - doj < 365;
  const bonus = {
    joining: recent && r.chance(0.3) ? round100(ctcTarget * 0.05) : 0,
    referral: r.chance(0.08) ? r.pick([10_000, 25_000, 50_000]) : 0,
    retention: lvl >= 4 && r.chance(0.05) ? round100(ctcTarget * 0.1) : 0,
    performance,
    relocation: recent && r.chance(0.1) ? r.pick([50_000, 75_000, 100_000]) : 0,
    other: r.chance(0.05) ? 5_000 : 0,
  };
  const esic = gross / 12 <= 21_000 ? Math.round(gross * 0.0075) : 0;
  const pt = PT[state] ?? 0,
    lwf = LWF[state] ?? 0;
  const nps = r.chance(0.15) ? round100(basic * 0.1) : null,
    otherDed = r.chance(0.1) ? 1_200 : 0;
  const annual = {
    ctc: fixed + performance,
    fixed_ctc: fixed,
    basic,
    da,
    hra,
    gratuity,
    medical_allowance: medical,
    lta,
    special_allowance: special,
    other_allowance: other,
    flexi_benefits: flexi,
    gross_salary: gross,
    bonus,
    deductions: { pf_employee: pf, esic, professional_tax: pt, lwf, nps_employee: nps, other: otherDed },
  };
  if (!r.chance(0.95)) return { currency: 'INR', tax_regime: regime, annual };
  const m = (n: number): number => round2(n / 12);
  const mParts = {
    basic: m(basic),
    da: m(da),
    hra: m(hra),
    medical_allowance: m(medical),
    lta: m(lta),
    special_allowance: m(special),
    other_allowance: m(other),
    flexi_benefits: m(flexi),
  };
  const mGross = round2(Object.values(mParts).reduce((a, b) => a + b, 0));
  const monthly = {
    month: SIM_TODAY.month,
    year: SIM_TODAY.year,
    ...mParts,
    gratuity: m(gratuity),
    gross_salary: mGross,
    fixed_pay: round2(mGross + m(pf) + m(gratuity)),
    bonus: {
      joining: 0,
      referral: bonus.referral > 0 && r.chance(0.3) ? bonus.referral : 0,
      retention: 0,
      performance: 0,
      relocation: 0,
      other: bonus.other,
    },
    deductions: {
      pf_employee: m(pf),
      esic: m(esic),
      professional_tax: m(pt),
      lwf: m(lwf),
      nps_employee: nps === null ? null : m(nps),
      other: m(otherDed),
      tds: m(incomeTax(gross + performance, regime)),
      mediclaim: r.chance(0.2) ? r.pick([500, 1000, 1500, 2000]) : 0,
      gtli: r.chance(0.5) ? r.pick([120, 180, 250]) : 0,
      ewa_recovery: lvl <= 2 && r.chance(0.05) ? r.pick([2000, 5000, 8000]) : 0,
    },
    reimbursements: r.chance(0.4) ? r.pick([1000, 1500, 2500, 5000]) : 0,
  };
  return { currency: 'INR', tax_regime: regime, annual, monthly: { ...monthly, net_pay: netPayOf(monthly), paid_on: payDay(monthly.year, monthly.month) } };
}
