/** `@kcore/http-adapter/node`: what only a Node host needs (the handler itself is runtime-neutral). */
export { answerClientErrorsAsJson, clientErrorResponse } from './client-error.js'
export { type FetchHandler, type ListenOptions, listen, type NodeListener } from './listen.js'
