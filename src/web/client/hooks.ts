import { useEffect, useRef, useState } from 'preact/hooks';
import { onChange, type ChangeOptions } from './api.ts';

export interface Loaded<T> {
  data?: T;
  error?: string;
  /** Reads again; settles once that read is shown (or a newer one took its place). */
  reload(): Promise<void>;
}

/** Runs `load` now, whenever `deps` change, and again after events on the live stream (paced: see onChange). */
export function useLive<T>(load: () => Promise<T>, deps: unknown[], opts: ChangeOptions = {}): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const seq = useRef(0);
  const latest = useRef<Promise<void>>(Promise.resolve());
  const run = (): Promise<void> => {
    const mine = ++seq.current;
    // A read overtaken by a newer one is not shown: its caller waits for the newer one instead.
    const settled: Promise<void> = load().then(
      (data) => { if (mine === seq.current) setState({ data }); else return latest.current; },
      (err: Error) => { if (mine === seq.current) setState((s) => ({ data: s.data, error: err.message })); else return latest.current; },
    );
    latest.current = settled;
    return settled;
  };
  useEffect(() => {
    void run();
    return onChange(() => void run(), opts);
  }, deps);
  return { ...state, reload: run };
}

/** The current location hash, e.g. "#/issue/ENG-1". */
export function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}
