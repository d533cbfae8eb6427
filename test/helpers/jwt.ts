import { createHmac, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export type SigningKey =
  | { alg: 'RS256' | 'ES256'; key: KeyObject; kid?: string }
  | { alg: 'HS256'; secret: string | Buffer; kid?: string }
  | { alg: 'none' };

/** Signs with node:crypto directly, so tests can also build the tokens no library would (alg none, HMAC over a public key). */
export function signJwt(payload: Record<string, unknown>, signer: SigningKey, header: Record<string, unknown> = {}): string {
  const fullHeader = { alg: signer.alg, typ: 'JWT', ...('kid' in signer && signer.kid ? { kid: signer.kid } : {}), ...header };
  const input = `${b64url(fullHeader)}.${b64url(payload)}`;
  let signature: Buffer;
  if (signer.alg === 'none') signature = Buffer.alloc(0);
  else if (signer.alg === 'HS256') signature = createHmac('sha256', signer.secret).update(input).digest();
  else if (signer.alg === 'ES256') signature = sign('sha256', Buffer.from(input), { key: signer.key, dsaEncoding: 'ieee-p1363' });
  else signature = sign('sha256', Buffer.from(input), signer.key);
  return `${input}.${signature.toString('base64url')}`;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export interface RecordingServer {
  url: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** A JSON answer, or a function that answers by hand (trickles, redirects, oversized bodies). */
export type RecordedAnswer = { status: number; body: unknown } | ((res: http.ServerResponse) => void);

/** A real HTTP server on 127.0.0.1; `respond` returning undefined leaves the request hanging. */
export async function startRecordingServer(respond: (path: string) => RecordedAnswer | undefined): Promise<RecordingServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const answer = respond(req.url ?? '');
    if (!answer) return;
    if (typeof answer === 'function') return answer(res);
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
