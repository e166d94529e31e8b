// Runs a route's GraphQL operation in-process through the same Yoga/envelop pipeline and context as
// /graphql. Documents are parsed and validated once, at start, not per request, and their complexity is
// known per page size (known-complexity.ts) rather than walked on every request.
import type { Request, Response } from "express";
import { type DocumentNode, type ExecutionResult, parse, validate } from "graphql";
import { queryLimits } from "../graphql/builder.ts";
import { checkKnownComplexity } from "../graphql/known-complexity.ts";
import { runCompiled } from "../graphql/use-compiled-operations.ts";
import type { ContentYoga } from "../graphql/yoga.ts";

export interface PreparedOperation {
  document: DocumentNode;
}

export function prepareOperation(yoga: ContentYoga, source: string, name: string): PreparedOperation {
  const document = parse(source);
  const { schema } = yoga.getEnveloped({});
  const errors = validate(schema, document);
  if (errors.length)
    throw new Error(
      `REST route ${name}: invalid GraphQL document: ${errors.map((e) => e.message).join("; ")}`,
    );
  runCompiled(document);
  return { document };
}

export async function executeOperation(
  yoga: ContentYoga,
  operation: PreparedOperation,
  variables: Record<string, unknown>,
  req: Request,
  res: Response,
): Promise<ExecutionResult> {
  const { contextFactory, execute, schema } = yoga.getEnveloped({ req, res });
  const contextValue = await contextFactory();
  const tooComplex = checkKnownComplexity(
    schema,
    operation.document,
    variables,
    queryLimits(contextValue.services.config),
    contextValue,
  );
  if (tooComplex) return { errors: [tooComplex] };
  return (await execute({
    schema,
    document: operation.document,
    variableValues: variables,
    contextValue,
  })) as ExecutionResult;
}
