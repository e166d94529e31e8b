// `prisma dev`'s local streams server is not installed in this project (see package.json).
export async function startLocalDurableStreamsServer() {
  throw new Error("@prisma/streams-local is not installed: this project does not use `prisma dev`");
}
