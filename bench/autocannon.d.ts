declare module 'autocannon' {
  interface Histogram { average: number; mean: number; p50: number; p90: number; p99: number; max: number; total: number }
  interface Result { requests: Histogram; latency: Histogram; non2xx: number; errors: number; timeouts: number; duration: number; '2xx': number }
  interface Request { method?: string; path?: string; headers?: Record<string, string>; body?: string; setupRequest?: (req: Request) => Request }
  interface Options { url: string; connections?: number; duration?: number; pipelining?: number; method?: string; headers?: Record<string, string>; body?: string; requests?: Request[] }
  interface Instance extends Promise<Result> {
    on(event: 'response', fn: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): Instance;
  }
  function autocannon(opts: Options): Instance;
  export default autocannon;
}
