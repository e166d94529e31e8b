// Refuses an operation whose variables or string literals hold U+0000 before it runs: the database
// cannot store or compare such text (see src/domain/null-bytes.ts), and a resolver would otherwise
// fail with a 500. Covers /graphql and the REST routes' in-process executions alike.
import type { Plugin } from "@envelop/core";
import { BREAK, type DocumentNode, type GraphQLError, visit } from "graphql";
import { echoInput } from "../../domain/echo-input.ts";
import { findUnstorableText, NUL_PROBLEM, unstorableTextProblem } from "../../domain/null-bytes.ts";
import { userInputError } from "../errors.ts";
import { keptPerDocument } from "../execution/per-document.ts";

export function useNullByteGuard(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = unstorableTextRefusal(args.document, args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}

/** The refusal of an operation with text the database cannot store, or null (also for REST's executions). */
export function unstorableTextRefusal(
  document: DocumentNode,
  variableValues: Record<string, unknown> | null | undefined,
): GraphQLError | null {
  const variable = findUnstorableText(variableValues ?? {});
  const found = variable
    ? { field: variable.path || "variables", problem: variable.problem }
    : literalWithUnstorableText(document);
  if (found === null) return null;
  const summary =
    found.problem === NUL_PROBLEM
      ? "Text must not contain the NUL character (U+0000)"
      : "Text must be well-formed Unicode";
  return userInputError(summary, [{ field: echoInput(found.field), message: found.problem }]);
}

type LiteralFinding = { field: string; problem: string } | null;

/** A string literal of the document (an argument or a default value) that cannot be stored; kept per document. */
const literalWithUnstorableText = keptPerDocument(findLiteralWithUnstorableText);

function findLiteralWithUnstorableText(document: DocumentNode): LiteralFinding {
  let problem: string | null = null;
  // visit() walks with its own stack, so a deeply nested document cannot overflow the call stack.
  visit(document, {
    StringValue(node) {
      problem = unstorableTextProblem(node.value);
      return problem === null ? undefined : BREAK;
    },
  });
  return problem === null ? null : { field: "literal", problem };
}
