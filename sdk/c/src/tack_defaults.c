/* Weak default definitions of every export of the `tack:plugin` world. A plugin defines the
 * exports its registration lists and the linker drops these; the host never calls the rest, so
 * the defaults only need to be safe (allow, continue, proceed, "unknown tool"). Arguments are
 * owned by the export and freed here. */

#include <stdlib.h>

#include "tack.h"

#define TACK_DEFAULT __attribute__((weak))

static void not_a_provider(exports_tack_plugin_guest_provider_error_t *err, const char *what) {
  err->kind = EXPORTS_TACK_PLUGIN_GUEST_ERROR_KIND_INVALID_REQUEST;
  tack_string_printf(&err->message, "this plugin is not a provider (%s)", what);
  err->retry_after_ms.is_some = false;
}

TACK_DEFAULT bool exports_tack_plugin_guest_init(exports_tack_plugin_guest_init_context_t *ctx,
                                                 exports_tack_plugin_guest_registration_t *ret,
                                                 plugin_string_t *err) {
  (void)ret;
  exports_tack_plugin_guest_init_context_free(ctx);
  tack_string_dup(err, "this plugin does not define exports_tack_plugin_guest_init");
  return false;
}

TACK_DEFAULT void exports_tack_plugin_guest_call_tool(exports_tack_plugin_guest_tool_call_t *call,
                                                      exports_tack_plugin_guest_tool_result_t *ret) {
  tack_string_t message;
  tack_string_printf(&message, "unknown tool `%.*s`", (int)call->name.len, (const char *)call->name.ptr);
  char *text = tack_cstr(&message);
  tack_error_result(ret, text);
  free(text);
  plugin_string_free(&message);
  exports_tack_plugin_guest_tool_call_free(call);
}

TACK_DEFAULT bool exports_tack_plugin_guest_run_command(plugin_string_t *name, plugin_string_t *args,
                                                        plugin_option_string_t *ret,
                                                        plugin_string_t *err) {
  (void)ret;
  tack_string_printf(err, "unknown command `/%.*s`", (int)name->len, (const char *)name->ptr);
  plugin_string_free(name);
  plugin_string_free(args);
  return false;
}

TACK_DEFAULT void exports_tack_plugin_guest_before_tool_call(
    exports_tack_plugin_guest_tool_call_t *call, exports_tack_plugin_guest_tool_decision_t *ret) {
  exports_tack_plugin_guest_tool_call_free(call);
  tack_allow(ret);
}

TACK_DEFAULT bool exports_tack_plugin_guest_after_tool_call(
    exports_tack_plugin_guest_tool_call_t *call, exports_tack_plugin_guest_tool_result_t *result,
    exports_tack_plugin_guest_tool_result_t *ret) {
  (void)ret;
  exports_tack_plugin_guest_tool_call_free(call);
  exports_tack_plugin_guest_tool_result_free(result);
  return false;
}

TACK_DEFAULT void exports_tack_plugin_guest_on_input(plugin_string_t *text,
                                                     exports_tack_plugin_guest_input_action_t *ret) {
  plugin_string_free(text);
  ret->tag = EXPORTS_TACK_PLUGIN_GUEST_INPUT_ACTION_CONTINUE;
}

TACK_DEFAULT void exports_tack_plugin_guest_before_agent_start(
    plugin_string_t *prompt, plugin_string_t *system_prompt,
    exports_tack_plugin_guest_agent_start_patch_t *ret) {
  plugin_string_free(prompt);
  plugin_string_free(system_prompt);
  ret->system_prompt.is_some = false;
  ret->append_system_prompt.is_some = false;
  ret->inject.ptr = NULL;
  ret->inject.len = 0;
}

TACK_DEFAULT bool exports_tack_plugin_guest_context(exports_tack_plugin_guest_json_t *messages,
                                                    exports_tack_plugin_guest_json_t *ret) {
  (void)ret;
  plugin_string_free(messages);
  return false;
}

TACK_DEFAULT void exports_tack_plugin_guest_before_compact(
    exports_tack_plugin_guest_compact_request_t *request,
    exports_tack_plugin_guest_compact_decision_t *ret) {
  exports_tack_plugin_guest_compact_request_free(request);
  ret->tag = EXPORTS_TACK_PLUGIN_GUEST_COMPACT_DECISION_PROCEED;
}

