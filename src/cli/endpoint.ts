/**
 * `hrx endpoint add|list|remove` (decisions §10, in the style of §12): vendors' event endpoints.
 */
import type { Config } from '../config';
import { parseEventTypes } from '../events/endpoints';
import type { Logger } from '../logger';
import { output, parse, required, UsageError } from './args';
import { withContext } from './operator';

const USAGE = 'usage: hrx endpoint add --org UUID --url URL [--events a,b] | hrx endpoint list --org UUID | hrx endpoint remove ID';

/**
 * `add` → `{id, url, events, secret}` (the secret is shown this once); `list` →
 * `{endpoints: [{id, url, events, created_at}]}`; `remove` → `{id, removed, cancelled_deliveries}`.
 * Errors (non-vendor org, refused URL, unknown event type or endpoint) exit 1 with the reason.
 */
export async function endpointCommand(argv: string[], config: Config, log: Logger): Promise<void> {
  const { values, positionals } = parse(argv, { org: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' } });
  const [sub, id] = positionals;
  if (sub === 'add') {
    const org = required(values, 'org');
    const url = required(values, 'url');
    const events = parseEventTypes(values.events);
    await withContext(config, log, async (ctx) => {
      const e = await ctx.services.endpoints.add({ orgUuid: org, url, events });
      output({ id: e.id, url: e.url, events: e.events, secret: e.secret }, values.json);
    });
  } else if (sub === 'list') {
    const org = required(values, 'org');
    await withContext(config, log, async (ctx) => output({ endpoints: await ctx.services.endpoints.list(org) }, values.json));
  } else if (sub === 'remove' && id) {
    await withContext(config, log, async (ctx) => output(await ctx.services.endpoints.remove(id), values.json));
  } else {
    throw new UsageError(USAGE);
  }
}
