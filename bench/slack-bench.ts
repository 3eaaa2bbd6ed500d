import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LogLevel } from '@slack/bolt';
import { loadConfig } from '../src/config';
import { startApp } from '../src/app';
import { FakeSlack } from '../test/support/fake-slack';
import { slashCommand } from '../test/support/slack-payloads';
import { seedProjects, seedTasks } from './seed';
import { percentiles, type BenchRow } from './table';

const SECRET = 'bench-secret';

/** Slash-command ack latency on loopback: 50 concurrent signed requests at a time, 10k tasks stored. */
export async function runSlackBench(rounds = 6, concurrency = 50): Promise<BenchRow[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-slack-bench-'));
  const slack = await FakeSlack.start();
  const config = loadConfig({ AQ_HOME: home, SLACK_BOT_TOKEN: 'xoxb-bench', SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.apiUrl });
  const started = await startApp(config, {
    port: 0,
    host: '127.0.0.1',
    logLevel: LogLevel.ERROR,
    clientOptions: { retryConfig: { retries: 0 } },
    daemon: false,
  });
  try {
    await seedTasks(started.runtime.db, await seedProjects(started.runtime.db, 50, config.workspaceDir), 10_000);
    const url = started.httpUrl!;
    const acks: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const batch = await Promise.all(
        Array.from({ length: concurrency }, (_, i) =>
          FakeSlack.postToApp(
            url,
            slashCommand({ text: i % 2 ? 'get_status' : 'list_tasks status=READY', responseUrl: slack.responseUrl(`b${round}-${i}`) }),
            { signingSecret: SECRET },
          ),
        ),
      );
      for (const r of batch) {
        if (r.status !== 200) throw new Error(`Ack failed with HTTP ${r.status}`);
        acks.push(r.elapsedMs);
      }
    }
    await slack.waitFor(() => slack.responses.length >= rounds * concurrency, 'every response', 60_000);
    const { median, p99 } = percentiles(acks);
    return [
      {
        name: `slash-command ack, ${concurrency} concurrent, 10k tasks`,
        value: `${median.toFixed(1)} ms median`,
        note: `p99 ${p99.toFixed(1)} ms, max ${Math.max(...acks).toFixed(1)} ms over ${acks.length} requests (Slack allows 3000 ms)`,
      },
    ];
  } finally {
    await started.stop();
    await slack.close();
    await rm(home, { recursive: true, force: true });
  }
}
