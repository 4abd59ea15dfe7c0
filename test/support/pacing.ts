/*
 * MESSAGE_SEND_RATE_PER_SECOND as a carrier counts it: messages received per whole second. A hand-over
 * never leaves before its slot (slots are reserved from the moment the batch's chunk starts, `rate` a
 * second), but on a loaded machine a late one may leave together with the next on time, so the gap
 * between two hand-overs proves nothing. What holds on any machine: by the end of the n-th whole second
 * after the batch was posted the carrier has received at most n × rate.
 */

/** The whole seconds (1, 2, …) after `postedAt` by whose end the carrier had received more than `rate` a second allows. */
export function secondsAheadOfRate(receivedAt: number[], postedAt: number, rate: number): { second: number; received: number; allowed: number }[] {
  const times = [...receivedAt].sort((a, b) => a - b);
  const last = Math.max(1, Math.ceil((times.at(-1)! - postedAt) / 1000));
  const ahead: { second: number; received: number; allowed: number }[] = [];
  for (let second = 1; second <= last; second++) {
    const received = times.filter((t) => t < postedAt + second * 1000).length;
    if (received > second * rate) ahead.push({ second, received, allowed: second * rate });
  }
  return ahead;
}
