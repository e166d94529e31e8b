// Runs a route's GraphQL operation in-process, with the same schema, context and rules as /graphql.
// Documents are parsed and validated once, at start, not per request. Queries are compiled once too and
// run without Yoga's per-request machinery (src/graphql/in-process-queries.ts); mutations go through
// the same Yoga/envelop pipeline as /graphql. Complexity is known per page size (known-complexity.ts)
// rather than walked on every request.
import type { Request, Response } from "express";
import { type DocumentNode, type ExecutionResult, parse, validate } from "graphql";
import { queryLimits } from "../graphql/builder.ts";
import type { CompiledOperation, InProcessQueries } from "../graphql/execution/in-process-queries.ts";
import { checkKnownComplexity } from "../graphql/execution/known-complexity.ts";
import type { ContentYoga } from "../graphql/yoga.ts";

export interface PreparedOperation {
  document: DocumentNode;
  /** A query's compiled form; null for a mutation. */
  compiled: CompiledOperation | null;
}

export function prepareOperation(
  yoga: ContentYoga,
  queries: InProcessQueries,
  source: string,
  name: string,
): PreparedOperation {
  const document = parse(source);
  const { schema } = yoga.getEnveloped({});
  const errors = validate(schema, document);
  if (errors.length)
    throw new Error(
      `REST route ${name}: invalid GraphQL document: ${errors.map((e) => e.message).join("; ")}`,
    );
  return { document, compiled: queries.compile(document) };
}

export async function executeOperation(
  yoga: ContentYoga,
  queries: InProcessQueries,
  operation: PreparedOperation,
  variables: Record<string, unknown>,
  req: Request,
  res: Response,
): Promise<ExecutionResult> {
  if (operation.compiled) {
    const result = await queries.execute(operation.compiled, variables, req);
    if (result) return result;
  }
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
