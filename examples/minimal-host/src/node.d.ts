// The few Node.js 20 APIs this host uses, declared by hand so that the
// example needs no dependency beyond `yaml` and `typescript`. If your host
// already depends on @types/node, delete this file.

declare class Buffer extends Uint8Array {
  static from(data: string, encoding?: "utf8" | "hex" | "base64"): Buffer;
  static from(data: Uint8Array | ArrayBuffer | number[]): Buffer;
  static concat(list: Uint8Array[], total?: number): Buffer;
  static alloc(size: number): Buffer;
  static byteLength(s: string, encoding?: "utf8"): number;
  static isBuffer(x: unknown): x is Buffer;
  toString(encoding?: "utf8" | "hex" | "base64" | "latin1" | "ascii", start?: number, end?: number): string;
  indexOf(value: string | number | Uint8Array, byteOffset?: number): number;
  subarray(start?: number, end?: number): Buffer;
  equals(other: Uint8Array): boolean;
  readUInt8(offset: number): number;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input: Uint8Array): string;
}

declare function setTimeout(cb: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

declare const process: {
  env: Record<string, string | undefined>;
  argv: string[];
  pid: number;
  exit(code?: number): never;
  on(event: "uncaughtException" | "unhandledRejection", cb: (err: unknown) => void): void;
  stdin: {
    on(event: "data", cb: (chunk: Buffer) => void): void;
    on(event: "end" | "close", cb: () => void): void;
    resume(): void;
  };
  stdout: { write(data: Uint8Array | string, cb?: () => void): boolean };
  stderr: { write(data: string): boolean };
};

declare module "node:fs" {
  export interface Stats {
    size: number;
    mode: number;
    isFile(): boolean;
    isDirectory(): boolean;
    isSymbolicLink(): boolean;
  }
  export function readFileSync(path: string): Buffer;
  export function writeFileSync(path: string, data: Uint8Array | string): void;
  export function readdirSync(path: string): string[];
  export function lstatSync(path: string): Stats;
  export function statSync(path: string): Stats;
  export function realpathSync(path: string): string;
  export function existsSync(path: string): boolean;
  export function mkdirSync(path: string, options?: { recursive?: boolean }): void;
  export function mkdtempSync(prefix: string): string;
  export function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
  export function renameSync(from: string, to: string): void;
}

declare module "node:path" {
  export const sep: string;
  export function join(...parts: string[]): string;
  export function resolve(...parts: string[]): string;
  export function relative(from: string, to: string): string;
  export function dirname(p: string): string;
  export function basename(p: string): string;
  export function isAbsolute(p: string): boolean;
}

declare module "node:os" {
  export function tmpdir(): string;
}

declare module "node:crypto" {
  export interface Hash {
    update(data: Uint8Array | string): Hash;
    digest(encoding: "hex" | "base64"): string;
    digest(): Buffer;
  }
  export function createHash(algorithm: string): Hash;
  export interface KeyObject {
    type: string;
  }
  export function createPublicKey(key: { key: Uint8Array; format: "der"; type: "spki" } | string): KeyObject;
  export function verify(algorithm: string | null, data: Uint8Array, key: KeyObject, signature: Uint8Array): boolean;
  export class X509Certificate {
    constructor(der: Uint8Array | string);
    readonly publicKey: KeyObject;
    readonly raw: Buffer;
    readonly validFrom: string;
    readonly validTo: string;
    readonly subjectAltName: string | undefined;
    readonly ca: boolean;
    checkIssued(other: X509Certificate): boolean;
    verify(publicKey: KeyObject): boolean;
    toString(): string;
  }
}

declare module "node:http" {
  export interface IncomingMessage {
    statusCode?: number;
    on(event: "data", cb: (chunk: Buffer) => void): this;
    on(event: "end" | "aborted", cb: () => void): this;
    on(event: "error", cb: (err: Error) => void): this;
    resume(): void;
  }
  export interface ClientRequest {
    on(event: "error", cb: (err: Error) => void): this;
    destroy(err?: Error): void;
    setTimeout(ms: number, cb: () => void): this;
  }
  export function get(url: string, cb: (res: IncomingMessage) => void): ClientRequest;
}
