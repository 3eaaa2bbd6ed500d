import type { AnyCommand, CommandResult } from './catalog';

/** The fields of a call its command does not take (a typo, or a field of another version). */
export function unknownFields(command: AnyCommand, input: Record<string, unknown>): string[] {
  const known = new Set(Object.keys(command.input.shape));
  return Object.keys(input).filter((key) => !known.has(key));
}

function knownList(command: AnyCommand): string {
  const known = Object.keys(command.input.shape);
  return known.length ? `Its fields are: ${known.join(', ')}.` : 'It takes no fields.';
}

const quoted = (fields: string[]) => fields.map((f) => `'${f}'`).join(', ');

/** The refusal for a call whose every field is unknown: nothing it asked for would be applied. */
export function onlyUnknownFields(command: AnyCommand, fields: string[]): string {
  const s = fields.length > 1 ? 's' : '';
  return `${command.name} does not take the field${s} ${quoted(fields)}, so nothing was done. ${knownList(command)} See help ${command.name}.`;
}

/**
 * The result with the unknown fields named in its `warning` (the spec's optional warning string;
 * a command's own warning is kept first).
 */
export function withUnknownFieldsWarning(command: AnyCommand, result: CommandResult, fields: string[]): CommandResult {
  const s = fields.length > 1 ? 's' : '';
  const note = `Ignored the unknown field${s} ${quoted(fields)}: ${command.name} does not take ${fields.length > 1 ? 'them' : 'it'}. ${knownList(command)}`;
  const own = typeof result.warning === 'string' && result.warning ? `${result.warning} ` : '';
  return { ...result, warning: `${own}${note}` };
}
