import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { CARDED_COMMANDS, type CardInputs } from '../../../src/slack/blocks/cards';

const root = path.resolve(__dirname, '../../..');

/**
 * The commands whose card takes a record of any keys (a string index signature): a card typed so
 * reads keys the type check cannot follow, and a renamed result key would reach Slack as an empty
 * line. `tsc` (part of `npm test`) fails on the assignment below with "Property '<command>' is
 * missing" for each such command.
 */
type UntypedCards = { [N in keyof CardInputs]: string extends keyof CardInputs[N] ? N : never }[keyof CardInputs];
const untypedCards: { [N in UntypedCards]: 'takes any record' } = {};

/**
 * Files under src/slack/blocks that may hold an untyped record, and why. Everywhere else a card
 * reads a command's result (and the rows in it) through the result's own type.
 */
const UNTYPED_ALLOWED: Record<string, string> = {
  'src/slack/blocks/generic.ts': 'draws any result, key by key, for commands without a card',
  'src/slack/blocks/cards.ts': 'where a result arrives by name and meets its declared type',
  'src/slack/blocks/render.ts': 'where a result arrives by name and meets its declared type',
  'src/slack/blocks/cards-thread.ts': "reads events' payloads, which are JSON per event type",
  'src/slack/blocks/cards-requests.ts': "reads events' payloads, which are JSON per event type",
  'src/slack/blocks/cards-conversation.ts': "reads events' payloads, which are JSON per event type",
  'src/slack/blocks/request-modals.ts': "reads a modal's private metadata back",
};

describe('cards are typed on the results they draw', () => {
  it('every card takes its command’s result, not any record', () => {
    expect(Object.keys(untypedCards)).toEqual([]);
    expect(CARDED_COMMANDS.length).toBeGreaterThan(50);
  });

  it('no card reads a result, or the rows in it, as an untyped record', () => {
    const found = fg.sync('src/slack/blocks/*.ts', { cwd: root }).flatMap((file) =>
      file in UNTYPED_ALLOWED
        ? []
        : readFileSync(path.join(root, file), 'utf8')
            .split('\n')
            .flatMap((line, i) => (/Record<string, unknown>/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it("a card for several commands reads each command's result by its own keys", () => {
    // AnyShape over several commands lets one command's card read another's key (a renamed key of
    // one result still compiles while another result has it): such cards take CommandAndResult.
    const found = fg.sync('src/slack/blocks/*.ts', { cwd: root }).flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/AnyShape<Result<(\w+Commands|'\w+' \|)/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
