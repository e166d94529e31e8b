// Checks real responses against the OpenAPI document of /v1: the response schema for (method, path
// template, status) is compiled with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) and the body
// must validate against it. Any suite can use it:
//
//   const res = await app.request("GET", "/v1/tags", { key });
//   expectMatchesOpenApi(res, "get", "/v1/tags");           // a template of the document
//   expectMatchesOpenApi(res, "get", "/v1/tags/js?include=posts"); // or the concrete path
//
// The document is the one the server serves: it is built from the same route table by the same function
// (test/api/openapi.test.ts proves the served document equals this one).

import type { ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect } from "vitest";
import { type Config, loadConfig } from "../../src/config.ts";
import { buildOpenApiDocument } from "../../src/rest/openapi.ts";
import { restRoutes } from "../../src/rest/routes/index.ts";

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document
export type OpenApiDocument = Record<string, any>;

export interface CheckedResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

const DOCUMENT_ID = "urn:content-api:openapi";
const METHODS = ["get", "post", "put", "patch", "delete", "options", "head"] as const;

/** The OpenAPI document the server builds for this configuration. */
export function openApiDocumentFor(config: Config): OpenApiDocument {
  return buildOpenApiDocument(restRoutes(config), config);
}

export class OpenApiChecker {
  readonly #ajv: InstanceType<typeof Ajv2020>;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    // The document is not a schema itself; registering it lets `$ref`s such as
    // `#/components/schemas/Error` resolve inside every response schema compiled from it.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ ...document, $id: DOCUMENT_ID }, DOCUMENT_ID, undefined, false);
  }

  /** Every (METHOD path) operation of the document, e.g. `GET /v1/posts/{identifier}`. */
  operations(): string[] {
    const paths = (this.document.paths ?? {}) as Record<string, Record<string, unknown>>;
    return Object.entries(paths).flatMap(([path, item]) =>
      METHODS.filter((method) => method in item).map((method) => `${method.toUpperCase()} ${path}`),
    );
  }

  /**
   * The path template of the document a concrete request path is served by, e.g.
   * `/v1/posts/hello?format=markdown` → `/v1/posts/{identifier}`. Like the router, a literal segment
   * wins over a parameter at the first position where two templates differ.
   */
  templateFor(path: string): string {
    const segments = path.split("?")[0]?.split("/") ?? [];
    const candidates = Object.keys(this.document.paths ?? {})
      .map((template) => template.split("/"))
      .filter(
        (parts) =>
          parts.length === segments.length && parts.every((part, i) => isParam(part) || part === segments[i]),
      );
    candidates.sort((a, b) => {
      const i = a.findIndex((part, j) => isParam(part) !== isParam(b[j] ?? ""));
      return i < 0 ? 0 : isParam(a[i] ?? "") ? 1 : -1;
    });
    const best = candidates[0];
    if (!best) throw new Error(`No path of the OpenAPI document serves ${path}`);
    return best.join("/");
  }

  /** The statuses the document declares for an operation (throws for an undocumented operation). */
  statuses(method: string, pathTemplate: string): string[] {
    return Object.keys(this.#operation(method, pathTemplate).responses ?? {});
  }

  /** Problems of a response against the document; empty when it matches. */
  problems(response: CheckedResponse, method: string, pathTemplate: string): string[] {
    const operation = this.#operation(method, pathTemplate);
    const status = String(response.status);
    const declared = operation.responses?.[status];
    const where = `${method.toUpperCase()} ${pathTemplate} → ${status}`;
    if (!declared)
      return [
        `${where}: status not declared (declared: ${Object.keys(operation.responses ?? {}).join(", ")})`,
      ];
    const content = declared.content as Record<string, unknown> | undefined;
    if (!content?.["application/json"]) return [`${where}: no application/json content declared`];
    const contentType = response.headers.get("content-type") ?? "";
    const problems: string[] = [];
    if (!contentType.startsWith("application/json"))
      problems.push(`${where}: content-type is "${contentType}"`);
    const validate = this.#validator(method, pathTemplate, status);
    if (!validate(response.body)) {
      for (const error of validate.errors ?? []) {
        problems.push(
          `${where}: ${error.instancePath || "(body)"} ${error.message} ${JSON.stringify(error.params)}`,
        );
      }
    }
    return problems;
  }

  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document
  #operation(method: string, pathTemplate: string): Record<string, any> {
    const operation = this.document.paths?.[pathTemplate]?.[method.toLowerCase()];
    if (!operation)
      throw new Error(`The OpenAPI document has no operation ${method.toUpperCase()} ${pathTemplate}`);
    return operation;
  }

  #validator(method: string, pathTemplate: string, status: string): ValidateFunction {
    const pointer = [
      "paths",
      pathTemplate,
      method.toLowerCase(),
      "responses",
      status,
      "content",
      "application/json",
      "schema",
    ]
      .map((part) => encodeURIComponent(part.replace(/~/g, "~0").replace(/\//g, "~1")))
      .join("/");
    const cacheKey = `${method} ${pathTemplate} ${status}`;
    let validate = this.#validators.get(cacheKey);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
      this.#validators.set(cacheKey, validate);
    }
    return validate;
  }
}

const isParam = (segment: string) => /^\{\w+\}$/.test(segment);

let defaultChecker: OpenApiChecker | undefined;

/** The checker of the default test configuration (what `startTestApp()` serves). */
export function openApiChecker(): OpenApiChecker {
  defaultChecker ??= new OpenApiChecker(
    openApiDocumentFor(loadConfig({ LOG_LEVEL: "silent", PUBLIC_URL: "http://media.test" })),
  );
  return defaultChecker;
}

/**
 * Fails the test when the response's status is undeclared or its body does not match its schema.
 * `path` is a template of the document (`/v1/posts/{identifier}`) or the concrete path requested
 * (`/v1/posts/hello?format=markdown`), whose template is then looked up.
 */
export function expectMatchesOpenApi(response: CheckedResponse, method: string, path: string): void {
  const checker = openApiChecker();
  const template = path.includes("{") ? path : checker.templateFor(path);
  expect(checker.problems(response, method, template), JSON.stringify(response.body)).toEqual([]);
}
