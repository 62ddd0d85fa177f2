/**
 * The generated files in the repository are what `npm run docs` writes now
 * (scripts/docs/generate.ts): the OpenAPI document, its TypeScript types, the settings table and
 * the data point list. A route, schema or setting changed without `npm run docs` fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedDocs, settingsMarkdown } from '../../scripts/docs/generate';
import { configSchema } from '../../src/config';

const root = path.resolve(import.meta.dirname, '../..');

describe('generated docs are up to date', async () => {
  const files = await generatedDocs();

  it.each(Object.keys(files))('%s', (file) => {
    const onDisk = readFileSync(path.join(root, file), 'utf8');
    // Compared whole; the message says how to fix it rather than printing 200 KB of diff.
    expect(onDisk === files[file], `${file} is stale: run npm run docs`).toBe(true);
  });

  it('lists every setting of src/config.ts, with its default', () => {
    const table = settingsMarkdown();
    for (const name of Object.keys(configSchema.shape)) expect(table).toContain(`| \`${name}\` |`);
    expect(table).toContain('| `PORT` | `8080` | integer 0–65535 |');
    expect(table).toContain('| `HRX_TRUST_PROXY` | `0` | `0`, `1` |');
  });
});
