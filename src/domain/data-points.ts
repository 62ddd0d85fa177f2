/**
 * Data points: the named leaves of the employee record (docs/data-points.md), their groups, and the
 * filtering of a record down to what a connection shares.
 */
import { isJsonObject, type Json } from './json';
import { emptyDependent, emptyRecord, type Dependent, type EmployeeRecord } from './record';

/** The three groups of `data_model_flags` (docs/api.md "SDK token and the Connect flow"). */
export type DataPointGroup = 'detail_info_fields' | 'dependent_details_fields' | 'ctc_details_fields';

/** Always shared, never filtered (docs/data-points.md). */
export const ALWAYS_SHARED = new Set(['id', 'employeeId']);

interface Leaf {
  /** Data point name, e.g. `ctc_bonus_joining`. */
  name: string;
  /** Path into the record, e.g. `['salaryDetails','ctc','bonus','joining']`. */
  path: string[];
  /** The leaf's empty value (docs/data-points.md), what a filtered-out point carries. */
  empty: Json;
}

/** `salaryDetails.ctc` is written `ctc` and `salaryDetails.monthly` is written `monthly`. */
function pointName(path: string[]): string {
  const parts = path[0] === 'salaryDetails' ? path.slice(1) : path;
  return parts.join('_');
}

function collectLeaves(value: Json, path: string[], out: Leaf[]): void {
  if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) collectLeaves(v, [...path, k], out);
    return;
  }
  out.push({ name: pointName(path), path, empty: value });
}

const RECORD_LEAVES: Leaf[] = (() => {
  const out: Leaf[] = [];
  for (const [k, v] of Object.entries(emptyRecord())) {
    if (k === 'dependentDetails') continue;
    collectLeaves(v, [k], out);
  }
  return out.filter((l) => !ALWAYS_SHARED.has(l.name));
})();

/** Leaves of one dependent, named by the array: `dependentDetails_mobileNumber`. */
const DEPENDENT_FIELDS = Object.keys(emptyDependent()) as (keyof Dependent)[];

/** Every data point name, in record order (excluding the always-shared `id`, `employeeId`). */
export const ALL_DATA_POINTS: readonly string[] = Object.freeze([...RECORD_LEAVES.map((l) => l.name), ...DEPENDENT_FIELDS.map((f) => `dependentDetails_${f}`)]);

const ALL_SET = new Set(ALL_DATA_POINTS);

/**
 * "Every data point", the one internal value for it: a connection sharing everything (no
 * consent narrowing), an audit entry of a read that returned everything, a filter that keeps
 * everything. Stores convert at the edge and storage is unchanged: `connections.shared_data_points`
 * holds NULL, `audit_log.data_points` holds `{*}` (src/db/sql.ts); the public interface lists
 * the names (`ALL_DATA_POINTS`).
 */
export const EVERY_DATA_POINT = null;

/** Data point names, or `EVERY_DATA_POINT`. */
export type DataPoints = string[] | typeof EVERY_DATA_POINT;

/** True when `name` is a data point of the record. */
export function isDataPoint(name: string): boolean {
  return ALL_SET.has(name);
}

/** The `data_model_flags` group a data point belongs to (docs/data-points.md). */
export function groupOf(name: string): DataPointGroup {
  if (name.startsWith('dependentDetails_')) return 'dependent_details_fields';
  if (name.startsWith('ctc_') || name.startsWith('monthly_')) return 'ctc_details_fields';
  return 'detail_info_fields';
}

/** The value at `path` in `source`; `undefined` when a step is missing or not an object. */
function getPath(source: Json, path: readonly string[]): Json | undefined {
  let node: Json | undefined = source;
  for (const p of path) node = isJsonObject(node) ? node[p] : undefined;
  return node;
}

/**
 * Sets the value at `path` in `target`. Throws when the parent is not an object (a record not of
 * the stored shape): filtering must never pass such a record through unfiltered.
 */
function setPath(target: Json, path: readonly string[], value: Json): void {
  const parent = getPath(target, path.slice(0, -1));
  if (!isJsonObject(parent)) throw new TypeError(`record has no object at ${path.slice(0, -1).join('.')}`);
  parent[path[path.length - 1]!] = value;
}

const EMPTY_DEPENDENT: Dependent = emptyDependent();

/**
 * Returns a copy of `record` where every data point not in `shared` carries its empty value
 * (docs/data-points.md). With no `dependentDetails_*` point shared, `dependentDetails` is `[]`.
 * `shared === EVERY_DATA_POINT` returns the record unchanged (a copy).
 */
export function filterRecord(record: EmployeeRecord, shared: ReadonlySet<string> | typeof EVERY_DATA_POINT): EmployeeRecord {
  const copy = structuredClone(record);
  if (shared === EVERY_DATA_POINT) return copy;
  for (const leaf of RECORD_LEAVES) {
    if (!shared.has(leaf.name)) setPath(copy, leaf.path, leaf.empty);
  }
  const sharedDependentFields = DEPENDENT_FIELDS.filter((f) => shared.has(`dependentDetails_${f}`));
  if (sharedDependentFields.length === 0) {
    copy.dependentDetails = [];
  } else {
    copy.dependentDetails = copy.dependentDetails.map((d) => {
      for (const f of DEPENDENT_FIELDS) if (!sharedDependentFields.includes(f)) d[f] = EMPTY_DEPENDENT[f];
      return d;
    });
  }
  return copy;
}

/**
 * Lists the data points whose values differ between two records (used for `updated_fields` of
 * the update webhook, docs/api.md "Employee update webhook", and for `employee.updated` events).
 */
export function changedDataPoints(before: EmployeeRecord, after: EmployeeRecord): string[] {
  const changed: string[] = [];
  for (const leaf of RECORD_LEAVES) {
    if (getPath(before, leaf.path) !== getPath(after, leaf.path)) changed.push(leaf.name);
  }
  for (const f of DEPENDENT_FIELDS) {
    const bv = before.dependentDetails.map((d) => d[f]);
    const av = after.dependentDetails.map((d) => d[f]);
    if (bv.length !== av.length || bv.some((v, i) => v !== av[i])) changed.push(`dependentDetails_${f}`);
  }
  return changed;
}

/**
 * The data points of `record` that hold a value, i.e. not the data point's empty value
 * (docs/data-points.md: `NOT AVAILABLE`, `""`, `null`). A `dependentDetails_*` point has a value when any dependent
 * has one for it. In `ALL_DATA_POINTS` order. Used for a sync's coverage (src/sync/coverage.ts).
 */
export function pointsWithValue(record: EmployeeRecord): string[] {
  const out: string[] = [];
  countPointsWithValue(record, (i) => out.push(ALL_DATA_POINTS[i]!));
  return out;
}

/**
 * Tells `hit` the index (in `ALL_DATA_POINTS`) of each data point of `record` that holds a
 * value, in order: what `pointsWithValue` names, without building a name list per record (a
 * sync's coverage counts every employee, src/domain/coverage.ts).
 */
export function countPointsWithValue(record: EmployeeRecord, hit: (index: number) => void): void {
  for (let i = 0; i < RECORD_LEAVES.length; i++) {
    const leaf = RECORD_LEAVES[i]!;
    if (getPath(record, leaf.path) !== leaf.empty) hit(i);
  }
  const deps = record.dependentDetails;
  for (let f = 0; f < DEPENDENT_FIELDS.length; f++) {
    const field = DEPENDENT_FIELDS[f]!;
    for (const d of deps) {
      if (d[field] !== EMPTY_DEPENDENT[field]) {
        hit(RECORD_LEAVES.length + f);
        break;
      }
    }
  }
}
