// Requests Node's HTTP parser refuses before any handler sees them (a URL or headers over its 16 KiB
// limit, a malformed request line) get the service's JSON error body too, not Node's bare status line.
import type { Server } from "node:http";
import type { Duplex } from "node:stream";

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 431: "Request Header Fields Too Large" };

export function answerParserErrorsWithJson(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset or a timeout has no one left to answer.
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify(
      tooLarge
        ? {
            error: "Request header fields too large",
            message: "The URL or the headers exceed 16 KiB; send long filters in fewer, shorter parameters",
          }
        : { error: "Bad request", message: "The request could not be parsed as HTTP" },
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
