// What a unit of work says it changed (see writer.ts). Its own module so that the writer and the change
// log (change-log.ts), which the writer calls, both read it without importing each other.
import type { PostStatus } from "../domain/constants.ts";

export type ChangedResource =
  | "workspace"
  | "api_key"
  | "post"
  | "category"
  | "tag"
  | "author"
  | "media"
  | "field"
  | "webhook";

export interface Change {
  resource: ChangedResource;
  action: "created" | "updated" | "deleted";
  id: string;
  workspaceId: string;
  /** Posts created or updated: the status before (null on create) and after the change. */
  statusChange?: { from: PostStatus | null; to: PostStatus };
  /** Deletes: the last known slug (a field's key); the row is gone when the change log records it. */
  slug?: string;
  /** Media created or updated: the public URL of a stored object, for the event's copy of the record. */
  mediaUrl?: (storageKey: string) => string;
}
