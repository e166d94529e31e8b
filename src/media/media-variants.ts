// The variants of stored images. A variant is served while its record (variant-records.ts) exists and
// its object is in the store; otherwise it is computed — once per instance however many requests ask at
// the same moment (SingleFlight), inside the workspace's share of the transform slots (TransformSlots) —
// stored next to its original, then recorded. Recording it is the check that its original still exists:
// an original deleted while its variant was computed takes the record with it (or refuses it), so that
// variant is removed again and never served. Past the bound on variants per original, the least
// recently used ones are removed.
import type { Logger } from "../logger.ts";
import { contentTypeForExtension } from "./allowed-types.ts";
import { bufferedObject, readWhole } from "./buffered-object.ts";
import { type PixelLimits, transformImage } from "./image-transform.ts";
import { removeWithRetries } from "./removal-retries.ts";
import { SingleFlight } from "./single-flight.ts";
import type { MediaStorage, StoredMediaObject } from "./storage.ts";
import { boundedBox } from "./transform-box.ts";
import type { ResolvedTransform } from "./transform-params.ts";
import { TransformSlots } from "./transform-slots.ts";
import { EXTENSION_OF_FORMAT, variantKey } from "./variant-key.ts";
import type { OriginalRecord, VariantRecords } from "./variant-records.ts";

export interface VariantSettings extends PixelLimits {
  concurrency: number;
  queueWaitMs: number;
  /** Variants kept per original; past it the least recently used are removed. */
  maxPerOriginal: number;
}

/** A variant ready to send, and what to send it as. */
export interface OpenedVariant {
  key: string;
  contentType: string;
  object: StoredMediaObject;
}

/**
 * What `find` found: no original (404), a stored variant (opened: the caller closes it), or a variant to
 * compute (`compute` resolves null when the original went away meanwhile).
 */
export type VariantLookup =
  | { found: "no-original" }
  | { found: "stored"; variant: OpenedVariant }
  | { found: "new"; compute(): Promise<OpenedVariant | null> };

export class MediaVariants {
  private readonly slots: TransformSlots;
  private readonly computing = new SingleFlight<Buffer | null>();

  constructor(
    private readonly storage: MediaStorage,
    private readonly records: VariantRecords,
    private readonly settings: VariantSettings,
    private readonly logger: Pick<Logger, "warn">,
  ) {
    this.slots = new TransformSlots(settings.concurrency, settings.queueWaitMs);
  }

  /** Transforms running and waiting now. */
  get load(): { active: number; waiting: number } {
    return this.slots.load;
  }

  /**
   * The variant `transform` of the original at `key`. Throws UntransformableMediaError (from compute),
   * TransformsBusyError or StorageUnavailableError.
   */
  async find(key: string, transform: ResolvedTransform): Promise<VariantLookup> {
    const original = await this.records.original(key);
    if (!original) return { found: "no-original" };
    const keyOfVariant = variantKey(key, normalised(transform, original));
    const contentType = contentTypeForExtension(EXTENSION_OF_FORMAT[transform.format]) ?? "";
    const record = await this.records.record(keyOfVariant);
    const stored = record ? await this.storage.load(keyOfVariant) : null;
    if (record && stored) {
      if (record.stale) await this.records.touch(keyOfVariant);
      return { found: "stored", variant: { key: keyOfVariant, contentType, object: stored } };
    }
    return {
      found: "new",
      compute: async () => {
        const workspace = key.slice(0, key.indexOf("/"));
        const bytes = await this.computing.run(keyOfVariant, () =>
          this.slots.run(workspace, () =>
            this.compute(key, original, keyOfVariant, contentType, normalised(transform, original)),
          ),
        );
        return bytes ? { key: keyOfVariant, contentType, object: bufferedObject(bytes) } : null;
      },
    };
  }

  /** Whether an original is stored under `key`. */
  async hasOriginal(key: string): Promise<boolean> {
    const object = await this.storage.load(key);
    await object?.close();
    return object !== null;
  }

  private async compute(
    key: string,
    original: OriginalRecord,
    keyOfVariant: string,
    contentType: string,
    transform: ResolvedTransform,
  ): Promise<Buffer | null> {
    // An object without a record: stored before records were kept, or its record was lost. Same key,
    // same bytes, so it is recorded rather than computed again.
    const unrecorded = await this.storage.load(keyOfVariant);
    const bytes = unrecorded
      ? await readWhole(unrecorded)
      : await this.transformed(key, keyOfVariant, contentType, transform);
    if (!bytes) return null;
    if (!(await this.records.add(keyOfVariant, original.mediaId, bytes.length))) {
      // The original was deleted meanwhile: nothing would ever serve this object, nor delete it.
      await removeWithRetries(this.storage, keyOfVariant, this.logger);
      return null;
    }
    const evicted = await this.records.evictBeyond(original.mediaId, this.settings.maxPerOriginal);
    for (const old of evicted) void removeWithRetries(this.storage, old, this.logger);
    return bytes;
  }

  /** The variant computed from the original and stored; null when the original is gone. */
  private async transformed(
    key: string,
    keyOfVariant: string,
    contentType: string,
    transform: ResolvedTransform,
  ): Promise<Buffer | null> {
    const original = await this.storage.load(key);
    if (!original) return null;
    const variant = await transformImage(await readWhole(original), transform, this.settings);
    try {
      await this.storage.put(keyOfVariant, variant.bytes, contentType);
    } catch (error) {
      // The answer does not depend on the store: this request still gets its image, the next computes
      // it again. (A timeout was logged where it happened, storage-deadlines.ts.)
      this.logger.warn("Could not store an image variant; it will be computed again", {
        storageKey: keyOfVariant,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    return variant.bytes;
  }
}

/**
 * The transform with what cannot change its output left out, so equal images share one stored variant:
 * a box the image would have to grow into (boundedBox; known when the original's size is recorded).
 */
function normalised(transform: ResolvedTransform, original: OriginalRecord): ResolvedTransform {
  return original.size ? boundedBox(transform, original.size) : transform;
}
