/**
 * The token of an `Authorization: Bearer <token>` header, or null. One parser for both kinds of
 * credential, so that @fastify/jwt is handed exactly the token the API-key/JWT split looked at.
 */
export function bearerToken(authorization: string | undefined): string | null {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
  return match ? match[1]! : null;
}
