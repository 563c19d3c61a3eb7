/** `@kcore/http-adapter/node`: what only a Node host needs (the handler itself is runtime-neutral). */
export { answerClientErrorsAsJson, clientErrorResponse } from './client-error.js'
