import type { RcSendParams } from 'telnyx/resources/messages/rcs';
import type { RcsAgentMessage } from 'telnyx/resources/messages/messages';
import { CarrierRejected, type CarrierSend } from '../types';
import { httpsMediaUrl } from '../media-url';
import { telnyxMediaUrls } from './outbound';

/*
 * RCS for Telnyx: `POST /v2/messages/rcs` (the SDK's `messages.rcs.send`) `{ agent_id, to,
 * messaging_profile_id, type: "RCS", agent_message, sms_fallback | mms_fallback, webhook_url }`. The
 * `agent_message.content_message` is `{ text, suggestions }`, or with a file a standalone rich card
 * `{ card_content: { description, media: { height, content_info: { file_url } }, suggestions } }`; each
 * suggested reply `{ reply: { text, postback_data } }`. The fallback goes from the business number:
 * `sms_fallback { from, text }`, or `mms_fallback { from, text, media_urls }` with a file.
 */

export interface TelnyxRcsSender {
  agentId: string;
  messagingProfileId: string | undefined;
  /** The number the SMS/MMS fallback goes from. */
  fallbackFrom: string | undefined;
}

function contentMessage(message: Pick<CarrierSend, 'text' | 'media' | 'suggestions'>): RcsAgentMessage.ContentMessage {
  const suggestions = (message.suggestions ?? []).map((s) => ({ reply: { text: s.text, postback_data: s.postbackData } }));
  const withSuggestions = suggestions.length > 0 ? { suggestions } : {};
  if (message.media.length > 1) throw new CarrierRejected('rcs-media-count', 'An RCS message carries one file');
  if (message.media.length === 0) return { text: message.text, ...withSuggestions };
  const media = { height: 'MEDIUM' as const, content_info: { file_url: httpsMediaUrl(message.media[0]!).href } };
  return {
    rich_card: {
      standalone_card: {
        card_orientation: 'VERTICAL',
        thumbnail_image_alignment: 'THUMBNAIL_IMAGE_ALIGNMENT_UNSPECIFIED',
        card_content: { ...(message.text ? { description: message.text } : {}), media, ...withSuggestions },
      },
    },
  };
}

export function telnyxRcsParams(message: Pick<CarrierSend, 'to' | 'text' | 'media' | 'suggestions'>, sender: TelnyxRcsSender, webhookUrl?: string): RcSendParams {
  if (!sender.messagingProfileId) throw new CarrierRejected('rcs-sender', 'RCS on Telnyx goes through a messaging profile: the number has none (messaging_service_sid or TELNYX_MESSAGING_PROFILE_ID)');
  const fallback = sender.fallbackFrom
    ? message.media.length > 0
      ? { mms_fallback: { from: sender.fallbackFrom, ...(message.text ? { text: message.text } : {}), media_urls: telnyxMediaUrls(message.media) } }
      : { sms_fallback: { from: sender.fallbackFrom, text: message.text } }
    : {};
  return {
    agent_id: sender.agentId,
    to: message.to,
    messaging_profile_id: sender.messagingProfileId,
    type: 'RCS',
    agent_message: { content_message: contentMessage(message) },
    ...fallback,
    ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
  };
}
