/** A configuration value that stops the start; `key` names the setting, `reason` says why. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`invalid configuration: ${key}: ${reason}`);
    this.name = 'ConfigError';
  }
}
