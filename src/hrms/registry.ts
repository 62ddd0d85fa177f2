/**
 * Which `hrms_id`s hrx can sync from, and the connector factory of each (decisions §5:
 * `reference` is always supported).
 */
import type { ConnectorFactory } from './connector';
import { createReferenceConnector } from './reference/connector';

const FACTORIES: ReadonlyMap<string, ConnectorFactory> = new Map([['reference', createReferenceConnector]]);

/** The supported `hrms_id` values, in a stable order. */
export const SUPPORTED_HRMS: readonly string[] = [...FACTORIES.keys()];

/** The connector factory for `hrmsId` (exact, case-sensitive match), or `undefined` when unsupported. */
export function connectorFor(hrmsId: string): ConnectorFactory | undefined {
  return FACTORIES.get(hrmsId);
}
