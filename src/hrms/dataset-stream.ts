/**
 * Reads one answer that holds a whole dataset as one JSON array (Darwinbox's Employee Master
 * `{status, message, employee_data: [...]}`, BambooHR's custom report `{title, fields,
 * employees: [...]}`) as a stream (docs/hrms/connectors.md: a whole dataset in one response is
 * parsed as a stream): the body's chunks go through `@streamparser/json`, which hands over each
 * element of the array as it completes and keeps nothing of the elements already handed over
 * (`keepStack: false`), so memory holds at most one page of employees plus one body chunk,
 * whatever the dataset's size.
 */
import { JSONParser } from '@streamparser/json';
import { HrmsError } from './connector';
import type { HrmsStreamResponse } from './http-client';

/** Which array holds the dataset, and how the product says it refused (Darwinbox: `status` other than 1). */
export interface DatasetShape {
  /** The top-level key of the array (`employee_data`, `employees`). */
  arrayKey: string;
  /** The product's name, for error messages. */
  product: string;
  /** Whether a top-level `status` other than 1 means the product refused the request (Darwinbox). */
  statusRefuses?: boolean;
}

/** Darwinbox's Employee Master answer. */
export const DARWINBOX_DATASET: DatasetShape = { arrayKey: 'employee_data', product: 'Darwinbox', statusRefuses: true };

/** A batch of raw employees; `done` when the dataset has no more after them. */
export interface DatasetBatch {
  items: unknown[];
  done: boolean;
}

/** The employees of one streamed dataset answer, taken a batch at a time. */
export class DatasetStream {
  private readonly parser: JSONParser;
  private readonly chunks: AsyncIterator<Buffer>;
  private readonly queue: unknown[] = [];
  private status: unknown;
  private sawData = false;
  private sawArray = false;
  private ended = false;

  /**
   * @param res the answer (HTTP 200), read from its first body byte
   * @param what the operation, for error messages
   * @param skip employees to drop from the start (a listing resumed at an offset re-requests the dataset)
   * @param shape where the array is and how the product refuses (default: Darwinbox's)
   */
  constructor(
    private readonly res: HrmsStreamResponse,
    private readonly what: string,
    private skip = 0,
    private readonly shape: DatasetShape = DARWINBOX_DATASET,
  ) {
    // `$.<arrayKey>` itself arrives empty (its elements were handed over and dropped): it only tells the array was there.
    this.parser = new JSONParser({ paths: [`$.${shape.arrayKey}.*`, `$.${shape.arrayKey}`, '$.status', '$.message'], keepStack: false });
    this.chunks = res.body[Symbol.asyncIterator]();
    this.parser.onValue = ({ value, key, stack }) => {
      if (stack.length === 2 && typeof key === 'number') {
        this.sawData = true;
        if (this.skip > 0) this.skip -= 1;
        else this.queue.push(value);
      } else if (stack.length === 1 && key === this.shape.arrayKey) {
        this.sawArray = true;
      } else if (stack.length === 1 && key === 'status') {
        this.status = value;
      }
    };
  }

  /** Whether Darwinbox said it refused the request: `status` present and not 1 (bad `api_key` or `datasetKey` answer HTTP 200 `{status: 0}`). */
  private refused(): boolean {
    return this.shape.statusRefuses === true && this.status !== undefined && this.status !== 1 && this.status !== '1';
  }

  /**
   * The next `n` employees (fewer at the end of the dataset). Reads one employee ahead to tell
   * whether the dataset is done. Throws `HrmsError('auth')` on Darwinbox's `status: 0`, `bad_response` on
   * malformed or truncated JSON, the body's own errors (`unavailable` on a stall or a broken
   * connection, `bad_response` past the byte cap) as they come.
   */
  async take(n: number): Promise<DatasetBatch> {
    while (this.queue.length <= n && !this.ended) {
      if (this.refused()) throw new HrmsError('auth', `${this.shape.product} refused ${this.what} (status ${Number(this.status) || 0})`);
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
        throw new HrmsError('bad_response', `${this.shape.product} sent malformed JSON for ${this.what}`);
      }
    }
    const items = this.queue.splice(0, n);
    return { items, done: this.ended && this.queue.length === 0 };
  }

  private finish(): void {
    this.ended = true;
    if (!this.parser.isEnded) throw new HrmsError('bad_response', `${this.shape.product}'s answer to ${this.what} ended early`);
    if (this.refused()) throw new HrmsError('auth', `${this.shape.product} refused ${this.what} (status ${Number(this.status) || 0})`);
    // Darwinbox's answer names its status; a product without one (BambooHR) needs only its array, empty or not.
    const shaped = this.shape.statusRefuses ? this.status !== undefined : this.sawArray;
    if (!shaped && !this.sawData) {
      throw new HrmsError('bad_response', `${this.shape.product} sent an unexpected shape for ${this.what}`);
    }
  }

  /** Stops reading and releases the connection. */
  close(): void {
    this.ended = true;
    this.res.close();
    void this.chunks.return?.(undefined);
  }
}
