// Issue #37, the clients' smoke test: GraphQL Code Generator (client preset) reads the running server's
// schema by introspection without a key, and the schema it sees is schema.graphql's, type for type; the
// TypeScript it generates typechecks (strict) with a program that runs its documents through Apollo
// Client 4. Apollo Client with InMemoryCache then runs those documents against the server — a list, a
// post with its relations, a post that does not exist — and warns about nothing (no cache data lost, no
// missing field, no unnormalized type it had to merge). Everything comes from pinned packages, offline.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApolloClient, CombinedGraphQLErrors, HttpLink, InMemoryCache } from "@apollo/client";
import { generate } from "@graphql-codegen/cli";
import { buildSchema, lexicographicSortSchema, printSchema } from "graphql";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

// The documents a client application would write.
const DOCUMENTS = `
query PostList($limit: Int) {
  posts(limit: $limit) {
    items { id slug title category { id slug name } tags { id slug name } }
    pagination { currentPage totalItems }
  }
}
query PostWithRelations($identifier: String!) {
  post(identifier: $identifier) {
    id slug title publishedAt
    category { id slug name }
    tags { id slug name }
    authors { id slug name }
  }
}
`;

let app: TestApp;
let ws: TestWorkspace;
/** Where the generated client lives: under node_modules, so its imports resolve to the pinned packages. */
let outDir: string;
let generated: { filename: string; content: string }[];
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Clients");
  const fixtures = restFixtures(app, ws.privateKey);
  const category = await fixtures.category("guides");
  const tag = await fixtures.tag("typescript");
  const author = await fixtures.author("ada");
  for (const slug of ["first-guide", "second-guide"])
    await fixtures.post({ slug, categoryId: category.id, tags: [tag.id], authors: [author.id] });
  outDir = await mkdtemp(join(REPO, "node_modules/.cache-codegen-"));
  await writeFile(join(outDir, "documents.graphql"), DOCUMENTS);
  // No key anywhere in this configuration: introspection is public (GRAPHQL_INTROSPECTION=public).
  generated = await generate(
    {
      schema: `${app.url}/graphql`,
      documents: join(outDir, "documents.graphql"),
      silent: true,
      generates: {
        [join(outDir, "gql/")]: { preset: "client", config: { useTypeImports: true } },
        [join(outDir, "schema.graphql")]: { plugins: ["schema-ast"] },
      },
    },
    true,
  );
}, 120_000);
afterAll(async () => {
  await app?.close();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

const sortedSdl = (sdl: string) => printSchema(lexicographicSortSchema(buildSchema(sdl)));

// Apollo first: the typecheck below holds the event loop for seconds, after which a kept-alive
// connection of the shared fetch pool may meet the server closing it.
describe("Apollo Client 4 with InMemoryCache against the server", () => {
  it("runs a list, a post with relations and a missing post, and warns about nothing", async () => {
    const warnings: unknown[][] = [];
    const warn = vi.spyOn(console, "warn").mockImplementation((...args) => void warnings.push(args));
    const error = vi.spyOn(console, "error").mockImplementation((...args) => void warnings.push(args));
    try {
      const client = new ApolloClient({
        link: new HttpLink({ uri: `${app.url}/graphql`, headers: { authorization: ws.publicKey } }),
        cache: new InMemoryCache(),
      });
      const { parse } = await import("graphql");
      const documents = parse(DOCUMENTS);
      const operation = (name: string) => ({
        ...documents,
        definitions: documents.definitions.filter((d) => "name" in d && d.name?.value === name),
      });
      const list = await client.query<{ posts: { items: { slug: string }[] } }>({
        query: operation("PostList"),
        variables: { limit: 5 },
      });
      expect(list.data?.posts.items.map((post) => post.slug).sort()).toEqual(["first-guide", "second-guide"]);
      const one = await client.query<{ post: unknown }>({
        query: operation("PostWithRelations"),
        variables: { identifier: "first-guide" },
      });
      expect(one.data?.post).toMatchObject({
        slug: "first-guide",
        category: { slug: "guides" },
        tags: [{ slug: "typescript" }],
        authors: [{ slug: "ada" }],
      });
      // The same post again comes from the cache, normalized: one Post entry shared by both queries.
      const cached = client.cache.extract() as Record<string, unknown>;
      expect(Object.keys(cached).filter((key) => key.startsWith("Post:"))).toHaveLength(2);

      const missing = client.query({
        query: operation("PostWithRelations"),
        variables: { identifier: "no-such-post" },
      });
      await expect(missing).rejects.toSatisfy(
        (reason) =>
          CombinedGraphQLErrors.is(reason) && reason.errors.some((e) => e.extensions?.code === "NOT_FOUND"),
      );
      expect(warnings).toEqual([]);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});

describe("GraphQL Code Generator from the live server, keyless", () => {
  it("sees the schema of schema.graphql, type for type", async () => {
    const introspected = await readFile(join(outDir, "schema.graphql"), "utf8");
    const shipped = await readFile(join(REPO, "schema.graphql"), "utf8");
    expect(sortedSdl(introspected)).toBe(sortedSdl(shipped));
  });

  it("generates a client whose TypeScript typechecks, used through Apollo Client", async () => {
    expect(generated.map((file) => file.filename)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/gql\/graphql\.ts$/),
        expect.stringMatching(/gql\/gql\.ts$/),
      ]),
    );
    const usage = join(outDir, "usage.ts");
    await writeFile(
      usage,
      `import { ApolloClient, HttpLink, InMemoryCache } from "@apollo/client";
import { PostListDocument, PostWithRelationsDocument } from "./gql/graphql";
const client = new ApolloClient({ link: new HttpLink({ uri: "http://127.0.0.1:1/graphql" }), cache: new InMemoryCache() });
export async function titles(): Promise<string[]> {
  const { data } = await client.query({ query: PostListDocument, variables: { limit: 5 } });
  return data?.posts.items.map((post) => post.title) ?? [];
}
export async function categoryOf(identifier: string): Promise<string | undefined> {
  const { data } = await client.query({ query: PostWithRelationsDocument, variables: { identifier } });
  return data?.post.category.name;
}
`,
    );
    const program = ts.createProgram(
      [usage, ...generated.map((file) => file.filename).filter((f) => f.endsWith(".ts"))],
      {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        // As a bundled web application compiles it (the preset writes extensionless imports).
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        skipLibCheck: true,
      },
    );
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(diagnostics).toEqual([]);
    // A whole-program typecheck of Apollo's and the generated types: 15–20 s on two shared cores.
  }, 90_000);
});
