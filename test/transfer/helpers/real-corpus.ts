// The corpus of real exports (test/transfer/fixtures/real, README there): importing one into a new
// workspace of an app, reading back what arrived through the API, and the shape of an HTML body. The
// corpus names media on hosts of the internet: its imports never fetch them (--no-remote-media), and a
// resolver that answers nothing stands behind that, so no test reaches beyond 127.0.0.1.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SourceKind } from "../../../src/transfer/sources/import-source.ts";
import { importInto } from "../../../src/transfer/transfer-commands.ts";
import type { TestApp, TestWorkspace } from "../../helpers/test-app.ts";

export const REAL = path.resolve(import.meta.dirname, "../fixtures/real");

/**
 * The real Ghost 2.9 export written to `folder` with its image hosts (static.ghost.org, example.com)
 * pointed at `base`, a test host on 127.0.0.1, so its covers and profile images can be fetched.
 */
export function ghost29WithImagesAt(base: string, folder: string): string {
  const original = readFileSync(path.join(REAL, "ghost/default-export-2.9.json"), "utf8");
  const file = path.join(folder, "default-export-2.9.json");
  writeFileSync(file, original.replace(/https:\/\/(static\.ghost\.org|example\.com)\//g, `${base}/$1/`));
  return file;
}

export interface ApiPost {
  slug: string;
  title: string;
  status: string;
  publishedAt: string;
  content: string;
  coverImage: string | null;
  description: string;
  category: { slug: string; name: string };
  tags: { slug: string; name: string }[];
  authors: { slug: string; name: string }[];
}

export interface ImportedCorpus {
  ws: TestWorkspace;
  summary: Awaited<ReturnType<typeof importInto>>;
  /** The summary of the `--dry-run` made first, into the same (then still empty) workspace. */
  dryRun: Awaited<ReturnType<typeof importInto>>;
  /** A GET with the workspace's private key: its body (a failure throws). */
  get(requestPath: string): Promise<Record<string, unknown>>;
  /** Every post of the workspace, drafts included, with its body. */
  posts(): Promise<ApiPost[]>;
}

/**
 * Imports `file` (a path under the corpus) into a new workspace, as `import <file> --from <from>
 * --no-remote-media` does, after a `--dry-run` of the same.
 */
export async function importReal(app: TestApp, from: SourceKind, file: string): Promise<ImportedCorpus> {
  const ws = await app.workspace(file);
  const get = async (requestPath: string) => {
    const res = await app.request("GET", requestPath, { key: ws.privateKey });
    if (res.status !== 200) throw new Error(`GET ${requestPath}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };
  const run = (dryRun: boolean) =>
    importInto(
      {
        db: app.db,
        config: app.config,
        storage: app.mediaStorage,
        network: {
          resolve: (hostname) => Promise.reject(new Error(`the corpus tests fetch nothing (${hostname})`)),
        },
      },
      { ...ws, name: file },
      { from, location: path.join(REAL, file) },
      { dryRun, webhooks: false, remoteMedia: false },
    );
  const dryRun = await run(true);
  const summary = await run(false);
  return {
    ws,
    summary,
    dryRun,
    get,
    async posts() {
      const all: ApiPost[] = [];
      for (let page = 1; ; page += 1) {
        const body = await get(`/v1/posts?status=all&limit=100&page=${page}`);
        const posts = body.posts as { slug: string }[];
        for (const { slug } of posts)
          all.push((await get(`/v1/posts/${encodeURIComponent(slug)}?status=all`)).post as ApiPost);
        if (posts.length < 100) return all;
      }
    },
  };
}

export interface BodyShape {
  paragraphs: number;
  links: number;
  images: number;
  headings: number;
  codeBlocks: number;
}

/** What a body is made of, counted by its tags: what an import must carry over whole. */
export function bodyShape(html: string): BodyShape {
  const count = (pattern: RegExp) => (html.match(pattern) ?? []).length;
  return {
    paragraphs: count(/<p[\s>]/gi),
    links: count(/<a\s[^>]*href=/gi),
    images: count(/<img\s/gi),
    headings: count(/<h[1-6][\s>]/gi),
    codeBlocks: count(/<pre[\s>]/gi),
  };
}

/** "2010-10-20 14:08:20" (a date without a zone, as WordPress's GMT and Ghost's older dates are) in UTC. */
export const utc = (value: string): string => new Date(`${value.replace(" ", "T")}Z`).toISOString();

/** What a text its reader sees must not hold: a tag, a character reference. */
export const A_TAG = /<\/?[a-z][^>]*>/i;
export const NO_ENTITY = /&(#\d+|#x[0-9a-f]+|[a-z]+\d*);/i;
