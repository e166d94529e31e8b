// The variants of stored images: each one is looked up in the store first, and computed only when it is
// not there yet — once per instance however many requests ask at the same moment (SingleFlight), inside
// a bounded number of transform slots (TransformSlots), then stored next to its original for good.
import type { Logger } from "../logger.ts";
import { contentTypeForExtension } from "./allowed-types.ts";
import { bufferedObject, readWhole } from "./buffered-object.ts";
import { type PixelLimits, transformImage } from "./image-transform.ts";
import { SingleFlight } from "./single-flight.ts";
import type { MediaStorage, StoredMediaObject } from "./storage.ts";
import type { ResolvedTransform } from "./transform-params.ts";
import { TransformSlots } from "./transform-slots.ts";
import { EXTENSION_OF_FORMAT, variantKey } from "./variant-key.ts";

export interface VariantSettings extends PixelLimits {
  concurrency: number;
  queueWaitMs: number;
}

/** A variant ready to send, and what to send it as. */
export interface OpenedVariant {
  key: string;
  contentType: string;
  object: StoredMediaObject;
}

export class MediaVariants {
  private readonly slots: TransformSlots;
  private readonly computing = new SingleFlight<Buffer | null>();

  constructor(
    private readonly storage: MediaStorage,
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
   * The variant of the original at `key`, opened (the caller closes it); null when there is no such
   * original. Throws UntransformableMediaError, TransformsBusyError or StorageUnavailableError.
   */
  async open(key: string, transform: ResolvedTransform): Promise<OpenedVariant | null> {
    const keyOfVariant = variantKey(key, transform);
    const contentType = contentTypeForExtension(EXTENSION_OF_FORMAT[transform.format]) ?? "";
    const stored = await this.storage.load(keyOfVariant);
    if (stored) return { key: keyOfVariant, contentType, object: stored };
    const bytes = await this.computing.run(keyOfVariant, () =>
      this.slots.run(() => this.compute(key, keyOfVariant, contentType, transform)),
    );
    return bytes ? { key: keyOfVariant, contentType, object: bufferedObject(bytes) } : null;
  }

  /** Whether an original is stored under `key`. */
  async hasOriginal(key: string): Promise<boolean> {
    const object = await this.storage.load(key);
    await object?.close();
    return object !== null;
  }

  private async compute(
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
