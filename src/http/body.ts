/**
 * Request body readers: JSON with a byte limit, and forms (multipart/form-data or
 * x-www-form-urlencoded) through busboy. Errors are `AppError`s of decisions §1
 * (413 `Request body too large`, 415 `Unsupported media type`, 400 `Malformed JSON body`).
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

/**
 * Reads and parses a JSON body. The media type must be `application/json` (or `+json`);
 * an empty body parses as `undefined`.
 */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = mediaType(req);
  if (type !== 'application/json' && !type.endsWith('+json')) throw new AppError('UNSUPPORTED_MEDIA_TYPE');
  const raw = await readRaw(req, limit);
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('MALFORMED_JSON');
  }
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
      if (!failed) resolve(fields);
    });
    req.pipe(bb);
  });
}
