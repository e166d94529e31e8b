// Introspection is priced before execution, like every other field: the Pothos complexity plugin only
// sees the schema's own fields, so `__schema { types { fields { … } } }` under thousands of aliases cost
// nothing and could answer tens of megabytes. The schema is known before execution, so the answer's
// size is too: an introspection selection costs one per object its answer would hold (a type, a
// field, an argument, an enum value, a type reference), counted by walking the schema with graphql-js'
// own introspection resolvers.
import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  type ValidationContext,
} from "graphql";
import { getArgumentValues } from "graphql/execution/values.js";

/** Thrown inside the walk to stop counting as soon as the budget is spent. */
class BudgetExceeded extends Error {}

export interface IntrospectionCostOptions {
  /** Most objects one operation's introspection may answer. */
  max: number;
  /** Reports a refused operation (the caller turns it into its own error). */
  onExceeded: (context: ValidationContext, cost: { actual: number | null; max: number }) => void;
}

/** A validation rule: refuses an operation whose introspection would answer more than `max` objects. */
export function introspectionCostRule(options: IntrospectionCostOptions) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation: OperationDefinitionNode) {
      if (operation.operation !== "query") return;
      const counter = new IntrospectionCounter(context, options.max);
      try {
        const cost = counter.rootCost(operation.selectionSet);
        if (cost > options.max) options.onExceeded(context, { actual: cost, max: options.max });
      } catch (error) {
        if (!(error instanceof BudgetExceeded)) throw error;
        options.onExceeded(context, { actual: null, max: options.max });
      }
    },
  });
}

class IntrospectionCounter {
  private spent = 0;
  /** A fragment spread inside itself is invalid (another rule says so); here it must not loop. */
  private readonly activeFragments = new Set<string>();
  private readonly schema: GraphQLSchema;
  private readonly variables: Record<string, unknown>;

  constructor(
    private readonly context: ValidationContext,
    private readonly max: number,
  ) {
    this.schema = context.getSchema();
    // Validation runs before variables are coerced, so an argument given as a variable counts as unset:
    // for `includeDeprecated` that leaves out deprecated entries, for `__type(name: $name)` the type.
    // Both are small next to what the budget guards against (whole schemas under many aliases).
    this.variables = {};
  }

  /** The root selection: only `__schema` and `__type` answer introspection objects. */
  rootCost(selectionSet: SelectionSetNode): number {
    for (const field of this.fields(selectionSet)) {
      if (field.name.value === "__schema") this.countSelection(field, SchemaMetaFieldDef, this.schema);
      if (field.name.value === "__type") {
        const name = this.argumentsOf(TypeMetaFieldDef, field).name;
        const type = typeof name === "string" ? this.schema.getType(name) : undefined;
        if (type) this.countSelection(field, TypeMetaFieldDef, type);
      }
    }
    return this.spent;
  }

  /** Counts the objects `value` contributes through `fieldNode`'s selection of `field`. */
  private countSelection(fieldNode: FieldNode, field: GraphQLField<unknown, unknown>, value: unknown): void {
    const selectionSet = fieldNode.selectionSet;
    const type = getNamedType(field.type);
    if (!selectionSet || !isObjectType(type)) return;
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (item === null || item === undefined) continue;
      this.spend(1);
      for (const child of this.fields(selectionSet)) this.countField(child, type, item);
    }
  }

  private countField(node: FieldNode, parentType: GraphQLObjectType, parent: unknown): void {
    if (!node.selectionSet) return;
    const field = parentType.getFields()[node.name.value];
    if (!field?.resolve) return;
    const args = this.argumentsOf(field, node);
    // graphql-js' introspection resolvers read only their parent, arguments and (for __Type.name and
    // a few others) nothing from `info`; they never touch the context.
    const value = field.resolve(parent, args, undefined, { schema: this.schema } as never);
    this.countSelection(node, field, value);
  }

  /**
   * A field's arguments as far as the document gives them. A required argument given as a variable has
   * no value yet (graphql-js would throw "was not provided a runtime value"): the field is then priced
   * as if it had none, as the constructor's comment says, never refused.
   */
  private argumentsOf(field: GraphQLField<unknown, unknown>, node: FieldNode): Record<string, unknown> {
    try {
      return getArgumentValues(field, node, this.variables);
    } catch {
      return {};
    }
  }

  /** The fields of a selection set, fragments spread in place. */
  private *fields(selectionSet: SelectionSetNode): Generator<FieldNode> {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) yield selection;
      else if (selection.kind === Kind.INLINE_FRAGMENT) yield* this.fields(selection.selectionSet);
      else {
        const name = selection.name.value;
        const fragment: FragmentDefinitionNode | null | undefined = this.context.getFragment(name);
        if (!fragment || this.activeFragments.has(name)) continue;
        this.activeFragments.add(name);
        yield* this.fields(fragment.selectionSet);
        this.activeFragments.delete(name);
      }
    }
  }

  private spend(cost: number): void {
    this.spent += cost;
    if (this.spent > this.max) throw new BudgetExceeded();
  }
}
