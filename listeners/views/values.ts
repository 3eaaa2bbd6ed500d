import type { ViewOutput } from '@slack/bolt';

type Value = {
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: Array<{ value: string }> | null;
  selected_conversation?: string | null;
  selected_users?: string[] | null;
};

/** Reads a modal's inputs by block id (each input's action_id is `value`). */
export function modalValues(view: ViewOutput) {
  const values = view.state.values as Record<string, Record<string, Value>>;
  const get = (block: string): Value | undefined => values[block]?.value;
  return {
    text: (block: string) => get(block)?.value?.trim() ?? '',
    selected: (block: string) => get(block)?.selected_option?.value ?? null,
    conversation: (block: string) => get(block)?.selected_conversation ?? null,
    users: (block: string) => get(block)?.selected_users ?? [],
    checked: (block: string, option: string) => (get(block)?.selected_options ?? []).some((o) => o.value === option),
    /** Chosen options of a multi-select, or words of a text input ("a, b c"). */
    list: (block: string): string[] => {
      const v = get(block);
      if (v?.selected_options) return v.selected_options.map((o) => o.value);
      return (v?.value ?? '').split(/[\s,]+/).filter(Boolean);
    },
  };
}
