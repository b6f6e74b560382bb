// Every top-level key of a wrangler config, and what the slot's copy does with it (the table in
// docs/config.md#the-slots-wrangler-config is this one, in words). The keys are wrangler's own, as its
// config validation names them. A key not listed here is one preview-gc does not know: it is refused
// like a binding to something outside the slot, because a new binding kind reaches some account
// resource the pool cannot place, and the preview would share it with production unawares.

/**
 * - `kept`: a setting of the Worker's code or build, deployed as the app wrote it.
 * - `placed`: a resource kind of the slot; each binding is pointed at the slot's own (src/kinds/).
 * - `replaced`: preview-gc writes the slot's value (the account, the address, the schedules, the vars).
 * - `dropped`: left out of the slot's copy (production's domains, other environments).
 * - `outside`: a binding to a resource no slot has; refused unless the slot config's `deploy.shared`
 *   names it (or the preview env block gives its own).
 */
export type KeyTreatment = 'kept' | 'placed' | 'replaced' | 'dropped' | 'outside';

export const WRANGLER_KEYS: Readonly<Record<string, KeyTreatment>> = {
  $schema: 'kept',
  name: 'placed',
  account_id: 'replaced',
  workers_dev: 'replaced',
  preview_urls: 'kept',
  routes: 'dropped',
  route: 'dropped',
  env: 'dropped',
  legacy_env: 'kept',
  triggers: 'replaced',
  vars: 'replaced',
  // The code and how it is built and run.
  main: 'kept',
  compatibility_date: 'kept',
  compatibility_flags: 'kept',
  find_additional_modules: 'kept',
  preserve_file_names: 'kept',
  base_dir: 'kept',
  tsconfig: 'kept',
  jsx_factory: 'kept',
  jsx_fragment: 'kept',
  rules: 'kept',
  build: 'kept',
  no_bundle: 'kept',
  minify: 'kept',
  keep_names: 'kept',
  node_compat: 'kept',
  upload_source_maps: 'kept',
  alias: 'kept',
  define: 'kept',
  python_modules: 'kept',
  wasm_modules: 'kept',
  text_blobs: 'kept',
  data_blobs: 'kept',
  site: 'kept',
  assets: 'kept',
  usage_model: 'kept',
  limits: 'kept',
  placement: 'kept',
  observability: 'kept',
  logpush: 'kept',
  compliance_region: 'kept',
  first_party_worker: 'kept',
  keep_vars: 'kept',
  secrets: 'kept',
  send_metrics: 'kept',
  dev: 'kept',
  migrations: 'kept',
  exports: 'kept',
  previews: 'kept',
  cache: 'kept',
  access: 'kept',
  pages_build_output_dir: 'kept',
  dependencies_instrumentation: 'kept',
  // Bindings that reach nothing of the account's: each request is its own. (Workers AI reaches the
  // account's AI Search instances and the Images binding its hosted images: those are outside.)
  browser: 'kept',
  media: 'kept',
  version_metadata: 'kept',
  worker_loaders: 'kept',
  // The slot's resources.
  durable_objects: 'placed',
  containers: 'placed',
  d1_databases: 'placed',
  kv_namespaces: 'placed',
  r2_buckets: 'placed',
  queues: 'placed',
  vectorize: 'placed',
  services: 'placed',
  // Bindings to the account's resources that no slot has. A Workflow's name is the account's, so
  // even the Worker's own would be taken from whichever Worker had it (production's, or another
  // slot's) when the preview deploys.
  workflows: 'outside',
  ai: 'outside',
  images: 'outside',
  hyperdrive: 'outside',
  mtls_certificates: 'outside',
  dispatch_namespaces: 'outside',
  analytics_engine_datasets: 'outside',
  secrets_store_secrets: 'outside',
  tail_consumers: 'outside',
  streaming_tail_consumers: 'outside',
  pipelines: 'outside',
  send_email: 'outside',
  ratelimits: 'outside',
  vpc_services: 'outside',
  vpc_networks: 'outside',
  ai_search_namespaces: 'outside',
  ai_search: 'outside',
  websearch: 'outside',
  agent_memory: 'outside',
  artifacts: 'outside',
  flagship: 'outside',
  stream: 'outside',
  connect: 'outside',
  logfwdr: 'outside',
  cloudchamber: 'outside',
  unsafe: 'outside',
  unsafe_hello_world: 'outside',
};

/** Whether `key` is one of wrangler's that preview-gc knows. */
export function isKnownKey(key: string): boolean {
  return Object.hasOwn(WRANGLER_KEYS, key);
}

/** What the slot's copy does with `key`; a key preview-gc does not know is `outside`. */
export function treatmentOf(key: string): KeyTreatment {
  return isKnownKey(key) ? (WRANGLER_KEYS[key] as KeyTreatment) : 'outside';
}

/**
 * The keys wrangler does not carry from the top level into an environment: `wrangler deploy --env X`
 * deploys only what `env.X` gives of these (none when it gives none). Its config validation calls them
 * not inheritable. The rest are inherited: the env's value where it has one, else the top level's.
 */
export const NOT_INHERITABLE: readonly string[] = [
  'vars',
  'secrets',
  'define',
  'durable_objects',
  'workflows',
  'cloudchamber',
  'containers',
  'kv_namespaces',
  'send_email',
  'queues',
  'connect',
  'r2_buckets',
  'd1_databases',
  'vectorize',
  'ai_search_namespaces',
  'ai_search',
  'websearch',
  'agent_memory',
  'hyperdrive',
  'services',
  'analytics_engine_datasets',
  'dispatch_namespaces',
  'mtls_certificates',
  'tail_consumers',
  'streaming_tail_consumers',
  'unsafe',
  'browser',
  'ai',
  'images',
  'stream',
  'media',
  'pipelines',
  'secrets_store_secrets',
  'artifacts',
  'unsafe_hello_world',
  'flagship',
  'worker_loaders',
  'ratelimits',
  'vpc_services',
  'vpc_networks',
  'version_metadata',
];
