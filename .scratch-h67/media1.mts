import { startTestApp } from "/work/main/test/helpers/test-app.ts";
import { makeImage, makeWav, makePdf, makeElf } from "/work/main/test/media/helpers/make-files.ts";
const app = await startTestApp();
const ws = await app.workspace();
const k = ws.privateKey;
async function upload(bytes: Buffer, filename: string, extra: Record<string, string> = {}, key = k) {
  const form = new FormData();
  form.append("file", new Blob([bytes]), filename);
  for (const [n, v] of Object.entries(extra)) form.append(n, v);
  const res = await fetch(`${app.url}/v1/media/upload`, { method: "POST", headers: { authorization: key }, body: form });
  const text = await res.text();
  console.log("upload", filename, res.status, text.slice(0, 600));
  try { return JSON.parse(text); } catch { return null; }
}
const png = await upload(await makeImage("png"), "pic.png", { alt: "A picture" });
await upload(await makeImage("jpeg"), "pic.jpg", { name: "My JPEG" });
await upload(makeWav(1.5), "tone.wav");
await upload(makePdf(), "doc.pdf");
await upload(makeElf(), "evil.png");
const url = new URL(png.media.url);
const got = await fetch(app.url + url.pathname);
console.log(got.status, [...got.headers.entries()]);
// graphql multipart
async function gqlUpload(bytes: Buffer, filename: string) {
  const form = new FormData();
  form.append("operations", JSON.stringify({ query: `mutation($file: Upload!, $alt: String) { uploadMedia(file: $file, alt: $alt) { id name url size mimeType width height blurHash type } }`, variables: { file: null, alt: "x" } }));
  form.append("map", JSON.stringify({ "0": ["variables.file"] }));
  form.append("0", new Blob([bytes]), filename);
  const res = await fetch(`${app.url}/graphql`, { method: "POST", headers: { authorization: k, "graphql-require-preflight": "1" }, body: form });
  console.log("gql", res.status, (await res.text()).slice(0, 600));
}
await gqlUpload(await makeImage("png"), "g.png");
await gqlUpload(makeElf(), "g.png");
const max = app.config.media.maxBytes;
const pngB = await makeImage("png");
const padded = (n: number) => Buffer.concat([pngB, Buffer.alloc(n - pngB.length)]);
await upload(padded(max), "big.png");
await upload(padded(max + 1), "big.png");
await gqlUpload(padded(max), "big.png");
await gqlUpload(padded(max + 1), "big.png");
await app.close();
