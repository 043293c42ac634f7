/// <reference path="./tack-plugin-types.d.ts" />
declare module 'tack:plugin/guest@0.1.0' {
  /**
   * ---- lifecycle ----------------------------------------------------------
   * Called once per instance before anything else.
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
   * Runs `/name args`. Returns text to show the user, if any.
   */
  export function runCommand(name: string, args: string): string | undefined;
  export function beforeToolCall(call: ToolCall): ToolDecision;
  /**
   * `some` replaces the result (content, details and is-error together).
   */
  export function afterToolCall(call: ToolCall, result: ToolResult): ToolResult | undefined;
  export function onInput(text: string): InputAction;
  export function beforeAgentStart(prompt: string, systemPrompt: string): AgentStartPatch;
  /**
   * Receives the messages about to be sent to the provider (a JSON array of
   * messages; a copy, never the session). `some` replaces them for this call.
   */
  export function context(messages: Json): Json | undefined;
  export function beforeCompact(request: CompactRequest): CompactDecision;
  /**
   * Observe-only lifecycle events the plugin subscribed to; `data` is the
   * event as JSON, as in `tack --mode json`.
   */
  export function onEvent(kind: EventKind, data: Json): void;
  export function buildRequest(request: ProviderRequest): RequestPlan;
  /**
   * Turns an error response (non-2xx) into a provider error.
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
   */
  export type ToolDecision = ToolDecisionAllow | ToolDecisionBlock | ToolDecisionRewrite;
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
   * Replaces the arguments (JSON object); re-validated by the host and
   * passed to later hooks.
   */
  export interface ToolDecisionRewrite {
    tag: 'rewrite',
    val: Json,
  }
  export type InputAction = InputActionContinue | InputActionTransform | InputActionHandled;
  /**
   * Leave the text as it is.
   */
  export interface InputActionContinue {
    tag: 'continue',
  }
  /**
   * Use this text instead.
   */
  export interface InputActionTransform {
    tag: 'transform',
    val: string,
  }
  /**
   * The plugin dealt with it; the agent does not run.
   */
  export interface InputActionHandled {
    tag: 'handled',
  }
  /**
   * A message injected at agent start, shown to the model as user text.
   */
  export interface InjectedMessage {
    customType: string,
    text: string,
    display: boolean,
  }
  export interface AgentStartPatch {
    /**
     * Replaces the system prompt.
     */
    systemPrompt?: string,
    /**
     * Appended to the system prompt (after any replacement).
     */
    appendSystemPrompt?: string,
    inject: Array<InjectedMessage>,
  }
  export interface CompactRequest {
    /**
     * The messages being summarized, as a JSON array.
     */
    messages: Json,
    /**
     * The summary of the previous compaction, if any.
     */
    previousSummary?: string,
    tokensBefore: bigint,
    /**
     * The user's focus (`/compact focus on X`).
     */
    focus?: string,
  }
  export type CompactDecision = CompactDecisionProceed | CompactDecisionCancel | CompactDecisionSummary;
  /**
   * Let the host summarize.
   */
  export interface CompactDecisionProceed {
    tag: 'proceed',
  }
  export interface CompactDecisionCancel {
    tag: 'cancel',
  }
  /**
   * Use this summary.
   */
  export interface CompactDecisionSummary {
    tag: 'summary',
    val: string,
  }
  /**
   * ---- providers ----------------------------------------------------------
   * # Variants
   * 
   * ## `"off"`
   * 
   * ## `"minimal"`
   * 
   * ## `"low"`
   * 
   * ## `"medium"`
   * 
   * ## `"high"`
   */
  export type ReasoningLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high';
  /**
   * The unified request the host asks a provider to translate.
   */
  export interface ProviderRequest {
    provider: string,
    model: string,
    systemPrompt: string,
    /**
     * JSON array of messages with roles user, assistant and toolResult.
     */
    messages: Json,
    tools: Array<ToolSpec>,
    maxTokens?: number,
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
    method: string,
    /**
     * Path and query appended to the base URL ("/v1/messages").
     */
    path: string,
    headers: Array<[string, string]>,
    body: Uint8Array,
  }
  export type RequestPlan = RequestPlanHttp | RequestPlanLocal;
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
   * # Variants
   * 
   * ## `"auth"`
   * 
   * ## `"rate-limited"`
   * 
   * ## `"overloaded"`
   * 
   * ## `"server"`
   * 
   * ## `"context-overflow"`
   * 
   * The prompt exceeded the context window; the host compacts and retries.
   * ## `"invalid-request"`
   * 
   * ## `"other"`
   */
  export type ErrorKind = 'auth' | 'rate-limited' | 'overloaded' | 'server' | 'context-overflow' | 'invalid-request' | 'other';
  export interface ProviderError {
    kind: ErrorKind,
    message: string,
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
    data: string,
  }
  export interface Usage {
    input: bigint,
    output: bigint,
    cacheRead: bigint,
    cacheWrite: bigint,
  }
  /**
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
  export interface BlockDelta {
    /**
     * Index of the content block in the assistant message.
     */
    index: number,
    delta: string,
  }
  export interface ToolCallStart {
    index: number,
    id: string,
    name: string,
  }
  /**
   * Unified streaming events. Text, thinking and tool-call blocks are keyed
   * by `index`; deltas append.
   */
  export type StreamEvent = StreamEventTextDelta | StreamEventThinkingDelta | StreamEventThinkingSignature | StreamEventToolCallStart | StreamEventToolCallDelta | StreamEventUsage | StreamEventStop | StreamEventError;
  export interface StreamEventTextDelta {
    tag: 'text-delta',
    val: BlockDelta,
  }
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
  export interface StreamEventStop {
    tag: 'stop',
    val: StopReason,
  }
  export interface StreamEventError {
    tag: 'error',
    val: ProviderError,
  }
  
  export class Decoder {
    constructor(provider: string, model: string)
    push(event: SseEvent): Array<StreamEvent>;
    /**
    * The body ended. A stream cut before its terminator is an error here.
    */
    finish(): Array<StreamEvent>;
  }
}
