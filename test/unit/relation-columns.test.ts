// Which columns of a listed post's authors, tags and category a selection needs
// (src/graphql/relation-columns.ts): only the read form's when every field under them is one it shows,
// through fragments and aliases; every column as soon as one field is not.
import {
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  Kind,
  type OperationDefinitionNode,
  parse,
} from "graphql";
import { describe, expect, it } from "vitest";
import { relationColumnsOf } from "../../src/graphql/read-model/relation-columns.ts";

/** The resolve info of the document's first root field, as far as relationColumnsOf reads it. */
function infoOf(source: string): GraphQLResolveInfo {
  const document = parse(source);
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  const root = operation?.selectionSet.selections[0];
  if (root?.kind !== Kind.FIELD) throw new Error("no root field");
  return { fieldNodes: [root], fragments } as unknown as GraphQLResolveInfo;
}

describe("relation columns of a post list", () => {
  it("are the shown ones for the read form's fields, also through fragments and aliases", () => {
    expect(
      relationColumnsOf(
        infoOf(`{ posts { items { ...P } pagination { totalItems } } }
          fragment P on Post { slug authors { ...A } category { id name slug description }
            labels: tags { __typename id name slug description } }
          fragment A on Author { id name slug image bio role socials { platform url } }`),
      ),
    ).toBe("shown");
    expect(relationColumnsOf(infoOf("{ posts { items { authors { name bio } tags { name } } } }"))).toBe(
      "shown",
    );
  });

  it("are the names only when every field under the relations is an id, a name or a slug", () => {
    for (const source of [
      "{ posts { items { slug title content } } }",
      "{ posts(limit: 10) { items { id slug title content publishedAt authors { name slug } category { name slug } tags { name slug } } } }",
      "{ posts { items { ...P } } } fragment P on Post { authors { __typename id } tags { ... on Tag { slug } } }",
    ])
      expect(relationColumnsOf(infoOf(source)), source).toBe("names");
  });

  it("are all of them when any field under a relation needs another column", () => {
    for (const source of [
      "{ posts { items { authors { name email } } } }",
      "{ posts { items { tags { name createdAt } } } }",
      "{ posts { items { category { slug updatedAt } } } }",
      "{ posts { items { ... on Post { authors { ... on Author { createdAt } } } } } }",
      "{ posts { items { ...P } } } fragment P on Post { tags { ...T } } fragment T on Tag { name count { posts } }",
      "{ posts { items { authors { name } tags @include(if: false) { updatedAt } } } }",
    ])
      expect(relationColumnsOf(infoOf(source)), source).toBe("all");
  });

  it("look only at the list's items, not at fields of the same name elsewhere", () => {
    expect(relationColumnsOf(infoOf("{ posts { items { slug } other: items { authors { id } } } }"))).toBe(
      "names",
    );
    expect(relationColumnsOf(infoOf("{ posts { items { slug } } }"), "edges")).toBe("names");
  });
});
