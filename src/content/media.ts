// Media records: an upload becomes a stored object plus a record, all or nothing; a deleted record
// takes its object with it.
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from "../domain/errors.ts";
import type { MediaUpdate, MediaUpload } from "../domain/inputs.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import { discardStoredMedia, ingestMedia } from "../media/ingest.ts";
import { removeVariantsWithRetries } from "../media/removal-retries.ts";
import type { MediaStorage } from "../media/storage.ts";
import { UnsupportedMediaTypeError, UploadTooLargeError } from "../media/upload-errors.ts";
import { orNotFound } from "./or-not-found.ts";
import { ProblemList } from "./validation.ts";
import { write } from "./writer.ts";

interface MediaDeps {
  prisma: PrismaClient;
  storage: MediaStorage;
  logger: Logger;
  maxBytes: number;
}

export async function createMedia(
  deps: MediaDeps,
  workspaceId: string,
  upload: MediaUpload,
): Promise<string> {
  const name = (upload.name ?? "").trim() || upload.filename.trim() || "untitled";
  new ProblemList()
    .text("name", name, { max: 500 })
    .text("alt", upload.alt, { min: 0, max: 2_000 })
    .throwIfAny("Invalid upload");
  let ingested: Awaited<ReturnType<typeof ingestMedia>>;
  try {
    ingested = await ingestMedia({
      storage: deps.storage,
      workspaceId,
      bytes: upload.bytes,
      filename: upload.filename,
      maxBytes: deps.maxBytes,
      logger: deps.logger,
    });
  } catch (error) {
    if (error instanceof UploadTooLargeError) throw new PayloadTooLargeError(error.message);
    if (error instanceof UnsupportedMediaTypeError)
      throw new InvalidInputError(error.message, [{ field: "file", message: error.message }]);
    throw error;
  }
  try {
    return await write(deps.prisma, async (uow) => {
      const row = await uow.tx.media.create({
        data: { workspaceId, name, alt: upload.alt ?? null, ...ingested },
        select: { id: true },
      });
      const mediaUrl = (key: string) => deps.storage.urlFor(key);
      uow.changed({ resource: "media", action: "created", id: row.id, workspaceId, mediaUrl });
      return row.id;
    });
  } catch (error) {
    await discardStoredMedia(deps.storage, ingested.storageKey, deps.logger);
    throw error;
  }
}

export async function updateMedia(
  deps: Pick<MediaDeps, "prisma" | "storage">,
  workspaceId: string,
  id: string,
  input: MediaUpdate,
): Promise<string> {
  const problems = new ProblemList()
    .text("name", input.name, { max: 500 })
    .text("alt", input.alt, { min: 0, max: 2_000 });
  if (input.name === null) problems.add("name", "Cannot be null");
  problems.throwIfAny("Invalid media update");
  return write(deps.prisma, async (uow) => {
    const existing = await uow.tx.media.findFirst({ where: { workspaceId, id }, select: { id: true } });
    if (!existing) throw new NotFoundError("Media", id);
    await orNotFound(
      uow.tx.media.update({ where: { id }, data: { name: input.name ?? undefined, alt: input.alt } }),
      "Media",
      id,
    );
    const mediaUrl = (key: string) => deps.storage.urlFor(key);
    uow.changed({ resource: "media", action: "updated", id, workspaceId, mediaUrl });
    return id;
  });
}

export async function deleteMedia(
  deps: Omit<MediaDeps, "maxBytes">,
  workspaceId: string,
  id: string,
): Promise<string> {
  const storageKey = await write(deps.prisma, async (uow) => {
    const existing = await uow.tx.media.findFirst({
      where: { workspaceId, id },
      select: { id: true, storageKey: true },
    });
    if (!existing) throw new NotFoundError("Media", id);
    // Only the request whose DELETE removed the row discards the file; a concurrent one answers 404.
    const { count } = await uow.tx.media.deleteMany({ where: { id } });
    if (count === 0) throw new NotFoundError("Media", id);
    uow.changed({ resource: "media", action: "deleted", id, workspaceId });
    return existing.storageKey;
  });
  // After COMMIT: a file is never discarded for a record that still exists. Its variants (resized
  // copies, media-variants.ts) go with it.
  await Promise.all([
    discardStoredMedia(deps.storage, storageKey, deps.logger),
    removeVariantsWithRetries(deps.storage, storageKey, deps.logger),
  ]);
  return id;
}
