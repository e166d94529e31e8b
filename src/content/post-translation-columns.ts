// The columns of a post's translation in a locale other than the default (issue 56): what it shows in
// place of the post's own, whose shared fields (category, tags, authors, featured, cover image) stay the
// post's. One list for every read of translations: the served one, a list's, an event's snapshot.
export const TRANSLATION_COLUMNS = {
  slug: true,
  title: true,
  description: true,
  content: true,
  status: true,
  publishedAt: true,
  updatedAt: true,
  unpublishAt: true,
} as const;
