/** The error and the causes it wraps, outermost first, at most `depth` deep (fetch's TypeError, axios's AxiosError, an SDK's own …). */
export function causesOf(error: unknown, depth = 6): unknown[] {
  const causes: unknown[] = [];
  for (let current = error; current && causes.length < depth; current = (current as { cause?: unknown }).cause) causes.push(current);
  return causes;
}
