// What a revision's snapshot must hold to be compared or restored (post-revisions.ts): the fields a
// restore writes back, with their types. The service writes every snapshot itself, but an import
// carries them in from an archive (import-writes.ts checks them there), and a snapshot that lacked
// `tags` made a restore answer 500 ("Cannot read properties of undefined"). Other keys are kept as
// they are: a snapshot is the post's whole read form.
import { z } from "zod";
import type { FieldProblem } from "../../domain/errors.ts";

const reference = z.object({ id: z.string() });

export const revisionSnapshotSchema = z.looseObject({
  title: z.string(),
  slug: z.string(),
  status: z.enum(["published", "draft"]),
  description: z.string(),
  content: z.string(),
  coverImage: z.string().nullable(),
  featured: z.boolean(),
  attribution: z.string().nullable(),
  publishedAt: z.string().refine((value) => !Number.isNaN(Date.parse(value)), "Must be a date"),
  category: reference.nullable(),
  tags: z.array(reference),
  authors: z.array(reference),
  fields: z.record(z.string(), z.unknown()),
});

export type RevisionSnapshot = z.infer<typeof revisionSnapshotSchema>;

/** What is wrong with `snapshot`, field by field (`snapshot.tags.0.id`); empty when it is whole. */
export function revisionSnapshotProblems(snapshot: unknown): FieldProblem[] {
  const parsed = revisionSnapshotSchema.safeParse(snapshot);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({
    field: ["snapshot", ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}
