declare module 'tack:plugin/types@0.1.0' {
  /**
   * UTF-8 JSON text. The host validates it where it matters (tool arguments
   * against the tool's schema) and reports malformed JSON as an error naming
   * the plugin.
   */
  export type Json = string;
  /**
   * How a tool may be scheduled inside one assistant message's batch.
   * # Variants
   * 
   * ## `"parallel"`
   * 
   * May run concurrently with the other calls of the batch.
   * ## `"sequential"`
   * 
   * Forces the whole batch to run one call at a time, in order.
   */
  export type ExecutionMode = 'parallel' | 'sequential';
  /**
   * A tool the model can call.
   */
  export interface ToolSpec {
    /**
     * Unique name the model uses (`[a-zA-Z0-9_-]{1,64}`).
     */
    name: string,
    /**
     * Short human label for front ends ("Read file").
     */
    label: string,
    /**
     * What the tool does, for the model. Precise beats short.
     */
    description: string,
    /**
     * JSON Schema (draft 2020-12) of the arguments object. Arguments are
     * validated against it before any hook or the tool sees them.
     */
    parameters: Json,
    /**
     * Scheduling inside a batch.
     */
    mode: ExecutionMode,
    /**
     * One line added to the system prompt while the tool is active.
     */
    promptSnippet?: string,
  }
  /**
   * A slash command (`/name args`) the user can type.
   */
  export interface CommandSpec {
    /**
     * Name without the slash.
     */
    name: string,
    /**
     * One line for autocomplete and `/help`.
     */
    description: string,
  }
  /**
   * Hooks a plugin can subscribe to. The host calls a plugin only for the
   * hooks it listed in its registration, in plugin load order.
   * # Variants
   * 
   * ## `"before-tool-call"`
   * 
   * `before-tool-call`: allow, block or rewrite a tool call.
   * ## `"after-tool-call"`
   * 
   * `after-tool-call`: replace a tool result.
   * ## `"input"`
   * 
   * `input`: transform or consume the user's text before the agent sees it.
   * ## `"before-agent-start"`
   * 
   * `before-agent-start`: change the system prompt or inject messages.
   * ## `"context"`
   * 
   * `context`: rewrite the messages sent to the provider (a copy).
   * ## `"before-compact"`
   * 
   * `before-compact`: cancel compaction or supply the summary.
   */
  export type HookKind = 'before-tool-call' | 'after-tool-call' | 'input' | 'before-agent-start' | 'context' | 'before-compact';
  /**
   * Observe-only lifecycle events, delivered through `guest.on-event` to the
   * plugins that listed them in their registration. The event's `data` is a
   * JSON object whose `type` is the case name in snake_case
   * (`"turn_end"`), with the fields named below, as in `tack --mode json`.
   * # Variants
   * 
   * ## `"session-start"`
   * 
   * A session was opened or created, at start or when the user switches
   * to another one (`/new`, `/resume`, a fork). Fields: `sessionId`, `cwd`.
   * ## `"session-end"`
   * 
   * The session is being left: tack exits or the user switches to
   * another one. Fields: `sessionId`, `cwd`.
   * ## `"agent-start"`
   * 
   * A run of the agent began (one user prompt, or a queued message when
   * idle).
   * ## `"agent-end"`
   * 
   * The run is over. Fields: `messages`, the messages it added to the
   * session.
   * ## `"turn-start"`
   * 
   * A turn began: one provider call and the tool calls of its answer.
   * ## `"turn-end"`
   * 
   * The turn is over. Fields: `message` (the assistant message) and
   * `tool_results` (the tool result messages of its calls).
   * ## `"message-end"`
   * 
   * A message (user, assistant, tool result or custom) is complete and
   * stored in the session. Fields: `message`.
   * ## `"tool-execution-start"`
   * 
   * A tool call is about to run. Fields: `tool_call_id`, `tool_name`,
   * `args` (after any rewrite by a before-tool-call hook, whose plugins
   * `rewritten_by` names). A call refused before it runs (unknown tool,
   * invalid arguments, blocked) starts too, with the model's arguments.
   * ## `"tool-execution-end"`
   * 
   * A tool call finished. Fields: `tool_call_id`, `tool_name`, `result`
   * (content and details) and `is_error`.
   */
  export type EventKind = 'session-start' | 'session-end' | 'agent-start' | 'agent-end' | 'turn-start' | 'turn-end' | 'message-end' | 'tool-execution-start' | 'tool-execution-end';
  /**
   * What a model accepts as input.
   * # Variants
   * 
   * ## `"text"`
   * 
   * Text, which every model accepts.
   * ## `"image"`
   * 
   * Images in user messages and tool results.
   */
  export type InputKind = 'text' | 'image';
  /**
   * Price in US dollars per million tokens.
   */
  export interface ModelCost {
    /**
     * Input tokens not read from the provider's prompt cache.
     */
    input: number,
    /**
     * Output tokens, thinking included.
     */
    output: number,
    /**
     * Input tokens read from the prompt cache.
     */
    cacheRead: number,
    /**
     * Input tokens written to the prompt cache.
     */
    cacheWrite: number,
  }
  /**
   * A model a provider plugin can serve.
   */
  export interface ModelSpec {
    /**
     * Identifier sent to the API ("claude-sonnet-4-5").
     */
    id: string,
    /**
     * Human name.
     */
    name: string,
    /**
     * Context window in tokens.
     */
    contextWindow: number,
    /**
     * Largest output the model may produce, in tokens.
     */
    maxOutputTokens: number,
    /**
     * Whether the model can think/reason before answering.
     */
    reasoning: boolean,
    /**
     * The kinds of input it accepts.
     */
    input: Array<InputKind>,
    /**
     * Its price, from which the host computes each message's cost.
     */
    cost: ModelCost,
  }
  /**
   * How the host attaches the provider's secret to each request. The guest
   * never sees the secret's value.
   */
  export type AuthScheme = AuthSchemeNone | AuthSchemeBearer | AuthSchemeHeader | AuthSchemeQuery;
  /**
   * No credentials.
   */
  export interface AuthSchemeNone {
    tag: 'none',
  }
  /**
   * `Authorization: Bearer <secret>`.
   */
  export interface AuthSchemeBearer {
    tag: 'bearer',
  }
  /**
   * A named header carries the raw secret (`x-api-key`).
   */
  export interface AuthSchemeHeader {
    tag: 'header',
    val: string,
  }
  /**
   * A query parameter carries the raw secret (`key`).
   */
  export interface AuthSchemeQuery {
    tag: 'query',
    val: string,
  }
  /**
   * An LLM provider implemented by this plugin (see the provider functions
   * of the `guest` interface: `build-request`, `decode-error`, `decoder`).
   */
  export interface ProviderSpec {
    /**
     * Identifier used in config and `--provider` ("anthropic").
     */
    id: string,
    /**
     * Human name.
     */
    name: string,
    /**
     * Base URL requests are sent to unless the user configures another.
     * Empty for providers that never touch the network (the demo).
     */
    defaultBaseUrl: string,
    /**
     * Name of the secret (an env var or auth-file key) holding the API key.
     */
    secret?: string,
    /**
     * How the secret is attached to every request.
     */
    auth: AuthScheme,
    /**
     * The models it serves; the user's config may add more.
     */
    models: Array<ModelSpec>,
  }
  /**
   * Everything a plugin provides, returned once from `init`.
   */
  export interface Registration {
    /**
     * Tools the model may call; the host routes their calls to `call-tool`.
     */
    tools: Array<ToolSpec>,
    /**
     * Slash commands; the host routes them to `run-command`.
     */
    commands: Array<CommandSpec>,
    /**
     * Hooks the host calls this plugin for; no other hook is ever called.
     */
    hooks: Array<HookKind>,
    /**
     * Events the host delivers to `on-event`; no other event is.
     */
    events: Array<EventKind>,
    /**
     * LLM providers this plugin implements.
     */
    providers: Array<ProviderSpec>,
  }
  /**
   * Facts the host tells a plugin at start.
   */
  export interface InitContext {
    /**
     * Version of the API the host speaks ("0.1.0").
     */
    apiVersion: string,
    /**
     * Absolute path of the workspace (the user's cwd or chosen root). If the
     * plugin holds a filesystem grant for it, the directory is preopened at
     * this same path inside the guest.
     */
    workspace: string,
    /**
     * The plugin's configuration as JSON (an object; `{}` when none).
     */
    config: Json,
    /**
     * Per-plugin data directory inside the guest, when the host provides one.
     */
    dataDir?: string,
  }
  /**
   * An image in a message or tool result.
   */
  export interface Image {
    /**
     * "image/png", "image/jpeg", "image/gif" or "image/webp".
     */
    mimeType: string,
    /**
     * Raw (not base64) bytes.
     */
    data: Uint8Array,
  }
  /**
   * One block of the content of a message or tool result.
   */
  export type ContentBlock = ContentBlockText | ContentBlockImage;
  /**
   * Plain text (Markdown is rendered by front ends that can).
   */
  export interface ContentBlockText {
    tag: 'text',
    val: string,
  }
  /**
   * An image, for models whose `input` lists `image`.
   */
  export interface ContentBlockImage {
    tag: 'image',
    val: Image,
  }
  /**
   * A tool call as the host passes it to tools and hooks.
   */
  export interface ToolCall {
    /**
     * Provider-assigned call id.
     */
    id: string,
    /**
     * Tool name.
     */
    name: string,
    /**
     * Arguments object as JSON, already validated against the schema.
     */
    arguments: Json,
  }
  /**
   * The outcome of a tool call.
   */
  export interface ToolResult {
    /**
     * What the model sees.
     */
    content: Array<ContentBlock>,
    /**
     * Structured data for front ends and plugins (diffs, counts); the model
     * never sees it.
     */
    details?: Json,
    /**
     * Marks the result as a failure for the model.
     */
    isError: boolean,
  }
  /**
   * Severity of a log line or notification.
   * # Variants
   * 
   * ## `"debug"`
   * 
   * Detail for whoever debugs the plugin; hidden unless asked for.
   * ## `"info"`
   * 
   * Normal operation.
   * ## `"warn"`
   * 
   * Something went wrong but the plugin carries on.
   * ## `"error"`
   * 
   * Something failed.
   */
  export type Level = 'debug' | 'info' | 'warn' | 'error';
}
