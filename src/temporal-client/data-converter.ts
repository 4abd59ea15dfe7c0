import type { DataConverter } from '@temporalio/common';
import type { Config } from '../config/index';
import { AesGcmPayloadCodec } from './payload-codec';

/**
 * What the client and the worker put through Temporal: encrypted with TEMPORAL_PAYLOAD_KEYS when set.
 * Production refuses to run without keys; elsewhere payloads stay readable without a codec.
 */
export function dataConverterOf(config: Pick<Config, 'payloadKeys' | 'NODE_ENV'>): DataConverter | undefined {
  if (!config.payloadKeys) {
    if (config.NODE_ENV === 'production') {
      throw new Error('Invalid configuration: set TEMPORAL_PAYLOAD_KEYS in production (id:base64 of 32 bytes, e.g. "k1:$(openssl rand -base64 32)"); payloads are encrypted before they reach Temporal');
    }
    return undefined;
  }
  return { payloadCodecs: [new AesGcmPayloadCodec(config.payloadKeys)] };
}
