import { it } from "vitest";
import { startTestApp } from "../test/helpers/test-app.ts";
import { request } from "node:http";
function post(url: string, headers: Record<string,string>, body: string) {
  return new Promise<any>((resolve) => { const r = request(url, { method: "POST", headers }, (res) => { let b = ""; res.on("data", (c) => b += c); res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: b.slice(0, 80) })); }); r.end(body); });
}
it("shows", async () => {
  const app = await startTestApp();
  const ws = await app.workspace("x");
  const body = JSON.stringify({ query: "{ posts(limit: 2) { items { title } } }" });
  for (const accept of [undefined, "application/json"]) {
    const h: any = { authorization: ws.publicKey, "content-type": "application/json" };
    if (accept) h.accept = accept;
    console.log(await post(app.url + "/graphql", h, body));
    console.log(await post(app.url + "/graphql", h, body));
  }
  await app.close();
});
