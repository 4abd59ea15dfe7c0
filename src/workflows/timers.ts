/* The timer chunks are a rule of the clocks (src/domain/timer-chunks.ts); the workflows import them from here. */
export { CHUNK_JITTER_MS, nextSleepMs } from '../domain/timer-chunks';
