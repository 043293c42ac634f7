/* The conformance plugin in C: same behaviour as examples/hello-{rust,js,python,zig}
 * (see examples/README.md). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tack.h"

#define COUNTER_TYPE "hello-counter"

/* Set once by init; the instance lives as long as the host keeps it. */
static char *blocked_word;

static bool is_space(uint8_t c) {
  /* ASCII whitespace, the same set in every language of the conformance suite. */
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static bool name_is(const plugin_string_t *name, const char *expected) {
  return name->len == strlen(expected) && memcmp(name->ptr, expected, name->len) == 0;
}

static uint64_t count_words(const uint8_t *text, size_t len) {
  uint64_t words = 0;
  bool in_word = false;
  for (size_t i = 0; i < len; i++) {
    if (is_space(text[i])) {
      in_word = false;
    } else if (!in_word) {
      in_word = true;
      words++;
    }
  }
  return words;
}

/* Returns the result message in a heap string (NUL-terminated). */
static char *finish_message(tack_buf_t *buf) {
  tack_buf_append(buf, "", 1);
  return buf->data;
}

/* One task per line: the input is the line, the output its word count in decimal. */
static void count_lines(const tack_string_t *text, tack_tool_result_t *ret) {
  size_t count = 1;
  for (size_t i = 0; i < text->len; i++) count += text->ptr[i] == '\n';
  const char **inputs = malloc(count * sizeof(char *));
  size_t *lens = malloc(count * sizeof(size_t));
  size_t line = 0, start = 0;
  for (size_t i = 0; i <= text->len; i++) {
    if (i == text->len || text->ptr[i] == '\n') {
      inputs[line] = (const char *)text->ptr + start;
      lens[line] = i - start;
      line++;
      start = i + 1;
    }
  }
  tack_task_result_t *results;
  tack_string_t error;
  tack_buf_t message = TACK_BUF_INIT;
  if (!tack_run_tasks(inputs, lens, count, &results, &error)) {
    tack_buf_printf(&message, "tasks failed: %.*s", (int)error.len, (const char *)error.ptr);
    tack_error_result(ret, finish_message(&message));
    plugin_string_free(&error);
  } else {
    tack_buf_t details = TACK_BUF_INIT;
    uint64_t total = 0;
    bool failed = false;
    tack_buf_puts(&details, "{\"words\":[");
    for (size_t i = 0; i < count && !failed; i++) {
      if (!results[i].ok) {
        tack_buf_printf(&message, "task %zu failed: %.*s", i, (int)results[i].error.len,
                        (const char *)results[i].error.ptr);
        failed = true;
      } else {
        char *digits = tack_cstr(&results[i].output);
        uint64_t words = strtoull(digits, NULL, 10);
        free(digits);
        total += words;
        tack_buf_printf(&details, "%s%llu", i ? "," : "", (unsigned long long)words);
      }
    }
    if (failed) {
      tack_error_result(ret, finish_message(&message));
    } else {
      tack_buf_printf(&details, "],\"total\":%llu}", (unsigned long long)total);
      tack_buf_printf(&message, "%llu words in %zu lines", (unsigned long long)total, count);
      tack_text_result(ret, finish_message(&message), finish_message(&details));
    }
    free(details.data);
    tack_task_results_free(results, count);
  }
  free(message.data);
  free(inputs);
  free(lens);
}

static void file_mode(const tack_string_t *path, tack_tool_result_t *ret) {
  char *p = tack_cstr(path);
  uint32_t mode;
  tack_string_t error;
  if (tack_file_permissions(p, &mode, &error)) {
    char text[16], details[32];
    snprintf(text, sizeof text, "%04o", (unsigned)mode);
    snprintf(details, sizeof details, "{\"mode\":%u}", (unsigned)mode);
    tack_text_result(ret, text, details);
  } else {
    char *message = tack_cstr(&error);
    tack_error_result(ret, message);
    free(message);
    plugin_string_free(&error);
  }
  free(p);
}

/* A task of count_lines: the words of one line. */
bool exports_tack_plugin_task_runner_run_task(tack_bytes_t *input, tack_bytes_t *ret,
                                              plugin_string_t *err) {
  (void)err;
  char digits[24];
  int n = snprintf(digits, sizeof digits, "%llu",
                   (unsigned long long)count_words(input->ptr, input->len));
  tack_bytes_dup(ret, digits, (size_t)n);
  plugin_list_u8_free(input);
  return true;
}

bool exports_tack_plugin_guest_init(exports_tack_plugin_guest_init_context_t *ctx,
                                    exports_tack_plugin_guest_registration_t *ret,
                                    plugin_string_t *err) {
  (void)err;
  tack_string_t word = {0};
  free(blocked_word);
  if (tack_json_get_string(&ctx->config, "blocked_word", &word) && word.len > 0) {
    blocked_word = tack_cstr(&word);
  } else {
    blocked_word = strdup("forbidden");
  }
  plugin_string_free(&word);
  exports_tack_plugin_guest_init_context_free(ctx);

  tack_log(TACK_PLUGIN_TYPES_LEVEL_INFO, "hello: blocking bash commands containing \"%s\"",
           blocked_word);
  memset(ret, 0, sizeof(*ret));
  tack_register_tool(ret, "word_count", "Word count",
                     "Counts the words (whitespace-separated) and characters of a text.",
                     "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
                     "\"description\":\"The text to count.\"}},\"required\":[\"text\"],"
                     "\"additionalProperties\":false}");
  tack_register_tool(ret, "count_lines", "Count lines",
                     "Counts the words of each line of a text, one task per line.",
                     "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
                     "\"description\":\"The text to count.\"}},\"required\":[\"text\"],"
                     "\"additionalProperties\":false}");
  tack_register_tool(ret, "file_mode", "File mode", "The Unix permission bits of a file, in octal.",
                     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
                     "\"description\":\"The file's absolute path.\"}},\"required\":[\"path\"],"
                     "\"additionalProperties\":false}");
  tack_register_command(ret, "hello", "Greet someone (and count greetings in this session)");
  tack_register_hook(ret, TACK_PLUGIN_TYPES_HOOK_KIND_BEFORE_TOOL_CALL);
  return true;
}

void exports_tack_plugin_guest_call_tool(exports_tack_plugin_guest_tool_call_t *call,
                                         exports_tack_plugin_guest_tool_result_t *ret) {
  tack_string_t text;
  if (name_is(&call->name, "count_lines") && tack_json_get_string(&call->arguments, "text", &text)) {
    count_lines(&text, ret);
    plugin_string_free(&text);
  } else if (name_is(&call->name, "file_mode") &&
             tack_json_get_string(&call->arguments, "path", &text)) {
    file_mode(&text, ret);
    plugin_string_free(&text);
  } else if (!name_is(&call->name, "word_count")) {
    tack_error_result(ret, "unknown tool");
  } else if (!tack_json_get_string(&call->arguments, "text", &text)) {
    /* The host validated the arguments against the schema, so this is a host bug. */
    tack_error_result(ret, "word_count: `text` is missing");
  } else {
    uint64_t words = 0, chars = 0;
    bool in_word = false;
    for (size_t i = 0; i < text.len; i++) {
      uint8_t c = text.ptr[i];
      /* Code points: every byte that is not a UTF-8 continuation byte starts one. */
      if ((c & 0xC0) != 0x80) chars++;
      if (is_space(c)) {
        in_word = false;
      } else if (!in_word) {
        in_word = true;
        words++;
      }
    }
    plugin_string_free(&text);
    tack_buf_t out = TACK_BUF_INIT, details = TACK_BUF_INIT;
    tack_buf_printf(&out, "%llu %s", (unsigned long long)words, words == 1 ? "word" : "words");
    tack_buf_append(&out, "", 1);
    tack_buf_printf(&details, "{\"words\":%llu,\"chars\":%llu}", (unsigned long long)words,
                    (unsigned long long)chars);
    tack_buf_append(&details, "", 1);
    tack_text_result(ret, out.data, details.data);
    free(out.data);
    free(details.data);
  }
  exports_tack_plugin_guest_tool_call_free(call);
}

bool exports_tack_plugin_guest_run_command(plugin_string_t *name, plugin_string_t *args,
                                           plugin_option_string_t *ret, plugin_string_t *err) {
  bool ok = name_is(name, "hello");
  if (!ok) {
    tack_string_printf(err, "unknown command `/%.*s`", (int)name->len, (const char *)name->ptr);
  } else {
    size_t start = 0, end = args->len;
    while (start < end && is_space(args->ptr[start])) start++;
    while (end > start && is_space(args->ptr[end - 1])) end--;
    const char *who = start == end ? "world" : (const char *)args->ptr + start;
    int who_len = start == end ? 5 : (int)(end - start);

    uint64_t count = 0;
    tack_string_t state;
    if (tack_latest_state(COUNTER_TYPE, &state)) {
      tack_json_get_u64(&state, "count", &count);
      plugin_string_free(&state);
    }
    count++;
    tack_buf_t json = TACK_BUF_INIT;
    tack_buf_printf(&json, "{\"count\":%llu}", (unsigned long long)count);
    tack_buf_append(&json, "", 1);
    ok = tack_append_state(COUNTER_TYPE, json.data, err);
    free(json.data);
    if (ok) {
      ret->is_some = true;
      tack_string_printf(&ret->val, "Hello, %.*s! (greeting %llu in this session)", who_len, who,
                         (unsigned long long)count);
    }
  }
  plugin_string_free(name);
  plugin_string_free(args);
  return ok;
}

void exports_tack_plugin_guest_before_tool_call(exports_tack_plugin_guest_tool_call_t *call,
                                                exports_tack_plugin_guest_tool_decision_t *ret) {
  tack_string_t command;
  tack_allow(ret);
  if (name_is(&call->name, "bash") && tack_json_get_string(&call->arguments, "command", &command)) {
    char *text = tack_cstr(&command);
    if (strstr(text, blocked_word)) {
      tack_buf_t reason = TACK_BUF_INIT;
      tack_buf_printf(&reason,
                      "bash commands containing \"%s\" are blocked by the hello plugin",
                      blocked_word);
      tack_buf_append(&reason, "", 1);
      tack_block(ret, reason.data);
      free(reason.data);
    }
    free(text);
    plugin_string_free(&command);
  }
  exports_tack_plugin_guest_tool_call_free(call);
}
