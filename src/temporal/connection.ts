import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect as tlsConnect } from 'node:tls';
import type { TLSConfig } from '@temporalio/client';
import type { Config } from '../config';

/** What of the configuration a Temporal connection is made from. */
export type TemporalTarget = Pick<Config['temporal'], 'tls' | 'apiKey'> & { address: string };

/**
 * The options both `Connection.connect` (client: the API, and the worker's schedule fires) and
 * `NativeConnection.connect` (the worker's polling) take. They come from this one function so
 * the two cannot drift apart: a worker that polls over mutual TLS while its client still tries
 * plaintext would pick up runs and fail to start the scheduled ones.
 */
export interface TemporalConnectionOptions {
  address: string;
  /** null: plaintext. */
  tls: TLSConfig | null;
  /** Sent as `authorization: Bearer …` by the SDK (only over TLS, config.ts refuses the rest). */
  apiKey?: string;
}

/** A Temporal connection that could not be made at startup, with what was tried and why it failed. */
export class TemporalConnectError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TemporalConnectError';
  }
}

async function readPem(variable: string, file: string, check: (pem: Buffer) => void, what: string): Promise<Buffer> {
  let pem: Buffer;
  try {
    pem = await readFile(file);
  } catch (error) {
    throw new TemporalConnectError(`${variable}=${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    check(pem);
  } catch {
    throw new TemporalConnectError(`${variable}=${file} is not a PEM ${what}`);
  }
  return pem;
}

const checkCertificate = (pem: Buffer) => void new X509Certificate(pem);
const checkPrivateKey = (pem: Buffer) => void createPrivateKey(pem);

/** Reads the configured certificate files (a missing or malformed one is a TemporalConnectError naming its variable). */
export async function temporalConnectionOptions(target: TemporalTarget): Promise<TemporalConnectionOptions> {
  const apiKey = target.apiKey === undefined ? {} : { apiKey: target.apiKey };
  if (target.tls === null) return { address: target.address, tls: null, ...apiKey };
  const { serverCaCertPath, clientCertPath, clientKeyPath, serverName } = target.tls;
  const tls: TLSConfig = {};
  if (serverCaCertPath) tls.serverRootCACertificate = await readPem('TEMPORAL_TLS_SERVER_CA_CERT_PATH', serverCaCertPath, checkCertificate, 'certificate');
  if (clientCertPath && clientKeyPath) {
    tls.clientCertPair = {
      crt: await readPem('TEMPORAL_TLS_CLIENT_CERT_PATH', clientCertPath, checkCertificate, 'certificate'),
      key: await readPem('TEMPORAL_TLS_CLIENT_KEY_PATH', clientKeyPath, checkPrivateKey, 'private key'),
    };
  }
  if (serverName) tls.serverNameOverride = serverName;
  return { address: target.address, tls, ...apiKey };
}

/** How the connection was attempted, for an error message: variables and paths, never the API key. */
function describeAttempt(target: TemporalTarget): string {
  if (target.tls === null) return 'plaintext';
  const parts = [target.tls.serverCaCertPath ? `CA ${target.tls.serverCaCertPath}` : "the system's CAs"];
  if (target.tls.clientCertPath) parts.push(`client certificate ${target.tls.clientCertPath}`);
  if (target.tls.serverName) parts.push(`server name ${target.tls.serverName}`);
  if (target.apiKey !== undefined) parts.push('an API key');
  return `TLS (${parts.join(', ')})`;
}

/**
 * The SDKs report a failed handshake as "failed to connect before the deadline" (client) or a
 * transport error (worker) without the reason. This handshake, with the same files and name,
 * says why (unknown CA, a name the certificate does not carry, a refused client certificate);
 * undefined when it succeeds or cannot tell.
 */
async function tlsHandshakeProblem(target: TemporalTarget, options: TemporalConnectionOptions): Promise<string | undefined> {
  if (options.tls === null) return undefined;
  const separator = target.address.lastIndexOf(':');
  const host = target.address.slice(0, separator).replace(/^\[|\]$/g, '');
  const port = Number(target.address.slice(separator + 1));
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host,
      port,
      servername: options.tls?.serverNameOverride ?? host,
      ...(options.tls?.serverRootCACertificate ? { ca: Buffer.from(options.tls.serverRootCACertificate) } : {}),
      ...(options.tls?.clientCertPair
        ? { cert: Buffer.from(options.tls.clientCertPair.crt), key: Buffer.from(options.tls.clientCertPair.key) }
        : {}),
      ALPNProtocols: ['h2'],
      timeout: 5_000,
    });
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    // A refused client certificate shows up after the handshake, as an alert on the first read.
    socket.once('secureConnect', () => setTimeout(() => done(undefined), 200));
    socket.once('error', (error: NodeJS.ErrnoException) => done(`${error.code ? `${error.code}: ` : ''}${error.message}`));
    socket.once('timeout', () => done(undefined));
  });
}

/**
 * Connects with `connect` (Connection.connect or NativeConnection.connect) using the options
 * above. A failure becomes one TemporalConnectError that says where, how (plaintext or TLS with
 * which files) and why, so an entry point can print it and exit instead of a gRPC stack trace.
 */
export async function connectTemporal<C>(target: TemporalTarget, connect: (options: TemporalConnectionOptions) => Promise<C>): Promise<C> {
  const options = await temporalConnectionOptions(target);
  try {
    return await connect(options);
  } catch (error) {
    const handshake = await tlsHandshakeProblem(target, options).catch(() => undefined);
    const reason = handshake ? `${handshake} (the SDK said: ${causeChain(error)})` : causeChain(error);
    throw new TemporalConnectError(redact(`cannot connect to Temporal at ${target.address} over ${describeAttempt(target)}: ${reason}`, target.apiKey), {
      cause: error,
    });
  }
}

function causeChain(error: unknown): string {
  const messages: string[] = [];
  for (let e: unknown = error; e instanceof Error && messages.length < 4; e = e.cause) messages.push(e.message);
  return messages.length > 0 ? messages.join(': ') : String(error);
}

/** No SDK message is known to carry the key; this keeps it so should one start to. */
function redact(message: string, secret: string | undefined): string {
  return secret ? message.split(secret).join('****') : message;
}
