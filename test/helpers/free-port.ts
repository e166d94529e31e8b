// A port for a child server to listen on, chosen by the kernel rather than at random: a random pick
// can collide with another listener on a busy CI machine.
import { type AddressInfo, createServer } from "node:net";

/** A port nothing listens on at the moment of asking: the kernel's pick, released at once. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
