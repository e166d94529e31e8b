// temporary (not committed): profile draft saves alone
import { mkdirSync, rmSync } from "node:fs";
import { withSeededService } from "./seeded-service.ts";
const dir = "/tmp/prof-saves";
rmSync(dir, { recursive: true, force: true }); mkdirSync(dir);
await withSeededService(
  { embedded: false, posts: 2223, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`], log: console.log },
  async ({ server, fixtures }) => {
    const key = fixtures.privateKey;
    const res = await fetch(`${server.url}/v1/posts?limit=1&status=draft`, { headers: { authorization: key } });
    const slug = ((await res.json()) as any).posts[0].slug;
    const save = async (n: number) => {
      const r = await fetch(`${server.url}/v1/posts/${slug}`, { method: "PATCH", headers: { authorization: key, "content-type": "application/json" }, body: JSON.stringify({ title: `T ${n}` }) });
      await r.arrayBuffer(); if (!r.ok) throw new Error(String(r.status));
    };
    for (let n = 0; n < 100; n++) await save(n);
    const c0 = server.cpuMs(); const t0 = performance.now();
    console.log("MEASURED_FROM_MS", t0);
    for (let n = 0; n < 400; n++) { await save(n); await new Promise((r) => setTimeout(r, 5)); }
    console.log("cpu/save", ((server.cpuMs()! - c0!) / 400).toFixed(2), "ms; wall", ((performance.now() - t0) / 400).toFixed(2));
  },
);
