import net from 'node:net';

/** A server that answers every connection with `answer` and hangs up, listening where `listen` says. */
export async function answeringServer(answer: string, listen: (server: net.Server, ready: () => void) => void) {
  const server = net.createServer((client) => client.end(`${answer}\n`));
  await new Promise<void>((resolve) => listen(server, resolve));
  return {
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A service of the machine on a Unix socket file. */
export function unixService(socket: string, answer: string) {
  return answeringServer(answer, (server, ready) => server.listen(socket, ready));
}
