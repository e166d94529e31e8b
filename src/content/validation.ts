// Small checks shared by every write: each returns a FieldProblem instead of throwing, so a write can
// report all of its problems at once. Each resource's own rules use them where it is written: a post's in
// posts/posts.ts (`checkScalars`, with the lengths of domain/inputs.ts `POST_TEXT_LIMITS`), a category's
// or tag's in taxonomy/taxonomy.ts, an author's in taxonomy/authors.ts, a webhook's in
// deliveries/webhook-endpoints.ts.
import { type FieldProblem, InvalidInputError } from "../domain/errors.ts";
import { isValidSlug, SLUG_MAX_LENGTH } from "./slugs.ts";

export class ProblemList {
  readonly problems: FieldProblem[] = [];

  add(field: string, message: string): this {
    this.problems.push({ field, message });
    return this;
  }

  /** A required-when-given string: at least `min` characters (after trimming) and at most `max`. */
  text(field: string, value: string | null | undefined, { min = 1, max = 10_000 } = {}): this {
    if (value === undefined || value === null) return this;
    if (value.trim().length < min)
      this.add(field, `Must be at least ${min} character${min === 1 ? "" : "s"}`);
    else if (value.length > max) this.add(field, `Must be at most ${max} characters`);
    return this;
  }

  slug(field: string, value: string | null | undefined): this {
    if (value === undefined || value === null) return this;
    if (!isValidSlug(value)) {
      this.add(
        field,
        `Must be 1-${SLUG_MAX_LENGTH} lowercase letters, digits, and single hyphens or underscores between them`,
      );
    }
    return this;
  }

  url(field: string, value: string | null | undefined): this {
    if (value === undefined || value === null) return this;
    if (!isHttpUrl(value)) this.add(field, "Must be an absolute http(s) URL");
    return this;
  }

  email(field: string, value: string | null | undefined): this {
    if (value === undefined || value === null) return this;
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) this.add(field, "Must be an e-mail address");
    return this;
  }

  /** Throws InvalidInputError naming every problem, if there are any. */
  throwIfAny(message = "Invalid input"): void {
    if (this.problems.length > 0) throw new InvalidInputError(message, this.problems);
  }
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
