// The schema every execution runs (Yoga, REST's compiled queries, tests): the resources' schema
// (schema/index.ts) with the execution machinery's field-level preparations applied once, so that no
// schema file depends on how it is executed.
import { recordAnswerRecords } from "./execution/answer-records.ts";
import { internCompiledPaths } from "./execution/compiled-paths.ts";
import { applyScopeRules } from "./execution/scope-rules.ts";
import { answerReadModelRowsDirectly } from "./read-model/read-model-fields.ts";
import { definedSchema } from "./schema/index.ts";

export const schema = definedSchema;
internCompiledPaths(schema);
answerReadModelRowsDirectly(schema);
recordAnswerRecords(schema);
// Last: a field a key may not use refuses before anything the steps above made of it runs.
applyScopeRules(schema);
