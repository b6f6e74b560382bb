// The demo's shop Worker: enough code for wrangler to deploy (its Durable Object classes and a
// scheduled handler for the nightly job production runs and previews do not).
import { DurableObject } from 'cloudflare:workers';

export class CartRoom extends DurableObject {}
export class ChatAgent extends DurableObject {}
export class Sandbox extends DurableObject {}

export default {
  fetch(_request, env) {
    return new Response(`shop (Stripe in ${env.STRIPE_MODE} mode)`);
  },
  scheduled() {},
};
