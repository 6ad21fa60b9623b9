/**
 * Where issued tokens are kept between sign-ins (docs/api.md §4: storing the token is the client's
 * job). Any object with these three methods works — sync or async — e.g. a wrapper over
 * sessionStorage, IndexedDB, a cookie, or a server-side session.
 */
export interface TokenStorage {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, token: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}

export function memoryStorage(): TokenStorage {
  const tokens = new Map<string, string>();
  return {
    get: (key) => tokens.get(key),
    set: (key, token) => void tokens.set(key, token),
    remove: (key) => void tokens.delete(key),
  };
}

/** The Web Storage API subset we use; `localStorage` and `sessionStorage` both fit. */
interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function webStorage(store: WebStorage): TokenStorage {
  return {
    get: (key) => store.getItem(key),
    set: (key, token) => store.setItem(key, token),
    remove: (key) => store.removeItem(key),
  };
}

/**
 * localStorage when the page has a working one (it throws in some private modes and sandboxed
 * iframes), otherwise memory — which is what Node and workers get.
 */
export function defaultStorage(): TokenStorage {
  try {
    const candidate = (globalThis as { localStorage?: WebStorage }).localStorage;
    if (candidate) {
      const probe = '__x404_probe__';
      candidate.setItem(probe, probe);
      candidate.removeItem(probe);
      return webStorage(candidate);
    }
  } catch {
    // fall through to memory
  }
  return memoryStorage();
}

let sharedDefault: TokenStorage | undefined;

/** One default per JS realm, so two `authenticate` calls in one Node process share tokens. */
export function sharedDefaultStorage(): TokenStorage {
  sharedDefault ??= defaultStorage();
  return sharedDefault;
}

/** Tokens are bound to a gate, a feature and a wallet; the key says all three. */
export function storageKey(baseUrl: string, feature: string, wallet: string): string {
  return `x404:${baseUrl}:${feature}:${wallet}`;
}