TACK_DEFAULT void exports_tack_plugin_guest_on_event(exports_tack_plugin_guest_event_kind_t kind,
                                                     exports_tack_plugin_guest_json_t *data) {
  (void)kind;
  plugin_string_free(data);
}

TACK_DEFAULT bool exports_tack_plugin_guest_build_request(
    exports_tack_plugin_guest_provider_request_t *request,
    exports_tack_plugin_guest_request_plan_t *ret, exports_tack_plugin_guest_provider_error_t *err) {
  (void)ret;
  exports_tack_plugin_guest_provider_request_free(request);
  not_a_provider(err, "build-request");
  return false;
}

TACK_DEFAULT void exports_tack_plugin_guest_decode_error(
    plugin_string_t *provider, uint16_t status, plugin_list_tuple2_string_string_t *headers,
    plugin_list_u8_t *body, exports_tack_plugin_guest_provider_error_t *ret) {
  plugin_string_free(provider);
  plugin_list_tuple2_string_string_free(headers);
  plugin_list_u8_free(body);
  ret->kind = EXPORTS_TACK_PLUGIN_GUEST_ERROR_KIND_OTHER;
  tack_string_printf(&ret->message, "HTTP %u", (unsigned)status);
  ret->retry_after_ms.is_some = false;
}

/* The decoder resource of a plugin that is no provider: it exists only to satisfy the type. */
struct exports_tack_plugin_guest_decoder_t {
  int unused;
};

TACK_DEFAULT exports_tack_plugin_guest_own_decoder_t exports_tack_plugin_guest_constructor_decoder(
    plugin_string_t *provider, plugin_string_t *model) {
  plugin_string_free(provider);
  plugin_string_free(model);
  exports_tack_plugin_guest_decoder_t *rep = calloc(1, sizeof(*rep));
  return exports_tack_plugin_guest_decoder_new(rep);
}

TACK_DEFAULT bool exports_tack_plugin_guest_method_decoder_push(
    exports_tack_plugin_guest_borrow_decoder_t self, exports_tack_plugin_guest_sse_event_t *event,
    exports_tack_plugin_guest_list_stream_event_t *ret,
    exports_tack_plugin_guest_provider_error_t *err) {
  (void)self;
  (void)ret;
  exports_tack_plugin_guest_sse_event_free(event);
  not_a_provider(err, "decoder.push");
  return false;
}

TACK_DEFAULT bool exports_tack_plugin_guest_method_decoder_finish(
    exports_tack_plugin_guest_borrow_decoder_t self,
    exports_tack_plugin_guest_list_stream_event_t *ret,
    exports_tack_plugin_guest_provider_error_t *err) {
  (void)self;
  (void)ret;
  not_a_provider(err, "decoder.finish");
  return false;
}

TACK_DEFAULT void exports_tack_plugin_guest_decoder_destructor(
    exports_tack_plugin_guest_decoder_t *rep) {
  free(rep);
}

TACK_DEFAULT bool exports_tack_plugin_task_runner_run_task(plugin_list_u8_t *input,
                                                           plugin_list_u8_t *ret,
                                                           plugin_string_t *err) {
  (void)ret;
  plugin_list_u8_free(input);
  tack_string_dup(err, "this plugin runs no tasks");
  return false;
}

/* ---- tack:plugin@0.2.0's optional exports ---------------------------------------------------- */

/* Built only with 0.2.0's bindings (see tack.h), whose world declares these exports: a plugin
 * that defines none of them still exports them, and the defaults change nothing. */
#ifdef TACK_API_0_2

TACK_DEFAULT void exports_tack_plugin_observer_on_event(plugin_string_t *name,
                                                        exports_tack_plugin_observer_json_t *data) {
  plugin_string_free(name);
  plugin_string_free(data);
}

/* `none`: the request goes as the provider built it. */
TACK_DEFAULT bool exports_tack_plugin_provider_hooks_before_provider_request(
    exports_tack_plugin_provider_hooks_outgoing_request_t *request,
    exports_tack_plugin_provider_hooks_json_t *ret) {
  (void)ret;
  exports_tack_plugin_provider_hooks_outgoing_request_free(request);
  return false;
}

TACK_DEFAULT void exports_tack_plugin_provider_hooks_after_provider_response(
    exports_tack_plugin_provider_hooks_provider_response_t *response) {
  exports_tack_plugin_provider_hooks_provider_response_free(response);
}

