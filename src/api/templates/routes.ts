import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { deleteTemplateRequest, putTemplateRequest, templateDetails, templateList, type TemplateDeps } from '../../use-cases/templates/manage';

export type TemplateRoutesDeps = TemplateDeps;

/** A user's approved WhatsApp templates (docs/messages.md, "WhatsApp templates"). */
export function templatesRouter(deps: TemplateRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.put('/templates/:templateId', async (req, res) => {
    const { view, created } = await putTemplateRequest(deps, scopeOf(req), req.params.templateId, req.body);
    res.status(created ? 201 : 200).json(view);
  });
  router.get('/templates', async (req, res) => {
    res.json(await templateList(deps, scopeOf(req), req.query));
  });
  router.get('/templates/:templateId', async (req, res) => {
    res.json(await templateDetails(deps, scopeOf(req), req.params.templateId));
  });
  router.delete('/templates/:templateId', async (req, res) => {
    await deleteTemplateRequest(deps, scopeOf(req), req.params.templateId);
    res.status(204).end();
  });
  return router;
}
