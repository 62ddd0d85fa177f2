/**
 * Listing Personio v2 persons with their employments (the sources in src/hrms/personio/README.md; https://developer.personio.de/v2.0/reference/get_v2-persons):
 * `GET /v2/persons?limit=` (1..50) following `_meta.links.next.href`, then per person
 * `GET /v2/persons/{id}/employments` (the assembly the research calls for), the department's name
 * from `GET /v2/org-units/{id}` and the supervisor from the persons already listed or
 * `GET /v2/persons/{id}`. Lookups are cached per connector (bounded), so a listing asks each
 * department and each supervisor not listed before once. `since` uses the `updated_at.gt` filter.
 */
import type { EmployeePage } from '../connector';
import { HrmsError } from '../connector';
import type { PartialEmployeeRecord } from '../../domain/record';
import { text } from '../decode';
import { currentEmployment, mapPersonioV2, type V2Lookups } from './mapping';
import type { PersonioCalls } from './v1';

/** Largest v2 page (the persons reference: "between 1 and 50"). */
export const V2_MAX_LIMIT = 50;
const CACHE_MAX = 10_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const dataOf = (body: unknown): unknown[] => (isObj(body) && Array.isArray(body._data) ? body._data : []);

/** A bounded map: the oldest entry goes first. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > CACHE_MAX) map.delete(map.keys().next().value!);
}

/** The v2 side of a Personio connector: lookups cached across its listings and live reads. */
export class PersonioV2 {
  private readonly units = new Map<string, string | undefined>();
  private readonly people = new Map<string, { name?: string; email?: string } | undefined>();

  constructor(private readonly calls: PersonioCalls) {}

  private note(person: Obj): void {
    const id = text(person.id);
    if (id === undefined) return;
    const name = [text(person.first_name), text(person.last_name)].filter((x) => x !== undefined).join(' ');
    remember(this.people, id, { ...(name ? { name } : {}), ...(text(person.email) ? { email: text(person.email)! } : {}) });
  }

  private async unit(id: string): Promise<string | undefined> {
    if (!this.units.has(id)) {
      const body = await this.calls.getJson(`v2/org-units/${encodeURIComponent(id)}`, 'org unit lookup', 'null');
      const unit = isObj(body) && isObj(body._data) ? body._data : body;
      remember(this.units, id, isObj(unit) ? text(unit.name) : undefined);
    }
    return this.units.get(id);
  }

  private async supervisor(id: string): Promise<V2Lookups['supervisor']> {
    if (!this.people.has(id)) {
      const body = await this.calls.getJson(`v2/persons/${encodeURIComponent(id)}`, 'supervisor lookup', 'null');
      const person = isObj(body) && isObj(body._data) ? body._data : body;
      if (isObj(person)) this.note(person);
      else remember(this.people, id, undefined);
    }
    return this.people.get(id);
  }

  /** One person assembled with its current employment, department and supervisor. */
  async assemble(person: Obj): Promise<PartialEmployeeRecord | undefined> {
    const id = text(person.id);
    if (id === undefined || !/^[\w-]{1,64}$/.test(id)) {
      this.calls.warn('person.id');
      return undefined;
    }
    const employments = dataOf(await this.calls.getJson(`v2/persons/${id}/employments`, 'employments', 'null'));
    const e = currentEmployment(employments);
    const units = isObj(e) && Array.isArray(e.org_units) ? e.org_units.filter(isObj) : [];
    const dept = units.find((u) => text(u.type)?.toUpperCase() === 'DEPARTMENT');
    const deptId = dept && text(dept.id);
    const supId = isObj(e?.supervisor) ? text(e.supervisor.id) : undefined;
    return mapPersonioV2(
      person,
      e,
      {
        ...(deptId ? { department: await this.unit(deptId) } : {}),
        ...(supId ? { supervisor: await this.supervisor(supId) } : {}),
      },
      (field, reason) => this.calls.warn(field, reason),
    );
  }

  /** Pages of persons from `start` (a `next` link, or the first page); with `since`, those updated after it. */
  async *list(start: string | undefined, since: Date | undefined, cursorOf: (href: string) => string): AsyncGenerator<EmployeePage> {
    let link = start ?? `v2/persons?limit=${this.calls.pageSize(V2_MAX_LIMIT)}${since ? `&updated_at.gt=${encodeURIComponent(since.toISOString())}` : ''}`;
    for (let n = 1; ; n++) {
      const body = await this.calls.getJson(link, `person page ${n}`);
      if (!isObj(body) || !Array.isArray(body._data)) throw new HrmsError('bad_response', `HRMS sent an unexpected shape for person page ${n}`);
      const persons = body._data.filter(isObj);
      for (const p of persons) this.note(p);
      const employees: PartialEmployeeRecord[] = [];
      for (const p of persons) {
        const r = await this.assemble(p);
        if (r) employees.push(r);
      }
      const meta = isObj(body._meta) && isObj(body._meta.links) ? body._meta.links : {};
      const next = isObj(meta.next) ? text(meta.next.href) : undefined;
      yield { employees, ...(next && persons.length ? { next: cursorOf(next) } : {}) };
      if (!next || persons.length === 0) return;
      link = next;
    }
  }

  /** One person by id (live read); `null` when Personio has none. */
  async one(id: string): Promise<PartialEmployeeRecord | null> {
    const body = await this.calls.getJson(`v2/persons/${encodeURIComponent(id)}`, 'person lookup', 'null');
    const person = isObj(body) && isObj(body._data) ? body._data : body;
    return isObj(person) ? ((await this.assemble(person)) ?? null) : null;
  }
}
