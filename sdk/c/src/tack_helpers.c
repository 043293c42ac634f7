/* Helpers declared in tack.h: strings, JSON building and reading, results, registration and
 * host services. Everything returned to the host is heap memory (see tack.h). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tack.h"

static void *xrealloc(void *ptr, size_t size) {
  void *p = realloc(ptr, size ? size : 1);
  /* An allocation failure inside a plugin has no recovery: trap, and the host reports it. */
  if (!p) __builtin_trap();
  return p;
}

/* ---- strings -------------------------------------------------------------------------------- */

void tack_string_dup_n(tack_string_t *out, const char *s, size_t len) {
  out->ptr = xrealloc(NULL, len);
  memcpy(out->ptr, s, len);
  out->len = len;
}

void tack_string_dup(tack_string_t *out, const char *s) { tack_string_dup_n(out, s, strlen(s)); }

char *tack_cstr(const tack_string_t *s) {
  char *c = xrealloc(NULL, s->len + 1);
  memcpy(c, s->ptr, s->len);
  c[s->len] = '\0';
  return c;
}

static void buf_vprintf(tack_buf_t *buf, const char *fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0) return;
  if (buf->len + (size_t)n + 1 > buf->cap) {
    buf->cap = (buf->len + (size_t)n + 1) * 2;
    buf->data = xrealloc(buf->data, buf->cap);
  }
  vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, args);
  buf->len += (size_t)n;
}

void tack_string_printf(tack_string_t *out, const char *fmt, ...) {
  tack_buf_t buf = TACK_BUF_INIT;
  va_list args;
  va_start(args, fmt);
  buf_vprintf(&buf, fmt, args);
  va_end(args);
  tack_buf_into_string(&buf, out);
}

/* ---- building JSON -------------------------------------------------------------------------- */

void tack_buf_append(tack_buf_t *buf, const char *bytes, size_t len) {
  if (buf->len + len > buf->cap) {
    buf->cap = (buf->len + len) * 2 + 16;
    buf->data = xrealloc(buf->data, buf->cap);
  }
  memcpy(buf->data + buf->len, bytes, len);
  buf->len += len;
}

void tack_buf_puts(tack_buf_t *buf, const char *s) { tack_buf_append(buf, s, strlen(s)); }

void tack_buf_printf(tack_buf_t *buf, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  buf_vprintf(buf, fmt, args);
  va_end(args);
}

void tack_buf_json_string(tack_buf_t *buf, const char *s, size_t len) {
  tack_buf_append(buf, "\"", 1);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': tack_buf_append(buf, "\\\"", 2); break;
      case '\\': tack_buf_append(buf, "\\\\", 2); break;
      case '\n': tack_buf_append(buf, "\\n", 2); break;
      case '\r': tack_buf_append(buf, "\\r", 2); break;
      case '\t': tack_buf_append(buf, "\\t", 2); break;
      default:
        if (c < 0x20) {
          tack_buf_printf(buf, "\\u%04x", c);
        } else {
          tack_buf_append(buf, (const char *)&s[i], 1);
        }
    }
  }
  tack_buf_append(buf, "\"", 1);
}

void tack_buf_into_string(tack_buf_t *buf, tack_string_t *out) {
  out->ptr = (uint8_t *)xrealloc(buf->data, buf->len);
  out->len = buf->len;
  buf->data = NULL;
  buf->len = buf->cap = 0;
}

/* ---- reading JSON --------------------------------------------------------------------------- */

/* A cursor over JSON text. The reader only needs to find top-level members of an object, so it
 * parses strings fully and skips every other value by structure. */
typedef struct {
  const char *p;
  const char *end;
} cursor_t;

