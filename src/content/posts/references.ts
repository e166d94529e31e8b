// Posts point at a category, tags and authors by id. Every missing one is named in the error, so a
// client can fix all of them in one go.
import { echoInput } from "../../domain/echo-input.ts";
import { type FieldProblem, InvalidInputError } from "../../domain/errors.ts";
import type { PostWriteContext } from "./post-write-context.ts";

export interface PostReferences {
  categoryId?: string | null;
  tags?: readonly string[] | null;
  authors?: readonly string[] | null;
}

export function assertReferencesExist(context: PostWriteContext, refs: PostReferences): void {
  const problems: FieldProblem[] = [];
  if (refs.categoryId && !context.categoryExists) {
    problems.push({
      field: "categoryId",
      message: `Category "${echoInput(refs.categoryId)}" does not exist`,
    });
  }
  problems.push(
    ...missing("tags", "Tag", refs.tags, context.existingTags),
    ...missing("authors", "Author", refs.authors, context.existingAuthors),
  );
  if (problems.length > 0) throw new InvalidInputError("Referenced records do not exist", problems);
}

function missing(
  field: string,
  label: string,
  wanted: readonly string[] | null | undefined,
  present: Set<string>,
): FieldProblem[] {
  return [...new Set(wanted ?? [])]
    .filter((id) => !present.has(id))
    .map((id) => ({ field, message: `${label} "${echoInput(id)}" does not exist` }));
}
