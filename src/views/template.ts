import type { Template } from '../generated/prisma/client';

/** A WhatsApp template as `GET /templates/{_id}` shows it: its carrier reference, variables in order, and WhatsApp's approval as last asked. */
export const templateView = (t: Template) => ({
  _id: t.id,
  content_sid: t.contentSid,
  name: t.name,
  language: t.language,
  variables: t.variables,
  body: t.body,
  approval: t.approval,
  approval_checked_at: t.approvalCheckedAt?.toISOString() ?? null,
  created_at: t.createdAt.toISOString(),
  updated_at: t.updatedAt.toISOString(),
});