static void skip_ws(cursor_t *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int hex_value(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

static bool read_hex4(cursor_t *c, uint32_t *out) {
  if (c->end - c->p < 4) return false;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hex_value(c->p[i]);
    if (h < 0) return false;
    v = (v << 4) | (uint32_t)h;
  }
  c->p += 4;
  *out = v;
  return true;
}

static void put_utf8(tack_buf_t *buf, uint32_t cp) {
  char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (char)(0xC0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (char)(0xE0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  tack_buf_append(buf, b, n);
}

/* Parses a string at the cursor; with `out` NULL it only skips it. */
static bool read_string(cursor_t *c, tack_buf_t *out) {
  if (c->p >= c->end || *c->p != '"') return false;
  c->p++;
  while (c->p < c->end) {
    char ch = *c->p++;
    if (ch == '"') return true;
    if (ch != '\\') {
      if (out) tack_buf_append(out, &ch, 1);
      continue;
    }
    if (c->p >= c->end) return false;
    char esc = *c->p++;
    char lit;
    switch (esc) {
      case '"': lit = '"'; break;
      case '\\': lit = '\\'; break;
      case '/': lit = '/'; break;
      case 'b': lit = '\b'; break;
      case 'f': lit = '\f'; break;
      case 'n': lit = '\n'; break;
      case 'r': lit = '\r'; break;
      case 't': lit = '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!read_hex4(c, &cp)) return false;
        /* A high surrogate must be followed by an escaped low one. */
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u') return false;
          c->p += 2;
          if (!read_hex4(c, &lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (out) put_utf8(out, cp);
        continue;
      }
      default: return false;
    }
    if (out) tack_buf_append(out, &lit, 1);
  }
  return false;
}

static bool skip_value(cursor_t *c) {
  skip_ws(c);
  if (c->p >= c->end) return false;
  if (*c->p == '"') return read_string(c, NULL);
  if (*c->p == '{' || *c->p == '[') {
    int depth = 0;
    while (c->p < c->end) {
      char ch = *c->p;
      if (ch == '"') {
        if (!read_string(c, NULL)) return false;
        continue;
      }
      c->p++;
      if (ch == '{' || ch == '[') depth++;
      if (ch == '}' || ch == ']') {
        if (--depth == 0) return true;
      }
    }
    return false;
  }
  /* Numbers and literals run up to the next delimiter. */
  while (c->p < c->end && *c->p != ',' && *c->p != '}' && *c->p != ']' && *c->p != ' ' &&
         *c->p != '\t' && *c->p != '\n' && *c->p != '\r')
    c->p++;
  return true;
}

/* Leaves the cursor at the value of top-level member `key`. */
static bool find_member(const tack_string_t *json, const char *key, cursor_t *c) {
  c->p = (const char *)json->ptr;
  c->end = c->p + json->len;
  skip_ws(c);
  if (c->p >= c->end || *c->p != '{') return false;
  c->p++;
  for (;;) {
    skip_ws(c);
    if (c->p < c->end && *c->p == '}') return false;
    tack_buf_t name = TACK_BUF_INIT;
    bool ok = read_string(c, &name);
    bool match = ok && name.len == strlen(key) && memcmp(name.data, key, name.len) == 0;
    free(name.data);
    if (!ok) return false;
    skip_ws(c);
    if (c->p >= c->end || *c->p != ':') return false;
    c->p++;
    skip_ws(c);
    if (match) return true;
    if (!skip_value(c)) return false;
    skip_ws(c);
    if (c->p < c->end && *c->p == ',') {
      c->p++;
      continue;
    }
    return false;
  }
}

bool tack_json_get_string(const tack_string_t *json, const char *key, tack_string_t *out) {
  cursor_t c;
  if (!find_member(json, key, &c)) return false;
  tack_buf_t value = TACK_BUF_INIT;
  if (!read_string(&c, &value)) {
    free(value.data);
    return false;
  }
  tack_buf_into_string(&value, out);
  return true;
}

bool tack_json_get_u64(const tack_string_t *json, const char *key, uint64_t *out) {
  cursor_t c;
  if (!find_member(json, key, &c)) return false;
  if (c.p >= c.end || *c.p < '0' || *c.p > '9') return false;
  uint64_t v = 0;
  while (c.p < c.end && *c.p >= '0' && *c.p <= '9') v = v * 10 + (uint64_t)(*c.p++ - '0');
  *out = v;
  return true;
}

/* ---- results and decisions ------------------------------------------------------------------ */

static void one_text_block(tack_tool_result_t *ret, const char *text) {
  ret->content.len = 1;
  ret->content.ptr = xrealloc(NULL, sizeof(tack_plugin_types_content_block_t));
  ret->content.ptr[0].tag = TACK_PLUGIN_TYPES_CONTENT_BLOCK_TEXT;
  tack_string_dup(&ret->content.ptr[0].val.text, text);
}

void tack_text_result(tack_tool_result_t *ret, const char *text, const char *details_json) {
  one_text_block(ret, text);
  ret->details.is_some = details_json != NULL;
  if (details_json) tack_string_dup(&ret->details.val, details_json);
  ret->is_error = false;
}

void tack_error_result(tack_tool_result_t *ret, const char *message) {
  one_text_block(ret, message);
  ret->details.is_some = false;
  ret->is_error = true;
}

void tack_allow(tack_tool_decision_t *ret) { ret->tag = EXPORTS_TACK_PLUGIN_GUEST_TOOL_DECISION_ALLOW; }

void tack_block(tack_tool_decision_t *ret, const char *reason) {
  ret->tag = EXPORTS_TACK_PLUGIN_GUEST_TOOL_DECISION_BLOCK;
  tack_string_dup(&ret->val.block, reason);
}

/* ---- registration --------------------------------------------------------------------------- */

void tack_register_tool(tack_registration_t *reg, const char *name, const char *label,
                        const char *description, const char *parameters_json) {
  size_t n = reg->tools.len + 1;
  reg->tools.ptr = xrealloc(reg->tools.ptr, n * sizeof(*reg->tools.ptr));
  tack_plugin_types_tool_spec_t *spec = &reg->tools.ptr[n - 1];
  tack_string_dup(&spec->name, name);
  tack_string_dup(&spec->label, label);
  tack_string_dup(&spec->description, description);
  tack_string_dup(&spec->parameters, parameters_json);
  spec->mode = TACK_PLUGIN_TYPES_EXECUTION_MODE_PARALLEL;
  spec->prompt_snippet.is_some = false;
  reg->tools.len = n;
}

void tack_register_command(tack_registration_t *reg, const char *name, const char *description) {
  size_t n = reg->commands.len + 1;
  reg->commands.ptr = xrealloc(reg->commands.ptr, n * sizeof(*reg->commands.ptr));
  tack_string_dup(&reg->commands.ptr[n - 1].name, name);
  tack_string_dup(&reg->commands.ptr[n - 1].description, description);
  reg->commands.len = n;
}

void tack_register_hook(tack_registration_t *reg, tack_plugin_types_hook_kind_t hook) {
  size_t n = reg->hooks.len + 1;
  reg->hooks.ptr = xrealloc(reg->hooks.ptr, n * sizeof(*reg->hooks.ptr));
  reg->hooks.ptr[n - 1] = hook;
  reg->hooks.len = n;
}

/* ---- host services -------------------------------------------------------------------------- */

void tack_log(tack_plugin_types_level_t level, const char *fmt, ...) {
  tack_buf_t buf = TACK_BUF_INIT;
  va_list args;
  va_start(args, fmt);
  buf_vprintf(&buf, fmt, args);
  va_end(args);
  plugin_string_t message = {(uint8_t *)buf.data, buf.len};
  tack_plugin_host_log(level, &message);
  free(buf.data);
}

bool tack_latest_state(const char *custom_type, tack_string_t *out_json) {
  plugin_string_t type = {(uint8_t *)custom_type, strlen(custom_type)};
  return tack_plugin_session_latest_custom(&type, out_json);
}

bool tack_append_state(const char *custom_type, const char *json, tack_string_t *err) {
  plugin_string_t type = {(uint8_t *)custom_type, strlen(custom_type)};
  plugin_string_t data = {(uint8_t *)json, strlen(json)};
  plugin_string_t id, error;
  if (tack_plugin_session_append_custom(&type, &data, &id, &error)) {
    plugin_string_free(&id);
    return true;
  }
  if (err) {
    *err = error;
  } else {
    plugin_string_free(&error);
  }
  return false;
}

/* ---- extensions ----------------------------------------------------------------------------- */

static void take_or_free(plugin_string_t *error, tack_string_t *err) {
  if (err) {
    *err = *error;
  } else {
    plugin_string_free(error);
  }
}

uint32_t tack_task_parallelism(void) { return tack_plugin_tasks_parallelism(); }

bool tack_run_tasks(const char *const *inputs, const size_t *lens, size_t count,
                    tack_task_result_t **results, tack_string_t *err) {
  /* Import arguments are borrowed: the lists point at the caller's bytes. */
  plugin_list_list_u8_t list = {xrealloc(NULL, count * sizeof(plugin_list_u8_t)), count};
  for (size_t i = 0; i < count; i++) {
    list.ptr[i].ptr = (uint8_t *)inputs[i];
    list.ptr[i].len = lens[i];
  }
  tack_plugin_tasks_list_result_list_u8_string_t answers;
  plugin_string_t error;
  bool ok = tack_plugin_tasks_run(&list, &answers, &error);
  free(list.ptr);
  if (!ok) {
    take_or_free(&error, err);
    return false;
  }
  tack_task_result_t *out = xrealloc(NULL, answers.len * sizeof(tack_task_result_t));
  for (size_t i = 0; i < answers.len; i++) {
    tack_plugin_tasks_result_list_u8_string_t *answer = &answers.ptr[i];
    out[i].ok = !answer->is_err;
    if (answer->is_err) {
      out[i].output = (tack_string_t){0};
      out[i].error = answer->val.err;
    } else {
      out[i].output = (tack_string_t){answer->val.ok.ptr, answer->val.ok.len};
      out[i].error = (tack_string_t){0};
    }
  }
  /* The outcomes own the bytes now; only the list itself goes. */
  free(answers.ptr);
  *results = out;
  return true;
}

void tack_task_results_free(tack_task_result_t *results, size_t count) {
  for (size_t i = 0; i < count; i++) {
    plugin_string_free(&results[i].output);
    plugin_string_free(&results[i].error);
  }
  free(results);
}

void tack_bytes_dup(tack_bytes_t *out, const char *bytes, size_t len) {
  out->ptr = xrealloc(NULL, len);
  memcpy(out->ptr, bytes, len);
  out->len = len;
}

bool tack_file_permissions(const char *path, uint32_t *mode, tack_string_t *err) {
  plugin_string_t p = {(uint8_t *)path, strlen(path)};
  plugin_string_t error;
  if (tack_plugin_files_permissions(&p, mode, &error)) return true;
  take_or_free(&error, err);
  return false;
}

bool tack_set_file_permissions(const char *path, uint32_t mode, tack_string_t *err) {
  plugin_string_t p = {(uint8_t *)path, strlen(path)};
  plugin_string_t error;
  if (tack_plugin_files_set_permissions(&p, mode, &error)) return true;
  take_or_free(&error, err);
  return false;
}

/* ---- tack:plugin@0.2.0 ---------------------------------------------------------------------- */

#ifdef TACK_API_0_2

/* Import arguments are borrowed: these point at the caller's bytes and are never freed. */
static plugin_string_t borrow(const char *s) {
  return (plugin_string_t){(uint8_t *)s, s ? strlen(s) : 0};
}

static plugin_list_string_t borrow_list(const char *const *items, size_t count) {
  plugin_list_string_t list = {xrealloc(NULL, count * sizeof(plugin_string_t)), count};
  for (size_t i = 0; i < count; i++) list.ptr[i] = borrow(items[i]);
  return list;
}

bool tack_subscribe(const char *const *names, size_t count, tack_string_t *err) {
  plugin_list_string_t list = borrow_list(names, count);
  plugin_string_t error;
  bool ok = tack_plugin_events_subscribe(&list, &error);
  free(list.ptr);
  if (!ok) take_or_free(&error, err);
  return ok;
}

void tack_unsubscribe(const char *const *names, size_t count) {
  plugin_list_string_t list = borrow_list(names, count);
  tack_plugin_events_unsubscribe(&list);
  free(list.ptr);
}

bool tack_bus_emit(const char *channel, const char *data_json, tack_string_t *err) {
  plugin_string_t c = borrow(channel);
  tack_plugin_bus_json_t d = borrow(data_json);
  plugin_string_t error;
  if (tack_plugin_bus_emit(&c, &d, &error)) return true;
  take_or_free(&error, err);
  return false;
}

bool tack_bus_listen(const char *const *channels, size_t count, tack_string_t *err) {
  plugin_list_string_t list = borrow_list(channels, count);
  plugin_string_t error;
  bool ok = tack_plugin_bus_listen(&list, &error);
  free(list.ptr);
  if (!ok) take_or_free(&error, err);
  return ok;
}

void tack_bus_unlisten(const char *const *channels, size_t count) {
  plugin_list_string_t list = borrow_list(channels, count);
  tack_plugin_bus_unlisten(&list);
  free(list.ptr);
}

bool tack_is_idle(void) { return tack_plugin_control_is_idle(); }

bool tack_has_ui(void) { return tack_plugin_control_has_ui(); }

bool tack_session_name(tack_string_t *out) { return tack_plugin_control_session_name(out); }

bool tack_set_session_name(const char *name, tack_string_t *err) {
  plugin_string_t n = borrow(name);
  plugin_string_t error;
  if (tack_plugin_control_set_session_name(&n, &error)) return true;
  take_or_free(&error, err);
  return false;
}

bool tack_set_label(const char *entry_id, const char *label, tack_string_t *err) {
  plugin_string_t id = borrow(entry_id);
  plugin_string_t text = borrow(label);
  plugin_string_t error;
  /* The generated signature takes `option<string>` as a pointer: NULL is `none`. */
  if (tack_plugin_control_set_label(&id, label ? &text : NULL, &error)) return true;
  take_or_free(&error, err);
  return false;
}

bool tack_model(tack_model_info_t *out) { return tack_plugin_control_model(out); }

bool tack_context_usage(tack_context_usage_t *out) {
  return tack_plugin_control_context_usage(out);
}

bool tack_compact(const char *instructions, tack_string_t *err) {
  plugin_string_t text = borrow(instructions);
  plugin_string_t error;
  if (tack_plugin_control_compact(instructions ? &text : NULL, &error)) return true;
  take_or_free(&error, err);
  return false;
}

bool tack_tools_register(const char *name, const char *label, const char *description,
                         const char *parameters_json, tack_string_t *err) {
  tack_plugin_tools_tool_spec_t spec = {
      .name = borrow(name),
      .label = borrow(label),
      .description = borrow(description),
      .parameters = borrow(parameters_json),
      .mode = TACK_PLUGIN_TYPES_EXECUTION_MODE_PARALLEL,
      .prompt_snippet = {.is_some = false},
  };
  tack_plugin_tools_register_error_t error;
  if (tack_plugin_tools_register(&spec, &error)) return true;
  /* Every case of the variant carries its message, in the same place. */
  take_or_free(&error.val.invalid, err);
  return false;
}

bool tack_tools_unregister(const char *name) {
  plugin_string_t n = borrow(name);
  return tack_plugin_tools_unregister(&n);
}

static plugin_option_string_t borrow_option(const char *s) {
  plugin_option_string_t option = {.is_some = s != NULL};
  if (s) option.val = borrow(s);
  return option;
}

bool tack_providers_register(const char *id, const char *name, const char *api,
                             const char *base_url, const char *secret,
                             const tack_model_t *models, size_t count, tack_string_t *err) {
  static tack_plugin_types_input_kind_t TEXT_ONLY[] = {TACK_PLUGIN_TYPES_INPUT_KIND_TEXT};
  static tack_plugin_types_input_kind_t WITH_IMAGES[] = {TACK_PLUGIN_TYPES_INPUT_KIND_TEXT,
                                                         TACK_PLUGIN_TYPES_INPUT_KIND_IMAGE};
  tack_plugin_providers_model_spec_t *specs = xrealloc(NULL, count * sizeof(*specs));
  for (size_t i = 0; i < count; i++) {
    specs[i] = (tack_plugin_providers_model_spec_t){
        .id = borrow(models[i].id),
        .name = borrow(models[i].name ? models[i].name : models[i].id),
        .context_window = models[i].context_window,
        .max_output_tokens = models[i].max_output_tokens,
        .reasoning = models[i].reasoning,
        .input = models[i].images ? (tack_plugin_types_list_input_kind_t){WITH_IMAGES, 2}
                                  : (tack_plugin_types_list_input_kind_t){TEXT_ONLY, 1},
        .cost = {.input = models[i].cost_input, .output = models[i].cost_output},
    };
  }
  tack_plugin_providers_provider_registration_t registration = {
      .id = borrow(id),
      .name = borrow(name ? name : ""),
      .api = borrow_option(api),
      .base_url = borrow(base_url),
      .secret = borrow_option(secret),
      .auth = {.is_some = false},
      .headers = {NULL, 0},
      .models = {specs, count},
  };
  tack_plugin_providers_register_error_t error;
  bool ok = tack_plugin_providers_register(&registration, &error);
  free(specs);
  if (ok) return true;
  take_or_free(&error.val.invalid, err);
  return false;
}

bool tack_providers_unregister(const char *id) {
  plugin_string_t i = borrow(id);
  return tack_plugin_providers_unregister(&i);
}

bool tack_commands_register(const char *name, const char *description, tack_string_t *err) {
  tack_plugin_commands_command_spec_t spec = {.name = borrow(name),
                                              .description = borrow(description)};
  tack_plugin_commands_register_error_t error;
  if (tack_plugin_commands_register(&spec, &error)) return true;
  take_or_free(&error.val.invalid, err);
  return false;
}

bool tack_commands_unregister(const char *name) {
  plugin_string_t n = borrow(name);
  return tack_plugin_commands_unregister(&n);
}

void tack_set_widget(const char *key, const char *const *lines, size_t count,
                     tack_widget_placement_t placement) {
  plugin_string_t k = borrow(key);
  plugin_list_string_t list = borrow_list(lines, count);
  tack_plugin_screen_set_widget(&k, &list, placement);
  free(list.ptr);
}

void tack_set_title(const char *title) {
  plugin_string_t t = borrow(title);
  tack_plugin_screen_set_title(&t);
}

void tack_set_working_message(const char *message) {
  plugin_string_t m = borrow(message);
  tack_plugin_screen_set_working_message(message ? &m : NULL);
}

void tack_set_footer(const char *left, const char *right) {
  tack_plugin_screen_footer_t footer = {borrow(left), borrow(right)};
  tack_plugin_screen_set_footer(&footer);
}

void tack_clear_footer(void) { tack_plugin_screen_set_footer(NULL); }

void tack_set_editor_text(const char *text) {
  plugin_string_t t = borrow(text);
  tack_plugin_screen_set_editor_text(&t);
}

bool tack_editor_text(tack_string_t *out) { return tack_plugin_screen_editor_text(out); }

void tack_set_working_visible(bool visible) { tack_plugin_screen_set_working_visible(visible); }

void tack_set_working_indicator(const char *const *frames, size_t count, uint32_t interval_ms) {
  tack_plugin_screen_working_indicator_t indicator = {borrow_list(frames, count), interval_ms};
  tack_plugin_screen_set_working_indicator(&indicator);
  free(indicator.frames.ptr);
}

void tack_clear_working_indicator(void) { tack_plugin_screen_set_working_indicator(NULL); }

void tack_set_hidden_thinking_label(const char *label) {
  plugin_string_t l = borrow(label);
  tack_plugin_screen_set_hidden_thinking_label(label ? &l : NULL);
}

void tack_set_header(const char *const *lines, size_t count) {
  plugin_list_string_t list = borrow_list(lines, count);
  tack_plugin_screen_set_header(&list);
  free(list.ptr);
}

bool tack_tools_expanded(void) { return tack_plugin_screen_tools_expanded(); }

void tack_set_tools_expanded(bool expanded) { tack_plugin_screen_set_tools_expanded(expanded); }

bool tack_set_theme(const char *name, tack_string_t *err) {
  plugin_string_t n = borrow(name);
  plugin_string_t error;
  if (tack_plugin_screen_set_theme(&n, &error)) return true;
  take_or_free(&error, err);
  return false;
}

bool tack_set_input_completion(bool enabled, tack_string_t *err) {
  plugin_string_t error;
  if (tack_plugin_screen_set_input_completion(enabled, &error)) return true;
  take_or_free(&error, err);
  return false;
}

bool tack_register_shortcut(const char *key, const char *description, tack_string_t *err) {
  plugin_string_t k = borrow(key);
  plugin_string_t d = borrow(description ? description : "");
  plugin_string_t error;
  if (tack_plugin_shortcuts_register(&k, &d, &error)) return true;
  take_or_free(&error, err);
  return false;
}

bool tack_unregister_shortcut(const char *key) {
  plugin_string_t k = borrow(key);
  return tack_plugin_shortcuts_unregister(&k);
}

bool tack_navigate_tree(const char *entry_id, bool summarize, const char *focus,
                        tack_string_t *err) {
  plugin_string_t id = borrow(entry_id);
  plugin_string_t f = borrow(focus);
  plugin_string_t error;
  if (tack_plugin_control_navigate_tree(&id, summarize, focus ? &f : NULL, &error)) return true;
  take_or_free(&error, err);
  return false;
}

/* A process error as one message: the four string cases carry theirs, `unknown` its id. */
static void process_error(tack_plugin_process_process_error_t *error, tack_string_t *err) {
  if (error->tag == TACK_PLUGIN_PROCESS_PROCESS_ERROR_UNKNOWN) {
    if (err) {
      tack_string_printf(err, "this plugin has no process %llu",
                         (unsigned long long)error->val.unknown);
    }
    return;
  }
  take_or_free(&error->val.denied, err);
}

bool tack_process_spawn(const char *command, const char *cwd, uint64_t *id, tack_string_t *err) {
  tack_plugin_process_spawn_request_t request = {
      .command = borrow(command),
      .cwd = {.is_some = cwd != NULL, .val = borrow(cwd)},
  };
  tack_plugin_process_process_error_t error;
  if (tack_plugin_process_spawn(&request, id, &error)) return true;
  process_error(&error, err);
  return false;
}

bool tack_process_write(uint64_t id, const char *bytes, size_t len, tack_string_t *err) {
  plugin_list_u8_t data = {(uint8_t *)bytes, len};
  tack_plugin_process_process_error_t error;
  if (tack_plugin_process_write(id, &data, &error)) return true;
  process_error(&error, err);
  return false;
}

bool tack_process_close_stdin(uint64_t id, tack_string_t *err) {
  tack_plugin_process_process_error_t error;
  if (tack_plugin_process_close_stdin(id, &error)) return true;
  process_error(&error, err);
  return false;
}

static tack_read_t read_outcome(bool ok, tack_plugin_process_output_t *output,
                                tack_plugin_process_process_error_t *error, tack_bytes_t *out,
                                tack_string_t *err) {
  if (!ok) {
    process_error(error, err);
    return TACK_READ_ERROR;
  }
  switch (output->tag) {
    case TACK_PLUGIN_PROCESS_OUTPUT_DATA:
      /* The caller owns the bytes now. */
      *out = output->val.data;
      return TACK_READ_DATA;
    case TACK_PLUGIN_PROCESS_OUTPUT_IDLE: return TACK_READ_IDLE;
    default: return TACK_READ_CLOSED;
  }
}

tack_read_t tack_process_read(uint64_t id, tack_output_stream_t stream, uint32_t max_bytes,
                              uint32_t wait_ms, tack_bytes_t *out, tack_string_t *err) {
  tack_plugin_process_output_t output;
  tack_plugin_process_process_error_t error;
  bool ok = tack_plugin_process_read(id, stream, max_bytes, wait_ms, &output, &error);
  return read_outcome(ok, &output, &error, out, err);
}

tack_read_t tack_process_read_line(uint64_t id, tack_output_stream_t stream, uint32_t wait_ms,
                                   tack_bytes_t *out, tack_string_t *err) {
  tack_plugin_process_output_t output;
  tack_plugin_process_process_error_t error;
  bool ok = tack_plugin_process_read_line(id, stream, wait_ms, &output, &error);
  return read_outcome(ok, &output, &error, out, err);
}

bool tack_process_wait(uint64_t id, uint32_t wait_ms, tack_exit_t *exit, tack_string_t *err) {
  tack_plugin_process_option_exit_status_t status;
  tack_plugin_process_process_error_t error;
  if (!tack_plugin_process_wait(id, wait_ms, &status, &error)) {
    process_error(&error, err);
    return false;
  }
  exit->exited = status.is_some;
  exit->has_code = status.is_some && status.val.code.is_some;
  exit->code = exit->has_code ? status.val.code.val : 0;
  return true;
}

bool tack_process_signal(uint64_t id, tack_signal_t sig, tack_string_t *err) {
  tack_plugin_process_process_error_t error;
  if (tack_plugin_process_send_signal(id, sig, &error)) return true;
  process_error(&error, err);
  return false;
}

bool tack_process_release(uint64_t id, tack_string_t *err) {
  tack_plugin_process_process_error_t error;
  if (tack_plugin_process_release(id, &error)) return true;
  process_error(&error, err);
  return false;
}

#endif /* TACK_API_0_2 */
