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
  | "locale"
  | "webhook";

/** Who made a write, as a revision records it: the API key's id and how it is shown, never the secret. */
export interface RevisionActor {
  keyId: string;
  name: string;
}

export interface Change {
  resource: ChangedResource;
  /**
   * `released`: a scheduled post became public (the scheduler, scheduler.ts); records post.published
   * only. `disabled`: the service disabled a failing webhook endpoint; records webhook.disabled.
   */
  action: "created" | "updated" | "deleted" | "released" | "disabled";
  /**
   * API keys: what the change records in the audit trail (api_key.created, .rotated, .revoked); absent:
   * none (the first keys of a new workspace, whose creation is not in the log either).
   */
  audit?: "created" | "rotated" | "revoked" | "expired";
  id: string;
  workspaceId: string;
  /**
   * Posts created or updated: whether the post was public before (null on create) and is after the
   * change, as `published` or `draft` — a scheduled post counts as `draft` until it is released
   * (post-visibility.ts), so post.published is recorded when it becomes public, not when it is saved.
   */
  statusChange?: { from: PostStatus | null; to: PostStatus };
  /**
   * Posts updated: the write changed none of what decides which lists show the post and where (status,
   * publication date, featured, category, tags; its visibility stayed as it was). Cached lists that do
   * not show the post survive it (src/cache/answer-dependencies.ts). Absent: it may have.
   */
  keepsListings?: boolean;
  /**
   * Posts: the translation the change concerns, when not the default locale's (the post's own row):
   * its event carries that translation and names the locale. Categories, tags and authors: the locale
   * whose name and description (bio) alone the write changed (absent: the record's own columns, which
   * every locale shows).
   */
  locale?: string;
  /**
   * Posts without `locale`: which translations the change concerns (the event's `locales`, change-log.ts).
   * `default`: only the default locale's (its localized fields, its status); absent: every translation of
   * the post, as a change of shared fields (category, tags, authors, featured, …) shows in all of them.
   */
  concerns?: "default";
  /**
   * Post deletes: the translations the post had (null: the default locale's, the post's own row) and
   * whether each was public; they are gone by the time the change log records the delete.
   */
  translationsBefore?: readonly { locale: string | null; live: boolean }[];
  /** Deletes: the last known slug (a field's key, a locale's code); the row is gone when the change log records it. */
  slug?: string;
  /**
   * Posts created or updated: store a revision of the post's content as this write leaves it
   * (post-revisions.ts), made by `actor`, keeping the newest `keep` of the post's revisions.
   */
  revision?: { actor: RevisionActor | null; keep: number };
  /** Media created or updated: the public URL of a stored object, for the event's copy of the record. */
  mediaUrl?: (storageKey: string) => string;
}
