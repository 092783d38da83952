// The one Node module the Worker imports (workerd provides it under nodejs_compat). Its types
// are declared here rather than by adding @types/node to the Worker's types, which would
// offer the Worker code every Node global that workerd does not have.
declare module "node:async_hooks" {
  /** A value that follows an async call chain (workerd's node:async_hooks). */
  export class AsyncLocalStorage<T> {
    run<R>(store: T, callback: () => R): R;
    getStore(): T | undefined;
  }
}
