/** Who an inference request is from: the key it carried and that key's account. */
export interface Principal {
  readonly keyId: number;
  readonly accountId: number;
  readonly emailVerified: boolean;
  /** The key's display prefix, safe to log. */
  readonly keyPrefix: string;
}
