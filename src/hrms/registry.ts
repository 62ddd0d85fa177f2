/**
 * Which `hrms_id`s hrx can sync from, and the connector factory of each (decisions §5:
 * `reference` is always supported).
 */
import type { ConnectorFactory, ConnectorOptions } from './connector';
import { createReferenceConnector } from './reference/connector';

const FACTORIES: ReadonlyMap<string, ConnectorFactory> = new Map([['reference', createReferenceConnector]]);

/** The supported `hrms_id` values, in a stable order. */
export const SUPPORTED_HRMS: readonly string[] = [...FACTORIES.keys()];

/** The connector factory for `hrmsId` (exact, case-sensitive match), or `undefined` when unsupported. */
export function connectorFor(hrmsId: string): ConnectorFactory | undefined {
  return FACTORIES.get(hrmsId);
}

/**
 * `connectorFor` whose factories always apply `fixed` (the process's `hostPolicy` and response
 * size cap, built from
 * configuration by the context): a caller's options cannot drop or replace it, so every
 * connector the setup, sync and live-read services build goes through the same guard.
 */
export function connectorsWith(fixed: Pick<ConnectorOptions, 'hostPolicy' | 'maxResponseBytes'>): (hrmsId: string) => ConnectorFactory | undefined {
  return (hrmsId) => {
    const factory = FACTORIES.get(hrmsId);
    return factory && ((credentials, options = {}) => factory(credentials, { ...options, hostPolicy: fixed.hostPolicy, ...(fixed.maxResponseBytes ? { maxResponseBytes: fixed.maxResponseBytes } : {}) }));
  };
}
