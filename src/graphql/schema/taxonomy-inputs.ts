// Inputs of category and tag writes (same shape, separate GraphQL names).
import { builder } from "../builder.ts";

export function TaxonomyCreateInput(name: string) {
  return builder.inputType(name, {
    fields: (t) => ({
      name: t.string({ required: true }),
      slug: t.string({ required: true }),
      description: t.string({ required: false }),
    }),
  });
}

export function TaxonomyUpdateInput(name: string) {
  return builder.inputType(name, {
    fields: (t) => ({
      name: t.string({ required: false }),
      slug: t.string({ required: false }),
      description: t.string({ required: false, description: "null clears it" }),
    }),
  });
}
