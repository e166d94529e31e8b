// A feed page always fits in an answer: its records' data unchanged when they fit, else the largest
// in a smaller form (small fields kept, large ones named in omittedFields) until the rest fits.
import { describe, expect, it } from "vitest";
import { fitFeedData, smallerForm } from "../../src/graphql/feed-answer-size.ts";

const post = (id: string, bytes: number) => ({
  id,
  title: `Post ${id}`,
  content: "x".repeat(bytes),
  tags: [],
});

describe("fitFeedData", () => {
  it("leaves a page that fits as it is", () => {
    const page = [post("a", 1_000), null, post("b", 2_000)];
    const fitted = fitFeedData(page, 100_000);
    expect(fitted).toEqual(page);
    for (const [index, item] of fitted.entries()) expect(item).toBe(page[index]);
  });

  it("serves only the largest records in their smaller form, as many as the page needs", () => {
    const page = [post("a", 40_000), post("b", 60_000), post("c", 1_000)];
    const fitted = fitFeedData(page, 100_000);
    expect(fitted[0]).toBe(page[0]);
    expect(fitted[1]).toEqual({ id: "b", title: "Post b", tags: [], omittedFields: ["content"] });
    expect(fitted[2]).toBe(page[2]);
  });

  it("serves a record larger than the whole answer in its smaller form, alone on its page", () => {
    expect(fitFeedData([post("a", 500_000)], 100_000)).toEqual([smallerForm(post("a", 500_000))]);
  });
});
