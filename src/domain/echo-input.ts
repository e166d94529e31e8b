// Error messages repeat what the client sent (an identifier, a path, a field key) so the client can see
// what was refused. Only the start is repeated: an answer must not grow with the input, or a 20 MB
// identifier would come back whole in a 404.

/** Characters of client input an error message repeats; longer input is cut and marked with "…". */
export const ECHO_MAX_CHARS = 100;

export function echoInput(value: string): string {
  if (value.length <= ECHO_MAX_CHARS) return value;
  return `${value.slice(0, safeCut(value, ECHO_MAX_CHARS))}…`;
}

/**
 * For messages written by a library with client input somewhere inside (graphql-js' "Variable "$x" got
 * invalid value …; reason"): a long one keeps its start and its end, where the reason usually is.
 */
export function shortenMessage(message: string): string {
  const head = 2 * ECHO_MAX_CHARS;
  const tail = ECHO_MAX_CHARS;
  if (message.length <= head + tail) return message;
  return `${message.slice(0, safeCut(message, head))}…${message.slice(safeCut(message, message.length - tail))}`;
}

/** `at`, or one less where `at` would cut between the two halves of a surrogate pair (an emoji, say). */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}
