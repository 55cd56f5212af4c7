import { useEffect, useRef, useState } from 'preact/hooks';
import { onChange, type ChangeOptions } from './api.ts';

export interface Loaded<T> {
  data?: T;
  error?: string;
  reload(): void;
}

/** Runs `load` now, whenever `deps` change, and again after events on the live stream (paced: see onChange). */
export function useLive<T>(load: () => Promise<T>, deps: unknown[], opts: ChangeOptions = {}): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const seq = useRef(0);
  const run = () => {
    const mine = ++seq.current;
    load().then(
      (data) => mine === seq.current && setState({ data }),
      (err: Error) => mine === seq.current && setState((s) => ({ data: s.data, error: err.message })),
    );
  };
  useEffect(() => {
    run();
    return onChange(run, opts);
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
