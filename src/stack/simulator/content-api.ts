import { randomBytes } from 'node:crypto';
import { ApiError, safeJson } from './api-error';

/*
 * Twilio's Content API (content.twilio.com) as the simulator serves it on its own port, path for path:
 * `POST /v1/Content` creates a content (JSON: friendly_name, language, variables, types),
 * `GET /v1/Content/{sid}` reads it, `POST /v1/Content/{sid}/ApprovalRequests/whatsapp` submits it to
 * WhatsApp (JSON: name, category) and `GET /v1/Content/{sid}/ApprovalRequests` answers its approval
 * (`whatsapp.status`: unsubmitted, received, pending, approved, rejected, paused, disabled). A submitted
 * content is approved after `approvalAfterMs`. Twilio keeps a content per account; the simulator shares
 * its contents among its account and subaccounts.
 */

export type ApprovalStatus = 'unsubmitted' | 'received' | 'pending' | 'approved' | 'rejected' | 'paused' | 'disabled';

export interface SimulatedContent {
  sid: string;
  accountSid: string;
  friendlyName: string;
  language: string;
  /** Declared variables and their sample values. */
  variables: Record<string, string>;
  types: Record<string, { body?: string } & Record<string, unknown>>;
  createdAt: Date;
  updatedAt: Date;
  approval: { status: ApprovalStatus; name: string; category: string };
}

/** The contents every simulator starts with (stable sids, for the README's walkthrough and tests). */
export const SIMULATOR_TEMPLATES = {
  /** Approved by WhatsApp; variables "1" and "2". */
  approved: {
    sid: 'HX00000000000000000000000000000001',
    name: 'appointment_reminder',
    body: 'Hello {{1}}, your appointment is on {{2}}.',
    variables: { '1': 'Ada', '2': 'Friday at 3pm' },
    status: 'approved',
  },
  /** Submitted, still waiting for WhatsApp (it stays pending); variable "1". */
  pending: {
    sid: 'HX00000000000000000000000000000002',
    name: 'summer_offer',
    body: 'Our summer offer: {{1}}. Reply STOP to opt out.',
    variables: { '1': '20% off' },
    status: 'pending',
  },
} as const;

const CONTENT_SID = /^HX[0-9a-f]{32}$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
const CATEGORIES = ['UTILITY', 'MARKETING', 'AUTHENTICATION'];

const bodyOf = (content: SimulatedContent) => Object.values(content.types).find((type) => typeof type.body === 'string')?.body ?? '';

/** The variables a content declares: its `variables` and the placeholders of its body. */
function declared(content: SimulatedContent): string[] {
  const names = new Set(Object.keys(content.variables));
  for (const match of bodyOf(content).matchAll(PLACEHOLDER)) names.add(match[1]);
  return [...names];
}

