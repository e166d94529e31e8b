import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
describe("scratch", () => {
  let app: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => { app = await startTestApp(); ws = await app.workspace(); });
  afterAll(async () => app.close());
  it("explores", async () => {
    const c = await app.db.prisma.category.create({ data: { workspaceId: ws.id, name: "a", slug: "a" } });
    try { await app.db.prisma.category.create({ data: { workspaceId: ws.id, name: "a", slug: "a" } }); } catch (e: any) { console.log(e.name, e.code, JSON.stringify(e.meta)); }
    expect(c).toBeTruthy();
  });
});
