/* The tack plugin SDK for C.
 *
 * Include this instead of the generated "plugin.h" (it includes it). Write only the exports your
 * registration lists, with the names wit-bindgen gives them
 * (`exports_tack_plugin_guest_init`, `exports_tack_plugin_guest_call_tool`, ...): tack.c defines
 * every export as a weak symbol with a safe default, and your definitions replace those.
 *
 * Ownership follows wit-bindgen's C conventions: arguments of an export belong to the export
 * (free them with the generated `*_free` functions, or let the helpers below do it), and
 * everything an export returns must be heap memory, because the generated glue frees it after
 * the host has copied it. The helpers here always allocate.
 *
 * The bindings cover the `plugin-extended` world (the `plugin` world plus the optional
 * extensions), under the `plugin` names: `tack_run_tasks` (fan-out; each task runs through your
 * `exports_tack_plugin_task_runner_run_task` on another instance) and `tack_file_permissions`
 * below wrap them. A plugin that calls neither imports neither.
 *
 * A plugin built against `tack:plugin@0.2.0` (`api = "0.2"` in its tack.toml) generates its
 * bindings from both WIT folders: `tack-c bindgen <wit-0.1.0> <wit-0.2.0> <out>` (or `tack plugin
 * c-bindgen <wit-0.1.0> <out> --wit-0-2 <wit-0.2.0>`). Those bindings keep every 0.1.0 name and
 * add 0.2.0's (`tack_plugin_control_*`, `tack_plugin_screen_*`, ...); with them this header
 * declares the 0.2.0 helpers below (TACK_API_0_2), and tack_defaults.c adds harmless defaults
 * for 0.2.0's three optional exports. With 0.1.0's bindings none of that is compiled.
 */
#ifndef TACK_H
#define TACK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef plugin_string_t tack_string_t;
typedef exports_tack_plugin_guest_tool_call_t tack_tool_call_t;
typedef exports_tack_plugin_guest_tool_result_t tack_tool_result_t;
typedef exports_tack_plugin_guest_tool_decision_t tack_tool_decision_t;
typedef exports_tack_plugin_guest_registration_t tack_registration_t;
typedef exports_tack_plugin_guest_init_context_t tack_init_context_t;
/* A task's input and output. */
typedef plugin_list_u8_t tack_bytes_t;

/* ---- strings -------------------------------------------------------------------------------- */

