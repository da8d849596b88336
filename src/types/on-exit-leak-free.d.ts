declare module 'on-exit-leak-free' {
  /** Calls `fn(obj, event)` at process exit while `obj` is alive; holds `obj` weakly. */
  export function register<T extends object>(obj: T, fn: (obj: T, event: 'exit') => void): void;
  export function unregister(obj: object): void;
  const onExit: { register: typeof register; unregister: typeof unregister };
  export default onExit;
}
