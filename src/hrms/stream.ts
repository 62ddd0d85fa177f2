/**
 * The listing of a product that answers a whole dataset in one response (Darwinbox's Employee
 * Master, BambooHR's custom report), written once (src/hrms/README.md "Shared mechanics"): open
 * the answer as a {@link DatasetStream}, skipping the items a cursor says were already yielded,
 * take it a page at a time, and close it however the listing ends (done, failed, or abandoned by
 * its caller). A product keeps only its request (`open`) and what its pages look like.
 */
import type { DatasetBatch, DatasetStream } from './dataset-stream';

/** Runs one attempt again on the errors the product retries (`HrmsHttpClient.withRetry`). */
export type Retrier = <T>(attempt: () => Promise<T>) => Promise<T>;

/** How to read one streamed dataset. */
export interface StreamedListing {
  /** The dataset's answer as a stream with its first `skip` items dropped; throws `HrmsError` on a refusal. */
  open(skip: number): Promise<DatasetStream>;
  /** Items already yielded (a cursor's offset); 0 for a listing from the start. */
  from: number;
  /** Items a page holds at most. */
  pageSize: number;
  /**
   * With a retrier, a page that fails (throttled, a stall, a broken connection) is taken again
   * through it: the stream is closed and the dataset opened once more at the items already
   * yielded, so none is lost or repeated (Darwinbox). Without one, a failure ends the listing and
   * `open` does its own retrying (BambooHR).
   */
  retry?: Retrier;
}

/** One page of a streamed dataset: its items, the items yielded with it (`offset`, the next cursor's), and whether the dataset is done. */
export interface StreamedPage extends DatasetBatch {
  offset: number;
}

/**
 * The pages of one streamed dataset from `listing.from` on, `listing.pageSize` items each (the
 * last may hold fewer, or none for an empty dataset). The stream is closed when the dataset is
 * done, when a page fails for good (the error is thrown), and when the caller stops early.
 */
export async function* streamedPages(listing: StreamedListing): AsyncGenerator<StreamedPage> {
  let offset = listing.from;
  let stream: DatasetStream | undefined;
  const page = async (): Promise<DatasetBatch> => {
    try {
      stream ??= await listing.open(offset);
      return await stream.take(listing.pageSize);
    } catch (err) {
      stream?.close();
      stream = undefined;
      throw err;
    }
  };
  try {
    for (;;) {
      const batch = listing.retry ? await listing.retry(page) : await page();
      offset += batch.items.length;
      yield { ...batch, offset };
      if (batch.done) return;
    }
  } finally {
    stream?.close();
  }
}

/** `use` of the stream `open` gives, closed afterwards whatever happens (a lookup, a credential check, one report). */
export async function readStream<T>(open: () => Promise<DatasetStream>, use: (stream: DatasetStream) => Promise<T>): Promise<T> {
  const stream = await open();
  try {
    return await use(stream);
  } finally {
    stream.close();
  }
}
