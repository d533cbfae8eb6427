import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy that can stop forwarding what clients send: a call made through it while
 * stalled never reaches the server. Tests put it between a process and Temporal to hold a
 * workflow start back while they kill the process that made it.
 */
export interface StallableProxy {
  /** host:port to connect to instead of the upstream. */
  address: string;
  /** From now on, bytes from clients are held back (buffered, never forwarded). */
  stall(): void;
  /** Destroys every connection (held bytes are dropped, never forwarded) and forwards again. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startStallableProxy(upstream: string): Promise<StallableProxy> {
  const [host, port] = upstream.split(':') as [string, string];
  let stalled = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const server = connect(Number(port), host);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        server.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (!stalled) server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('end', () => server.end());
    server.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    address: `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    stall: () => {
      stalled = true;
    },
    dropAll: () => {
      for (const socket of sockets) socket.destroy();
      stalled = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
