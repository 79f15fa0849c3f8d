// Query parameters that carry a comma-separated list (`tags=rust,wasm`): read as a list of trimmed
// values, blanks dropped, within the limits the spec documents for the parameter.
import { validationFailed } from '../errors.ts';

/** The values of query parameter `name`; more than `max` values, or one over `maxLength`, is a 400 naming it. */
export function commaList(name: string, value: string | undefined, max: number, maxLength: number): string[] {
  const items = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length > max || items.some((i) => i.length > maxLength)) {
    throw validationFailed(`query.${name}`, `must list at most ${max} values of at most ${maxLength} characters each`);
  }
  return items;
}
