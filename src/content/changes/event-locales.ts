// The locales a post event concerns (issue 56; the event's `locales` and `publicLocales` columns): the
// translation a write names; the default locale's for a write of the post's own localized fields or
// status; every translation of the post for a change of what they all show (shared fields: category,
// tags, authors, featured, …) or the post's removal. `publicLocales` keeps those whose translation was
// public before or after the change: all a key that cannot read drafts may be told of, so that a draft
// translation leaves no trace in its change feed, events or subscriptions. Records without translations
// (media, fields, locales) concern every locale: none named; so does a write of a category's, tag's or
// author's own columns, while a write of one of their translations names its locale.
import type { Event, Prisma } from "../../generated/prisma/client.ts";
import type { Change } from "../change.ts";
import { isLive } from "../post-visibility.ts";

type Tx = Prisma.TransactionClient;

export interface EventLocales {
  /** DEFAULT_LOCALE stands for the workspace's default locale, named by the append (change-log.ts). */
  locales: string[];
  publicLocales: string[];
  /**
   * Also every translation the post has when the event is appended, after these (by code), and those of
   * them live then among the public ones: read by the append's own statement, no round trip of its own.
   */
  withTranslations: boolean;
}

/**
 * The workspace's default locale, in `locales` and `publicLocales` until the append's statement puts
 * its code there (no code is empty). A workspace without locales (made before them, never read in a
 * locale) has none: its events then name no locale, as a record without translations does.
 */
export const DEFAULT_LOCALE = "";

const EVERY_LOCALE: EventLocales = { locales: [], publicLocales: [], withTranslations: false };

export async function eventLocalesOf(tx: Tx, change: Change): Promise<EventLocales> {
  // A category's, tag's or author's name in one locale: always public, as the record is.
  if (change.resource !== "post")
    return change.locale ? of([{ locale: change.locale, live: true }]) : EVERY_LOCALE;
  const status = change.statusChange;
  const ownPublic =
    change.action === "released" || status?.from === "published" || status?.to === "published";
  if (change.locale) return of([{ locale: change.locale, live: ownPublic }]);
  if (change.translationsBefore)
    return of(
      change.translationsBefore.map(({ locale, live }) => ({ locale: locale ?? DEFAULT_LOCALE, live })),
    );
  const now = new Date();
  // A write that names no status change (a tag's removal from its posts): as public as the post is.
  const post = status
    ? null
    : await tx.post.findUnique({
        where: { id: change.id },
        select: { status: true, publishedAt: true, unpublishAt: true },
      });
  const own = { locale: DEFAULT_LOCALE, live: ownPublic || (post !== null && isLive(post, now)) };
  if (change.concerns === "default" || change.action === "released" || change.action === "created")
    return of([own]);
  return { ...of([own]), withTranslations: true };
}

function of(concerned: { locale: string; live: boolean }[]): EventLocales {
  return {
    locales: concerned.map((entry) => entry.locale),
    publicLocales: concerned.filter((entry) => entry.live).map((entry) => entry.locale),
    withTranslations: false,
  };
}

/**
 * Whether an event concerns `locale` for a reader: a record without translations concerns every locale;
 * a post's event the locales it names, for a key that cannot read drafts only its public ones.
 */
export function concernsLocale(
  event: { locales?: readonly string[] | null; publicLocales?: readonly string[] | null },
  locale: string,
  publicOnly: boolean,
): boolean {
  if (!event.locales || event.locales.length === 0) return true;
  return (publicOnly ? (event.publicLocales ?? []) : event.locales).includes(locale);
}

/** The `locales` of an event as a reader may see them: a public key's, public translations only. */
export function visibleLocales(
  event: { locales?: readonly string[] | null; publicLocales?: readonly string[] | null },
  publicOnly: boolean,
): string[] | null {
  if (!event.locales || event.locales.length === 0) return null;
  return [...(publicOnly ? (event.publicLocales ?? []) : event.locales)];
}

/** concernsLocale as a Prisma `where` on Event. */
export function eventsConcerning(locale: string, publicOnly: boolean): Prisma.EventWhereInput {
  const named = publicOnly ? { publicLocales: { has: locale } } : { locales: { has: locale } };
  return { OR: [{ locales: { isEmpty: true } }, named] };
}

/**
 * The post events whose `data` is the post as `locale` shows it: a translation's own events name it
 * alone; every event naming the default locale carries the default's form (the post's own row).
 */
export function formsIn(locale: { code: string; isDefault: boolean }): Prisma.EventWhereInput {
  return locale.isDefault ? { locales: { has: locale.code } } : { locales: { equals: [locale.code] } };
}

/** formsIn for an event read already. */
export function carriesFormIn(
  event: Pick<Event, "locales">,
  locale: { code: string; isDefault: boolean },
): boolean {
  const locales = event.locales ?? [];
  return locale.isDefault
    ? locales.includes(locale.code)
    : locales.length === 1 && locales[0] === locale.code;
}
