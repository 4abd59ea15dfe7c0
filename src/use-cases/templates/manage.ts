import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { deleteTemplate, findTemplate, listTemplates, putTemplate } from '../../db/templates';
import { templateView } from '../../views/template';
import { Invalid, NotFound } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import type { TemplateApprovals } from './approval';
import { parseTemplateRequest } from './request';
import { pageOf, parsePage } from '../input/page';

export interface TemplateDeps {
  prisma: Prisma;
  /** The deployment's carrier: which reference its templates are sent by. */
  carrier?: { name: string };
  templateApprovals?: TemplateApprovals;
}


/** Registers (or replaces) the caller's template; WhatsApp's approval is asked of the carrier where its API tells it, else the caller's word stands. */
export async function putTemplateRequest(deps: TemplateDeps, scope: Scope, id: string, body: unknown) {
  if (!RESOURCE_ID_PATTERN.test(id)) throw new Invalid('Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -');
  const request = parseTemplateRequest(body, deps.carrier?.name);
  const asked = deps.templateApprovals ? await deps.templateApprovals.ask(scope.business, null, request.ref) : null;
  const ref = 'contentSid' in request.ref ? { contentSid: request.ref.contentSid, name: null, language: null } : { contentSid: null, ...request.ref };
  const { template, created } = await putTemplate(deps.prisma, scope, id, {
    ...ref,
    variables: request.variables,
    body: request.body,
    approval: asked ?? 'approved',
    approvalCheckedAt: asked ? new Date() : null,
  });
  return { view: templateView(template), created };
}

export async function templateDetails(deps: TemplateDeps, scope: Scope, id: string) {
  const template = RESOURCE_ID_PATTERN.test(id) ? await findTemplate(deps.prisma, scope, id) : null;
  if (!template) throw new NotFound('Template not found');
  return templateView(template);
}

/** `GET /templates[?limit&cursor]`: oldest first, paged as every list is. */
export async function templateList(deps: TemplateDeps, scope: Scope, query: unknown) {
  const { limit, after } = parsePage(query);
  const rows = await listTemplates(deps.prisma, scope, { after, take: limit + 1 });
  const { page, next_cursor } = pageOf(rows, limit, (t) => ({ createdAt: t.createdAt, id: t.pk }));
  return { templates: page.map(templateView), next_cursor };
}

export async function deleteTemplateRequest(deps: TemplateDeps, scope: Scope, id: string): Promise<void> {
  if (!RESOURCE_ID_PATTERN.test(id) || !(await deleteTemplate(deps.prisma, scope, id))) throw new NotFound('Template not found');
}
