/**
 * A base class for a product simulator served from one class (Keka, Zoho People): the served
 * employees, one token store, the switches, the `SimCore` (servers, counters, faults), and the
 * `DialectSim` methods they give. A product adds its routes (`route`), setup pieces and ground truth.
 */
import type { IncomingMessage } from 'node:http';
import type { HrmsApiConfig, HrmsCredentials } from '../../connector';
import type { PartialEmployeeRecord } from '../../../domain/record';
import { employeeCode } from '../data';
import type { DialectFaults, DialectSim, DialectSimOptions, DialectSimStats } from '../dialect';
import { SimCore } from './core';
import { json, type Reply } from './http';
import { Staff, Tokens, Variants, type RemoveMode } from './staff';

/** The setup-config pieces a simulator hands out. */
export type SimSetup = ReturnType<DialectSim['setup']>;

/** The `DialectSim` methods every product simulator hands to its `SimCore`. */
export abstract class CoreBacked {
  protected abstract readonly core: SimCore;

  setFaults(faults: DialectFaults): void {
    this.core.setFaults(faults);
  }
  /** Forgets every issued token (none for a product without tokens). */
  revokeTokens(): void {
    this.core.revokeTokens();
  }
  stats(): DialectSimStats {
    return this.core.stats();
  }
  resetStats(): void {
    this.core.resetStats();
  }
  close(): Promise<void> {
    return this.core.close();
  }
}

/** A product simulator served from one class: see the module comment. */
export abstract class DialectSimBase extends CoreBacked implements DialectSim {
  abstract readonly hrmsId: string;
  url = '';
  protected readonly book: Staff;
  protected readonly tokens = new Tokens();
  protected readonly variants: Variants;
  protected readonly removeMode: RemoveMode;
  protected readonly core: SimCore;
  /** The product's limit, or `DialectSimOptions.limit` when given. */
  readonly limit: { requests: number; windowMs: number };

  constructor(opts: DialectSimOptions, limit: { requests: number; windowMs: number }) {
    super();
    this.limit = opts.limit ?? limit;
    this.book = new Staff(opts.seed, opts.employees);
    this.variants = new Variants(opts.variants);
    this.removeMode = this.variants.oneOf('removeAs', ['delete', 'exit'], 'delete');
    this.core = new SimCore(opts, this.limit, [this.tokens]);
  }

  abstract setup(): SimSetup;
  abstract wrongSetup(): SimSetup;
  abstract expected(): PartialEmployeeRecord[];
  /** Answers one request (throw or return a `Reply`). */
  protected abstract route(req: IncomingMessage, url: URL): Promise<Reply>;

  /** The setup pieces for `credentials` with the token host as `api_configs` entry `token`. */
  protected setupWith(credentials: Omit<HrmsCredentials, 'hrms_host'>): SimSetup {
    const apiConfigs: HrmsApiConfig[] = [{ api_id: 'token', access_credentials: { hrms_host: this.url, grant_type: credentials.grant_type } }];
    return { hrms_id: this.hrmsId, access_credentials: { hrms_host: this.url, ...credentials }, api_configs: apiConfigs };
  }

  employeeIds(): string[] {
    return this.book.served().map(employeeCode);
  }
  change(employeeId: string): void {
    this.book.change(employeeId);
  }
  remove(employeeId: string): void {
    this.book.remove(employeeId, this.removeMode);
  }
  /** Starts listening on `host` (default 127.0.0.1) and `port` (default 0: a free port). */
  async listen(host?: string, port?: number): Promise<this> {
    const { url } = await this.core.listen((req, url) => this.route(req, url), json(500, { error: 'server_error' }), { host, port });
    this.url = url;
    return this;
  }
}
