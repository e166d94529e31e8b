// The REST suites' way to call a route: one workspace's request, its answer checked against the OpenAPI
// document where it is made, so an answer the contract does not describe fails the test that got it.

import type { TestResponse } from "./http-request.ts";
import { expectMatchesOpenApi } from "./openapi-check.ts";
import type { TestApp } from "./test-app.ts";

export interface CheckedCallOptions {
  /** The Authorization header; the workspace's private key when absent, none when "". */
  key?: string;
  body?: unknown;
}

export type CheckedCall = (
  method: string,
  path: string,
  template: string,
  options?: CheckedCallOptions,
) => Promise<TestResponse>;

/**
 * Calls on `app()` with `privateKey()` unless told another key, each answer checked against the
 * document's `template` (`/v1/tags/{identifier}`). Getters, since suites start the app in `beforeAll`.
 */
export function openApiClient(app: () => TestApp, privateKey: () => string): CheckedCall {
  return async (method, path, template, options = {}) => {
    const res = await app().request(method, path, { key: options.key ?? privateKey(), body: options.body });
    expectMatchesOpenApi(res, method.toLowerCase(), template);
    return res;
  };
}
