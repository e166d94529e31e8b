// Page-based pagination as the REST contract describes it, shared by every list.
import type { ImplementableObjectRef, ObjectRef } from "@pothos/core";
import type { FieldProblem } from "../domain/errors.ts";
import { builder } from "./builder.ts";
import { pageOutOfRangeError, userInputError } from "./errors.ts";

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface Pagination {
  limit: number;
  currentPage: number;
  nextPage: number | null;
  previousPage: number | null;
  totalPages: number;
  totalItems: number;
}

/** A page's numbers, or how to count them when only some requests select them (the post list). */
export type PageNumbers = Pagination | (() => Promise<Pagination>);

/** A Relay connection as the cursor-paginated fields (postsConnection, events) answer it. */
export interface Connection<Node> {
  edges: { cursor: string; node: Node }[];
  pageInfo: {
    startCursor: string | null;
    endCursor: string | null;
    hasPreviousPage: boolean;
    hasNextPage: boolean;
  };
  /** Counted only when asked for. */
  totalCount: () => Promise<number>;
}

export const PaginationRef = builder.objectRef<Pagination>("Pagination").implement({
  description: "Page numbers of a page-based list",
  fields: (t) => ({
    limit: t.exposeInt("limit"),
    currentPage: t.exposeInt("currentPage"),
    nextPage: t.exposeInt("nextPage", { nullable: true }),
    previousPage: t.exposeInt("previousPage", { nullable: true }),
    totalPages: t.exposeInt("totalPages"),
    totalItems: t.exposeInt("totalItems"),
  }),
});

export interface PageArgs {
  limit?: number | null;
  page?: number | null;
}

/** `limit` and `page` arguments of every page-based list. */
export const pageArgs = (t: PothosArgBuilder) => ({
  limit: t.int({ description: `Items per page, 1-${MAX_PAGE_SIZE}`, defaultValue: DEFAULT_PAGE_SIZE }),
  page: t.int({ description: "Page number, starting at 1", defaultValue: 1 }),
});
/**
 * Cost of a page list for the complexity limits: its selection counts once per item it may return,
 * so `posts(limit: 100)` costs ten times `posts(limit: 10)`. The page's `items` field then counts 1.
 */
export const pageListComplexity = (args: PageArgs) => ({
  field: 1,
  multiplier: args.limit ?? DEFAULT_PAGE_SIZE,
});
export const PAGE_ITEMS_COMPLEXITY = { field: 1, multiplier: 1 };

type PothosArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]["arg"];

/** Validates page arguments and returns Prisma's skip/take for them. */
export function pageWindow(args: PageArgs): { limit: number; page: number; skip: number; take: number } {
  const limit = args.limit ?? DEFAULT_PAGE_SIZE;
  const page = args.page ?? 1;
  const problems: FieldProblem[] = [];
  if (limit < 1 || limit > MAX_PAGE_SIZE)
    problems.push({ field: "limit", message: `Must be between 1 and ${MAX_PAGE_SIZE}` });
  if (page < 1) problems.push({ field: "page", message: "Must be 1 or greater" });
  if (problems.length) throw userInputError("Invalid pagination parameters", problems);
  return { limit, page, skip: (page - 1) * limit, take: limit };
}

/**
 * The pagination object; a page past the last one is an error. An empty list has no pages, yet its
 * page 1 is answered (empty): a client's first request never fails. Any later page is past the last,
 * as it is for a list with items (issue 53: it answered page 1 instead, so a client paging on saw
 * nothing wrong).
 */
export function paginate(totalItems: number, window: { limit: number; page: number }): Pagination {
  const totalPages = Math.ceil(totalItems / window.limit);
  if (window.page > Math.max(totalPages, 1)) throw pageOutOfRangeError(window.page, totalPages);
  const currentPage = window.page;
  return {
    limit: window.limit,
    currentPage,
    nextPage: currentPage < totalPages ? currentPage + 1 : null,
    previousPage: currentPage > 1 ? currentPage - 1 : null,
    totalPages,
    totalItems,
  };
}

type BuilderTypes =
  ReturnType<typeof builder.objectRef<never>> extends ImplementableObjectRef<infer Types, never>
    ? Types
    : never;
/** Any object type of this schema (plain or Prisma-backed). */
type AnyObjectRef = ObjectRef<BuilderTypes, unknown>;

/**
 * The `<Name>Page` type of a page-based list: its items and the pagination numbers. Items cost their
 * selection once each; the list field itself is priced by `pageListComplexity`.
 */
export function pageType(name: string, item: AnyObjectRef) {
  return builder.objectRef<{ items: unknown[]; pagination: PageNumbers }>(name).implement({
    fields: (t) => ({
      items: t.field({
        type: [item],
        complexity: PAGE_ITEMS_COMPLEXITY,
        resolve: (page) => page.items as never,
      }),
      pagination: t.field({
        type: PaginationRef,
        resolve: ({ pagination }) => (typeof pagination === "function" ? pagination() : pagination),
      }),
    }),
  });
}