export class ContentStore {
  private readonly contents = new Map<string, SimulatedContent>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly accountSid: string,
    private readonly approvalAfterMs = 1000,
  ) {
    for (const template of Object.values(SIMULATOR_TEMPLATES)) {
      const now = new Date();
      this.contents.set(template.sid, {
        sid: template.sid,
        accountSid,
        friendlyName: template.name,
        language: 'en',
        variables: { ...template.variables },
        types: { 'twilio/text': { body: template.body } },
        createdAt: now,
        updatedAt: now,
        approval: { status: template.status, name: template.name, category: 'UTILITY' },
      });
    }
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  get(sid: string): SimulatedContent | undefined {
    return this.contents.get(sid);
  }

  /** Sets a content's approval (a test standing in for WhatsApp's decision). */
  setApproval(sid: string, status: ApprovalStatus): void {
    const content = this.contents.get(sid);
    if (!content) throw new Error(`No content ${sid}`);
    content.approval.status = status;
  }

  /**
   * What a message with `ContentSid` sends: the content's body with the variables put in, and its
   * approval. Unknown sid: 21655; ContentVariables not a JSON object of non-empty strings, or missing a
   * variable the content declares: 21656.
   */
  render(sid: string, rawVariables: string | undefined): { body: string; approval: ApprovalStatus } {
    const content = this.contents.get(sid);
    if (!CONTENT_SID.test(sid) || !content) throw new ApiError(400, 21655, 'The ContentSid is Invalid.');
    const parsed = rawVariables === undefined ? {} : safeJson(rawVariables);
    const invalid = () => new ApiError(400, 21656, 'The ContentVariables Parameter is invalid.');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid();
    const values = parsed as Record<string, unknown>;
    if (Object.values(values).some((value) => typeof value !== 'string' || value === '')) throw invalid();
    if (declared(content).some((name) => !Object.hasOwn(values, name))) throw invalid();
    const body = bodyOf(content).replace(PLACEHOLDER, (_, name: string) => (values[name] as string | undefined) ?? '');
    return { body, approval: content.approval.status };
  }

  /** `/v1/Content…` requests; undefined for any other path. */
  /** A content's types as created (RCS's quick replies are read from them). */
  typesOf(sid: string): Record<string, unknown> | undefined {
    return this.contents.get(sid)?.types;
  }

  handle(method: string, path: string, raw: string, baseUrl: string): { status: number; body: unknown } | undefined {
    const match = /^\/v1\/Content(?:\/([^/]+)(?:\/(ApprovalRequests)(?:\/(whatsapp))?)?)?$/.exec(path);
    if (!match) return undefined;
    const [, sid, approvals, channel] = match;
    if (!sid && method === 'POST') return { status: 201, body: this.view(this.create(raw), baseUrl) };
    if (!sid && method === 'GET') return { status: 200, body: { contents: [...this.contents.values()].map((content) => this.view(content, baseUrl)), meta: { page: 0, page_size: 50 } } };
    const content = sid ? this.contents.get(sid) : undefined;
    if (!content) throw new ApiError(404, 20404, `The requested resource ${path} was not found`);
    if (!approvals && method === 'GET') return { status: 200, body: this.view(content, baseUrl) };
    if (approvals && !channel && method === 'GET') return { status: 200, body: this.approvalView(content, baseUrl) };
    if (approvals && channel && method === 'POST') return { status: 201, body: this.submit(content, raw).approval };
    throw new ApiError(405, 20004, 'Method not allowed');
  }

  private create(raw: string): SimulatedContent {
    const input = safeJson(raw) as { friendly_name?: unknown; language?: unknown; variables?: unknown; types?: unknown } | null;
    const bad = (what: string) => new ApiError(400, 20001, `${what} is invalid`);
    if (!input || typeof input !== 'object') throw bad('The request body (JSON)');
    if (typeof input.language !== 'string' || !input.language) throw bad('language');
    const variables = input.variables ?? {};
    if (typeof variables !== 'object' || Array.isArray(variables) || Object.values(variables).some((value) => typeof value !== 'string')) throw bad('variables');
    const types = input.types;
    if (!types || typeof types !== 'object' || Array.isArray(types) || Object.keys(types).length === 0) throw bad('types');
    if (Object.values(types).some((type) => !type || typeof type !== 'object')) throw bad('types');
    const now = new Date();
    const content: SimulatedContent = {
      sid: `HX${randomBytes(16).toString('hex')}`,
      accountSid: this.accountSid,
      friendlyName: typeof input.friendly_name === 'string' ? input.friendly_name : '',
      language: input.language,
      variables: variables as Record<string, string>,
      types: types as SimulatedContent['types'],
      createdAt: now,
      updatedAt: now,
      approval: { status: 'unsubmitted', name: '', category: '' },
    };
    this.contents.set(content.sid, content);
    return content;
  }

  /** Submitted for WhatsApp's approval: answered `received`, then `pending`, `approved` after `approvalAfterMs`. */
  private submit(content: SimulatedContent, raw: string): { approval: Record<string, unknown> } {
    const input = safeJson(raw) as { name?: unknown; category?: unknown } | null;
    if (typeof input?.name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(input.name)) throw new ApiError(400, 20001, 'name must be lowercase letters, digits and underscores');
    if (typeof input.category !== 'string' || !CATEGORIES.includes(input.category)) throw new ApiError(400, 20001, `category must be one of ${CATEGORIES.join(', ')}`);
    content.approval = { status: 'pending', name: input.name, category: input.category };
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (content.approval.status === 'pending') content.approval.status = 'approved';
    }, this.approvalAfterMs);
    this.timers.add(timer);
    return { approval: { ...this.whatsapp(content), status: 'received' } };
  }

  private whatsapp(content: SimulatedContent) {
    return {
      type: 'whatsapp',
      name: content.approval.name,
      category: content.approval.category,
      content_type: Object.keys(content.types)[0] ?? 'twilio/text',
      status: content.approval.status,
      rejection_reason: content.approval.status === 'rejected' ? 'INVALID_FORMAT' : '',
      allow_category_change: true,
    };
  }

  private approvalView(content: SimulatedContent, baseUrl: string) {
    return { sid: content.sid, account_sid: content.accountSid, url: `${baseUrl}/v1/Content/${content.sid}/ApprovalRequests`, whatsapp: this.whatsapp(content) };
  }

  private view(content: SimulatedContent, baseUrl: string) {
    const url = `${baseUrl}/v1/Content/${content.sid}`;
    return {
      sid: content.sid,
      account_sid: content.accountSid,
      friendly_name: content.friendlyName,
      language: content.language,
      variables: content.variables,
      types: content.types,
      url,
      date_created: content.createdAt.toISOString(),
      date_updated: content.updatedAt.toISOString(),
      links: { approval_fetch: `${url}/ApprovalRequests`, approval_create: `${url}/ApprovalRequests/whatsapp` },
    };
  }
}
