// A TCP proxy in front of the shared test Redis, so a test can take "Redis" away (or stall it) for its
// own limiter without stopping the server other test files are using.
import net from "node:net";

export interface TcpProxy {
  port: number;
  /** Closes the listener and every connection: clients see a dead Redis (connection refused). */
  stop(): Promise<void>;
  /** Listens again on the same port: Redis is back. */
  restart(): Promise<void>;
  /** Stops forwarding without closing anything (bytes wait in socket buffers): Redis hangs. */
  pause(): void;
  /** Delivers everything held since pause() and forwards again. */
  resume(): void;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || 6379);
  const sockets = new Set<net.Socket>();
  const clientSides = new Set<net.Socket>();
  let paused = false;

  const onConnection = (client: net.Socket) => {
    const upstream = net.connect(targetPort, target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    }
    clientSides.add(client);
    client.on("close", () => {
      clientSides.delete(client);
      upstream.destroy();
    });
    upstream.on("close", () => client.destroy());
    // Forwarded by hand rather than piped, so pause() is not undone by pipe's own flow control.
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => client.write(chunk));
    if (paused) client.pause();
  };

  let server = net.createServer(onConnection);
  await listen(server, 0);
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async restart() {
      server = net.createServer(onConnection);
      await listen(server, port);
    },
    pause() {
      paused = true;
      for (const client of clientSides) client.pause();
    },
    resume() {
      paused = false;
      for (const client of clientSides) client.resume();
    },
  };
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
}
