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

#ifdef __cplusplus
}
#endif

#endif /* TACK_H */
