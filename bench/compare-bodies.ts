// The baseline only counts if it answers with the same JSON as the service. Compares two parsed bodies
// (key order ignored; tags sorted by name then id on both sides, since tags with equal names have no
// defined order) and names the first difference.
export function firstDifference(expected: unknown, actual: unknown, path = "$"): string | null {
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual)) return `${path}: array vs ${typeof actual}`;
    if (expected.length !== actual.length) return `${path}: length ${expected.length} vs ${actual.length}`;
    const [left, right] = path.endsWith(".tags")
      ? [sortTags(expected), sortTags(actual)]
      : [expected, actual];
    for (let i = 0; i < left.length; i++) {
      const diff = firstDifference(left[i], right[i], `${path}[${i}]`);
      if (diff) return diff;
    }
    return null;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of keys) {
      if (!(key in expected))
        return `${path}.${key}: unexpected (${JSON.stringify(actual[key])?.slice(0, 80)})`;
      if (!(key in actual)) return `${path}.${key}: missing`;
      const diff = firstDifference(expected[key], actual[key], `${path}.${key}`);
      if (diff) return diff;
    }
    return null;
  }
  return Object.is(expected, actual)
    ? null
    : `${path}: ${JSON.stringify(expected)?.slice(0, 80)} vs ${JSON.stringify(actual)?.slice(0, 80)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sortTags(tags: unknown[]): unknown[] {
  const key = (t: unknown) => (isObject(t) ? `${String(t.name)}\u0000${String(t.id)}` : "");
  return [...tags].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
