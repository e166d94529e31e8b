// Turns uploaded bytes into a stored object plus the facts the media record needs. The caller writes the
// record afterwards and, should that fail, calls discardStoredMedia so no orphaned object remains:
//
//   const media = await ingestMedia({ storage, workspaceId, bytes, filename });
//   try { await db.media.create({ data: { ...media, workspaceId, name } }); }
//   catch (error) { await discardStoredMedia(storage, media.storageKey, logger); throw error; }

import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { MediaType } from "./allowed-types.ts";
import { contentHashOf, contentHashOfFile } from "./content-hash.ts";
import { detectMediaType, detectMediaTypeOfFile } from "./detect-type.ts";
import { newMediaKey } from "./media-key.ts";
import { type ProbeResult, probeAllowedMedia } from "./probe.ts";
import { type RemovalLogger, removeWithRetries } from "./removal-retries.ts";
import type { MediaStorage } from "./storage.ts";
import { UnsupportedMediaTypeError, UploadTooLargeError } from "./upload-errors.ts";

export interface IngestMediaOptions {
  storage: MediaStorage;
  /** Owner of the media; the first segment of the storage key. */
  workspaceId: string;
  bytes: Uint8Array;
  /** The client's file name, for messages only; it never becomes part of the storage key. */
  filename?: string;
  /**
   * Refuse files above this many bytes. The multipart reader already enforces the limit while streaming;
   * this is for callers that receive bytes another way (e.g. a GraphQL Upload).
   */
  maxBytes?: number;
  /** Reports an object that could not be removed after a failed put. */
  logger?: CleanupLogger;
}

/** Why an image of an allowed type is refused when its pixels cannot be decoded. */
const UNDECODABLE = "they cannot be decoded (the file is truncated or corrupt)";

/** The stored object and what was learned about it: the columns of a media record. */
export interface IngestedMedia {
  storageKey: string;
  size: number;
  mimeType: string;
  type: MediaType;
  width: number | null;
  height: number | null;
  /** Milliseconds. */
  duration: number | null;
  blurHash: string | null;
  /** SHA-256 of the bytes (content-hash.ts): what an import compares to store a file once. */
  contentHash: string;
}

/** Something that can report a failed cleanup; the service's Logger fits. */
export type CleanupLogger = RemovalLogger;

/** What checking and probing a file learned: everything but where it is stored. */
export interface InspectedMedia {
  size: number;
  probe: ProbeResult;
  contentHash: string;
}

/**
 * Checks and probes bytes as ingestMedia does, storing nothing: what an import's dry run does to count
 * what its real run would store. Throws as ingestMedia does.
 */
export async function inspectMedia(bytes: Uint8Array, maxBytes?: number): Promise<InspectedMedia> {
  if (maxBytes !== undefined && bytes.byteLength > maxBytes) throw new UploadTooLargeError(maxBytes);
  const detection = await detectMediaType(bytes);
  if (!detection.allowed) throw new UnsupportedMediaTypeError(detection.detectedMime, detection.reason);
  const probe = await probeAllowedMedia(bytes, detection.allowed);
  if (!probe) throw new UnsupportedMediaTypeError(detection.allowed.mime, UNDECODABLE);
  return { size: bytes.byteLength, probe, contentHash: contentHashOf(bytes) };
}

/** inspectMedia for bytes in a file on the local disk, read from it (never one buffer in memory). */
export async function inspectMediaFile(
  file: string,
  maxBytes?: number,
  knownHash?: string,
): Promise<InspectedMedia> {
  const { size } = await stat(file);
  if (maxBytes !== undefined && size > maxBytes) throw new UploadTooLargeError(maxBytes);
  const detection = await detectMediaTypeOfFile(file);
  if (!detection.allowed) throw new UnsupportedMediaTypeError(detection.detectedMime, detection.reason);
  const probe = await probeAllowedMedia(file, detection.allowed);
  if (!probe) throw new UnsupportedMediaTypeError(detection.allowed.mime, UNDECODABLE);
  return { size, probe, contentHash: knownHash ?? (await contentHashOfFile(file)) };
}

/**
 * Checks, probes and stores an upload. Throws UnsupportedMediaTypeError for a type outside the
 * allow-list or an image that does not decode, UploadTooLargeError above `maxBytes`, and the storage's own error when storing fails
 * (nothing is left stored then).
 */
export async function ingestMedia(options: IngestMediaOptions): Promise<IngestedMedia> {
  const { bytes } = options;
  const inspected = await inspectMedia(bytes, options.maxBytes);
  return store(options, inspected, (key, mimeType) => options.storage.put(key, bytes, mimeType));
}

export interface IngestMediaFileOptions extends Omit<IngestMediaOptions, "bytes"> {
  /** A file on the local disk holding the bytes (an import's temporary copy of an archive's entry). */
  file: string;
  /** Its content hash when the caller has read it already (else it is read here). */
  contentHash?: string;
}

/**
 * ingestMedia for bytes in a file, streamed from it: detected and probed from the file (an image is
 * decoded by sharp from the file) and stored with putStream, so the file is never one buffer in memory.
 */
export async function ingestMediaFile(options: IngestMediaFileOptions): Promise<IngestedMedia> {
  const { file } = options;
  const inspected = await inspectMediaFile(file, options.maxBytes, options.contentHash);
  return store(options, inspected, (key, mimeType) =>
    options.storage.putStream(key, createReadStream(file), inspected.size, mimeType),
  );
}

/** Stores a probed file under a new key (nothing is left stored when that fails): the media columns. */
async function store(
  options: Omit<IngestMediaOptions, "bytes">,
  { size, probe, contentHash }: InspectedMedia,
  put: (key: string, mimeType: string) => Promise<void>,
): Promise<IngestedMedia> {
  const storageKey = newMediaKey(options.workspaceId, probe.extension);
  try {
    await put(storageKey, probe.mimeType);
  } catch (error) {
    // A put that failed on our side (a timeout, say) may still have completed remotely, or complete
    // when a hung store wakes up; removing the key until (and once after) the store takes it makes sure
    // a failed upload leaves no object behind. Not awaited: with a hung store the removal would wait out
    // a deadline of its own before the client hears of the first.
    void removeWithRetries(options.storage, storageKey, options.logger, { repeatOnceRemoved: true });
    throw error;
  }

  return {
    storageKey,
    size,
    mimeType: probe.mimeType,
    type: probe.type,
    width: probe.width,
    height: probe.height,
    duration: probe.duration,
    blurHash: probe.blurHash,
    contentHash,
  };
}

/**
 * Removes a stored object during a rollback or after its record was deleted. Never throws, so the
 * error that caused the rollback is the one that surfaces; a failed removal is logged and retried in
 * the background (removal-retries.ts). Returns whether the object is gone already.
 */
export function discardStoredMedia(
  storage: MediaStorage,
  storageKey: string,
  logger?: CleanupLogger,
): Promise<boolean> {
  return removeWithRetries(storage, storageKey, logger);
}
