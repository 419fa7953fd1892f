/**
 * The sandbox lab's named snapshots and reset (docs/lab.md, "Snapshots and reset"): save a merchant's whole sandbox
 * world with its business clock under a name, put it back, list and delete snapshots, or empty the world. Sandbox
 * mode only: a live platform refuses every call (403 `900101`).
 */
import type { Caller, RequestOptions } from './calls.js';
import type { ReplyData, RequestBody } from './types.js';

const LAB = '/svc/sandbox/api/v1';

export type Snapshot = ReplyData<'listSandboxSnapshots'>['snapshots'][number];

export class LabSnapshotsApi {
  constructor(private readonly client: Caller) {}

  /** Saves the merchant's world and business clock under `name`; an existing name is refused (409) unless `force`. */
  async save(
    name: string,
    save: { force?: boolean } = {},
    options?: RequestOptions,
  ): Promise<ReplyData<'saveSandboxSnapshot'>> {
    const body: RequestBody<'saveSandboxSnapshot'> = { name, ...(save.force !== undefined && { force: save.force }) };
    return this.client.call('POST', `${LAB}/snapshots`, body, options);
  }

  /** The merchant's snapshots, by name. */
  async list(options?: RequestOptions): Promise<Snapshot[]> {
    return (await this.client.call<ReplyData<'listSandboxSnapshots'>>('GET', `${LAB}/snapshots`, undefined, options))
      .snapshots;
  }

  /** Puts the merchant's world and clock back as the snapshot has them. */
  async restore(name: string, options?: RequestOptions): Promise<ReplyData<'restoreSandboxSnapshot'>> {
    return this.client.call('POST', `${LAB}/snapshots/${encodeURIComponent(name)}/restore`, undefined, options);
  }

  async delete(name: string, options?: RequestOptions): Promise<ReplyData<'deleteSandboxSnapshot'>> {
    return this.client.call('DELETE', `${LAB}/snapshots/${encodeURIComponent(name)}`, undefined, options);
  }

  /**
   * Empties the merchant's world and sets its clock back to wall time, as a freshly created merchant; its apps,
   * keys, webhook endpoints and snapshots stay. With `deterministic` (or a `seed`), its identifiers come from a
   * seeded sequence and its clock stands still at a fixed start until moved: the same calls then give the same replies.
   */
  async reset(
    reset: { deterministic?: boolean; seed?: string } = {},
    options?: RequestOptions,
  ): Promise<ReplyData<'resetSandbox'>> {
    const body: RequestBody<'resetSandbox'> = reset;
    return this.client.call('POST', `${LAB}/reset`, body, options);
  }
}
