// /v1/media: upload (multipart form), list, get, update, delete.
import { z } from "zod";
import type { Config } from "../../config.ts";
import { readMultipartUpload } from "../../media/read-upload.ts";
import { MalformedUploadError, UploadTooLargeError } from "../../media/upload-errors.ts";
import { LIMIT_PARAM, PAGE_PARAM } from "../query-params.ts";
import { RestInputError } from "../rest-input-error.ts";
import type { RestRoute } from "../route.ts";
import { DeleteResultShape, MediaShape, PaginationShape } from "../shapes.ts";
import { graphqlEnum, PAGINATION_SELECTION, withRestEnum } from "./conventions.ts";

const FIELDS = "id name url alt size mimeType width height duration blurHash type createdAt updatedAt";
const toMedia = (media: Record<string, unknown>) => withRestEnum(media, "type");

export function mediaRoutes(config: Config): RestRoute[] {
  const maxBytes = config.media.maxBytes;
  return [
    {
      name: "listMedia",
      method: "get",
      cached: true,
      path: "/media",
      tag: "Media",
      summary: "List media, newest first",
      query: [
        LIMIT_PARAM,
        PAGE_PARAM,
        {
          name: "type",
          kind: "enum",
          values: ["image", "video", "audio", "document"],
          description: "Only this kind",
        },
        { name: "query", kind: "string", maxLength: 200, description: "Part of the name, case-insensitive" },
        {
          name: "order",
          kind: "enum",
          values: ["asc", "desc"],
          default: "desc",
          description: "By createdAt",
        },
      ],
      document: `query List($limit: Int, $page: Int, $type: MediaType, $query: String, $order: SortOrder) {
        mediaList(limit: $limit, page: $page, type: $type, query: $query, order: $order) { items { ${FIELDS} } ${PAGINATION_SELECTION} }
      }`,
      variables: ({ query }) => ({
        ...query,
        type: graphqlEnum(query.type),
        order: graphqlEnum(query.order),
      }),
      reshape: (data) => {
        const page = data.mediaList as { items: Record<string, unknown>[]; pagination: unknown };
        return { media: page.items.map(toMedia), pagination: page.pagination };
      },
      status: 200,
      response: z.object({ media: z.array(MediaShape), pagination: PaginationShape }),
    },
    {
      name: "getMedia",
      method: "get",
      cached: true,
      path: "/media/{id}",
      tag: "Media",
      summary: "Get a media record",
      document: `query Get($id: ID!) { media(id: $id) { ${FIELDS} } }`,
      variables: ({ params }) => ({ id: params.id }),
      reshape: (data) => ({ media: toMedia(data.media as Record<string, unknown>) }),
      status: 200,
      response: z.object({ media: MediaShape }),
    },
    {
      name: "uploadMedia",
      method: "post",
      path: "/media/upload",
      tag: "Media",
      summary: `Upload a file (multipart form; at most ${maxBytes} bytes); its type is detected from its bytes`,
      multipart: {
        schema: {
          file: { type: "string", format: "binary" },
          name: { type: "string", description: "Defaults to the file name" },
          alt: { type: "string" },
        },
        required: ["file"],
      },
      document: `mutation Upload($file: Upload!, $name: String, $alt: String) {
        uploadMedia(file: $file, name: $name, alt: $alt) { ${FIELDS} }
      }`,
      variables: async ({ req }) => {
        try {
          const upload = await readMultipartUpload(req, { maxBytes });
          if (!upload.file) {
            throw new RestInputError(400, {
              error: "Validation failed",
              message: "A file is required",
              details: [{ field: "file", message: "Required" }],
            });
          }
          const { bytes, filename, claimedType } = upload.file;
          return {
            file: new File([bytes as Uint8Array<ArrayBuffer>], filename || "upload", { type: claimedType }),
            name: upload.fields.name,
            alt: upload.fields.alt,
          };
        } catch (error) {
          if (error instanceof UploadTooLargeError)
            throw new RestInputError(413, { error: "Payload too large", message: error.message });
          if (error instanceof MalformedUploadError) {
            throw new RestInputError(400, {
              error: "Validation failed",
              message: error.message,
              details: [{ field: "file", message: error.message }],
            });
          }
          throw error;
        }
      },
      reshape: (data) => ({ media: toMedia(data.uploadMedia as Record<string, unknown>) }),
      errors: { 503: "The media storage did not answer in time; Retry-After says when to try again" },
      status: 201,
      response: z.object({ media: MediaShape }),
    },
    {
      name: "updateMedia",
      method: "patch",
      path: "/media/{id}",
      tag: "Media",
      summary: "Update a media record's name or alt text",
      body: z.object({ name: z.string().min(1).optional(), alt: z.string().nullable().optional() }),
      document: `mutation Update($id: ID!, $name: String, $alt: String) { updateMedia(id: $id, name: $name, alt: $alt) { ${FIELDS} } }`,
      variables: ({ params, body }) => ({ id: params.id, ...(body as object) }),
      reshape: (data) => ({ media: toMedia(data.updateMedia as Record<string, unknown>) }),
      status: 200,
      response: z.object({ media: MediaShape }),
    },
    {
      name: "deleteMedia",
      method: "delete",
      path: "/media/{id}",
      tag: "Media",
      summary: "Delete a media record and its file",
      document: "mutation Delete($id: ID!) { deleteMedia(id: $id) { id } }",
      variables: ({ params }) => ({ id: params.id }),
      reshape: (data) => data.deleteMedia,
      status: 200,
      response: DeleteResultShape,
    },
  ];
}
