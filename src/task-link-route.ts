import type { IncomingMessage } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Runtime } from './runtime';
import { errorMessage } from './util/error-message';

/**
 * A task link (`<AQ_PUBLIC_URL>/tasks/<id>`) opened in a browser, served where the app listens
 * over HTTP: a redirect to the task's thread's channel in Slack, or a sentence when there is no
 * such task. The path keeps AQ_PUBLIC_URL's own path, for a proxy that passes it on.
 */
export function taskLinkRoute(runtime: Pick<Runtime, 'db'>, publicUrl: string): CustomRoute {
  const prefix = new URL(publicUrl).pathname.replace(/\/+$/, '');
  return {
    path: `${prefix}/tasks/:id`,
    method: 'GET',
    handler: (req, res) => {
      const id = String((req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? '');
      void runtime.db.taskThreads
        .get(id)
        .then((thread) => {
          if (!thread) {
            res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
            res.end(`There is no task ${id} here: it may have been deleted, or not have started yet.\n`);
            return;
          }
          const params = new URLSearchParams({ channel: thread.channelId });
          res.writeHead(302, { location: `https://slack.com/app_redirect?${params.toString()}` });
          res.end();
        })
        .catch((err: unknown) => {
          console.error(`The task link of ${id} was not answered: ${errorMessage(err)}`);
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('The app could not look up this task; try again later.\n');
        });
    },
  };
}
