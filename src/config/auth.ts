/** The token checks the API (and each service credential's JWT) applies, as configured. */
export interface AuthConfig {
  secret?: string;
  publicKey?: string;
  issuer?: string;
  audience?: string;
  /** JWT_MAX_AGE: the longest lifetime (`exp` − `iat`) accepted, in seconds; tokens must then carry `iat`. */
  maxAgeSeconds?: number;
  /** JWT_BUSINESS_CLAIM: the claim naming the businesses a token may act for; unset: any business. */
  businessClaim?: string;
  /**
   * The other services' audiences (the operator API's, the codec's, the business API's): a token whose
   * `aud` names one of them is refused here even when it names this service's too, so one token never
   * opens two services.
   */
  refusedAudiences?: readonly string[];
}
