// The writes the benches make as an editor would, and the slugs they pick from: `bench:writers` and
// `bench:replicas` both edit published posts while reads are measured.

/** Every published post's slug, newest first. */
export async function publishedSlugs(baseUrl: string, publicKey: string): Promise<string[]> {
  const slugs: string[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${baseUrl}/v1/posts?limit=100&page=${page}`, {
      headers: { authorization: publicKey },
    });
    if (!res.ok) throw new Error(`GET /v1/posts page ${page} answered ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { posts: { slug: string }[]; pagination: { nextPage: number | null } };
    slugs.push(...body.posts.map((post) => post.slug));
    // The last page, full or not: asking past it is a 400.
    if (body.pagination.nextPage === null) return slugs;
  }
}

/** One write of the bench: a PATCH of a post's title, as an editor's save sends it. */
export function patchTitle(
  baseUrl: string,
  privateKey: string,
  slug: string,
  title: string,
): Promise<Response> {
  return fetch(`${baseUrl}/v1/posts/${slug}`, {
    method: "PATCH",
    headers: { authorization: privateKey, "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
}

/** One write: the target's title PATCHed; whether it succeeded. */
export async function patchOnce(baseUrl: string, privateKey: string, target: () => string): Promise<boolean> {
  const res = await patchTitle(baseUrl, privateKey, target(), `Edited at ${Date.now()}`).catch(() => null);
  await res?.arrayBuffer().catch(() => undefined);
  return res?.ok === true;
}
