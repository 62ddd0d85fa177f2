/**
 * Reads one Darwinbox Employee Master answer (`{status, message, employee_data: [...]}`, the
 * whole dataset in one response) as a stream (decisions §14, issue 8.6): the body's chunks go
 * through `@streamparser/json`, which hands over each `employee_data` element as it completes
 * and keeps nothing of the elements already handed over (`keepStack: false`), so memory holds at
 * most one page of employees plus one body chunk, whatever the dataset's size.
 */
import { JSONParser } from '@streamparser/json';
import { HrmsError } from '../connector';
import type { HrmsStreamResponse } from '../http-client';

/** A batch of raw employees; `done` when the dataset has no more after them. */
export interface DatasetBatch {
  items: unknown[];
  done: boolean;
}

/** The employees of one streamed dataset answer, taken a batch at a time. */
export class DatasetStream {
  private readonly parser = new JSONParser({ paths: ['$.employee_data.*', '$.status', '$.message'], keepStack: false });
  private readonly chunks: AsyncIterator<Buffer>;
  private readonly queue: unknown[] = [];
  private status: unknown;
  private sawData = false;
  private ended = false;

  /**
   * @param res the answer (HTTP 200), read from its first body byte
   * @param what the operation, for error messages
   * @param skip employees to drop from the start (a listing resumed at an offset re-requests the dataset)
   */
  constructor(
    private readonly res: HrmsStreamResponse,
    private readonly what: string,
    private skip = 0,
  ) {
    this.chunks = res.body[Symbol.asyncIterator]();
    this.parser.onValue = ({ value, key, stack }) => {
      if (stack.length === 2 && typeof key === 'number') {
        this.sawData = true;
        if (this.skip > 0) this.skip -= 1;
        else this.queue.push(value);
      } else if (stack.length === 1 && key === 'status') {
        this.status = value;
      }
    };
  }

  /** Whether Darwinbox said it refused the request: `status` present and not 1 (bad `api_key` or `datasetKey` answer HTTP 200 `{status: 0}`). */
  private refused(): boolean {
    return this.status !== undefined && this.status !== 1 && this.status !== '1';
  }

  /**
   * The next `n` employees (fewer at the end of the dataset). Reads one employee ahead to tell
   * whether the dataset is done. Throws `HrmsError('auth')` on `status: 0`, `bad_response` on
   * malformed or truncated JSON, the body's own errors (`unavailable` on a stall or a broken
   * connection, `bad_response` past the byte cap) as they come.
   */
  async take(n: number): Promise<DatasetBatch> {
    while (this.queue.length <= n && !this.ended) {
      if (this.refused()) throw new HrmsError('auth', `Darwinbox refused ${this.what} (status ${Number(this.status) || 0})`);
      const next = await this.chunks.next();
      if (next.done) {
        this.finish();
        break;
      }
      // Trailing bytes after the document (whitespace) are ignored once the root value closed.
      if (this.parser.isEnded) continue;
      try {
        this.parser.write(next.value);
      } catch {
        this.close();
        throw new HrmsError('bad_response', `Darwinbox sent malformed JSON for ${this.what}`);
      }
    }
    const items = this.queue.splice(0, n);
    return { items, done: this.ended && this.queue.length === 0 };
  }

  private finish(): void {
    this.ended = true;
    if (!this.parser.isEnded) throw new HrmsError('bad_response', `Darwinbox's answer to ${this.what} ended early`);
    if (this.refused()) throw new HrmsError('auth', `Darwinbox refused ${this.what} (status ${Number(this.status) || 0})`);
    if (this.status === undefined && !this.sawData) throw new HrmsError('bad_response', `Darwinbox sent an unexpected shape for ${this.what}`);
  }

  /** Stops reading and releases the connection. */
  close(): void {
    this.ended = true;
    this.res.close();
    void this.chunks.return?.(undefined);
  }
}
