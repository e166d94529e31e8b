// GRAPHQL_INTROSPECTION=off: `__schema` and `__type` are refused for everyone, keys or not, as a
// validation error (graphql-js' NoSchemaIntrospectionCustomRule). GraphiQL then cannot read the schema.
import type { Plugin } from "@envelop/core";
import { NoSchemaIntrospectionCustomRule } from "graphql";

export function useNoIntrospection(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}
