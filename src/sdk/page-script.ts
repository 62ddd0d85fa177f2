/**
 * The Connect page's script (docs/connect.md "How the page is built"): ./page/main.ts and the
 * modules it imports, TypeScript for the browser, bundled by esbuild into one IIFE, in memory,
 * once per process: on the first call (the SDK routes call it when the app is built, so the
 * first page served pays nothing). No build step and no file is written, so `./hrx start` from a
 * fresh clone and the image (where `esbuild` is a production dependency) serve the same script.
 * The page imports the server's view only as types, so no server code is bundled.
 */
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The bundled script, for an inline `<script>` under the page's CSP nonce. Throws when the
 * sources do not bundle (a syntax error: the tests and `npm run typecheck` catch it first) or
 * when the output would close the script element early.
 */
export function connectScript(): string {
  cached ??= bundle();
  return cached;
}

function bundle(): string {
  const result = buildSync({
    entryPoints: [fileURLToPath(new URL('./page/main.ts', import.meta.url))],
    tsconfig: fileURLToPath(new URL('./page/tsconfig.json', import.meta.url)),
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    // The syntax the page's former hand-written script used: every browser of the last years runs it.
    target: 'es2020',
    banner: { js: "'use strict';" },
    legalComments: 'none',
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]?.text;
  if (!text) throw new Error('the Connect page script bundled to nothing');
  // esbuild escapes "</script" inside strings; anything left would end the inline element.
  if (/<\/script/i.test(text)) throw new Error('the Connect page script contains "</script"');
  return text;
}
