// The body of a /graphql request, read and checked before Yoga sees it, so that the service's body limit and
// error bodies hold on this door as on /v1: at most BODY_LIMIT_BYTES (multipart uploads excepted: they
// are held to MEDIA_MAX_BYTES by Yoga's multipart parser), a content type GraphQL over HTTP defines,
// and every refusal a GraphQL error body (`{"errors":[{message, extensions:{code}}]}`) — never an
// empty answer.
import express, { type ErrorRequestHandler, type RequestHandler, type Response } from "express";
import type { GraphQLError } from "graphql";
import { badRequestError, payloadTooLargeError, unsupportedMediaTypeError } from "../graphql/errors.ts";
import { UploadTooLargeError } from "../media/upload-errors.ts";
import { JsonTooDeepError, nestsDeeperThan, refuseDeepJson } from "./json-depth.ts";

/** What Yoga parses a POST body as (its request parsers), besides multipart uploads. */
const TEXT_BODY_TYPES = [
  "application/json",
  "application/graphql+json",
  "application/graphql",
  "application/x-www-form-urlencoded",
];
const MULTIPART = "multipart/form-data";
const FORM = "application/x-www-form-urlencoded";

export function graphqlBody(options: {
  limitBytes: number;
  /** The largest file, and the largest whole multipart request (config.media). */
  mediaMaxBytes: number;
  multipartMaxBytes: number;
}): RequestHandler[] {
  const multipartMax = options.multipartMaxBytes;
  const isJson = (type: string) => type === "application/json" || type === "application/graphql+json";
  // JSON is parsed here into an object, which Yoga takes as it is. Other bodies are read as text: a
  // string body costs Yoga's request adapter time in proportion to its length (it lists the string's
  // keys), which the limit keeps small, and these types are rare.
  const readJson = express.json({
    type: (req) => isJson(mediaType(req.headers["content-type"])),
    limit: options.limitBytes,
    verify: refuseDeepJson,
  });
  const readText = express.text({
    type: (req) => {
      const type = mediaType(req.headers["content-type"]);
      return type !== MULTIPART && !isJson(type);
    },
    limit: options.limitBytes,
  });
  const checkType: RequestHandler = (req, res, next) => {
    if (req.method !== "POST") return next();
    const type = mediaType(req.headers["content-type"]);
    if (type === MULTIPART && Number(req.headers["content-length"] ?? 0) > multipartMax)
      return sendGraphQLError(
        res,
        payloadTooLargeError(new UploadTooLargeError(options.mediaMaxBytes).message),
      );
    if (type === MULTIPART || TEXT_BODY_TYPES.includes(type)) return next();
    sendGraphQLError(
      res,
      unsupportedMediaTypeError(
        `Send the operation as application/json (or ${TEXT_BODY_TYPES.slice(1).join(", ")}, ` +
          `or ${MULTIPART} for uploads); got ${type ? `"${type.slice(0, 100)}"` : "no Content-Type"}`,
      ),
    );
  };
  // Yoga's request adapter takes an empty object or string for "not read yet" and would wait for a
  // stream that is already consumed: answer an empty request here.
  const refuseEmpty: RequestHandler = (req, res, next) => {
    if (req.method !== "POST" || mediaType(req.headers["content-type"]) === MULTIPART) return next();
    const body: unknown = req.body;
    const empty =
      body === undefined ||
      body === "" ||
      (typeof body === "object" && body !== null && Object.keys(body).length === 0);
    if (!empty) return next();
    sendGraphQLError(res, badRequestError('The request body is empty; send {"query": "…"}'));
  };
  // A JSON body read by the cached-read door that did not parse: refused as express.json() refuses one.
  const readBefore: RequestHandler = (req, _res, next) => {
    if (!req.unparsableBody) return next();
    const { unparsableBody } = req;
    next(
      unparsableBody instanceof JsonTooDeepError
        ? unparsableBody
        : Object.assign(unparsableBody, { type: "entity.parse.failed", status: 400 }),
    );
  };
  return [checkType, readBefore, readJson, readText, refuseEmpty, refuseDeepParameters];
}

/**
 * Variables and extensions sent outside a JSON body (a GET's query string, a form-encoded POST) are
 * JSON text Yoga parses itself: held to the same nesting bound as JSON bodies.
 */
const refuseDeepParameters: RequestHandler = (req, res, next) => {
  const params =
    req.method === "GET"
      ? (req.query as Record<string, unknown>)
      : typeof req.body === "string" && mediaType(req.headers["content-type"]) === FORM
        ? Object.fromEntries(new URLSearchParams(req.body))
        : null;
  for (const name of ["variables", "extensions"]) {
    const value = params?.[name];
    if (typeof value === "string" && nestsDeeperThan(value))
      return sendGraphQLError(
        res,
        badRequestError(new JsonTooDeepError(`The \`${name}\` parameter`).message),
      );
  }
  next();
};

/** Errors of the body reader above, in GraphQL's shape. */
export function graphqlBodyErrors(): ErrorRequestHandler {
  return (error, _req, res, next) => {
    const type = (error as { type?: string }).type;
    if (type === "entity.too.deep") sendGraphQLError(res, badRequestError((error as Error).message));
    else if (type === "entity.parse.failed")
      sendGraphQLError(res, badRequestError("The request body is not valid JSON"));
    else if (type === "entity.too.large")
      sendGraphQLError(res, payloadTooLargeError("The request body exceeds the size limit"));
    else if (type === "encoding.unsupported" || type === "charset.unsupported")
      sendGraphQLError(res, unsupportedMediaTypeError("The request body's encoding is not supported"));
    else if (typeof (error as { status?: unknown }).status === "number" && error.status < 500)
      sendGraphQLError(res, badRequestError("The request body could not be read"));
    else next(error);
  };
}

/** A refusal in GraphQL's error shape, with the status the error carries (shared by /graphql's gates). */
export function sendGraphQLError(res: Response, error: GraphQLError): void {
  const status = (error.extensions.http as { status: number }).status;
  // The same body Yoga writes: `extensions.http` is how the status travels, not part of the answer.
  const { http: _http, ...extensions } = error.extensions;
  res.status(status).json({ errors: [{ message: error.message, extensions }] });
}

function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}
