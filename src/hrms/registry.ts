/**
 * Which `hrms_id`s hrx can sync from, and the connector definition of each (decisions §5:
 * `reference` is always supported; §14: the products). Adding a product: its folder exports a
 * `HrmsConnectorDefinition` and its `HrmsProductInfo` (products.ts); list both here and there.
 */
import type { ConnectorOptions, HrmsConnectorDefinition } from './connector';
import { REFERENCE_DEFINITION } from './reference/definition';
import { KEKA_DEFINITION } from './keka/definition';
import { ZOHO_PEOPLE_DEFINITION } from './zoho_people/definition';
import { GREYTHR_DEFINITION } from './greythr/definition';
import { DARWINBOX_DEFINITION } from './darwinbox/definition';
import { BAMBOOHR_DEFINITION } from './bamboohr/definition';
import { PERSONIO_DEFINITION } from './personio/definition';

const DEFINITIONS: ReadonlyMap<string, HrmsConnectorDefinition> = new Map(
  [REFERENCE_DEFINITION, KEKA_DEFINITION, ZOHO_PEOPLE_DEFINITION, GREYTHR_DEFINITION, DARWINBOX_DEFINITION, BAMBOOHR_DEFINITION, PERSONIO_DEFINITION].map(
    (d) => [d.hrmsId, d],
  ),
);

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
