/**
 * Which `hrms_id`s hrx can sync from, and the connector definition of each: the products of the
 * catalog (catalog.ts), in its order. `reference` is always supported (docs/api.md, "Setup
 * config"). Adding a product: src/hrms/README.md.
 */
import { HRMS_CATALOG } from './catalog';
import type { ConnectorOptions, HrmsConnectorDefinition } from './connector';

const DEFINITIONS: ReadonlyMap<string, HrmsConnectorDefinition> = new Map(HRMS_CATALOG.map((p) => [p.hrmsId, p.definition]));

/** The supported `hrms_id` values, in a stable order. */
export const SUPPORTED_HRMS: readonly string[] = [...DEFINITIONS.keys()];

/** The definition for `hrmsId` (exact, case-sensitive match), or `undefined` when unsupported. */
export function connectorFor(hrmsId: string): HrmsConnectorDefinition | undefined {
  return DEFINITIONS.get(hrmsId);
}

/** Looks up a connector definition by `hrms_id` (what setup, sync and live reads are given). */
export type ConnectorLookup = (hrmsId: string) => HrmsConnectorDefinition | undefined;

/**
 * `connectorFor` whose definitions' `create` always applies `fixed` (the process's `hostPolicy`
 * and response size caps, built from configuration by the wiring): a caller's options cannot drop
 * or replace it, so every connector the setup, sync and live-read services build goes through
 * the same guard.
 */
export function connectorsWith(fixed: Pick<ConnectorOptions, 'hostPolicy' | 'maxResponseBytes' | 'maxStreamedBytes'>): ConnectorLookup {
  return (hrmsId) => {
    const definition = DEFINITIONS.get(hrmsId);
    return (
      definition && {
        ...definition,
        create: (access, options = {}) =>
          definition.create(access, {
            ...options,
            hostPolicy: fixed.hostPolicy,
            ...(fixed.maxResponseBytes ? { maxResponseBytes: fixed.maxResponseBytes } : {}),
            ...(fixed.maxStreamedBytes ? { maxStreamedBytes: fixed.maxStreamedBytes } : {}),
          }),
      }
    );
  };
}
