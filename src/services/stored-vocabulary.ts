/**
 * A text column of a closed vocabulary, as the vocabulary's type, for a presenter whose response
 * schema names the members. The service writes such columns only from the vocabulary; a value
 * outside it is corrupt data, and fails the request (as the response serializer would refuse it)
 * instead of being sent.
 */
export function storedMember<const T extends string>(vocabulary: readonly T[], value: string, column: string): T {
  if ((vocabulary as readonly string[]).includes(value)) return value as T;
  throw new Error(`${column} holds a value outside its vocabulary (${vocabulary.join(', ')})`);
}