TACK_DEFAULT exports_tack_plugin_session_hooks_session_decision_t
exports_tack_plugin_session_hooks_before_switch(
    exports_tack_plugin_session_hooks_switch_request_t *request) {
  plugin_option_string_free(&request->target_session_id);
  return EXPORTS_TACK_PLUGIN_SESSION_HOOKS_SESSION_DECISION_PROCEED;
}

TACK_DEFAULT exports_tack_plugin_session_hooks_session_decision_t
exports_tack_plugin_session_hooks_before_fork(
    exports_tack_plugin_session_hooks_fork_request_t *request) {
  exports_tack_plugin_session_hooks_fork_request_free(request);
  return EXPORTS_TACK_PLUGIN_SESSION_HOOKS_SESSION_DECISION_PROCEED;
}

TACK_DEFAULT void exports_tack_plugin_session_hooks_before_tree(
    exports_tack_plugin_session_hooks_tree_request_t *request,
    exports_tack_plugin_session_hooks_tree_decision_t *ret) {
  exports_tack_plugin_session_hooks_tree_request_free(request);
  ret->tag = EXPORTS_TACK_PLUGIN_SESSION_HOOKS_TREE_DECISION_PROCEED;
}

/* Nothing to offer: the built-in completions stand. */
TACK_DEFAULT bool exports_tack_plugin_completions_command_arguments(
    plugin_string_t *command, plugin_string_t *prefix,
    exports_tack_plugin_completions_list_completion_item_t *ret) {
  (void)ret;
  plugin_string_free(command);
  plugin_string_free(prefix);
  return false;
}

TACK_DEFAULT bool exports_tack_plugin_completions_input(
    plugin_list_string_t *lines, uint32_t cursor_line, uint32_t cursor_col,
    exports_tack_plugin_completions_input_completion_t *ret) {
  (void)cursor_line;
  (void)cursor_col;
  (void)ret;
  plugin_list_string_free(lines);
  return false;
}

/* Nothing drawn: tack draws the plugin's tool calls and messages itself. */
TACK_DEFAULT bool exports_tack_plugin_renderers_render_call(
    exports_tack_plugin_renderers_tool_call_t *call,
    exports_tack_plugin_renderers_render_options_t *options, plugin_list_string_t *ret) {
  (void)options;
  (void)ret;
  exports_tack_plugin_renderers_tool_call_free(call);
  return false;
}

TACK_DEFAULT bool exports_tack_plugin_renderers_render_result(
    exports_tack_plugin_renderers_tool_call_t *call,
    exports_tack_plugin_renderers_tool_result_t *outcome,
    exports_tack_plugin_renderers_render_options_t *options, plugin_list_string_t *ret) {
  (void)options;
  (void)ret;
  exports_tack_plugin_renderers_tool_call_free(call);
  exports_tack_plugin_renderers_tool_result_free(outcome);
  return false;
}

TACK_DEFAULT bool exports_tack_plugin_renderers_render_message(
    exports_tack_plugin_renderers_custom_message_t *message,
    exports_tack_plugin_renderers_render_options_t *options, plugin_list_string_t *ret) {
  (void)options;
  (void)ret;
  exports_tack_plugin_renderers_custom_message_free(message);
  return false;
}

/* No editor of its own: an empty view (tack's editor stays unless the plugin turned its on). */
TACK_DEFAULT void exports_tack_plugin_editor_view(uint32_t width,
                                                 exports_tack_plugin_editor_editor_view_t *ret) {
  (void)width;
  *ret = (exports_tack_plugin_editor_editor_view_t){0};
}

TACK_DEFAULT void exports_tack_plugin_editor_key(plugin_string_t *key, uint32_t width,
                                                exports_tack_plugin_editor_editor_view_t *ret) {
  (void)width;
  plugin_string_free(key);
  *ret = (exports_tack_plugin_editor_editor_view_t){0};
}

TACK_DEFAULT void exports_tack_plugin_editor_paste(plugin_string_t *text, uint32_t width,
                                                  exports_tack_plugin_editor_editor_view_t *ret) {
  (void)width;
  plugin_string_free(text);
  *ret = (exports_tack_plugin_editor_editor_view_t){0};
}

#endif /* TACK_API_0_2 */
