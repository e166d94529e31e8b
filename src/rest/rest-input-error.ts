// Thrown by a route's `variables` when the request cannot become an operation (e.g. a bad upload).
export class RestInputError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message ?? body.error));
  }
}
