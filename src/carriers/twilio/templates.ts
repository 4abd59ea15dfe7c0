import type twilio from 'twilio';
import { CarrierRejected, type TemplateApproval, type TemplateRef } from '../types';

/*
 * WhatsApp's approval of a template, as Twilio's Content API tells it: `GET /v1/Content/{sid}/ApprovalRequests`
 * (the SDK's approval fetch) answers `whatsapp.status`. Twilio's statuses: `approved`; `received` and
 * `pending` (under review); `paused` (Meta pauses a template for low quality for hours at a time: not
 * sendable now, not rejected either) — pending; `rejected` and `disabled` (for good) — rejected;
 * `unsubmitted`, no WhatsApp approval at all, or a content sid Twilio does not know — unknown.
 */

const CONTENT_SID = /^HX[0-9a-fA-F]{32}$/;

const APPROVALS: Readonly<Record<string, TemplateApproval>> = {
  approved: 'approved',
  received: 'pending',
  pending: 'pending',
  paused: 'pending',
  rejected: 'rejected',
  disabled: 'rejected',
};

export function approvalOf(whatsapp: unknown): TemplateApproval {
  const status = (whatsapp as { status?: unknown } | null | undefined)?.status;
  const key = typeof status === 'string' ? status.toLowerCase() : '';
  return Object.hasOwn(APPROVALS, key) ? APPROVALS[key] : 'unknown';
}

export async function twilioTemplateApproval(client: twilio.Twilio, ref: TemplateRef): Promise<TemplateApproval> {
  // Twilio names a template by its content sid; a name and language are Vonage's and Telnyx's.
  if (!('contentSid' in ref) || !CONTENT_SID.test(ref.contentSid)) return 'unknown';
  try {
    const approval = await client.content.v1.contents(ref.contentSid).approvalFetch().fetch();
    return approvalOf(approval.whatsapp);
  } catch (error) {
    if (error instanceof CarrierRejected && (error.code === '20404' || error.code === 'http-404')) return 'unknown';
    throw error;
  }
}
