// The parser's package ships no types: what the metrics test reads of its answer.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
