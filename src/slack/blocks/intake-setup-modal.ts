import type { KnownBlock, View } from '@slack/types';
import { encodeOrigin, MODAL_CALLBACKS, type ModalOrigin, projectSelect, textInput } from './home-modals';
import { plainText } from './text';

const POLICIES = [
  { value: 'propose', text: 'Propose each task in the thread (Create / Edit / Dismiss)' },
  { value: 'create', text: 'Create each task at once' },
];

/**
 * Turning on channel intake from the Home: the channel, the project its tasks go to, the policy
 * and the optional filters, submitted as create_automation (kind intake; admins only).
 */
export function intakeSetupModal(projects: Array<{ id: string; name: string }>, origin: ModalOrigin): View {
  const blocks: KnownBlock[] = [
    textInput('name', 'Name', { placeholder: 'e.g. Bug reports', max: 80 }),
    {
      type: 'input',
      block_id: 'channel',
      label: plainText('Channel'),
      hint: plainText('Invite the app to it. Messages elsewhere are never read.'),
      element: {
        type: 'conversations_select',
        action_id: 'value',
        placeholder: plainText('Pick a channel'),
        filter: { include: ['public', 'private'], exclude_bot_users: true },
      },
    },
    projectSelect(projects),
    {
      type: 'input',
      block_id: 'policy',
      label: plainText('What to do with a report'),
      element: {
        type: 'radio_buttons',
        action_id: 'value',
        options: POLICIES.map((p) => ({ text: plainText(p.text), value: p.value })),
        initial_option: { text: plainText(POLICIES[0].text), value: POLICIES[0].value },
      },
    },
    textInput('reaction', 'Only messages with this reaction', { optional: true, placeholder: 'e.g. bug', max: 100 }),
    textInput('pattern', 'Only messages matching', {
      optional: true,
      placeholder: 'e.g. crash|error',
      hint: 'A regular expression, not case-sensitive.',
      max: 200,
    }),
    {
      type: 'input',
      block_id: 'people',
      optional: true,
      label: plainText('Only messages from'),
      element: { type: 'multi_users_select', action_id: 'value', placeholder: plainText('Anyone in the channel') },
    },
  ];
  return {
    type: 'modal',
    callback_id: MODAL_CALLBACKS.intakeSetup,
    private_metadata: encodeOrigin(origin),
    title: plainText('Channel intake'),
    submit: plainText('Turn it on'),
    close: plainText('Cancel'),
    blocks,
  };
}
