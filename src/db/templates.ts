import type { Template } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/* Every change of the `templates` table: a user's approved WhatsApp templates, by id. */

export interface TemplateFields {
  contentSid: string | null;
  name: string | null;
  language: string | null;
  variables: string[];
  body: string | null;
  approval: string;
  approvalCheckedAt: Date | null;
}

/** Creates or replaces the caller's template `id`; `created`: it did not exist. */
export async function putTemplate(prisma: Prisma, scope: Scope, id: string, fields: TemplateFields): Promise<{ template: Template; created: boolean }> {
  const existing = await prisma.template.findUnique({ where: { business_ownerId_id: { ...scope, id } }, select: { pk: true } });
  const template = await prisma.template.upsert({
    where: { business_ownerId_id: { ...scope, id } },
    create: { ...scope, id, ...fields },
    update: fields,
  });
  return { template, created: existing === null };
}

export function findTemplate(prisma: Prisma, scope: Scope, id: string): Promise<Template | null> {
  return prisma.template.findUnique({ where: { business_ownerId_id: { ...scope, id } } });
}

/** Oldest first, after the cursor's (created_at, pk). */
export function listTemplates(prisma: Prisma, scope: Scope, page: { after?: { createdAt: Date; id: string }; take: number }): Promise<Template[]> {
  const { after } = page;
  return prisma.template.findMany({
    where: { ...scope, ...(after && { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, pk: { gt: after.id } }] }) },
    orderBy: [{ createdAt: 'asc' }, { pk: 'asc' }],
    take: page.take,
  });
}

/** What the carrier said of its approval when last asked. */
export async function recordTemplateApproval(prisma: Prisma, pk: string, approval: string, at: Date): Promise<Template> {
  return prisma.template.update({ where: { pk }, data: { approval, approvalCheckedAt: at } });
}

export async function deleteTemplate(prisma: Prisma, scope: Scope, id: string): Promise<boolean> {
  return (await prisma.template.deleteMany({ where: { ...scope, id } })).count > 0;
}
