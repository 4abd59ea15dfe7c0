import { Invalid } from '../errors';
import { parseBody } from '../input/validation';
import { TemplateRegistration } from './contract';

export interface TemplateRequest {
  ref: { contentSid: string } | { name: string; language: string };
  variables: string[];
  body: string | null;
}

/**
 * `PUT /templates/{_id}`: the carrier's reference — Twilio's `content_sid`, or the `name` and `language`
 * WhatsApp approved it under (Vonage, Telnyx), as the deployment's carrier sends templates — its
 * variables' names in order, and optionally its body with `{{name}}` placeholders (what a message shows).
 */
export function parseTemplateRequest(raw: unknown, carrier: string | undefined): TemplateRequest {
  const t = parseBody(TemplateRegistration, raw);
  const named = t.name !== undefined || t.language !== undefined;
  if (t.content_sid !== undefined && named) throw new Invalid('Invalid template: give content_sid, or name and language, not both');
  const byContent = carrier === 'twilio' || carrier === 'simulator';
  const byName = carrier === 'vonage' || carrier === 'telnyx';
  if (t.content_sid === undefined && !named) throw new Invalid(byName ? 'Missing name and language' : 'Missing content_sid');
  if (t.content_sid !== undefined && byName) throw new Invalid(`Invalid content_sid: ${carrier} sends a template by its name and language`);
  if (named && byContent) throw new Invalid('Invalid template: Twilio sends a template by its content_sid');
  if (named && (t.name === undefined || t.language === undefined)) throw new Invalid(t.name === undefined ? 'Missing name' : 'Missing language');
  const duplicate = t.variables.find((name, k) => t.variables.indexOf(name) !== k);
  if (duplicate) throw new Invalid(`Duplicate variable ${duplicate} in variables`);
  const ref = t.content_sid !== undefined ? { contentSid: t.content_sid } : { name: t.name!, language: t.language! };
  return { ref, variables: t.variables, body: t.body ?? null };
}
