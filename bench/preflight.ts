// One request per step before a route is loaded: a route that answers with the wrong status (or a
// GraphQL error) is reported instead of measured, and the body is kept for the baseline comparison.
import type { ChildServer } from "./processes.ts";
import { renderStep, type Scenario, type Step, type StepContext, sendStep } from "./scenarios.ts";

export async function preflightScenario(
  server: ChildServer,
  scenario: Scenario,
  keys: Record<Step["key"], string>,
): Promise<{ body: unknown; text: string; problem?: string }> {
  const ctx: StepContext = {};
  let body: unknown;
  let text = "";
  for (const [i, step] of scenario.steps.entries()) {
    const rendered = renderStep(step, ctx, 2_000_000 + i);
    if (!rendered) return { body, text, problem: `${step.label}: previous step gave no result` };
    if (step.revalidate) {
      const first = await sendStep(server.url, { ...step, headers: {} }, rendered, keys[step.key]);
      await first.arrayBuffer();
      const etag = first.headers.get("etag");
      if (!etag) return { body, text, problem: `${step.label}: the answer carries no ETag` };
      step.headers = { "if-none-match": etag };
    }
    const response = await sendStep(server.url, step, rendered, keys[step.key]);
    text = await response.text();
    try {
      body = text === "" ? text : JSON.parse(text);
    } catch {
      body = text;
    }
    if (response.status !== step.expectStatus) {
      return {
        body,
        text,
        problem: `${step.label} answered ${response.status} (expected ${step.expectStatus}): ${text.slice(0, 300)}`,
      };
    }
    if (scenario.id === "graphql" && (body as { errors?: unknown }).errors) {
      return {
        body,
        text,
        problem: `GraphQL errors: ${JSON.stringify((body as { errors: unknown }).errors).slice(0, 300)}`,
      };
    }
    step.capture?.(body, ctx);
  }
  return { body, text };
}
