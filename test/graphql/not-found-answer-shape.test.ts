// Issue #37 item 1: the same not-found query answers with the same body every time. /graphql runs a
// document with graphql-js the first time and compiled (graphql-jit) from the second on
// (use-compiled-operations.ts). Both answered `"data": null`, but with the entries in another order, so
// the bodies differed (a client comparing or hashing them saw two answers). Now the body is the same
// text each time; as the GraphQL specification says, an error at a non-null root field nulls the whole
// `data`, which is present as `"data": null`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledExecutions } from "../../src/graphql/plugins/use-compiled-operations.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Not found shapes");
});
afterAll(() => app?.close());

/** The raw answer: the comparison is of the bytes a client receives, not of parsed objects. */
async function postGraphQL(query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: {
      authorization: ws.publicKey,
      accept: "application/graphql-response+json",
      "content-type": "application/json",
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, text: await response.text() };
}

describe("a not-found query over HTTP", () => {
  it.each([
    ["a non-null root field", `query Missing { post(identifier: "no-such-post") { id title } }`],
    [
      "a non-null root field with a variable",
      `query MissingBy($identifier: String!) { post(identifier: $identifier) { id } }`,
    ],
  ])("answers %s the same way first, second and later: data null and a NOT_FOUND error", async (_, query) => {
    const variables = query.includes("$identifier") ? { identifier: "nothing-here" } : undefined;
    const compiledBefore = compiledExecutions();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await postGraphQL(query, variables));
    // The later ones really took the compiled path: the comparison is between the two executors.
    expect(compiledExecutions()).toBeGreaterThan(compiledBefore);
    for (const answer of answers) {
      const body = JSON.parse(answer.text);
      expect(body).toHaveProperty("data", null);
      expect(body.errors).toEqual([
        expect.objectContaining({ extensions: expect.objectContaining({ code: "NOT_FOUND" }) }),
      ]);
    }
    expect(answers.map((answer) => answer.status)).toEqual(Array(3).fill(answers[0]?.status));
    expect(answers[1]?.text).toBe(answers[0]?.text);
    expect(answers[2]?.text).toBe(answers[0]?.text);
  });
});
