// The benchmarks' one way to print a line: to stdout, unbuffered by console's formatting, so that a
// bench's figures can be piped to a results file as they come.
export const log = (text: string): void => {
  process.stdout.write(`${text}\n`);
};
