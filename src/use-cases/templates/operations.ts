import { badBody, badParameters, notFound, operations, PAGE_ONLY_REFUSALS } from '../input/operation-docs';
import { Template, TemplateList, TemplateRegistration } from './contract';

/* What the document says of the WhatsApp templates' routes (src/use-cases/input/operation-docs.ts). */

export const TEMPLATES_TAG =
  'The caller\'s WhatsApp templates, registered by the carrier\'s reference to a template WhatsApp approved, with its variables. ' +
  'Outside WhatsApp\'s 24-hour window only a template may start a conversation: `POST /messages` with `"channel": "whatsapp"` and ' +
  '`"template": { "_id", "variables": { … } }`, to a client whose WhatsApp consent is recorded (`PUT /clients/{_id}/consents/whatsapp`).';

const template = {
  _id: 'order_shipped',
  content_sid: 'HX0123456789abcdef0123456789abcdef',
  name: null,
  language: null,
  variables: ['1'],
  body: 'Order {{1}} has shipped.',
  approval: 'approved',
  approval_checked_at: '2026-11-27T10:00:00.000Z',
  created_at: '2026-11-27T10:00:00.000Z',
  updated_at: '2026-11-27T10:00:00.000Z',
};

const TEMPLATE_NOT_FOUND = notFound('No such template of the caller in this business.', { templateNotFound: 'Template not found' });

export const TEMPLATE_OPERATIONS = operations({
  listTemplates: {
    summary: 'List the caller\'s templates',
    description: 'The caller\'s templates in this business, oldest first, a page at a time.',
    responses: {
      200: { description: 'One page.', schema: TemplateList, example: { templates: [template], next_cursor: null } },
      400: badParameters('`limit` or `cursor` is not valid, or the path is not validly percent-encoded.', PAGE_ONLY_REFUSALS),
    },
  },
  putTemplate: {
    summary: 'Register a template (or replace it)',
    description:
      'Registers the caller\'s template under `_id`, or replaces the one there. Messages already accepted keep the template as it was. ' +
      'Where the carrier\'s API tells WhatsApp\'s approval (Twilio), it is asked now and stored.',
    body: {
      schema: TemplateRegistration,
      examples: {
        twilio: { summary: 'Twilio: by its Content sid', value: { content_sid: 'HX0123456789abcdef0123456789abcdef', variables: ['1'], body: 'Order {{1}} has shipped.' } },
        byName: { summary: 'Vonage, Telnyx: by name and language', value: { name: 'order_shipped', language: 'en_US', variables: ['1'], body: 'Order {{1}} has shipped.' } },
      },
    },
    responses: {
      200: { description: 'Replaced.', schema: Template, example: template },
      201: { description: 'Registered.', schema: Template, example: template },
      400: badBody('The id or a field is invalid; the detail names it. Nothing is stored.', {
        invalidId: 'Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -',
        invalidContentSid: 'Invalid content_sid: must be a Twilio Content sid (HX followed by 32 hex digits)',
        invalidName: 'Invalid name: must be the name WhatsApp approved, lower-case letters, digits and _',
        invalidLanguage: 'Invalid language: must be a WhatsApp language code such as en or en_US',
        invalidVariable: 'Invalid variables.0: each must be 1-64 characters of A-Z a-z 0-9 _',
        tooManyVariables: 'Invalid variables: must have at most 20 names',
        longBody: 'Invalid body: must be at most 1024 characters',
        both: 'Invalid template: give content_sid, or name and language, not both',
        missingContentSid: 'Missing content_sid',
        missingNameAndLanguage: 'Missing name and language',
        missingName: 'Missing name',
        missingLanguage: 'Missing language',
        contentSidNotTaken: 'Invalid content_sid: vonage sends a template by its name and language',
        nameNotTaken: 'Invalid template: Twilio sends a template by its content_sid',
        duplicateVariable: 'Duplicate variable 1 in variables',
        notAnObject: 'Invalid request body: Invalid input: expected object, received null',
      }),
    },
  },
  getTemplate: { summary: 'Read a template', responses: { 200: { description: 'The template.', schema: Template, example: template }, 404: TEMPLATE_NOT_FOUND } },
  deleteTemplate: {
    summary: 'Delete a template',
    description: 'Messages already accepted with it still send it. A new send naming it is then a 400 `Template order_shipped not found`.',
    responses: { 204: { description: 'Deleted.' }, 404: TEMPLATE_NOT_FOUND },
  },
});
