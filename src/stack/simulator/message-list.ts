import type { TwilioApiMessage } from './api-types';

/** Twilio's list of messages: filtered by To, From (as given: `whatsapp:`-prefixed for WhatsApp) and DateSent (to the day), newest first, paged by PageSize. */
export function listMessages(messages: readonly TwilioApiMessage[], params: Record<string, string>, path: string) {
  const day = (value: string) => value.slice(0, 10);
  const sentDay = (message: TwilioApiMessage) => (message.date_sent ? new Date(message.date_sent).toISOString().slice(0, 10) : undefined);
  const pageSize = Math.min(Math.max(Number(params.PageSize) || 50, 1), 1000);
  const page = Math.max(Number(params.Page) || 0, 0);
  const matching = messages
    .filter((message) => !params.To || message.to === params.To)
    .filter((message) => !params.From || message.from === params.From)
    .filter((message) => !params.DateSent || sentDay(message) === day(params.DateSent))
    .filter((message) => !params['DateSent>'] || (sentDay(message) ?? '') >= day(params['DateSent>']))
    .filter((message) => !params['DateSent<'] || (sentDay(message) ?? '9999') <= day(params['DateSent<']))
    .reverse();
  const slice = matching.slice(page * pageSize, (page + 1) * pageSize);
  const query = (p: number) => {
    const next = new URLSearchParams(params);
    next.set('PageSize', String(pageSize));
    next.set('Page', String(p));
    return `${path}?${next.toString()}`;
  };
  return {
    end: page * pageSize + Math.max(slice.length - 1, 0),
    first_page_uri: query(0),
    next_page_uri: (page + 1) * pageSize < matching.length ? query(page + 1) : null,
    page,
    page_size: pageSize,
    previous_page_uri: page > 0 ? query(page - 1) : null,
    messages: slice,
    start: page * pageSize,
    uri: query(page),
  };
}
