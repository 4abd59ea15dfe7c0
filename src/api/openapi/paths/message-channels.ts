import { CHANNEL_OPERATIONS } from '../../../use-cases/messages/channel-operations';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, pathParameter, PREFIX } from '../components';
import { operationOf } from '../operation';

/** The types a file is most often answered as; the carrier's own type is passed through, `application/octet-stream` when it gave none. */
const FILE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4', 'audio/mpeg', 'audio/ogg', 'application/pdf', 'text/vcard', 'application/octet-stream', '*/*'];
const fileSchema = { description: 'The file\'s bytes, as the carrier holds them.' };
const inboundMessageIdParameter = idParameter('The inbound message\'s id. One of another user or business is the same 404 as a missing one.', '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4');
const mediaIndexParameter = pathParameter('n', 'The file\'s place in the message\'s `media`, from 0; anything else is a 404 `Media not found`.', { type: 'string' }, '0');
const FILE_HEADERS = {
  'Content-Disposition': { description: 'Always a download.', required: true, schema: { type: 'string', const: 'attachment' } },
  'Cache-Control': { description: 'Never kept by a cache.', required: true, schema: { type: 'string', const: 'private, no-store' } },
  'Content-Length': { description: 'Its size, when the carrier reported it.', schema: { type: 'integer', minimum: 0 } },
};
const { getMessageMedia } = CHANNEL_OPERATIONS;

export const messageChannelsApi: ApiPart = {
  tags: [],
  paths: {
    [`${PREFIX}/messages/{_id}/media/{n}`]: inBusiness(
      {
        get: operationOf('getMessageMedia', 'Messages', getMessageMedia, {
          responses: { 200: { description: getMessageMedia.responses[200].description, headers: FILE_HEADERS, content: Object.fromEntries(FILE_TYPES.map((type) => [type, { schema: fileSchema }])) } },
        }),
      },
      inboundMessageIdParameter,
      mediaIndexParameter,
    ),
  },
};
