// Concurrent requests for the same not-yet-stored variant share one computation: the first starts it,
// the others await its promise. Without this a popular new image, asked for by many visitors at once,
// would be transformed once per visitor and take every transform slot.
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  /** The result of `work` for `key`, or of the call for `key` already under way. */
  run(key: string, work: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const started = work().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}
