// A GraphQL subscription over Server-Sent Events, as a browser's EventSource or graphql-sse client
// would make it: POST /graphql with `accept: text/event-stream`, reading `event: next` messages.
export interface SseSubscription {
  /** Payloads received so far (each `data` of an `event: next`). */
  received: { data?: Record<string, unknown>; errors?: unknown[] }[];
  /** Resolves when `predicate` holds, or fails after `timeoutMs`. */
  waitFor(predicate: (received: SseSubscription["received"]) => boolean, timeoutMs?: number): Promise<void>;
  /** Whether the server ended the stream (the connection's body ended). */
  ended(): boolean;
  /** Whether the server sent `event: complete`. */
  completed(): boolean;
  close(): void;
}

export async function subscribe(baseUrl: string, key: string, query: string): Promise<SseSubscription> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/graphql`, {
    method: "POST",
    headers: { authorization: key, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  if (response.status !== 200 || !response.body)
    throw new Error(`subscription answered ${response.status}: ${await response.text()}`);
  const received: SseSubscription["received"] = [];
  let finished = false;
  let completed = false;
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = message.split("\n");
          const event = lines
            .find((line) => line.startsWith("event:"))
            ?.slice(6)
            .trim();
          const data = lines
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trim())
            .join("\n");
          if (event === "next" && data) received.push(JSON.parse(data));
          if (event === "complete") completed = true;
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // Aborted by close().
    }
    finished = true;
  })();
  return {
    received,
    async waitFor(predicate, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`subscription: not met in ${timeoutMs} ms; got ${JSON.stringify(received)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    ended: () => finished,
    completed: () => completed,
    close: () => controller.abort(),
  };
}
