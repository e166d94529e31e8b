// Media records: an upload becomes a stored object plus a record, all or nothing; a deleted record
// takes its object with it.
import type { PrismaClient } from "../generated/prisma/client.ts";
import { notFoundError, payloadTooLargeError, userInputError } from "../graphql/errors.ts";
import type { Logger } from "../logger.ts";
import { discardStoredMedia, ingestMedia } from "../media/ingest.ts";
import type { MediaStorage } from "../media/storage.ts";
import { UnsupportedMediaTypeError, UploadTooLargeError } from "../media/upload-errors.ts";
import { ProblemList } from "./validation.ts";

export interface MediaUpload {
  bytes: Uint8Array;
  filename: string;
  name?: string | null;
  alt?: string | null;
}

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
    });
  } catch (error) {
    if (error instanceof UploadTooLargeError) throw payloadTooLargeError(error.message);
    if (error instanceof UnsupportedMediaTypeError)
      throw userInputError(error.message, [{ field: "file", message: error.message }]);
    throw error;
  }
  try {
    const row = await deps.prisma.media.create({
      data: { workspaceId, name, alt: upload.alt ?? null, ...ingested },
      select: { id: true },
    });
    return row.id;
  } catch (error) {
    await discardStoredMedia(deps.storage, ingested.storageKey, deps.logger);
    throw error;
  }
}

export async function updateMedia(
  prisma: PrismaClient,
  workspaceId: string,
  id: string,
  input: { name?: string | null; alt?: string | null },
): Promise<string> {
  const problems = new ProblemList()
    .text("name", input.name, { max: 500 })
    .text("alt", input.alt, { min: 0, max: 2_000 });
  if (input.name === null) problems.add("name", "Cannot be null");
  problems.throwIfAny("Invalid media update");
  const existing = await prisma.media.findFirst({ where: { workspaceId, id }, select: { id: true } });
  if (!existing) throw notFoundError("Media", id);
  await prisma.media.update({ where: { id }, data: { name: input.name ?? undefined, alt: input.alt } });
  return id;
}

export async function deleteMedia(
  deps: Omit<MediaDeps, "maxBytes">,
  workspaceId: string,
  id: string,
): Promise<string> {
  const existing = await deps.prisma.media.findFirst({
    where: { workspaceId, id },
    select: { id: true, storageKey: true },
  });
  if (!existing) throw notFoundError("Media", id);
  await deps.prisma.media.delete({ where: { id } });
  await discardStoredMedia(deps.storage, existing.storageKey, deps.logger);
  return id;
}
