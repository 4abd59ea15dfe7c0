import { z } from 'zod';
import { DateTime, page, ResourceId } from '../input/contract';

/*
 * The contract of WhatsApp templates: the body of `PUT /templates/{_id}` (read by parseBody, so its
 * texts are these schemas'; request.ts adds the rules between fields) and the view of a template. The
 * OpenAPI document is generated from these schemas.
 */

export const MAX_TEMPLATE_VARIABLES = 20;
export const MAX_TEMPLATE_BODY = 1024;

export const TemplateRegistration = z
  .object({
    content_sid: z
      .string()
      .regex(/^HX[0-9a-fA-F]{32}$/, 'must be a Twilio Content sid (HX followed by 32 hex digits)')
      .optional()
      .meta({ description: 'Twilio\'s Content sid of the template.', examples: ['HX0123456789abcdef0123456789abcdef'] }),
    name: z
      .string()
      .regex(/^[a-z0-9_]{1,512}$/, 'must be the name WhatsApp approved, lower-case letters, digits and _')
      .optional()
      .meta({ description: 'The name WhatsApp approved it under.', examples: ['order_shipped'] }),
    language: z
      .string()
      .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'must be a WhatsApp language code such as en or en_US')
      .optional()
      .meta({ description: 'The language WhatsApp approved it in.', examples: ['en_US'] }),
    variables: z
      .array(z.string().regex(/^[A-Za-z0-9_]{1,64}$/, 'each must be 1-64 characters of A-Z a-z 0-9 _'))
      .max(MAX_TEMPLATE_VARIABLES, `must have at most ${MAX_TEMPLATE_VARIABLES} names`)
      .default([])
      .meta({
        uniqueItems: true,
        description: 'Its variables\' names in the template\'s order (`1`, `2` for Twilio and Meta\'s numbered ones). A message must give a value for each, and no other.',
        examples: [['1']],
      }),
    body: z
      .string()
      .max(MAX_TEMPLATE_BODY, `must be at most ${MAX_TEMPLATE_BODY} characters`)
      .nullish()
      .meta({ description: 'Its text with `{{name}}` placeholders: what a message sending it shows as its `text_message`. Optional: the carrier holds the real one.', examples: ['Order {{1}} has shipped.'] }),
  })
  .meta({
    id: 'TemplateRegistration',
    description:
      'The carrier\'s reference, as the deployment\'s carrier sends templates: Twilio (and the simulator) by `content_sid`; Vonage and Telnyx by `name` and `language`. ' +
      'Without a carrier, either. A field not described here is a 400 `Unknown field: {name}`.',
    oneOf: [
      { properties: { content_sid: { type: 'string' } }, required: ['content_sid'] },
      { properties: { name: { type: 'string' }, language: { type: 'string' } }, required: ['name', 'language'] },
    ],
  });

export const Template = z
  .strictObject({
    _id: ResourceId,
    content_sid: z.string().nullable().meta({ description: 'Twilio\'s reference; null for a template sent by name and language.' }),
    name: z.string().nullable(),
    language: z.string().nullable(),
    variables: z.array(z.string()).meta({ description: 'Its variables\' names, in order.' }),
    body: z.string().nullable(),
    approval: z.enum(['approved', 'pending', 'rejected', 'unknown']).meta({
      description:
        'WhatsApp\'s approval. Where the carrier\'s API tells it (Twilio\'s Content API) it is asked at `PUT` and again at each send while not `approved` ' +
        '(`unknown`: the carrier could not be reached); elsewhere the caller\'s registration is its word (`approved`). A send with a template not `approved` is a 409.',
    }),
    approval_checked_at: z.string().nullable().meta({ format: 'date-time', description: 'When the carrier was last asked; null when it was never asked.' }),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Template' });

export const TemplateList = page('templates', Template, 'Oldest first.').strict().meta({ id: 'TemplateList' });

export const TEMPLATE_SCHEMAS = { requests: [TemplateRegistration], responses: [Template, TemplateList] };
