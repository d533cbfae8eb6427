import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect as netConnect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** PEM files of a throwaway PKI, made with the `openssl` CLI: paths, for the TEMPORAL_TLS_* variables. */
export interface TestPki {
  dir: string;
  caCert: string;
  /** A second CA that signed nothing here: trusting it instead of `caCert` must fail. */
  otherCaCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The only name the server certificate carries (not 127.0.0.1: clients must override the name). */
  serverName: string;
  remove(): Promise<void>;
}

const openssl = (dir: string, args: string[]) => execFileAsync('openssl', args, { cwd: dir });

async function makeCa(dir: string, name: string): Promise<void> {
  await openssl(dir, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=rvs test ${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

async function makeLeaf(dir: string, name: string, extensions: string): Promise<void> {
  await openssl(dir, ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  await writeFile(path.join(dir, `${name}.ext`), extensions);
  await openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', String(Date.now()), '-days', '2', '-out', `${name}.pem`, '-extfile', `${name}.ext`]);
}

/** A CA, a server certificate for `serverName` and a client certificate it signed, plus an unrelated CA. */
export async function makeTestPki(serverName = 'temporal.rvs.test'): Promise<TestPki> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rvs-pki-'));
  await makeCa(dir, 'ca');
  await makeCa(dir, 'other-ca');
  await makeLeaf(dir, 'server', `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${serverName}\n`);
  await makeLeaf(dir, 'client', 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n');
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    caCert: file('ca.pem'),
    otherCaCert: file('other-ca.pem'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
    clientCert: file('client.pem'),
    clientKey: file('client.key'),
    serverName,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface TlsTerminator {
  /** `127.0.0.1:<port>`, for TEMPORAL_ADDRESS. */
  address: string;
  /** Connections that completed the handshake with a client certificate the CA signed. */
  authorizedConnections(): number;
  close(): Promise<void>;
}

/**
 * A TLS terminator in front of a plaintext gRPC server (the Temporal dev server): it requires a
 * client certificate signed by the PKI's CA (mutual TLS), offers h2 by ALPN as gRPC clients
 * expect, and pipes the decrypted bytes to `upstream` unchanged.
 */
export async function startTlsTerminator(pki: TestPki, upstream: string): Promise<TlsTerminator> {
  const [cert, key, ca] = await Promise.all([readFile(pki.serverCert), readFile(pki.serverKey), readFile(pki.caCert)]);
  const separator = upstream.lastIndexOf(':');
  const upstreamHost = upstream.slice(0, separator);
  const upstreamPort = Number(upstream.slice(separator + 1));
  let authorized = 0;
  const sockets = new Set<Socket>();
  const server = createTlsServer({ cert, key, ca, requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] }, (client: TLSSocket) => {
    if (client.authorized) authorized += 1;
    const backend = netConnect(upstreamPort, upstreamHost);
    sockets.add(client).add(backend);
    const drop = () => {
      client.destroy();
      backend.destroy();
      sockets.delete(client);
      sockets.delete(backend);
    };
    client.on('error', drop).on('close', drop);
    backend.on('error', drop).on('close', drop);
    client.pipe(backend).pipe(client);
  });
  // Handshakes refused for a missing or foreign client certificate are the point of some tests.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    authorizedConnections: () => authorized,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
