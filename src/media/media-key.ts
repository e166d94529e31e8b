// Storage keys are built only from server-side values: the workspace id, a random id and an extension
// from the allow-list. The client's file name never reaches a path, so keys cannot traverse or collide.
import { randomBytes } from "node:crypto";

const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,64}$/;
// Lowercase hex ids stay unique on case-insensitive file systems (a local store on macOS, for one).
const MEDIA_KEY = /^[A-Za-z0-9_-]{1,64}\/[0-9a-f]{32}\.([a-z0-9]{1,5})$/;

/** A fresh `<workspaceId>/<32 hex>.<extension>` key. Throws on an id or extension unfit for a path. */
export function newMediaKey(workspaceId: string, extension: string): string {
  if (!WORKSPACE_ID.test(workspaceId))
    throw new TypeError(`Invalid workspace id for a media key: ${workspaceId}`);
  const key = `${workspaceId}/${randomBytes(16).toString("hex")}.${extension}`;
  if (!MEDIA_KEY.test(key)) throw new TypeError(`Invalid extension for a media key: ${extension}`);
  return key;
}

/** Whether `key` has the shape newMediaKey produces (and so is safe to use as a relative path). */
export function isMediaKey(key: string): boolean {
  return MEDIA_KEY.test(key);
}

/** The extension of a valid media key, or undefined for anything else. */
export function mediaKeyExtension(key: string): string | undefined {
  return MEDIA_KEY.exec(key)?.[1];
}
