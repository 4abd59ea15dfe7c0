/* What the fake carriers share: an injected failure, and the callbacks they post back. */

/** The next answer(s) of a fake carrier's send endpoint, instead of accepting. */
export interface CarrierFailure {
  status: number;
  code: string;
  title: string;
  retryAfter?: string;
}

export interface PostedWebhook {
  status: number;
  body: string;
}

/**
 * Where a fake carrier's callbacks go. The carrier is given the public URL (PUBLIC_BASE_URL, which the
 * signatures cover); `route` forwards that origin to the test API's real one, as a proxy would.
 */
export class CallbackRoutes {
  private readonly routes = new Map<string, string>();

  route(publicOrigin: string, actualOrigin: string): void {
    this.routes.set(new URL(publicOrigin).origin, new URL(actualOrigin).origin);
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<PostedWebhook> {
    const target = new URL(url);
    const routed = this.routes.get(target.origin);
    const response = await fetch(routed ? `${routed}${target.pathname}${target.search}` : url, { method: 'POST', headers, body });
    return { status: response.status, body: await response.text() };
  }
}