/* A heap copy of `s` (NUL-terminated). */
void tack_string_dup(tack_string_t *out, const char *s);
/* A heap copy of `len` bytes. */
void tack_string_dup_n(tack_string_t *out, const char *s, size_t len);
/* A heap, NUL-terminated copy of a WIT string, for the C string functions. Free with free(). */
char *tack_cstr(const tack_string_t *s);
/* printf into a heap string. */
void tack_string_printf(tack_string_t *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- building JSON -------------------------------------------------------------------------- */

/* A growable byte buffer. Start from `TACK_BUF_INIT`. */
typedef struct {
  char *data;
  size_t len;
  size_t cap;
} tack_buf_t;
#define TACK_BUF_INIT {0, 0, 0}

void tack_buf_append(tack_buf_t *buf, const char *bytes, size_t len);
void tack_buf_puts(tack_buf_t *buf, const char *s);
void tack_buf_printf(tack_buf_t *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends `len` bytes of UTF-8 as a quoted, escaped JSON string. */
void tack_buf_json_string(tack_buf_t *buf, const char *s, size_t len);
/* Moves the buffer into a WIT string (the buffer is left empty). */
void tack_buf_into_string(tack_buf_t *buf, tack_string_t *out);

/* ---- reading JSON --------------------------------------------------------------------------- */

/* The string member `key` of the JSON object `json`, unescaped into a heap string. False when
 * `json` is not an object, the key is missing or its value is not a string. */
bool tack_json_get_string(const tack_string_t *json, const char *key, tack_string_t *out);
/* The non-negative integer member `key` of the JSON object `json`. */
bool tack_json_get_u64(const tack_string_t *json, const char *key, uint64_t *out);

/* ---- results and decisions ------------------------------------------------------------------ */

/* A successful tool result: `text` for the model, `details_json` (or NULL) for front ends. */
void tack_text_result(tack_tool_result_t *ret, const char *text, const char *details_json);
/* A failed tool result the model sees as an error. */
void tack_error_result(tack_tool_result_t *ret, const char *message);
void tack_allow(tack_tool_decision_t *ret);
void tack_block(tack_tool_decision_t *ret, const char *reason);

/* ---- registration --------------------------------------------------------------------------- */

/* Appends a tool; `parameters_json` is its JSON Schema. */
void tack_register_tool(tack_registration_t *reg, const char *name, const char *label,
                        const char *description, const char *parameters_json);
void tack_register_command(tack_registration_t *reg, const char *name, const char *description);
/* `hook` is a TACK_PLUGIN_TYPES_HOOK_KIND_* constant. */
void tack_register_hook(tack_registration_t *reg, tack_plugin_types_hook_kind_t hook);

/* ---- host services -------------------------------------------------------------------------- */

/* `level` is a TACK_PLUGIN_TYPES_LEVEL_* constant. */
void tack_log(tack_plugin_types_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The `data` of the newest `custom` entry of `custom_type` on the session's active branch. */
bool tack_latest_state(const char *custom_type, tack_string_t *out_json);
/* Appends a `custom` entry holding `json`. On failure `err` (when not NULL) gets the reason. */
bool tack_append_state(const char *custom_type, const char *json, tack_string_t *err);

/* ---- fan-out (the `tasks` extension) -------------------------------------------------------- */

/* How many tasks the host runs at the same time: size a split by it. */
uint32_t tack_task_parallelism(void);

/* One task's outcome: `ok` with the bytes the task returned in `output`, or not, with the reason
 * in `error`. */
typedef struct {
  bool ok;
  tack_string_t output;
  tack_string_t error;
} tack_task_result_t;

/* Runs `count` tasks, the i-th with the `lens[i]` bytes at `inputs[i]`, at the same time on other
 * instances of this plugin (each through `exports_tack_plugin_task_runner_run_task`), and waits
 * for all of them. On success `*results` is a heap array of `count` outcomes in input order (free
 * it with tack_task_results_free); false when the host refused the whole run (called from init or
 * from a task, more than 4096 inputs), with the reason in `err` (when not NULL). */
bool tack_run_tasks(const char *const *inputs, const size_t *lens, size_t count,
                    tack_task_result_t **results, tack_string_t *err);
void tack_task_results_free(tack_task_result_t *results, size_t count);

/* A task's answer, for `exports_tack_plugin_task_runner_run_task`: a heap copy of `len` bytes. */
void tack_bytes_dup(tack_bytes_t *out, const char *bytes, size_t len);

/* ---- permission bits (the `files` extension) ------------------------------------------------ */

/* The Unix permission bits of the file at the absolute `path`. False when the host refused
 * (the path lies outside the plugin's `fs` grants, or the file is missing), with the reason in
 * `err` (when not NULL). */
bool tack_file_permissions(const char *path, uint32_t *mode, tack_string_t *err);
/* Sets them (only the 0777 bits; needs a read-write grant). */
bool tack_set_file_permissions(const char *path, uint32_t mode, tack_string_t *err);

/* ---- tack:plugin@0.2.0 ---------------------------------------------------------------------- */

/* Only 0.2.0's bindings define 0.2.0's enums, so their presence tells which bindings this
 * plugin was built with. */
#if defined(TACK_PLUGIN_SCREEN_WIDGET_PLACEMENT_ABOVE_EDITOR) && !defined(TACK_API_0_2)
#define TACK_API_0_2 1
#endif

#ifdef TACK_API_0_2

/* The exports 0.2.0 adds, each with a weak default in tack_defaults.c; define one to replace it:
 *
 *   void exports_tack_plugin_observer_on_event(plugin_string_t *name,
 *                                              exports_tack_plugin_observer_json_t *data);
 *     The events subscribed to with tack_subscribe. Default: ignores them.
 *   bool exports_tack_plugin_provider_hooks_before_provider_request(
 *       exports_tack_plugin_provider_hooks_outgoing_request_t *request,
 *       exports_tack_plugin_provider_hooks_json_t *ret);
 *   void exports_tack_plugin_provider_hooks_after_provider_response(
 *       exports_tack_plugin_provider_hooks_provider_response_t *response);
 *     The `provider_payload` grant's hooks. Default: the body goes as it is.
 *   exports_tack_plugin_session_hooks_session_decision_t
 *       exports_tack_plugin_session_hooks_before_switch(...), ..._before_fork(...);
 *   void exports_tack_plugin_session_hooks_before_tree(...);
 *     Session moves. Default: proceed.
 *
 * Every generated 0.2.0 import (`tack_plugin_control_abort`, `tack_plugin_models_complete`, ...)
 * can be called directly too; the helpers below take C strings and flatten errors to a message.
 * As above, `err` may be NULL, and every tack_string_t filled in is heap memory the caller frees
 * with plugin_string_free. */

typedef tack_plugin_control_model_info_t tack_model_info_t;
typedef tack_plugin_control_context_window_usage_t tack_context_usage_t;
/* TACK_PLUGIN_SCREEN_WIDGET_PLACEMENT_ABOVE_EDITOR or _BELOW_EDITOR. */
typedef tack_plugin_screen_widget_placement_t tack_widget_placement_t;
/* TACK_PLUGIN_PROCESS_OUTPUT_STREAM_STDOUT or _STDERR. */
typedef tack_plugin_process_output_stream_t tack_output_stream_t;
/* TACK_PLUGIN_PROCESS_SIGNAL_INTERRUPT, _TERMINATE, _KILL or _HANGUP. */
typedef tack_plugin_process_signal_t tack_signal_t;

/* -- events: names as `tack:plugin/events` lists them (`session_start`, `turn_end`, ...). */

/* Subscribes to `count` events; they reach exports_tack_plugin_observer_on_event. An unknown
 * name fails the whole call, naming it. */
bool tack_subscribe(const char *const *names, size_t count, tack_string_t *err);
void tack_unsubscribe(const char *const *names, size_t count);

/* -- bus: the event bus between plugins (Pi's `pi.events`), on channels the `bus` grant names. */

/* Sends `data_json` (one JSON value) on `channel` to the other plugins listening there and
 * granted it. Refused, naming why, for a channel not granted or data over 64 KiB. */
bool tack_bus_emit(const char *channel, const char *data_json, tack_string_t *err);
/* Listens on `count` channels, all or none; messages reach exports_tack_plugin_observer_on_event
 * as "bus_message" with data {"type","channel","from","data"} (`from`: the sender, named by the
 * host). */
bool tack_bus_listen(const char *const *channels, size_t count, tack_string_t *err);
void tack_bus_unlisten(const char *const *channels, size_t count);

/* -- control: the running agent and its session (Pi's `ctx`). */

bool tack_is_idle(void);
/* Whether a person can answer dialogs now (terminal UI, RPC). */
bool tack_has_ui(void);
/* The session's name; false when it was never named. */
bool tack_session_name(tack_string_t *out);
/* Names the session (one line of at most 200 characters). */
bool tack_set_session_name(const char *name, tack_string_t *err);
/* Sets the label of entry `entry_id`, or clears it when `label` is NULL. */
bool tack_set_label(const char *entry_id, const char *label, tack_string_t *err);
/* The current model; false before an agent exists (during init). Free with
 * tack_plugin_control_model_info_free. */
bool tack_model(tack_model_info_t *out);
/* How full the context window is; false before an agent exists. */
bool tack_context_usage(tack_context_usage_t *out);
/* Asks for a compaction once the agent is idle; `instructions` may be NULL. */
bool tack_compact(const char *instructions, tack_string_t *err);

/* -- tools and commands registered while tack runs (not from init: return those in the
 * registration). */

/* Registers (or replaces) one of this plugin's tools; calls reach its call-tool export. */
bool tack_tools_register(const char *name, const char *label, const char *description,
                         const char *parameters_json, tack_string_t *err);
/* False when this plugin registered no tool of that name here. */
bool tack_tools_unregister(const char *name);
bool tack_commands_register(const char *name, const char *description, tack_string_t *err);
bool tack_commands_unregister(const char *name);

/* -- LLM providers registered while tack runs (tack:plugin/providers): a new id whose requests
 * the provider `api` names writes ("anthropic", "openai", ...; NULL: this plugin's own provider
 * functions), used only once the user granted this plugin `secret` (secrets) and `base_url`
 * (http). */

/* One model of a registered provider. */
typedef struct {
  const char *id;
  const char *name;
  uint32_t context_window;
  uint32_t max_output_tokens;
  bool reasoning;
  bool images;
  /* US dollars per million tokens. */
  double cost_input;
  double cost_output;
} tack_model_t;

/* Registers (or replaces) one of this plugin's providers; `api` and `secret` may be NULL. */
bool tack_providers_register(const char *id, const char *name, const char *api,
                             const char *base_url, const char *secret,
                             const tack_model_t *models, size_t count, tack_string_t *err);
/* False when this plugin registered no provider of that id. */
bool tack_providers_unregister(const char *id);

/* -- screen */

/* Sets widget `key` to `count` lines at `placement`; no lines removes it. */
void tack_set_widget(const char *key, const char *const *lines, size_t count,
                     tack_widget_placement_t placement);
/* The terminal's title; "" restores tack's. */
void tack_set_title(const char *title);
/* The text beside the spinner while the agent works; NULL restores tack's. */
void tack_set_working_message(const char *message);
/* Replaces tack's footer with `left` and `right`. */
void tack_set_footer(const char *left, const char *right);
/* Gives the footer back to tack. */
void tack_clear_footer(void);
/* Replaces the text of the user's editor. */
void tack_set_editor_text(const char *text);
/* The user's unsent draft (the `components` grant); false without the grant or an editor. */
bool tack_editor_text(tack_string_t *out);
/* Shows or hides the spinner and its message while the agent works. */
void tack_set_working_visible(bool visible);
/* `count` frames in place of the spinner, each for `interval_ms` (0: the spinner's pace); no
 * frames hides it. */
void tack_set_working_indicator(const char *const *frames, size_t count, uint32_t interval_ms);
/* Gives the spinner back. */
void tack_clear_working_indicator(void);
/* The label of hidden thinking in place of "Thinking"; NULL restores tack's. */
void tack_set_hidden_thinking_label(const char *label);
/* `count` lines over the conversation (at most 12); none gives the header back. */
void tack_set_header(const char *const *lines, size_t count);
/* Whether tool output shows in full (Ctrl+O), and setting it. */
bool tack_tools_expanded(void);
void tack_set_tools_expanded(bool expanded);
/* Shows the theme called `name` for this run of tack (a name `/settings` offers). */
bool tack_set_theme(const char *name, tack_string_t *err);
/* Turns on (or off) completing the user's draft (Pi's addAutocompleteProvider; the
 * `components` grant): tack then asks exports_tack_plugin_completions_input as they type. The
 * C SDK's default completions export offers nothing; define
 * exports_tack_plugin_completions_command_arguments / _input to offer items.
 *
 * Likewise the default renderers export draws nothing, so tack draws the plugin's tool calls and
 * messages; define exports_tack_plugin_renderers_render_call / _render_result / _render_message
 * (Pi's renderCall, renderResult and registerMessageRenderer) to fill `ret` with lines at most
 * options->width columns wide and return true. */
bool tack_set_input_completion(bool enabled, tack_string_t *err);

/* -- shortcuts: keys bound in the terminal UI; a press reaches
 * exports_tack_plugin_observer_on_event as "shortcut" with data {"type","key"}. A key tack or
 * another plugin holds is not bound, and the user is told. */

/* Binds `key` (`ctrl+shift+p`: Ctrl or Alt, or F1-F12); refused, naming why, for a malformed
 * key or past 32. */
bool tack_register_shortcut(const char *key, const char *description, tack_string_t *err);
/* False when this plugin had not bound `key`. */
bool tack_unregister_shortcut(const char *key);

/* -- session moves from a command the user ran, made once the agent is idle */

/* The move the user's `/tree` makes to `entry_id`; with `summarize`, the branch left is
 * summarized (`focus` may be NULL). */
bool tack_navigate_tree(const char *entry_id, bool summarize, const char *focus,
                        tack_string_t *err);

/* -- process: long-lived programs (the `process` grant). */

/* What a read found. */
typedef enum {
  TACK_READ_ERROR = -1,
  /* `out` holds bytes (free with plugin_list_u8_free). */
  TACK_READ_DATA = 0,
  /* Nothing arrived within the wait. */
  TACK_READ_IDLE = 1,
  /* The stream is closed and was read to its end. */
  TACK_READ_CLOSED = 2,
} tack_read_t;

/* How a process ended, for tack_process_wait. */
typedef struct {
  /* False while it still runs. */
  bool exited;
  /* False when a signal ended it (then `code` is 0). */
  bool has_code;
  int32_t code;
} tack_exit_t;

/* Starts `command` (matched against the `process` grant) in `cwd` (NULL: the workspace). */
bool tack_process_spawn(const char *command, const char *cwd, uint64_t *id, tack_string_t *err);
/* Writes `len` bytes to its standard input. */
bool tack_process_write(uint64_t id, const char *bytes, size_t len, tack_string_t *err);
bool tack_process_close_stdin(uint64_t id, tack_string_t *err);
/* Reads up to `max_bytes`, waiting up to `wait_ms`. */
tack_read_t tack_process_read(uint64_t id, tack_output_stream_t stream, uint32_t max_bytes,
                              uint32_t wait_ms, tack_bytes_t *out, tack_string_t *err);
/* Reads one line (with its newline), waiting up to `wait_ms`. */
tack_read_t tack_process_read_line(uint64_t id, tack_output_stream_t stream, uint32_t wait_ms,
                                   tack_bytes_t *out, tack_string_t *err);
/* Waits up to `wait_ms` for it to end. */
bool tack_process_wait(uint64_t id, uint32_t wait_ms, tack_exit_t *exit, tack_string_t *err);
/* Signals its process group. */
bool tack_process_signal(uint64_t id, tack_signal_t sig, tack_string_t *err);
/* Forgets it, killing it first if it runs. */
bool tack_process_release(uint64_t id, tack_string_t *err);

#endif /* TACK_API_0_2 */

#ifdef __cplusplus
}
#endif

#endif /* TACK_H */
