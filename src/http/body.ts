/**
 * Request body readers: JSON with a byte limit, and forms (multipart/form-data or
 * x-www-form-urlencoded) through busboy. Errors are `AppError`s of docs/errors.md
 * (413 `Request body too large`, 415 `Unsupported media type`, 400 `Malformed JSON body`), and
 * the limits of docs/limits.md as 400 validation failures naming the field: JSON nesting deeper
 * than `MAX_JSON_DEPTH`, and U+0000 in any text (JSON strings and object keys, form fields).
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { AppError } from '../errors';

/** The media type of a request without parameters, lower-cased (`''` when absent). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Reads the raw body up to `limit` bytes; throws 413 past it (checked on Content-Length first). */
export async function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new AppError('BODY_TOO_LARGE');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new AppError('BODY_TOO_LARGE');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Deepest nesting of arrays and objects a JSON body may have (docs/limits.md). */
export const MAX_JSON_DEPTH = 32;

/** The message of a text field holding U+0000 (docs/limits.md). */
export const NUL_MESSAGE = 'must not contain NUL characters';

/**
 * Throws the 400 validation failure when `text` (a JSON text) nests arrays and objects deeper
 * than `maxDepth`, naming the top-level field (object key or array index) the too-deep value
 * sits in, or `body`. One pass over the characters, no recursion and no allocation per level, so
 * it runs before `JSON.parse` builds anything; brackets inside strings do not count. Malformed
 * text is left to `JSON.parse`.
 */
export function checkJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  let topKey: string | undefined; // the last string seen at depth 1 (a key of a top-level object)
  let topIndex = 0; // elements seen so far of a top-level array
  let topIsArray = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) {
        inString = false;
        if (depth === 1 && !topIsArray) topKey = text.slice(stringStart, i + 1);
      }
      continue;
    }
    if (c === 0x22) {
      inString = true;
      stringStart = i;
    } else if (c === 0x7b || c === 0x5b) {
      // { [
      depth++;
      if (depth === 1) topIsArray = c === 0x5b;
      if (depth > maxDepth) {
        let field = 'body';
        if (topIsArray) field = String(topIndex);
        else if (topKey !== undefined) {
          try {
            field = String(JSON.parse(topKey)).replaceAll('\u0000', '\\u0000');
          } catch {
            /* malformed key: name the body */
          }
        }
        throw AppError.validation([{ field, message: `nested deeper than ${maxDepth} levels` }]);
      }
    } else if (c === 0x7d || c === 0x5d) {
      // } ]
      depth--;
    } else if (c === 0x2c && depth === 1 && topIsArray) {
      // , between top-level elements
      topIndex++;
    }
  }
}

/**
 * The path (`a.b.0.c`, as validation failures name fields) of the first string or object key
 * in `value` holding U+0000, or `undefined`. Iterative (no recursion); a key holding NUL is
 * named with the NUL written `\u0000`.
 */
export function findNul(value: unknown): string | undefined {
  const stack: { v: unknown; path: string[] }[] = [{ v: value, path: [] }];
  const show = (path: string[]): string => path.join('.') || 'body';
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return show(path);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, String(i)] });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        if (k.includes('\u0000')) return show([...path, k.replaceAll('\u0000', '\\u0000')]);
        stack.push({ v: child, path: [...path, k] });
      }
    }
  }
  return undefined;
}

/** Throws the 400 validation failure naming the first text of `value` holding U+0000. */
export function refuseNul(value: unknown, prefix?: string): void {
  const at = findNul(value);
  if (at !== undefined) throw AppError.validation([{ field: prefix && at === 'body' ? prefix : at, message: NUL_MESSAGE }]);
}

/**
 * True when the request carries no body and names no media type (no `Content-Type`, no
 * `Transfer-Encoding`, `Content-Length` absent or 0): an optional JSON body left out.
 */
export function bodyLeftOut(req: IncomingMessage): boolean {
  const h = req.headers;
  return h['content-type'] === undefined && h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0');
}

/**
 * Reads and parses a JSON body. The media type must be `application/json` (or `+json`);
 * an empty body parses as `undefined`. Nesting deeper than `MAX_JSON_DEPTH` (checked on the raw
 * text, before parsing) and U+0000 in any string or key are 400 validation failures naming the
 * field (docs/limits.md).
 */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = mediaType(req);
  if (type !== 'application/json' && !type.endsWith('+json')) throw new AppError('UNSUPPORTED_MEDIA_TYPE');
  const raw = await readRaw(req, limit);
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  checkJsonDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('MALFORMED_JSON');
  }
  // NUL can only come from a `\u0000` escape (raw control characters are malformed JSON).
  if (text.includes('\\u0000')) refuseNul(value);
  return value;
}

/**
 * Reads a form body (multipart/form-data or application/x-www-form-urlencoded) into its text
 * fields; file parts are drained and ignored. The whole body counts against `limit`.
 */
export async function readForm(req: IncomingMessage, limit: number): Promise<Record<string, string>> {
  const type = mediaType(req);
  if (type !== 'multipart/form-data' && type !== 'application/x-www-form-urlencoded') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE');
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new AppError('BODY_TOO_LARGE');
  }
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fieldSize: limit, fields: 50, files: 0 } });
    } catch {
      reject(AppError.validation([{ field: 'body', message: 'malformed form body' }]));
      return;
    }
    const fields: Record<string, string> = {};
    let size = 0;
    let failed = false;
    const fail = (err: AppError): void => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      req.resume();
      reject(err);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(new AppError('BODY_TOO_LARGE'));
    });
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (_name, stream) => stream.resume());
    bb.on('error', () => fail(AppError.validation([{ field: 'body', message: 'malformed form body' }])));
    bb.on('close', () => {
      if (failed) return;
      const nul = Object.entries(fields).find(([k, v]) => k.includes('\u0000') || v.includes('\u0000'));
      if (nul) reject(AppError.validation([{ field: nul[0].replaceAll('\u0000', '\\u0000'), message: NUL_MESSAGE }]));
      else resolve(fields);
    });
    req.pipe(bb);
  });
}
