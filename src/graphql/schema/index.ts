// Imports every resource so its types, queries and mutations register with the builder.
import { builder } from "../builder.ts";
import "./enums.ts";
import "./post.ts";
import "./post-revision.ts";
import "./post-preview.ts";
import "./category.ts";
import "./tag.ts";
import "./taxonomy-posts.ts";
import "./author.ts";
import "./field.ts";
import "./locale.ts";
import "./media.ts";
import "./event.ts";
import "./webhook.ts";
import "./webhook-delivery.ts";
import "./subscription.ts";
import "./changes.ts";
import "./api-key.ts";

/** The schema as the resources define it; executable-schema.ts prepares it for running. */
export const definedSchema = builder.toSchema({ sortSchema: true });
