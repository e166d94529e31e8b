// Which GraphQL answers may depend on the records they hold (src/graphql/execution/answer-shape.ts): the
// allowlist names every field of its types on one side or the other, so a field added to the schema
// later must be placed before an answer holding it is cached on its records; and documents classify as
// the contract says.
import { getOperationAST, isObjectType, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../src/graphql/executable-schema.ts";
import { answerShape, RECORD_FIELDS } from "../../src/graphql/execution/answer-shape.ts";

const shapeOf = (text: string) => {
  const document = parse(text);
  const operation = getOperationAST(document);
  if (!operation) throw new Error("no operation");
  return answerShape(schema, document, operation);
};

describe("GraphQL answer shapes", () => {
  it("names every field of each listed type (Query aside) as record-held or not", () => {
    for (const [typeName, rule] of Object.entries(RECORD_FIELDS)) {
      if (typeName === "Query") continue;
      const type = schema.getType(typeName);
      expect(isObjectType(type), typeName).toBe(true);
      if (!isObjectType(type)) continue;
      const named = [...rule.fields, ...rule.content].sort();
      expect(named, typeName).toEqual(Object.keys(type.getFields()).sort());
    }
  });

  it("records by identifier with what they hold: records", () => {
    expect(
      shapeOf(
        '{ post(identifier: "a") { title category { name } tags { slug } authors { name socials { url } } fields fieldEntries { key value } } }',
      ),
    ).toBe("records");
    expect(
      shapeOf('query { ...Q } fragment Q on Query { author(identifier: "a") { __typename name } }'),
    ).toBe("records");
  });

  it("post lists without a search: listing", () => {
    expect(shapeOf("{ posts(limit: 5) { items { slug } pagination { totalItems } } }")).toBe("listing");
    expect(
      shapeOf(
        "{ postsConnection(first: 2) { totalCount edges { cursor node { title } } pageInfo { hasNextPage } } }",
      ),
    ).toBe("listing");
  });

  it("searches, counts, nested lists, revisions and other collections: the whole content", () => {
    expect(shapeOf('{ posts(query: "x") { items { slug } } }')).toBe("content");
    expect(shapeOf("query($q: String) { posts(query: $q) { items { slug } } }")).toBe("content");
    expect(shapeOf('{ category(identifier: "a") { count { posts } } }')).toBe("content");
    expect(shapeOf('{ tag(identifier: "a") { posts { items { slug } } } }')).toBe("content");
    expect(shapeOf('{ post(identifier: "a") { revisions { items { number } } } }')).toBe("content");
    expect(shapeOf("{ categories { items { name } } }")).toBe("content");
    expect(shapeOf('{ post(identifier: "a") { title } fields { key } }')).toBe("content");
  });

  it("a record read in a locale, or its served locale: the whole content (translations, fallback chains)", () => {
    expect(shapeOf('{ post(identifier: "a", locale: "de") { title } }')).toBe("content");
    expect(shapeOf('{ category(identifier: "a", locale: "de") { name } }')).toBe("content");
    expect(shapeOf('{ tag(identifier: "a", locale: "de") { name } }')).toBe("content");
    expect(shapeOf('{ author(identifier: "a", locale: "de") { bio } }')).toBe("content");
    expect(shapeOf('{ category(identifier: "a") { name locale } }')).toBe("content");
    expect(shapeOf('{ category(identifier: "a") { name } }')).toBe("records");
  });

  it("a post's category, tags or authors in a locale of their own: the whole content", () => {
    expect(shapeOf('{ post(identifier: "a") { category(locale: "de") { name } } }')).toBe("content");
    expect(shapeOf('{ post(identifier: "a") { tags(fallback: "none") { name } } }')).toBe("content");
    expect(shapeOf('{ posts { items { authors(locale: "de") { name } } } }')).toBe("content");
    expect(shapeOf('{ post(identifier: "a") { category { name } tags { name } authors { bio } } }')).toBe(
      "records",
    );
  });
});
