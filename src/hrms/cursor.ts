/**
 * Page cursors, written once for every connector: a listing's `EmployeePage.next` is opaque to its
 * caller and handed back as `ListOptions.cursor`, so a connector checks every cursor it is given
 * and refuses one it did not make with one error, naming the connector, never quoting the cursor
 * (src/hrms/README.md, "Shared mechanics"). A connector whose position is several values (Keka,
 * greytHR) keeps it as base64url JSON ({@link jsonCursor}); one whose position is a word and a
 * number keeps it as text checked by a pattern ({@link matchCursor}: Personio, Zoho People, the
 * reference HRMS), or, when the number counts items already yielded, as {@link offsetCursor}
 * (Darwinbox, BambooHR).
 */
import type { z } from 'zod';
import { HrmsError } from './connector';

/** The error for a cursor `of` (e.g. "the <hrms_id> connector") did not make: `bad_response`. */
export function notACursor(of: string): HrmsError {
  return new HrmsError('bad_response', `not a cursor of ${of}`);
}

/** Encodes and checks the cursors of one connector. */
export interface CursorCodec<T> {
  /** The cursor of `state`: base64url of its JSON. */
  encode(state: T): string;
  /** The state `cursor` holds; throws {@link notACursor} for anything `shape` refuses. */
  decode(cursor: string): T;
}

/** A codec of JSON state checked by `shape` (unknown keys are dropped), for the connector `of`. */
export function jsonCursor<T>(shape: z.ZodType<T>, of: string): CursorCodec<T> {
  return {
    encode: (state) => Buffer.from(JSON.stringify(state)).toString('base64url'),
    decode: (cursor) => {
      let json: unknown;
      try {
        json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      } catch {
        throw notACursor(of);
      }
      const parsed = shape.safeParse(json);
      if (!parsed.success) throw notACursor(of);
      return parsed.data;
    },
  };
}

/** `pattern`'s match of the whole `cursor` (the pattern carries its own `^…$`); throws {@link notACursor} when it does not match. */
export function matchCursor(cursor: string, pattern: RegExp, of: string): RegExpExecArray {
  const m = pattern.exec(cursor);
  if (!m) throw notACursor(of);
  return m;
}

/** The cursor of a listing at `offset` items into the sequence `word` names: `<word>:<offset>`. */
export interface OffsetCursor<W extends string> {
  /** `<word>:<offset>` (offset a count of items already yielded, 0 to 999 999 999). */
  encode(word: W, offset: number): string;
  /** The word and offset `cursor` holds; throws {@link notACursor} for another word, a signed, fractional or 10-digit offset. */
  decode(cursor: string): { word: W; offset: number };
  /** The offset a listing of the sequence `word` resumes at: 0 without a cursor; throws {@link notACursor} for another word's cursor too. */
  offsetIn(cursor: string | undefined, word: W): number;
}

/**
 * Offset cursors (`report:2500`, `employees_inactive:300`) over the sequences `words` names, for the
 * connector `of`: the shape every connector that resumes by skipping items already yielded shares
 * (src/hrms/README.md "Shared mechanics").
 */
export function offsetCursor<W extends string>(words: readonly W[], of: string): OffsetCursor<W> {
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`^(${escaped.join('|')}):(\\d{1,9})$`);
  const decode = (cursor: string): { word: W; offset: number } => {
    const m = matchCursor(cursor, pattern, of);
    return { word: m[1] as W, offset: Number(m[2]) };
  };
  return {
    encode: (word, offset) => `${word}:${offset}`,
    decode,
    offsetIn: (cursor, word) => {
      if (cursor === undefined) return 0;
      const at = decode(cursor);
      if (at.word !== word) throw notACursor(of);
      return at.offset;
    },
  };
}
