// What every page of the console is: an element, and a refresh the poller calls every few seconds.

/**
 * @typedef {object} View
 * @property {HTMLElement} element
 * @property {() => Promise<void>} refresh loads from the semaphore and redraws; throws an ApiError
 */

/**
 * @typedef {(Node | string)[]} Outcome
 * @typedef {object} Context
 * @property {import('../api.js').Api} api
 * @property {(action: () => Promise<Outcome | null>) => void} act runs an operator action, reports it and refreshes
 * @property {() => void} refreshNow refreshes the page at once (reporting a failure like the poller)
 * @property {import('../answers.js').Whoami['actions']} may the signed-in role's actions
 */

export {};
