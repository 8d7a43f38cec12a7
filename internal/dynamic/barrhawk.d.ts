// barrhawk.d.ts: type declarations for BarrHawk dynamic tools.
//
// BarrHawk writes this file into the dynamic tools directory at start and
// rewrites it when it differs, so edit a copy if you want changes. It is not
// a tool: no *.d.ts file is ever loaded as one.
//
// Use it from a tool with a type-only import:
//
//     import type { DynamicTool, ToolContext } from './barrhawk';
//
// Type-only imports are erased when a tool is compiled, so the path is never
// resolved at run time and any path works: files written for BarrHawk Beta,
// which import from '../../shared/types.js', compile unchanged. Imports that
// are not type-only are refused: tools cannot import modules.

/** A JSON Schema (draft 2020-12 keywords; only the common ones are typed). */
export interface JSONSchema {
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null' | Array<string>;
  description?: string;
  properties?: Record<string, JSONSchema>;
  required?: string[];
  additionalProperties?: boolean | JSONSchema;
  items?: JSONSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  oneOf?: JSONSchema[];
  anyOf?: JSONSchema[];
  allOf?: JSONSchema[];
  [keyword: string]: unknown;
}

/** The input schema of a tool: a JSON Schema for an object. */
export interface ToolSchema extends JSONSchema {
  type: 'object';
}

/** A capability a tool declares it needs. */
export type Permission = 'network' | 'filesystem' | 'browser' | 'ai';

/** Options of ToolContext.fetch. timeout is in milliseconds. */
export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeout?: number;
}

/** The answer of ToolContext.fetch; the body is already read. */
export interface FetchResponse {
  status: number;
  statusText: string;
  ok: boolean;
  headers: Record<string, string>;
  text(): string;
  json(): any;
}

/** File access for tools that declare the 'filesystem' permission. */
export interface ToolFS {
  readFile(p: string): string;
  writeFile(p: string, data: string): void;
  readdir(p: string): string[];
  exists(p: string): boolean;
  mkdir(p: string): void;
  remove(p: string): void;
}

/** What a handler gets besides its arguments. */
export interface ToolContext {
  /** Writes to the BarrHawk log (never to the MCP client). */
  log(...args: unknown[]): void;
  /** Present when the tool declares the 'network' permission. */
  fetch?(url: string, init?: FetchInit): Promise<FetchResponse>;
  /** Present when the tool declares the 'filesystem' permission. */
  fs?: ToolFS;
}

/** A dynamic tool: the module must export it as `tool`. */
export interface DynamicTool {
  /** Lowercase letters, digits and underscores, starting with a letter. */
  name: string;
  description: string;
  schema: ToolSchema;
  permissions?: Array<Permission>;
  /** Words people use when they want this tool ("csv to json", "convert spreadsheet export"), which tool_search and intent analysis index as they do a built-in tool's: at most 32, each at most 100 characters. */
  phrases?: string[];
  /** Milliseconds a call may run before it is stopped (default: the server's tools.defaultTimeout; at most 600000). */
  timeout?: number;
  /** The result is sent to the client: a string as text, anything else as JSON. */
  handler(args: Record<string, any>, ctx: ToolContext): unknown | Promise<unknown>;
}
