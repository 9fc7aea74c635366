// The files of undici that src/services/undici-parts.ts loads by path (the package's types cover
// only its index): each is typed as the export of the index it is.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const agent: typeof Agent;
  export default agent;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const envHttpProxyAgent: typeof EnvHttpProxyAgent;
  export default envHttpProxyAgent;
}
declare module 'undici/lib/core/errors.js' {
  import type { errors } from 'undici';
  const undiciErrors: typeof errors;
  export default undiciErrors;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** undici's `Dispatcher.prototype.request`, called with the dispatcher as `this`. */
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
