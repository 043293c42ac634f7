/// <reference path="./tack-plugin-types.d.ts" />
declare module 'tack:plugin/guest@0.1.0' {
  /**
   * ---- lifecycle ----------------------------------------------------------
   * Called once per instance before anything else. An `err` fails the
   * plugin's load with the message shown to the user.
   */
  export function init(ctx: InitContext): Registration;
  /**
   * ---- tools and commands -------------------------------------------------
   * Runs one of the plugin's tools. Arguments were validated against the
   * tool's schema. Failures the model should see are a result with
   * `is-error`; a trap is reported by the host as a failed call.
   */
  export function callTool(call: ToolCall): ToolResult;
  /**
   * Runs `/name args`. Returns text to show the user, if any; `err` is shown
   * to the user as the command's error.
   */
  export function runCommand(name: string, args: string): string | undefined;
  /**
   * Every subscriber judges the arguments that will run: after a rewrite the
   * whole chain runs again on the new arguments, until no hook changes them
   * (at most three rounds, else the call is blocked). A hook may therefore
   * see the same call more than once and should decide the same way.
   */
  export function beforeToolCall(call: ToolCall): ToolDecision;
  /**
   * Sees each finished tool call with its result, before the model does.
   * `some` replaces the result (content, details and is-error together);
   * later subscribers see the replacement.
   */
  export function afterToolCall(call: ToolCall, result: ToolResult): ToolResult | undefined;
  /**
   * Sees the text the user submitted (not slash commands, which go to
   * `run-command`) before the agent does.
   */
  export function onInput(text: string): InputAction;
  /**
   * Called when a run starts, with the user's `prompt` and the system prompt
   * as earlier subscribers left it.
   */
  export function beforeAgentStart(prompt: string, systemPrompt: string): AgentStartPatch;
  /**
   * Receives the messages about to be sent to the provider (a JSON array of
   * messages; a copy, never the session). `some` replaces them for this call.
   */
  export function context(messages: Json): Json | undefined;
  /**
   * Called before the host compacts the session (on `/compact`, or when the
   * context nears the model's window).
   */
  export function beforeCompact(request: CompactRequest): CompactDecision;
  /**
   * Observe-only lifecycle events the plugin subscribed to; `data` is the
   * event as JSON, as in `tack --mode json` (see `event-kind`).
   */
  export function onEvent(kind: EventKind, data: Json): void;
  /**
   * Translates the unified request into the provider's API call.
   */
  export function buildRequest(request: ProviderRequest): RequestPlan;
  /**
   * Turns an error response (non-2xx) into a provider error: `provider` is
   * the provider's id, then the response's status, headers and body.
   */
  export function decodeError(provider: string, status: number, headers: Array<[string, string]>, body: Uint8Array): ProviderError;
  export type Json = import('tack:plugin/types@0.1.0').Json;
  export type Registration = import('tack:plugin/types@0.1.0').Registration;
  export type InitContext = import('tack:plugin/types@0.1.0').InitContext;
  export type ToolCall = import('tack:plugin/types@0.1.0').ToolCall;
  export type ToolResult = import('tack:plugin/types@0.1.0').ToolResult;
  export type ToolSpec = import('tack:plugin/types@0.1.0').ToolSpec;
  export type EventKind = import('tack:plugin/types@0.1.0').EventKind;
  /**
   * ---- hooks (called only when subscribed) --------------------------------
   * What `before-tool-call` decides about a call.
   */
  export type ToolDecision = ToolDecisionAllow | ToolDecisionBlock | ToolDecisionRewrite;
  /**
   * Let the call run as it is (as far as this plugin is concerned).
   */
  export interface ToolDecisionAllow {
    tag: 'allow',
  }
  /**
   * Stops the call; the model receives the reason as an error result.
   */
  export interface ToolDecisionBlock {
    tag: 'block',
    val: string,
  }
  /**
   * Replaces the arguments (JSON object); re-validated by the host. Only
   * for the plugin's own tools, or tools it holds a `rewrite` grant for;
   * otherwise the call is blocked. Returning the arguments unchanged counts
   * as `allow`.
   */
  export interface ToolDecisionRewrite {
    tag: 'rewrite',
    val: Json,
  }
  /**
   * What the `input` hook does with the user's text.
   */
  export type InputAction = InputActionContinue | InputActionTransform | InputActionHandled;
  /**
   * Leave the text as it is.
   */
  export interface InputActionContinue {
    tag: 'continue',
  }
  /**
   * Use this text instead; later subscribers see it.
   */
  export interface InputActionTransform {
    tag: 'transform',
    val: string,
  }
  /**
   * The plugin dealt with it; the agent does not run and later
   * subscribers are not asked.
   */
  export interface InputActionHandled {
    tag: 'handled',
  }
  /**
   * A message injected at agent start, shown to the model as user text.
   */
  export interface InjectedMessage {
    /**
     * The custom type it is stored under, attributed to this plugin.
     */
    customType: string,
    /**
     * What the model reads.
     */
    text: string,
    /**
     * Whether front ends show it.
     */
    display: boolean,
  }
  /**
   * Changes `before-agent-start` makes to the run about to start.
   */
  export interface AgentStartPatch {
    /**
     * Replaces the system prompt.
     */
    systemPrompt?: string,
    /**
     * Appended to the system prompt (after any replacement).
     */
    appendSystemPrompt?: string,
    /**
     * Messages added to the session after the user's prompt, before the
     * model answers it.
     */
    inject: Array<InjectedMessage>,
  }
  /**
   * What is about to be compacted.
   */
  export interface CompactRequest {
    /**
     * The messages being summarized, as a JSON array.
     */
    messages: Json,
    /**
     * The summary of the previous compaction, if any.
     */
    previousSummary?: string,
    /**
     * The size of the context before compaction, in tokens.
     */
    tokensBefore: bigint,
    /**
     * The user's focus (`/compact focus on X`).
     */
    focus?: string,
  }
  /**
   * What `before-compact` decides. The first subscriber that cancels or
   * supplies a summary decides; later ones are not asked.
   */
  export type CompactDecision = CompactDecisionProceed | CompactDecisionCancel | CompactDecisionSummary;
  /**
   * Let the host summarize (with the session's model), unless a later
   * subscriber decides otherwise.
   */
  export interface CompactDecisionProceed {
    tag: 'proceed',
  }
  /**
   * No compaction this time; the session is left as it is.
   */
  export interface CompactDecisionCancel {
    tag: 'cancel',
  }
  /**
   * Use this summary instead of asking the model; it must not be empty.
   */
  export interface CompactDecisionSummary {
    tag: 'summary',
    val: string,
  }
  /**
   * ---- providers ----------------------------------------------------------
   * How much the model should think before answering.
   * # Variants
   * 
   * ## `"off"`
   * 
   * No thinking (the only level for models without reasoning).
   * ## `"minimal"`
   * 
   * The least the API offers.
   * ## `"low"`
   * 
   * A small thinking budget.
   * ## `"medium"`
   * 
   * A moderate thinking budget.
   * ## `"high"`
   * 
   * The largest thinking budget.
   */
  export type ReasoningLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high';
  /**
   * The unified request the host asks a provider to translate.
   */
  export interface ProviderRequest {
    /**
     * The provider's id (a plugin may implement several).
     */
    provider: string,
    /**
     * The model's id.
     */
    model: string,
    /**
     * The system prompt, complete.
     */
    systemPrompt: string,
    /**
     * JSON array of messages with roles user, assistant and toolResult.
     */
    messages: Json,
    /**
     * The tools the model may call now.
     */
    tools: Array<ToolSpec>,
    /**
     * Output limit for this request (the host sets one for compaction
     * summaries); `none` leaves it to the provider, usually the model's
     * `max-output-tokens`.
     */
    maxTokens?: number,
    /**
     * The thinking level the user chose.
     */
    reasoning: ReasoningLevel,
    /**
     * Provider options from the user's config (compat flags), JSON object.
     */
    options: Json,
  }
  /**
   * An HTTP request relative to the configured base URL. The host adds the
   * secret, enforces the base URL, streams the response and retries.
   */
  export interface HttpCall {
    /**
     * The HTTP method ("POST").
     */
    method: string,
    /**
     * Path and query appended to the base URL ("/v1/messages").
     */
    path: string,
    /**
     * Request headers; the host drops those it owns (credentials, framing).
     */
    headers: Array<[string, string]>,
    /**
     * The request body.
     */
    body: Uint8Array,
  }
  /**
   * How the host gets the response for a request.
   */
  export type RequestPlan = RequestPlanHttp | RequestPlanLocal;
  /**
   * Send this request; the response body is decoded by a `decoder`.
   */
  export interface RequestPlanHttp {
    tag: 'http',
    val: HttpCall,
  }
  /**
   * No network: the given bytes are the response body, decoded exactly
   * like a streamed HTTP body (used by offline providers such as `demo`).
   */
  export interface RequestPlanLocal {
    tag: 'local',
    val: Uint8Array,
  }
  /**
   * What kind of failure a provider error is; the host retries some.
   * # Variants
   * 
   * ## `"auth"`
   * 
   * The credentials were refused or are missing. Not retried.
   * ## `"rate-limited"`
   * 
   * Too many requests; retried after `retry-after-ms` or a backoff.
   * ## `"overloaded"`
   * 
   * The provider is overloaded; retried.
   * ## `"server"`
   * 
   * The provider failed (a 5xx); retried.
   * ## `"context-overflow"`
   * 
   * The prompt exceeded the context window; the host compacts and retries.
   * ## `"invalid-request"`
   * 
   * The provider refused the request as malformed. Not retried.
   * ## `"other"`
   * 
   * Anything else. Not retried.
   */
  export type ErrorKind = 'auth' | 'rate-limited' | 'overloaded' | 'server' | 'context-overflow' | 'invalid-request' | 'other';
  /**
   * A failure reported by a provider, before or during its response.
   */
  export interface ProviderError {
    /**
     * What kind of failure, which decides whether the host retries.
     */
    kind: ErrorKind,
    /**
     * The provider's explanation, shown to the user.
     */
    message: string,
    /**
     * How long the server asked to wait before retrying; `none` lets the
     * host use the response's `retry-after` header or its own backoff.
     */
    retryAfterMs?: bigint,
  }
  /**
   * One server-sent event, already framed by the host.
   */
  export interface SseEvent {
    /**
     * The `event:` field; "message" when absent, as the SSE specification says.
     */
    event: string,
    /**
     * The `data:` field; several `data:` lines are joined with `\n`.
     */
    data: string,
  }
  /**
   * Token counts of one response.
   */
  export interface Usage {
    /**
     * Input tokens not read from the provider's prompt cache.
     */
    input: bigint,
    /**
     * Output tokens, thinking included.
     */
    output: bigint,
    /**
     * Input tokens read from the prompt cache.
     */
    cacheRead: bigint,
    /**
     * Input tokens written to the prompt cache.
     */
    cacheWrite: bigint,
  }
  /**
   * Why the model stopped.
   * # Variants
   * 
   * ## `"stop"`
   * 
   * The model finished.
   * ## `"length"`
   * 
   * It hit the output limit; its tool calls are failed, never executed.
   * ## `"tool-use"`
   * 
   * It wants tool results.
   */
  export type StopReason = 'stop' | 'length' | 'tool-use';
  /**
   * A piece of a content block.
   */
  export interface BlockDelta {
    /**
     * Index of the content block in the assistant message.
     */
    index: number,
    /**
     * Text appended to the block.
     */
    delta: string,
  }
  /**
   * A tool-call block begins.
   */
  export interface ToolCallStart {
    /**
     * Index of the content block in the assistant message.
     */
    index: number,
    /**
     * The provider's id for the call, echoed in its tool result.
     */
    id: string,
    /**
     * The tool's name.
     */
    name: string,
  }
  /**
   * Unified streaming events. Text, thinking and tool-call blocks are keyed
   * by `index`; deltas append.
   */
  export type StreamEvent = StreamEventTextDelta | StreamEventThinkingDelta | StreamEventThinkingSignature | StreamEventToolCallStart | StreamEventToolCallDelta | StreamEventUsage | StreamEventStop | StreamEventError;
  /**
   * Text of a text block.
   */
  export interface StreamEventTextDelta {
    tag: 'text-delta',
    val: BlockDelta,
  }
  /**
   * Text of a thinking block.
   */
  export interface StreamEventThinkingDelta {
    tag: 'thinking-delta',
    val: BlockDelta,
  }
  /**
   * Opaque signature of a thinking block, sent back verbatim next turn.
   */
  export interface StreamEventThinkingSignature {
    tag: 'thinking-signature',
    val: BlockDelta,
  }
  /**
   * A tool-call block begins.
   */
  export interface StreamEventToolCallStart {
    tag: 'tool-call-start',
    val: ToolCallStart,
  }
  /**
   * A fragment of the tool call's JSON arguments.
   */
  export interface StreamEventToolCallDelta {
    tag: 'tool-call-delta',
    val: BlockDelta,
  }
  /**
   * Cumulative usage so far; the last one wins.
   */
  export interface StreamEventUsage {
    tag: 'usage',
    val: Usage,
  }
  /**
   * The model stopped, and why.
   */
  export interface StreamEventStop {
    tag: 'stop',
    val: StopReason,
  }
  /**
   * The response failed; the message ends here with stop reason `error`.
   */
  export interface StreamEventError {
    tag: 'error',
    val: ProviderError,
  }
  
  export class Decoder {
    /**
    * A decoder for one response of `model` from `provider` (ids).
    */
    constructor(provider: string, model: string)
    /**
    * Decodes one event into any number of stream events. An `err` ends the
    * message with stop reason `error`.
    */
    push(event: SseEvent): Array<StreamEvent>;
    /**
    * The body ended. A stream cut before its terminator is an error here.
    */
    finish(): Array<StreamEvent>;
  }
}
