// The TestApp's `request`: one fetch against a base URL, its body parsed as JSON when it is JSON. Shared
// by the in-process app (test-app.ts) and the built server process (server-process-app.ts).

export interface RequestOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  body: any;
  headers: Headers;
}

export async function requestJson(
  baseUrl: string,
  method: string,
  requestPath: string,
  opts: RequestOptions = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = opts.key;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  }
  const response = await fetch(baseUrl + requestPath, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: response.status, body: parsed, headers: response.headers };
}
