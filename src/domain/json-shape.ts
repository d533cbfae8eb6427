/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The shape of a value, for answers honest nodes fill differently but must frame alike: its JSON
 * type, an object's members' shapes, and an array's set of element shapes (a mempool of 3 or 300
 * transactions has the same shape).
 */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const shapes = new Map<string, unknown>();
    for (const item of value) {
      const shape = shapeOf(item);
      shapes.set(JSON.stringify(shape), shape);
    }
    return { array: [...shapes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, shape]) => shape) };
  }
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, shapeOf(field)]));
  return typeof value;
}
